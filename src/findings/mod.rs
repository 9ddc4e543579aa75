//! Stage 5: what the rules found. A finding is small: it refers to its
//! resource by [`SubjectRef`] and its message is rendered when a report
//! writes it, so a million findings stay cheap.

pub mod evaluate;
pub mod unjudged;

use std::borrow::Cow;
use std::sync::Arc;

use crate::engine::rule::Rule;
use crate::facts::{Analysis, SubjectRef};
use crate::model::Kind;

pub use crate::engine::severity::Severity;

/// The least severity that fails a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    Error,
    Warning,
    Note,
    Never,
}

impl FailOn {
    pub fn fails(self, severity: Severity) -> bool {
        match self {
            FailOn::Error => severity >= Severity::Error,
            FailOn::Warning => severity >= Severity::Warning,
            FailOn::Note => true,
            FailOn::Never => false,
        }
    }
}

impl Severity {
    pub fn parse(s: &str) -> Option<Severity> {
        match s {
            "error" => Some(Severity::Error),
            "warning" => Some(Severity::Warning),
            "note" => Some(Severity::Note),
            _ => None,
        }
    }
}

/// The resource a finding is about, as reports show it (borrowed from the
/// inventory).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Resource<'a> {
    pub kind: Kind,
    pub id: Cow<'a, str>,
    pub name: Cow<'a, str>,
    /// The Terraform address, for a resource read from Terraform.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<Cow<'a, str>>,
    /// For a resource of Terraform source, whose id is a reference
    /// (`${cloudflare_load_balancer_pool.web.id}`) until apply: its
    /// configuration (`terraform:<dir>`), without which two configurations'
    /// `web` pools would be one resource to baselines and code scanning.
    #[serde(skip)]
    pub configuration: Option<Cow<'a, str>>,
}

pub use crate::words::{SHOWN_WHOLE, shown};

impl<'a> Resource<'a> {
    /// With its id and name as reports show them.
    pub fn shown(self) -> Resource<'a> {
        let cap = |c: Cow<'a, str>| match c {
            Cow::Borrowed(s) => shown(s),
            Cow::Owned(s) => Cow::Owned(shown(&s).into_owned()),
        };
        Resource {
            kind: self.kind,
            id: cap(self.id),
            name: cap(self.name),
            address: self.address.map(cap),
            configuration: self.configuration,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Finding {
    pub rule: Arc<Rule>,
    pub severity: Severity,
    /// The resource: its facts render the message; its origin locates the finding.
    pub subject: SubjectRef,
    /// The element of a `for_each` rule this finding is about.
    pub item: Option<String>,
    /// The rule's phase at the as-of date, which chose the severity and message.
    pub phase: Option<usize>,
    /// The field that triggered it, relative to the record.
    pub path: Cow<'static, str>,
    /// The record the finding is at when it is not its subject's own (the
    /// other copy of a resource loaded twice).
    pub elsewhere: Option<Box<crate::model::origin::RecordOrigin>>,
    /// Filled in by the locate stage.
    pub location: Location,
    /// Set by the triage stage when a waiver or the baseline accepts it.
    pub suppression: Option<Suppression>,
}

impl Finding {
    /// The resource it is about, as the analysis names it.
    pub fn resource<'a>(&self, analysis: &Analysis<'a>) -> Resource<'a> {
        match analysis.subject(self.subject) {
            Some(s) => {
                let id = s.id.text();
                Resource {
                    kind: s.kind,
                    configuration: (crate::model::terraform::is_reference(&id) && s.origin.address().is_some())
                        .then(|| analysis.inventory().accounts.get(self.subject.account as usize)?.id.as_deref())
                        .flatten()
                        .map(Cow::Borrowed),
                    id,
                    name: Cow::Borrowed(s.name),
                    address: s.origin.address().map(|a| Cow::Borrowed(&**a)),
                }
            }
            None => Resource {
                kind: self.subject.kind,
                id: Cow::Borrowed(""),
                name: Cow::Borrowed(""),
                address: None,
                configuration: None,
            },
        }
    }

    pub fn is_suppressed(&self) -> bool {
        self.suppression.is_some()
    }
}

/// Where a finding points, as every report shows it: the locate stage's result.
pub use crate::input::locate::Located as Location;

/// Why a finding does not count: accepted by a waiver or the baseline
/// (set by the triage stage).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Suppression {
    /// By the waiver at this index of `triage::Triaged::waivers` (a u32 keeps a
    /// million findings' suppressions at 8 bytes each).
    Waiver(u32),
    /// Recorded in the baseline.
    Baseline,
}
