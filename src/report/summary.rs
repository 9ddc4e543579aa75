use std::collections::BTreeMap;

use serde::Serialize;

use crate::check::Outcome;
use crate::findings::Severity;
use crate::model::Kind;

#[derive(Debug, Serialize)]
pub struct Summary {
    pub files: usize,
    pub skipped_files: usize,
    pub records: BTreeMap<Kind, usize>,
    pub findings: usize,
    pub by_severity: BTreeMap<&'static str, usize>,
    pub by_rule: BTreeMap<String, usize>,
}

impl Summary {
    pub fn of(outcome: &Outcome) -> Summary {
        let mut by_severity: BTreeMap<&'static str, usize> = [Severity::Error, Severity::Warning, Severity::Note]
            .iter()
            .map(|s| (s.as_str(), 0))
            .collect();
        let mut by_rule = BTreeMap::new();
        for f in &outcome.findings {
            *by_severity.entry(f.severity.as_str()).or_default() += 1;
            *by_rule.entry(f.rule.id.clone()).or_default() += 1;
        }
        Summary {
            files: outcome.files.len() - outcome.skipped.len(),
            skipped_files: outcome.skipped.len(),
            records: outcome.records.clone(),
            findings: outcome.findings.len(),
            by_severity,
            by_rule,
        }
    }

    pub fn count(&self, severity: Severity) -> usize {
        self.by_severity.get(severity.as_str()).copied().unwrap_or(0)
    }

    pub fn records_total(&self) -> usize {
        self.records.values().sum()
    }
}
