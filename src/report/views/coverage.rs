//! Each pool with a legacy e-mail: its recipients and events, the policies
//! that deliver them and what no policy delivers, read from the same
//! coverage facts the LB rules judge, so that every report's pictures and
//! the findings agree. Gaps first.

use super::super::Context;
use crate::facts::{Facts, SubjectRef, Value};
use crate::model::Kind;

pub struct Row {
    /// Gaps first: none, partial, unknown, full.
    pub order: u8,
    pub name: String,
    pub id: String,
    /// Every finding about the pool was accepted (a waiver, the baseline).
    pub accepted: bool,
    pub coverage: String,
    pub recipients: Vec<String>,
    pub events: Vec<String>,
    pub covering: Vec<String>,
    pub uncovered_events: Vec<String>,
    pub uncovered_recipients: Vec<String>,
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

/// The rows, gaps first (no policy, then partly, then unknown, then covered), by name.
pub fn rows(ctx: &Context) -> Vec<Row> {
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
    rows.sort_by(|a, b| (a.order, &a.name).cmp(&(b.order, &b.name)));
    rows
}
