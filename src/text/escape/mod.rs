//! One escaping step per kind of output. Every string that comes from an
//! input file, the live service, a rule pack or a plan file is untrusted: a
//! pool, policy or hostname name is chosen by whoever can create one in the
//! account. It reaches an output only through the step of that output's
//! kind, here, and each output's writer is built on its step:
//!
//! - [`terminal`]: terminal and log text (every human format, every line on
//!   standard error): nothing that acts on a terminal, and no CI workflow
//!   command (`::cmd::`, `##[cmd]`, `##vso[cmd]`);
//! - [`markdown`]: data only inside code spans, never as Markdown;
//! - [`hcl`]: data only inside HCL strings, and comments of one line;
//! - [`csv`]: no cell a spreadsheet takes for a formula;
//! - [`xml`]: only characters XML 1.0 allows, markup escaped.
//!
//! JSON, SARIF and HTML have their own escaping in their writers
//! (`report::pretty`, `html`); their text is also kept free of `##[` by
//! [`terminal::WorkflowSafe`] where a CI log may show it.

pub mod csv;
pub mod hcl;
pub mod markdown;
pub mod terminal;
pub mod xml;
