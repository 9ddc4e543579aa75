//! Input errors: every one names the file, the 1-based line and column, and what
//! was expected, and makes the run exit 2.

use std::fmt;

use super::position::position_of_offset;

/// How the message of a file that is not an export begins.
pub const NOT_ANALYSED: &str = "not an export edgeaudit analyses: ";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    /// Byte offset of the position in the file, for snippets; `None` when the
    /// file could not be read at all.
    pub offset: Option<usize>,
    pub message: String,
    /// True when the document parsed but is not an edge-service export: such a
    /// file is skipped when met while walking a directory.
    pub not_an_export: bool,
    /// True when what was not analysed is one resource of a file that was
    /// (a Terraform plan's resource with values known only after apply).
    pub resource: bool,
}

impl InputError {
    pub fn at_offset(file: &str, text: &str, offset: usize, message: impl Into<String>) -> Self {
        let offset = offset.min(text.len());
        let (line, column) = position_of_offset(text, offset);
        InputError {
            file: file.to_string(),
            line,
            column,
            offset: Some(offset),
            message: message.into(),
            not_an_export: false,
            resource: false,
        }
    }

    pub fn at_line_column(file: &str, line: usize, column: usize, message: impl Into<String>) -> Self {
        InputError {
            file: file.to_string(),
            line: line.max(1),
            column: column.max(1),
            offset: None,
            message: message.into(),
            not_an_export: false,
            resource: false,
        }
    }

    /// A file that could not be read at all (missing, a directory, no
    /// permission): it has no line and column, and none is shown.
    pub fn unreadable(file: &str, message: impl Into<String>) -> Self {
        InputError {
            line: 0,
            column: 0,
            ..InputError::at_line_column(file, 1, 1, message)
        }
    }

    /// Whether the error has a line and column in its file.
    pub fn has_place(&self) -> bool {
        self.line > 0
    }

    /// An error about no file: a command-line value, a rule selection.
    pub fn usage(message: impl Into<String>) -> Self {
        InputError {
            file: String::new(),
            line: 0,
            column: 0,
            offset: None,
            message: message.into(),
            not_an_export: false,
            resource: false,
        }
    }

    /// Why a skipped file was not analysed, without the words every such reason starts with.
    pub fn skip_reason(&self) -> &str {
        self.message.trim_start_matches(NOT_ANALYSED)
    }

    /// This file is not an export edgeaudit analyses, for this reason (kept at
    /// the error's place): skipped when met in a walk, an error when named.
    pub fn not_analysed(mut self, reason: impl fmt::Display) -> Self {
        self.message = format!("{NOT_ANALYSED}{reason}");
        self.not_an_export = true;
        self
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.file.is_empty() {
            return f.write_str(&self.message);
        }
        if !self.has_place() {
            return write!(f, "{}: {}", self.file, self.message);
        }
        write!(f, "{}:{}:{}: {}", self.file, self.line, self.column, self.message)
    }
}

impl std::error::Error for InputError {}

/// Every input error of a run, in order: each broken file, and in a file
/// each record edgeaudit could not read, not only the first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputErrors(pub Vec<InputError>);

impl From<InputError> for InputErrors {
    fn from(error: InputError) -> Self {
        InputErrors(vec![error])
    }
}

/// One error a line, for a terminal: an error that quotes a value with a
/// line break (a timestamp, a name) stays on its line.
impl fmt::Display for InputErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, error) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            f.write_str(&super::escape::terminal::value(&error.to_string()))?;
        }
        Ok(())
    }
}

impl std::error::Error for InputErrors {}
