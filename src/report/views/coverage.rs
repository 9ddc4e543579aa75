//! Each pool with a legacy e-mail: its recipients and events, the policies
//! that deliver them and what no policy delivers, read from the same
//! coverage facts the LB rules judge, so that every report's pictures and
//! the findings agree. Gaps first.

use super::super::Context;
use crate::facts::catalogue::{Entries, Key, keys};
use crate::facts::coverage::Coverage;
use crate::facts::{Facts, SubjectRef};
use crate::model::Kind;

pub struct Row {
    /// Gaps first: none, partial, unknown, full.
    pub order: u8,
    pub name: String,
    pub id: String,
    /// Every finding about the pool was accepted (a waiver, the baseline).
    pub accepted: bool,
    /// `None` only when the fact is not one of its values (never, today).
    pub coverage: Option<Coverage>,
    pub recipients: Vec<String>,
    pub events: Vec<String>,
    pub covering: Vec<String>,
    pub uncovered_events: Vec<String>,
    pub uncovered_recipients: Vec<String>,
}

fn items(facts: &dyn Facts, key: Key<Entries>) -> Vec<String> {
    key.of(facts)
        .map(|items| items.into_iter().map(|i| i.text).collect())
        .unwrap_or_default()
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
            // A pool that may not exist has no coverage to show (EX005 says so).
            if pool.legacy_recipients.is_empty() || account.may_exist(&pool.origin) {
                continue;
            }
            let subject = SubjectRef {
                account: a as u32,
                kind: Kind::Pool,
                index: i as u32,
            };
            let row = ctx.analysis.with_facts(subject, |facts| {
                let coverage = keys::COVERAGE.of(facts).and_then(|c| Coverage::parse(&c));
                Row {
                    order: match coverage {
                        Some(Coverage::None) => 0,
                        Some(Coverage::Partial) => 1,
                        Some(Coverage::Unknown) => 2,
                        _ => 3,
                    },
                    name: if pool.name.is_empty() { pool.id.clone() } else { pool.name.clone() },
                    id: pool.id.clone(),
                    accepted: accepted.contains(&subject) && !active.contains(&subject),
                    coverage,
                    recipients: items(facts, keys::LEGACY_RECIPIENTS),
                    events: items(facts, keys::LEGACY_EVENTS),
                    covering: items(facts, keys::COVERING_POLICIES),
                    uncovered_events: items(facts, keys::UNCOVERED_EVENTS),
                    uncovered_recipients: items(facts, keys::UNCOVERED_RECIPIENTS),
                }
            });
            rows.extend(row);
        }
    }
    rows.sort_by(|a, b| (a.order, &a.name).cmp(&(b.order, &b.name)));
    rows
}
