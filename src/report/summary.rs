use std::collections::BTreeMap;

use serde::Serialize;

use crate::check::Outcome;
use crate::findings::Severity;
use crate::model::Kind;
use crate::triage::Suppression;

#[derive(Debug, Serialize)]
pub struct Summary {
    pub files: usize,
    pub skipped_files: usize,
    /// Resources of analysed files that were not analysed (listed in `skipped` too).
    pub skipped_resources: usize,
    /// Each file that was not analysed, and why: a run that left something
    /// out says so in every format.
    pub skipped: Vec<SkippedFile>,
    pub records: BTreeMap<Kind, usize>,
    /// Terraform resources whose `count` or `for_each` is not known before a
    /// run, by kind: counted in no total, `records` included (present only then).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub may_exist: BTreeMap<Kind, usize>,
    /// Resources loaded more than once with the same content, counted once
    /// (copies that differ are EX002 findings).
    pub duplicate_copies: usize,
    /// Resources of a Terraform state joined with their `.tf` source block
    /// (a state committed beside its source): one resource each, counted once.
    pub joined_with_source: usize,
    pub findings: usize,
    pub by_severity: BTreeMap<&'static str, usize>,
    pub by_rule: BTreeMap<String, usize>,
    /// Findings a waiver or the baseline accepted (not counted above).
    pub suppressed: Suppressed,
    /// Notes about waivers and baseline entries.
    pub notices: usize,
    /// Rules that did not run on some subjects because a value was not
    /// known (present only then).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_judged: Vec<crate::findings::unjudged::NotJudged>,
    /// The traffic read (`--traffic`, present only then): every request, and
    /// those of the resources with certificate findings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub traffic: Option<TrafficSummary>,
}

/// What the traffic said, in all.
#[derive(Debug, Serialize)]
pub struct TrafficSummary {
    pub files: usize,
    /// Requests from end users' clients read, served by the exports' resources or not.
    pub requests: u64,
    pub impacted: u64,
    pub unknown: u64,
    pub already_broken: u64,
    /// Requests no end user's client made (the service's own, Worker subrequests): not counted.
    pub excluded: u64,
    /// Crawlers' requests (bots the service verified, known crawler tokens): not counted.
    pub crawlers: u64,
    /// Requests from impacted clients to the resources of certificate findings.
    pub impacted_on_findings: u64,
    pub window: Option<crate::traffic::impact::WindowJson>,
    pub sample_rate: f64,
}

impl TrafficSummary {
    /// `Traffic: 1,270 requests from end users in 1 file, from … to …, 1,049 of them from impacted clients (82.6 %), …`
    pub fn line(&self) -> String {
        let window = self
            .window
            .as_ref()
            .map_or(String::new(), |w| format!(", from {} to {}", w.from, w.to));
        let share = if self.requests > 0 {
            format!(
                " ({})",
                crate::traffic::impact::percent(self.impacted as f64 / self.requests as f64)
            )
        } else {
            String::new()
        };
        format!(
            "Traffic: {} requests from end users in {}{window}, {} of them from impacted clients{share}, {} of those to the resources of these findings{}{}.",
            crate::words::thousands(self.requests),
            crate::words::plural(self.files, "file", "files"),
            crate::words::thousands(self.impacted),
            crate::words::thousands(self.impacted_on_findings),
            if self.crawlers > 0 {
                format!(
                    "; {} {} from crawlers left out",
                    crate::words::thousands(self.crawlers),
                    if self.crawlers == 1 { "request" } else { "requests" }
                )
            } else {
                String::new()
            },
            if self.sample_rate < 1.0 {
                format!(" (sampled at {}, counts scaled)", self.sample_rate)
            } else {
                String::new()
            }
        )
    }

