//! Between findings and reports: which findings a team has already accepted —
//! by a waiver in its config or by a baseline — and notes about waivers and
//! baseline entries that no longer do anything. Suppressed findings are kept
//! (SARIF reports them with `suppressions`); they just do not fail the run.

pub mod baseline;
pub mod glob;
pub mod waiver;

use std::collections::HashMap;

use chrono::NaiveDate;

use self::baseline::{Baseline, Entry, fingerprint};
use self::waiver::{Names, Waiver};
use crate::findings::{Finding, Resource};
use crate::words::plural;

/// A place in one of edgeaudit's own files (config, baseline).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Place {
    pub file: String,
    pub line: usize,
    pub column: usize,
}

pub use crate::findings::Suppression;

/// Something about the run's own configuration a user should act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// Stable: `waiver-expired`, `waiver-unmatched`, `baseline-stale`,
    /// `as-of-before-export`, `no-policies-loaded`, `outside-named-files`.
    pub code: &'static str,
    pub message: String,
    pub place: Place,
}

impl Notice {
    /// `file:line:col: note[code]: message`, as the line formats write it.
    pub fn line(&self) -> String {
        format!(
            "{}:{}:{}: note[{}]: {}",
            self.place.file, self.place.line, self.place.column, self.code, self.message
        )
    }
}

/// What the run was asked to accept.
#[derive(Debug, Default)]
pub struct Triage {
    pub waivers: Vec<Waiver>,
    pub baseline: Option<Baseline>,
    /// Record today's findings (those no waiver covers) as the baseline, in this file.
    pub write_baseline: Option<String>,
}

#[derive(Debug, Default)]
pub struct Triaged {
    pub waivers: Vec<Waiver>,
    /// The baseline the findings were compared with: the one read, or the one written.
    pub baseline: Option<Baseline>,
    /// True when `baseline` is one this run recorded (the caller writes the file).
    pub baseline_is_new: bool,
    pub notices: Vec<Notice>,
}

/// A finding's identity, the baseline's fingerprint: rule, resource
/// (`kind/id`), the field inside the record without array indices, and the
/// element for per-element rules — never the file, line or record order.
/// The second copy of a resource loaded twice (EX002) is its own finding.
pub fn finding_fingerprint(f: &Finding, resource: &Resource) -> String {
    let item = match (&f.item, &f.elsewhere) {
        (_, Some(_)) => Some("(the other copy)"),
        (item, None) => item.as_deref(),
    };
    fingerprint(&f.rule.id, &resource_name(resource, f), &field(&f.path), item)
}

/// The field a finding points at inside its record, without array indices
/// (`/certificates/0/expires_on` → `/certificates/expires_on`): the API does
/// not promise an order, and the element, when it matters, is the finding's
/// item.
fn field(path: &str) -> std::borrow::Cow<'_, str> {
    if !path.bytes().any(|b| b.is_ascii_digit()) {
        return path.into();
    }
    path.split('/')
        .filter(|token| token.is_empty() || !token.bytes().all(|b| b.is_ascii_digit()))
        .collect::<Vec<_>>()
        .join("/")
        .into()
}

/// `kind/id`; a record exported without an id (hand-made exports) is named
/// by its name instead, and one with neither by where it is, so that two
/// such records are never one finding.
fn resource_name(resource: &Resource, f: &Finding) -> String {
    // Exports that name no account form one unnamed account: `account/`.
    if let Some(configuration) = &resource.configuration {
        format!("{}/{}@{configuration}", resource.kind, resource.id)
    } else if !resource.id.is_empty() || resource.kind == crate::model::Kind::Account {
        // Nearly every finding: without `format!`, which cost as much as the rest of the name.
        [resource.kind.as_str(), "/", &resource.id].concat()
    } else if let Some(address) = &resource.address {
        // A resource Terraform will create has no id yet: its address is its identity.
        format!("{}/address={address}", resource.kind)
    } else if !resource.name.is_empty() {
        format!("{}/name={}", resource.kind, resource.name)
    } else {
        format!("{}/at={}", resource.kind, f.location.pointer)
    }
}

