use std::borrow::Cow;

use chrono::NaiveDate;

use super::RuleSet;
use super::template::render_value;
use crate::facts::{Facts, SubjectRef, Value};
use crate::findings::{Finding, Location};

/// The findings of every effective rule of the subject's kind on one subject.
/// Messages are not rendered here: a report renders each when it writes it.
pub fn evaluate(rules: &RuleSet, subject_ref: SubjectRef, facts: &dyn Facts, as_of: NaiveDate, out: &mut Vec<Finding>) {
    // By the reference's kind: the subject's names are not read to judge it.
    for rule in rules
        .rules
        .iter()
        .filter(|r| r.subjects.contains(&subject_ref.kind) && r.is_effective(as_of))
    {
        if !rule.when.iter().all(|c| c.holds(facts, as_of)) {
            continue;
        }
        let at_path = rule.at.as_deref().and_then(|name| facts.get(name)).map(|f| f.path);
        let phase = rule.phase_at(as_of);
        let mut emit = |item: Option<String>, path: Cow<'static, str>, elsewhere: Option<&crate::model::origin::RecordOrigin>| {
            out.push(Finding {
                rule: rule.clone(),
                severity: rule.severity_in(phase),
                subject: subject_ref,
                item,
                phase,
                path,
                elsewhere: elsewhere.map(|o| Box::new(o.clone())),
                location: Location::default(),
                suppression: None,
            });
        };
        match rule.for_each.as_deref().and_then(|name| facts.get(name)) {
            Some(fact) => match &fact.value {
                Value::List(items) => {
                    for item in items {
                        let path = match &item.path {
                            Some(p) => Cow::Owned(p.clone()),
                            None => at_path.clone().unwrap_or_else(|| fact.path.clone()),
                        };
                        emit(Some(item.text.clone()), path, item.elsewhere.as_ref());
                    }
                }
                other => emit(Some(render_value(other)), fact.path.clone(), None),
            },
            None => emit(None, at_path.unwrap_or(Cow::Borrowed("")), None),
        }
    }
}
