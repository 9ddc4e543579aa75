//! What a run says about its inputs beside the findings: notes at a place
//! in the exports, shown in every format with the waiver and baseline notes
//! (they change no exit code). An as-of date earlier than what the exports
//! record; pools with legacy e-mails and no notification policy loaded.

use chrono::NaiveDate;

use crate::findings::unjudged::{MADE_AFTER_AS_OF, NotJudged};
use crate::model::Inventory;
use crate::model::origin::RecordOrigin;

/// The notice of an as-of date earlier than the exports' newest timestamp.
pub const AS_OF_BEFORE_EXPORT: &str = "as-of-before-export";

/// The notice of pools with legacy e-mails in an account with no policy loaded.
pub const NO_POLICIES_LOADED: &str = "no-policies-loaded";

/// The notice of certificate findings whose share of impacted requests is a
/// lower bound (survivorship: clients that failed left no line).
pub const IMPACT_LOWER_BOUND: &str = "impact-lower-bound";

/// One notice for the certificate findings whose traffic window starts after
/// their resource stopped serving the cross-signed chain: an impacted client
/// that could not connect left no line, so their shares are lower bounds.
pub fn impact_lower_bound(
    traffic: &crate::traffic::impact::TrafficImpact,
    findings: &[crate::findings::Finding],
    files: &[crate::input::source::SourceFile],
) -> Option<crate::triage::Notice> {
    let bounded: Vec<&crate::findings::Finding> = findings
        .iter()
        .filter(|f| traffic.of_finding(f).is_some_and(|i| i.lower_bound && i.requests > 0))
        .collect();
    let first = bounded.first()?;
    let window = traffic.window?;
    Some(crate::triage::Notice {
        code: IMPACT_LOWER_BOUND,
        message: format!(
            "the traffic starts on {}, after {} stopped serving the cross-signed chain: an impacted client that could not connect left no line, so {} shares of impacted requests are lower bounds; traffic from before 2024-09-09 (or from another CA) measures them",
            window.from.date_naive(),
            crate::words::plural(bounded.len(), "resource", "resources"),
            if bounded.len() == 1 { "its" } else { "their" }
        ),
        place: crate::triage::Place {
            file: files
                .get(first.location.file.0 as usize)
                .map_or_else(String::new, |f| f.name.clone()),
            line: first.location.line,
            column: first.location.column,
        },
    })
}

/// The notice of findings in the other files of a named `.tf` file's
/// configuration, counted and not reported.
pub const OUTSIDE_NAMED_FILES: &str = "outside-named-files";

/// The findings about resources of files read only as a named `.tf` file's
/// configuration (pre-commit names the files that changed), and located
/// there: taken out, and counted in one notice at the first named file. A
/// finding about a resource of a named file stays wherever it points (a
/// pool's coverage left open by a value in a policy of another file).
/// Waivers and the baseline have already seen them.
pub fn outside_named_files(
    files: &[crate::input::source::SourceFile],
    findings: &mut Vec<crate::findings::Finding>,
    subject_file: impl Fn(&crate::findings::Finding) -> Option<crate::model::origin::FileId>,
) -> Option<crate::triage::Notice> {
    if !files.iter().any(|f| f.context) {
        return None;
    }
    let in_context = |file: u32| files.get(file as usize).is_some_and(|s| s.context);
    let context = |f: &crate::findings::Finding| {
        in_context(f.location.file.0) && f.location.line > 0 && subject_file(f).is_none_or(|file| in_context(file.0))
    };
    let mut by_file: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for f in findings.iter().filter(|f| context(f) && !f.is_suppressed()) {
        let name = files.get(f.location.file.0 as usize).map_or("", |s| s.name.as_str());
        *by_file.entry(name).or_default() += 1;
    }
    findings.retain(|f| !context(f));
    if by_file.is_empty() {
        return None;
    }
    let total: usize = by_file.values().sum();
    let each: Vec<String> = by_file.iter().map(|(file, n)| format!("{file}: {n}")).collect();
    let named = files
        .iter()
        .find(|f| !f.context && f.format.is_configuration())
        .or(files.iter().find(|f| !f.context))?;
    Some(crate::triage::Notice {
        code: OUTSIDE_NAMED_FILES,
        message: format!(
            "{} in the other files of the named files' Terraform configuration, read only because the named files need them ({}), {} not reported: check the directory to see {}",
            crate::words::plural(total, "finding", "findings"),
            each.join(", "),
            if total == 1 { "is" } else { "are" },
            if total == 1 { "it" } else { "them" }
        ),
        place: crate::triage::Place {
            file: named.name.clone(),
            line: 1,
            column: 1,
        },
    })
}

/// A note, at a field of a record.
#[derive(Debug, Clone)]
pub struct RunNote {
    pub code: &'static str,
    pub message: String,
    pub origin: RecordOrigin,
    pub path: String,
}

/// Every note of a run, in order.
pub fn of_run(inventory: &Inventory, as_of: NaiveDate, not_judged: &[NotJudged]) -> Vec<RunNote> {
    let mut notes: Vec<RunNote> = as_of_before_export(inventory, as_of, not_judged).into_iter().collect();
    notes.extend(policies_missing(inventory));
    notes
}

/// When the as-of date is earlier than the newest moment the exports
/// record: that moment, and what the replay makes of it.
fn as_of_before_export(inventory: &Inventory, as_of: NaiveDate, not_judged: &[NotJudged]) -> Option<RunNote> {
    let newest = inventory
        .accounts
        .iter()
        .filter_map(crate::model::as_of::newest)
        .max_by_key(|n| n.at)
        .filter(|n| n.at.date_naive() > as_of)?;
    let left_out: usize = not_judged.iter().filter(|n| n.why == MADE_AFTER_AS_OF).map(|n| n.subjects).sum();
    let message = format!(
        "the as-of date {as_of} is earlier than this timestamp ({}, a {}'s {}), the newest the exports record: the replay leaves out {} made after {as_of} and judges the rest as exported, which may not be how they stood on {as_of}",
        newest.at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        newest.kind.as_str(),
        newest.path.rsplit('/').next().unwrap_or_default(),
        crate::words::plural(left_out, "resource", "resources"),
    );
    Some(RunNote {
        code: AS_OF_BEFORE_EXPORT,
        message,
        origin: newest.origin,
        path: newest.path,
    })
}

/// Accounts whose pools carry legacy e-mails while no notification policy
/// of theirs was loaded: every such pool is LB001, which is true only when
/// the account really has no policy — an export of pools checked alone
/// says the same. At the account's first pools list (as `plan` warns, by
/// the same test).
fn policies_missing(inventory: &Inventory) -> Vec<RunNote> {
    inventory
        .accounts
        .iter()
        .filter(|a| !a.policies_loaded())
        .filter_map(|a| {
            // A pool that may not exist is EX005, not LB001.
            let legacy = a.existing_pools().filter(|p| !p.legacy_recipients.is_empty()).count();
            // The pools list, or the first pool where pools come one by one (Terraform).
            let list = a.pool_lists.first().or_else(|| a.pools.first().map(|p| &p.origin))?;
            (legacy > 0).then(|| RunNote {
                code: NO_POLICIES_LOADED,
                message: format!(
                    "no notification policy was loaded for the account of these pools, so every pool with a legacy e-mail ({}) is LB001 (\"no policy covers it\"): if the account has policies, add their export (GET /accounts/{{account_id}}/alerting/v3/policies, or `edgeaudit export`) and run again",
                    crate::words::plural(legacy, "pool", "pools")
                ),
                origin: list.clone(),
                path: String::new(),
            })
        })
        .collect()
}
