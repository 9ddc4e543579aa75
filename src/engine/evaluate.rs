use chrono::NaiveDate;

use super::RuleSet;
use super::template::render_value;
use crate::facts::{Facts, Value};
use crate::findings::{Finding, Resource};

/// The findings of every effective rule of the subject's kind on one subject.
pub fn evaluate(rules: &RuleSet, facts: &dyn Facts, as_of: NaiveDate, out: &mut Vec<Finding>) {
    let subject = facts.subject();
    for rule in rules.rules.iter().filter(|r| r.subject == subject.kind && r.is_effective(as_of)) {
        if !rule.when.iter().all(|c| c.holds(facts, as_of)) {
            continue;
        }
        let at_path = rule.at.as_deref().and_then(|name| facts.get(name)).map(|f| f.path.into_owned());
        let mut emit = |message: String, path: String| {
            out.push(Finding {
                rule: rule.clone(),
                severity: rule.severity,
                message,
                resource: Resource {
                    kind: subject.kind,
                    id: subject.id.to_string(),
                    name: subject.name.to_string(),
                },
                origin: subject.origin.clone(),
                path,
            });
        };
        match rule.for_each.as_deref().and_then(|name| facts.get(name)) {
            Some(fact) => match &fact.value {
                Value::List(items) => {
                    for item in items {
                        let path = item
                            .path
                            .clone()
                            .or_else(|| at_path.clone())
                            .unwrap_or_else(|| fact.path.to_string());
                        emit(rule.message.render(facts, Some(&item.text)), path);
                    }
                }
                other => emit(rule.message.render(facts, Some(&render_value(other))), fact.path.to_string()),
            },
            None => emit(rule.message.render(facts, None), at_path.unwrap_or_default()),
        }
    }
}