    pub fn of(outcome: &crate::check::Outcome) -> Option<TrafficSummary> {
        let traffic = outcome.traffic.as_ref()?;
        // Each resource once, however many findings it has.
        let mut seen = std::collections::HashSet::new();
        let impacted_on_findings = outcome
            .active()
            .filter(|f| seen.insert(f.subject))
            .filter_map(|f| traffic.of_finding(f))
            .map(|i| i.impacted)
            .sum();
        let round = |n: f64| if n.is_finite() && n > 0.0 { n.round() as u64 } else { 0 };
        Some(TrafficSummary {
            files: traffic.files,
            requests: round(traffic.total.requests),
            impacted: round(traffic.total.impacted),
            unknown: round(traffic.total.unknown),
            already_broken: round(traffic.total.already_broken),
            excluded: round(traffic.excluded),
            crawlers: round(traffic.crawlers),
            impacted_on_findings,
            window: traffic.window.as_ref().map(crate::traffic::impact::WindowJson::of),
            sample_rate: traffic.sample_rate,
        })
    }
}

#[derive(Debug, Serialize)]
pub struct SkippedFile {
    pub file: String,
    pub reason: String,
    /// Where the resource is, when one resource of the file was not analysed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

impl SkippedFile {
    pub fn all(outcome: &Outcome) -> Vec<SkippedFile> {
        outcome
            .skipped
            .iter()
            .map(|e| SkippedFile {
                file: e.file.clone(),
                reason: e.skip_reason().to_string(),
                line: e.resource.then_some(e.line),
                column: e.resource.then_some(e.column),
            })
            .collect()
    }
}

#[derive(Debug, Default, Serialize)]
pub struct Suppressed {
    pub waived: usize,
    pub baseline: usize,
}

impl Summary {
    pub fn of(outcome: &Outcome) -> Summary {
        let mut by_severity: BTreeMap<&'static str, usize> = Severity::ALL.iter().map(|s| (s.as_str(), 0)).collect();
        let mut by_rule = BTreeMap::new();
        let mut suppressed = Suppressed::default();
        let mut findings = 0;
        for f in &outcome.findings {
            match f.suppression {
                Some(Suppression::Waiver(_)) => suppressed.waived += 1,
                Some(Suppression::Baseline) => suppressed.baseline += 1,
                None => {
                    findings += 1;
                    *by_severity.entry(f.severity.as_str()).or_default() += 1;
                    *by_rule.entry(f.rule.id.clone()).or_default() += 1;
                }
            }
        }
        Summary {
            files: outcome.analysed_files,
            skipped_files: outcome.skipped.iter().filter(|e| !e.resource).count(),
            skipped_resources: outcome.skipped.iter().filter(|e| e.resource).count(),
            skipped: SkippedFile::all(outcome),
            records: outcome.records.clone(),
            may_exist: outcome.may_exist.clone(),
            duplicate_copies: outcome.duplicates,
            joined_with_source: outcome.joined,
            findings,
            by_severity,
            by_rule,
            suppressed,
            notices: outcome.triage.notices.len(),
            not_judged: outcome.not_judged.clone(),
            traffic: TrafficSummary::of(outcome),
        }
    }

    pub fn count(&self, severity: Severity) -> usize {
        self.by_severity.get(severity.as_str()).copied().unwrap_or(0)
    }

    pub fn suppressed_total(&self) -> usize {
        self.suppressed.waived + self.suppressed.baseline
    }

    pub fn records_total(&self) -> usize {
        self.records.values().sum()
    }

    /// `12 records`, and `; 5 pools that may exist (not counted)` when some may.
    pub fn records_words(&self) -> String {
        let records = crate::words::plural(self.records_total(), "record", "records");
        match self.may_exist_words().as_str() {
            "" => records,
            may_exist => format!("{records}; {may_exist}"),
        }
    }

    /// `5 pools that may exist (not counted)`, for the line that counts
    /// records; empty when every resource's existence is known.
    pub fn may_exist_words(&self) -> String {
        if self.may_exist.is_empty() {
            return String::new();
        }
        let kinds: Vec<String> = self
            .may_exist
            .iter()
            .map(|(kind, n)| {
                let (one, many) = kind.nouns();
                crate::words::plural(*n, one, many)
            })
            .collect();
        let kinds: Vec<&str> = kinds.iter().map(String::as_str).collect();
        format!("{} that may exist (not counted)", crate::words::list(&kinds))
    }
}
