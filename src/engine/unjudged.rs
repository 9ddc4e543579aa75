//! What the rules could not judge because a value they read is not known
//! before apply (a Terraform variable, a reference): counted for
//! `--statistics` and the JSON summary, beside the EX005 findings that say
//! it per resource.

use chrono::NaiveDate;
use serde::Serialize;

use super::RuleSet;
use super::condition::Condition;
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

pub fn not_judged(rules: &RuleSet, analysis: &Analysis, as_of: NaiveDate) -> Vec<NotJudged> {
    // Resources judged in part: counted by kind and the rules that could not
    // judge them. Only accounts with unknown values have any.
    let mut partly: std::collections::BTreeMap<(Kind, Vec<String>), usize> = Default::default();
    let accounts = &analysis.inventory().accounts;
    for range in analysis.subject_ranges(usize::MAX) {
        let Some(account) = accounts.get(range.account as usize) else {
            continue;
        };
        if account.unknown.is_empty() {
            continue;
        }
        analysis.for_each_subject_in(&range, |subject, facts| {
            let stopped = super::evaluate::not_judged(rules, subject.kind, facts, as_of);
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
            why: "a value these rules read is not known before apply (EX005 names it, at the value)",
        })
        .collect()
}

impl Condition {
    /// Whether the condition tests the fact anywhere inside it.
    pub fn reads(&self, name: &str) -> bool {
        match self {
            Condition::Fact { fact, .. } => fact == name,
            Condition::AsOf(_) => false,
            Condition::Any(cs) | Condition::All(cs) => cs.iter().any(|c| c.reads(name)),
            Condition::Not(c) => c.reads(name),
        }
    }
}
