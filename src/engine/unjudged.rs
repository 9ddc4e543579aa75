//! What the rules could not judge because a value was not known (a Terraform
//! resource not known before apply): said by `--statistics` and the JSON
//! summary, so an empty result is never mistaken for a pass.

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
    let effective = |kind: Kind, reads: Option<&str>| -> Vec<String> {
        rules
            .rules
            .iter()
            .filter(|r| r.subjects.contains(&kind) && r.is_effective(as_of))
            .filter(|r| reads.is_none_or(|fact| r.when.iter().any(|c| c.reads(fact))))
            .map(|r| r.id.clone())
            .collect()
    };
    let mut out: Vec<NotJudged> = analysis
        .inventory()
        .not_analysed_by_kind
        .iter()
        .map(|(&kind, &subjects)| NotJudged {
            rules: effective(kind, None),
            kind,
            subjects,
            why: "not analysed: a value its rules read is not known (listed with the skipped)",
        })
        .collect();
    // Resources judged in part: counted by kind and the rules that could not
    // judge them. Only accounts with unknown values have any.
    let mut partly: std::collections::BTreeMap<(Kind, Vec<String>), usize> = Default::default();
    let accounts = &analysis.inventory().accounts;
    for range in analysis.subject_ranges(usize::MAX) {
        let Some(account) = accounts.get(range.account as usize) else {
            continue;
        };
        if account.unknown.is_empty() && account.policies_not_analysed == 0 {
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
    for ((kind, rules), subjects) in partly {
        out.push(NotJudged {
            rules,
            kind,
            subjects,
            why: "a value these rules read is not known before apply (EX005 names it, at the value)",
        });
    }
    out.retain(|n| !n.rules.is_empty());
    out
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
