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
    let pools = analysis.pools_of_unknown_coverage();
    if pools > 0 {
        out.push(NotJudged {
            rules: effective(Kind::Pool, Some("coverage")),
            kind: Kind::Pool,
            subjects: pools,
            why: "legacy e-mail set, and whether it is covered is unknown while a notification policy of its account is not analysed",
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
