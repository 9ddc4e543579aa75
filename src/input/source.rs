//! The text of every input, kept for the whole run: locations and snippets are
//! computed from it after the rules ran, so it is read exactly once.

use std::sync::Arc;

pub use crate::model::origin::FileId;

#[derive(Debug)]
pub struct SourceFile {
    /// The path as given on the command line (or found under a directory given
    /// there), with `/` separators; `-` for stdin.
    pub name: String,
    /// Shared with snippets, so the text is never copied; mapped from the
    /// file when it is large.
    pub text: Arc<crate::text::mapped::Text>,
    /// Its format, which reads, locates and reads back its records.
    pub format: &'static dyn super::InputFormat,
    /// Met while walking a directory rather than named by the user: a file that
    /// is not an export is then skipped instead of failing the run.
    pub discovered: bool,
    /// Read only as the configuration of a named `.tf` file (its neighbour):
    /// its findings are counted in one notice, not reported.
    pub context: bool,
}