/// Marks the suppressed findings and says what the waivers and the baseline
/// did.
pub fn apply<'a>(findings: &mut [Finding], resource_of: impl Fn(&Finding) -> Resource<'a>, as_of: NaiveDate, triage: Triage) -> Triaged {
    let Triage {
        waivers,
        baseline,
        write_baseline,
    } = triage;
    let mut live_hits = vec![0usize; waivers.len()];
    let mut expired_hits = vec![0usize; waivers.len()];
    // Which baseline entries some finding still matches.
    let mut seen = vec![false; baseline.as_ref().map_or(0, |b| b.entries.len())];
    let mut entries = Vec::new();
    let fingerprints_needed = baseline.is_some() || write_baseline.is_some();
    if waivers.is_empty() && !fingerprints_needed {
        return Triaged::default();
    }
    let expired: Vec<bool> = waivers.iter().map(|w| w.is_expired(as_of)).collect();
    // The waivers whose rule pattern takes each rule id, worked out once per
    // rule rather than once per finding.
    let mut by_rule: HashMap<String, Vec<usize>> = HashMap::new();
    for f in findings.iter_mut() {
        let resource = resource_of(f);
        if !waivers.is_empty() {
            if !by_rule.contains_key(&f.rule.id) {
                let takes: Vec<usize> = (0..waivers.len())
                    .filter(|&i| glob::matches(&waivers[i].rule, &f.rule.id))
                    .collect();
                by_rule.insert(f.rule.id.clone(), takes);
            }
            let candidates = &by_rule[&f.rule.id];
            if !candidates.is_empty() {
                let names = Names::of(&resource);
                let matching: Vec<usize> = candidates
                    .iter()
                    .copied()
                    .filter(|&i| waivers[i].matches_resource(&names))
                    .collect();
                match matching.iter().find(|&&i| !expired[i]) {
                    Some(&i) => {
                        live_hits[i] += 1;
                        f.suppression = Some(Suppression::Waiver(i as u32));
                    }
                    None => {
                        for i in matching {
                            expired_hits[i] += 1;
                        }
                    }
                }
            }
        }
        if !fingerprints_needed {
            continue;
        }
        let print = finding_fingerprint(f, &resource);
        if let Some(i) = baseline.as_ref().and_then(|b| b.position(&print)) {
            seen[i] = true;
            if f.suppression.is_none() && write_baseline.is_none() {
                f.suppression = Some(Suppression::Baseline);
            }
        }
        if write_baseline.is_some() && f.suppression.is_none() {
            f.suppression = Some(Suppression::Baseline);
            entries.push(Entry {
                fingerprint: print,
                rule: f.rule.id.clone(),
                resource: resource_name(&resource, f),
                name: resource.name.to_string(),
                field: field(&f.path).into_owned(),
                item: f.item.clone(),
            });
        }
    }

    let mut notices = Vec::new();
    for (i, w) in waivers.iter().enumerate() {
        let what = format!("waiver for {} on {}", w.rule, w.resource);
        match w.expires {
            Some(date) if expired[i] => notices.push(Notice {
                code: "waiver-expired",
                message: match expired_hits[i] {
                    0 => format!("{what} expired on {date} and matches no finding: remove it"),
                    n => format!(
                        "{what} expired on {date}; the {} it matches {} reported again (reason was: {})",
                        plural(n, "finding", "findings"),
                        if n == 1 { "is" } else { "are" },
                        w.reason
                    ),
                },
                place: w.place.clone(),
            }),
            _ if live_hits[i] == 0 => notices.push(Notice {
                code: "waiver-unmatched",
                message: format!("{what} matched no finding: remove it, or check its rule and resource (`kind/id` or `kind/name`)"),
                place: w.place.clone(),
            }),
            _ => {}
        }
    }
    let written = write_baseline.map(|file| Baseline::new(&file, entries));
    if written.is_none()
        && let Some(b) = &baseline
    {
        let mut stale = b
            .entries
            .iter()
            .enumerate()
            // A fingerprint written twice is one entry: its first index holds the mark.
            .filter(|(_, entry)| !b.position(&entry.fingerprint.to_ascii_lowercase()).is_some_and(|i| seen[i]));
        for (i, entry) in stale.by_ref().take(STALE_LISTED) {
            let name = if entry.name.is_empty() {
                String::new()
            } else {
                format!(" ({})", entry.name)
            };
            notices.push(Notice {
                code: "baseline-stale",
                message: format!(
                    "baseline entry {} on {}{name} no longer occurs: rewrite the baseline with --write-baseline to drop it",
                    entry.rule, entry.resource
                ),
                place: b.place(i),
            });
        }
        // A baseline of a million entries that no longer occur is one note
        // more, not a million: every report stays readable.
        if let Some((first, _)) = stale.next() {
            let more = 1 + stale.count();
            notices.push(Notice {
                code: "baseline-stale",
                message: format!(
                    "{} no longer {} (the first {STALE_LISTED} are listed above): rewrite the baseline with --write-baseline to drop them",
                    plural(more, "more baseline entry", "more baseline entries"),
                    if more == 1 { "occurs" } else { "occur" },
                ),
                place: b.place(first),
            });
        }
    }
    Triaged {
        waivers,
        baseline_is_new: written.is_some(),
        baseline: written.or(baseline),
        notices,
    }
}

/// Stale baseline entries listed one by one; the rest are counted in one note.
const STALE_LISTED: usize = 20;

#[cfg(test)]
mod tests {
    #[test]
    fn fields_drop_array_indices() {
        assert_eq!(super::field("/certificates/0/expires_on"), "/certificates/expires_on");
        assert_eq!(super::field("/filters/pool_id/12"), "/filters/pool_id");
        assert_eq!(super::field("/notification_email"), "/notification_email");
        assert_eq!(super::field(""), "");
        assert_eq!(super::field("/a1/2b"), "/a1/2b");
    }
}
