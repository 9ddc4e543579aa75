//! The findings that count, grouped by the rules' own `migration` and
//! `action` and counted per resource (a resource with two findings is one
//! to act on): what a report opens with.

use std::collections::{BTreeMap, HashSet};

use super::super::Context;
use crate::engine::rule::{Migration, RuleAction};
use crate::facts::SubjectRef;
use crate::findings::Severity;
use crate::model::Kind;
use crate::words::plural;

/// What the findings of one group are: counts by severity, the resources
/// they are about (by kind), and the rules that made them.
#[derive(Default)]
pub struct Tally {
    pub by_severity: BTreeMap<Severity, usize>,
    pub resources: HashSet<SubjectRef>,
    pub rules: std::collections::BTreeSet<String>,
}

impl Tally {
    pub fn add(&mut self, f: &crate::findings::Finding) {
        *self.by_severity.entry(f.severity).or_default() += 1;
        self.resources.insert(f.subject);
        self.rules.insert(f.rule.id.clone());
    }

    pub fn findings(&self) -> usize {
        self.by_severity.values().sum()
    }

    /// `2 pools and 1 notification policy`
    pub fn resources_words(&self) -> String {
        let mut by_kind: BTreeMap<Kind, usize> = BTreeMap::new();
        for r in &self.resources {
            *by_kind.entry(r.kind).or_default() += 1;
        }
        let parts: Vec<String> = by_kind
            .into_iter()
            .map(|(kind, n)| {
                let (one, many) = kind.nouns();
                plural(n, one, many)
            })
            .collect();
        let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
        crate::words::list(&parts)
    }

    pub fn rules_words(&self) -> String {
        self.rules.iter().cloned().collect::<Vec<_>>().join(", ")
    }

    /// `3 findings (1 error, 2 warnings)`
    pub fn findings_words(&self) -> String {
        let severities: Vec<String> = Severity::ALL
            .into_iter()
            .filter_map(|s| {
                let n = *self.by_severity.get(&s).unwrap_or(&0);
                (n > 0).then(|| match s {
                    Severity::Error => plural(n, "error", "errors"),
                    Severity::Warning => plural(n, "warning", "warnings"),
                    Severity::Note => plural(n, "note", "notes"),
                })
            })
            .collect();
        format!("{} ({})", plural(self.findings(), "finding", "findings"), severities.join(", "))
    }
}

/// The three things people act on, and what each means.
pub const ACTIONS: [(RuleAction, &str); 3] = [
    (
        RuleAction::ClearNow,
        "every legacy e-mail is delivered by a policy; clear `notification_email`",
    ),
    (
        RuleAction::CreatePolicyFirst,
        "create the policy that delivers the legacy e-mails, then clear; `edgeaudit plan` writes both",
    ),
    (
        RuleAction::ChooseCa,
        "stay on Let's Encrypt unless another CA is chosen, or allowed by CAA",
    ),
];

/// The active findings by migration and by action.
pub fn tallies(ctx: &Context) -> (BTreeMap<Migration, Tally>, BTreeMap<RuleAction, Tally>) {
    let mut migrations: BTreeMap<Migration, Tally> = BTreeMap::new();
    let mut actions: BTreeMap<RuleAction, Tally> = BTreeMap::new();
    for f in ctx.outcome.findings.iter().filter(|f| !f.is_suppressed()) {
        if let Some(m) = f.rule.migration {
            migrations.entry(m).or_default().add(f);
        }
        if let Some(a) = f.rule.action {
            actions.entry(a).or_default().add(f);
        }
    }
    (migrations, actions)
}
