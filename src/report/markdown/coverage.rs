//! Per pool with a legacy e-mail: its recipients and events, the policies
//! that deliver them, and what no policy delivers — read from the same
//! coverage facts the LB rules judge, so the table and the findings agree.
//! Gaps first; a page holds [`MAX_POOLS`] rows and counts the rest.

use std::fmt::Write as _;

use super::super::Context;
use super::text;
use crate::facts::{Facts, SubjectRef, Value};
use crate::model::Kind;
use crate::words::plural;

/// Rows at most.
pub const MAX_POOLS: usize = 50;

struct Row {
    /// Gaps first: none, partial, unknown, full.
    order: u8,
    name: String,
    id: String,
    /// Every finding about the pool was accepted (a waiver, the baseline).
    accepted: bool,
    coverage: String,
    recipients: Vec<String>,
    events: Vec<String>,
    covering: Vec<String>,
    uncovered_events: Vec<String>,
    uncovered_recipients: Vec<String>,
}

fn items(facts: &dyn Facts, name: &str) -> Vec<String> {
    match facts.get(name).map(|f| f.value) {
        Some(Value::List(items)) => items.into_iter().map(|i| i.text).collect(),
        Some(Value::Text(t)) if !t.is_empty() => vec![t.into_owned()],
        _ => Vec::new(),
    }
}

fn word(facts: &dyn Facts, name: &str) -> String {
    match facts.get(name).map(|f| f.value) {
        Some(Value::Text(t)) => t.into_owned(),
        _ => String::new(),
    }
}

/// `a, b` escaped for a table cell; `—` for none.
fn cell(values: &[String]) -> String {
    if values.is_empty() {
        "—".to_string()
    } else {
        values.iter().map(|v| text(v)).collect::<Vec<_>>().join(", ")
    }
}

pub fn write(ctx: &Context, page: &mut String) {
    // Pools whose findings all were accepted: the table says so, as the
    // five lines leave them out.
    let mut active = std::collections::HashSet::new();
    let mut accepted = std::collections::HashSet::new();
    for f in ctx.outcome.findings.iter().filter(|f| f.subject.kind == Kind::Pool) {
        if f.is_suppressed() {
            accepted.insert(f.subject);
        } else {
            active.insert(f.subject);
        }
    }
    let mut rows = Vec::new();
    for (a, account) in ctx.analysis.inventory().accounts.iter().enumerate() {
        for (i, pool) in account.pools.iter().enumerate() {
            if pool.legacy_recipients.is_empty() {
                continue;
            }
            let subject = SubjectRef {
                account: a as u32,
                kind: Kind::Pool,
                index: i as u32,
            };
            let row = ctx.analysis.with_facts(subject, |facts| {
                let coverage = word(facts, "coverage");
                Row {
                    order: match coverage.as_str() {
                        "none" => 0,
                        "partial" => 1,
                        "unknown" => 2,
                        _ => 3,
                    },
                    name: if pool.name.is_empty() { pool.id.clone() } else { pool.name.clone() },
                    id: pool.id.clone(),
                    accepted: accepted.contains(&subject) && !active.contains(&subject),
                    coverage,
                    recipients: items(facts, "legacy_recipients"),
                    events: items(facts, "legacy_events"),
                    covering: items(facts, "covering_policies"),
                    uncovered_events: items(facts, "uncovered_events"),
                    uncovered_recipients: items(facts, "uncovered_recipients"),
                }
            });
            rows.extend(row);
        }
    }
    if rows.is_empty() {
        return;
    }
    rows.sort_by(|a, b| (a.order, &a.name).cmp(&(b.order, &b.name)));
    let total = rows.len();
    let _ = writeln!(page, "\n## Pools with a legacy e-mail: who gets which alert\n");
    let _ = writeln!(
        page,
        "| Pool | Legacy recipients | Events | Covered | Delivered by | Not delivered by any policy |\n|---|---|---|---|---|---|"
    );
    let mut names: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for row in rows.iter().take(MAX_POOLS) {
        *names.entry(row.name.as_str()).or_default() += 1;
    }
    for row in rows.iter().take(MAX_POOLS) {
        let covered = match row.coverage.as_str() {
            "full" => "yes: clear now",
            "partial" => "**partly**: create a policy first",
            "none" => "**no**: create a policy first",
            "unknown" => "not known before apply (EX005)",
            other => other,
        };
        let covered = if row.accepted {
            format!("{covered} (accepted: a waiver or the baseline)")
        } else {
            covered.to_string()
        };
        // Two pools of one name (two accounts) are told apart by their ids.
        let name = if names.get(row.name.as_str()).is_some_and(|n| *n > 1) && row.name != row.id {
            format!("{} ({})", text(&row.name), text(&row.id))
        } else {
            text(&row.name)
        };
        let mut gaps = Vec::new();
        if !row.uncovered_events.is_empty() {
            gaps.push(format!("events: {}", cell(&row.uncovered_events)));
        }
        if !row.uncovered_recipients.is_empty() {
            gaps.push(format!("recipients: {}", cell(&row.uncovered_recipients)));
        }
        let _ = writeln!(
            page,
            "| {name} | {} | {} | {covered} | {} | {} |",
            cell(&row.recipients),
            cell(&row.events),
            cell(&row.covering),
            if gaps.is_empty() { "—".to_string() } else { gaps.join("; ") }
        );
    }
    if total > MAX_POOLS {
        let _ = writeln!(
            page,
            "\n{} not shown (the gaps come first); `--format json` has every finding.",
            plural(total - MAX_POOLS, "more pool", "more pools")
        );
    }
}
