use chrono::NaiveDate;

use super::RuleSet;
use super::template::render_value;
use crate::facts::{Facts, SubjectRef, Value};
use crate::findings::{Finding, Resource};

/// The findings of every effective rule of the subject's kind on one subject.
/// Messages are not rendered here: a report renders each when it writes it.
pub fn evaluate(rules: &RuleSet, subject_ref: SubjectRef, facts: &dyn Facts, as_of: NaiveDate, out: &mut Vec<Finding>) {
    let subject = facts.subject();
    for rule in rules.rules.iter().filter(|r| r.subject == subject.kind && r.is_effective(as_of)) {
        if !rule.when.iter().all(|c| c.holds(facts, as_of)) {
            continue;
        }
        let at_path = rule.at.as_deref().and_then(|name| facts.get(name)).map(|f| f.path.into_owned());
        let mut emit = |item: Option<String>, path: String| {
            out.push(Finding {
                rule: rule.clone(),
                severity: rule.severity,
                subject: subject_ref,
                item,
                resource: Resource { kind: subject.kind, id: subject.id.to_string(), name: subject.name.to_string() },
                origin: subject.origin.clone(),
                path,
            });
        };
        match rule.for_each.as_deref().and_then(|name| facts.get(name)) {
            Some(fact) => match &fact.value {
                Value::List(items) => {
                    for item in items {
                        let path = item.path.clone().or_else(|| at_path.clone()).unwrap_or_else(|| fact.path.to_string());
                        emit(Some(item.text.clone()), path);
                    }
                }
                other => emit(Some(render_value(other)), fact.path.to_string()),
            },
            None => emit(None, at_path.unwrap_or_default()),
        }
    }
}
