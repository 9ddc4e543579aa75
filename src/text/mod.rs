//! Text utilities every stage uses: an input's text, mapped when large, the
//! input error and its place (file, line, column), positions of byte
//! offsets, RFC 6901 pointers, and bounded reads. A leaf: it imports nothing of the pipeline (only the `threads`
//! helper), so that the model, the loaders and the locators can all use it
//! without importing each other.

pub mod bounded;
pub mod error;
pub mod escape;
pub mod generated;
pub mod mapped;
pub mod pointer;
pub mod position;
