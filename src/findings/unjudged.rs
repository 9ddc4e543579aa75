//! What the rules did not judge, counted for `--statistics` and the JSON
//! summary: resources a value of which is not known before apply (a
//! Terraform variable, a reference; EX005 says it per resource), and
//! resources made after the as-of date, which the account did not yet hold.

use chrono::NaiveDate;
use serde::Serialize;

use crate::engine::RuleSet;
use crate::engine::condition::Condition;
use crate::facts::Analysis;
use crate::model::Kind;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotJudged {
    /// The rules that did not run on these subjects.
    pub rules: Vec<String>,
    pub kind: Kind,
    pub subjects: usize,
    pub why: &'static str,
}

/// Why a resource made after the as-of date is not judged.
pub const MADE_AFTER_AS_OF: &str =
    "made after the as-of date (its uploaded_on, created_at or created_on is later): the account did not hold it then";

const VALUE_UNKNOWN: &str = "a value these rules read is not known before apply (EX005 names it, at the value)";

pub fn not_judged(rules: &RuleSet, analysis: &Analysis, as_of: NaiveDate) -> Vec<NotJudged> {
    let mut out = made_after(rules, analysis, as_of);
    out.extend(value_unknown(rules, analysis, as_of));
    out
}

/// Resources made after the as-of date, by kind; every rule of the kind
/// passed them by.
fn made_after(rules: &RuleSet, analysis: &Analysis, as_of: NaiveDate) -> Vec<NotJudged> {
    let mut by_kind: std::collections::BTreeMap<Kind, usize> = Default::default();
    for account in &analysis.inventory().accounts {
        for (kind, n) in crate::model::as_of::made_after(account, as_of) {
            *by_kind.entry(kind).or_default() += n;
        }
    }
    by_kind
        .into_iter()
        .map(|(kind, subjects)| NotJudged {
            rules: rules
                .rules
                .iter()
                .filter(|r| r.subjects.contains(&kind) && r.is_effective(as_of))
                .map(|r| r.id.clone())
                .collect(),
            kind,
            subjects,
            why: MADE_AFTER_AS_OF,
        })
        .collect()
}

fn value_unknown(rules: &RuleSet, analysis: &Analysis, as_of: NaiveDate) -> Vec<NotJudged> {
    // Resources judged in part: counted by kind and the rules that could not
    // judge them. Only accounts with unknown values have any.
    let mut partly: std::collections::BTreeMap<(Kind, Vec<String>), usize> = Default::default();
    let in_effect = super::evaluate::InEffect::new(rules, as_of);
    let accounts = &analysis.inventory().accounts;
    for range in analysis.subject_ranges(usize::MAX) {
        let Some(account) = accounts.get(range.account as usize) else {
            continue;
        };
        if account.unknown.is_empty() {
            continue;
        }
        analysis.for_each_subject_in(&range, |subject, facts| {
            if facts.made().is_some_and(|m| m.after(as_of)) {
                return;
            }
            let stopped = super::evaluate::not_judged(&in_effect, subject.kind, facts);
            if !stopped.is_empty() {
                let ids = stopped.iter().map(|(id, _)| id.to_string()).collect();
                *partly.entry((subject.kind, ids)).or_default() += 1;
            }
        });
    }
    partly
        .into_iter()
        .map(|((kind, rules), subjects)| NotJudged {
            rules,
            kind,
            subjects,
            why: VALUE_UNKNOWN,
        })
        .collect()
}

impl Condition {
    /// Whether the condition tests the fact anywhere inside it.
    pub fn reads(&self, name: crate::facts::FactName) -> bool {
        match self {
            Condition::Fact { fact, .. } => *fact == name,
            Condition::AsOf(_) => false,
            Condition::Any(cs) | Condition::All(cs) => cs.iter().any(|c| c.reads(name)),
            Condition::Not(c) => c.reads(name),
        }
    }
}
