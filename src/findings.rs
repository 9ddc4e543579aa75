//! Stage 5: what the rules found, before and after locating.

use std::fmt;
use std::sync::Arc;

use crate::engine::rule::Rule;
use crate::facts::SubjectRef;
use crate::load::source::SourceFile;
use crate::locate::Located;
use crate::model::Kind;
use crate::model::origin::RecordOrigin;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Resource {
    pub kind: Kind,
    pub id: String,
    pub name: String,
}

#[derive(Debug, Clone)]
pub struct Finding {
    pub rule: Arc<Rule>,
    pub severity: Severity,
    /// The resource, to render the message from its facts when reported.
    pub subject: SubjectRef,
    /// The element of a `for_each` rule this finding is about.
    pub item: Option<String>,
    pub resource: Resource,
    pub origin: RecordOrigin,
    /// The field that triggered it, relative to the record.
    pub path: String,
}

/// Where a finding points, as every report shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub pointer: String,
    pub line: usize,
    pub column: usize,
    /// Byte range of the value, for snippets.
    pub start: usize,
    pub end: usize,
}

#[derive(Debug, Clone)]
pub struct LocatedFinding {
    pub finding: Finding,
    pub location: Location,
    /// The file, as an index into the run's files (whose `name` is as given
    /// on the command line).
    pub file_index: usize,
}

impl LocatedFinding {
    pub fn from_parts(finding: Finding, located: Located) -> Self {
        LocatedFinding {
            file_index: located.file.0 as usize,
            location: Location { pointer: located.pointer, line: located.line, column: located.column, start: located.start, end: located.end },
            finding,
        }
    }

    /// The deterministic report order: file, line, column, rule, pointer.
    pub fn sort_key<'a>(&'a self, files: &'a [SourceFile]) -> (&'a str, usize, usize, &'a str, &'a str) {
        let file = files.get(self.file_index).map_or("", |f| f.name.as_str());
        (file, self.location.line, self.location.column, &self.finding.rule.id, &self.location.pointer)
    }
}
