use chrono::NaiveDate;

use super::RuleSet;
use super::template::render_value;
use crate::facts::{Facts, Value};
use crate::findings::{Finding, Resource};

/// The findings of every effective rule of the subject's kind on one subject.
pub fn evaluate(rules: &RuleSet, facts: &Facts, as_of: NaiveDate, out: &mut Vec<Finding>) {
    for rule in rules
        .rules
        .iter()
        .filter(|r| r.subject == facts.subject.kind && r.is_effective(as_of))
    {
        if !rule.when.iter().all(|c| c.holds(facts, as_of)) {
            continue;
        }
        let at_path = rule.at.as_deref().and_then(|name| facts.get(name)).map(|f| f.path.clone());
        let mut emit = |message: String, path: String| {
            out.push(Finding {
                rule: rule.clone(),
                severity: rule.severity,
                message,
                resource: Resource {
                    kind: facts.subject.kind,
                    id: facts.subject.id.clone(),
                    name: facts.subject.name.clone(),
                },
                origin: facts.subject.origin.clone(),
                path,
            });
        };
        match rule.for_each.as_deref().and_then(|name| facts.get(name)) {
            Some(fact) => {
                if let Value::List(items) = &fact.value {
                    for item in items {
                        let path = item.path.clone().or_else(|| at_path.clone()).unwrap_or_else(|| fact.path.clone());
                        emit(rule.message.render(facts, Some(&item.text)), path);
                    }
                } else {
                    emit(rule.message.render(facts, Some(&render_value(&fact.value))), fact.path.clone());
                }
            }
            None => emit(rule.message.render(facts, None), at_path.unwrap_or_default()),
        }
    }
}
