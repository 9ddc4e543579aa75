//! What the pictures of a report are drawn from — each pool's coverage and
//! the certificates' timeline — computed once here so that the Markdown and
//! the HTML report show the same thing.

pub mod coverage;
pub mod overview;
pub mod timeline;
