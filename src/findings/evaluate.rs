use std::borrow::Cow;

use chrono::NaiveDate;

use super::{Finding, Location};
use crate::engine::RuleSet;
use crate::engine::condition::Condition;
use crate::engine::rule::Rule;
use crate::engine::template::render_value;
use crate::facts::{Fact, FactName, Facts, Item, SubjectRef, UnknownFact, Value};
use crate::model::Kind;
use std::sync::Arc;

/// The fact that lists what could not be judged (EX005 tests it).
pub const NOT_JUDGED: FactName = crate::facts::catalogue::keys::NOT_JUDGED.name;

/// What a rule makes of one subject.
enum Verdict {
    Fires,
    /// It fires on each known item, and each element not known before
    /// apply may make one more, which it cannot judge.
    FiresInPart(Vec<UnknownFact>),
    Passes,
    /// A condition that could fail reads a value not known before apply
    /// (each of them, when unknown elements of a list each could).
    NotJudged(Vec<UnknownFact>),
}

/// Judged by what is known: a condition that is false on known facts
/// decides (the rule does not fire, whatever the unknown values are); a
/// rule whose every known condition holds and that tests an unknown fact
/// cannot be judged.
fn judge(rule: &Rule, facts: &dyn Facts, as_of: NaiveDate) -> Verdict {
    let mut unknown = None;
    for condition in &rule.when {
        match condition.unknown_in(facts) {
            Some(u) => {
                unknown.get_or_insert(u);
            }
            None if !condition.holds(facts, as_of) => return Verdict::Passes,
            None => {}
        }
    }
    if unknown.is_none()
        && let Some(name) = rule.for_each
    {
        unknown = facts.unknown(name);
    }
    let elements = rule.for_each.map(|name| facts.partly_unknown(name)).unwrap_or_default();
    match unknown {
        Some(u) => {
            let mut all = vec![u];
            for e in elements {
                if !all.iter().any(|a| a.value.at == e.value.at && a.of == e.of) {
                    all.push(e);
                }
            }
            Verdict::NotJudged(all)
        }
        None if elements.is_empty() => Verdict::Fires,
        None => Verdict::FiresInPart(elements),
    }
}

impl Condition {
    /// The first fact the condition tests that is not known, if any.
    fn unknown_in(&self, facts: &dyn Facts) -> Option<UnknownFact> {
        match self {
            Condition::Fact { fact, .. } => facts.unknown(*fact),
            Condition::AsOf(_) => None,
            Condition::Any(cs) | Condition::All(cs) => cs.iter().find_map(|c| c.unknown_in(facts)),
            Condition::Not(c) => c.unknown_in(facts),
        }
    }
}

/// Whether a rule reports what others could not judge (it is judged last,
/// on what they left).
fn reports_not_judged(rule: &Rule) -> bool {
    rule.when.iter().any(|c| c.reads(NOT_JUDGED))
}

/// The rules in effect on the as-of date, by the kind of subject they
/// judge, in rule order: sorted out once for a run, not for each of a
/// million subjects.
pub struct InEffect<'r> {
    as_of: NaiveDate,
    kinds: Vec<(Kind, KindRules<'r>)>,
}

#[derive(Default)]
struct KindRules<'r> {
    /// The rules that judge the subject on its facts.
    judging: Vec<&'r Arc<Rule>>,
    /// The rules that report what the others could not judge: judged last.
    reporting: Vec<&'r Arc<Rule>>,
}

impl<'r> InEffect<'r> {
    pub fn new(rules: &'r RuleSet, as_of: NaiveDate) -> InEffect<'r> {
        let mut kinds: Vec<(Kind, KindRules<'r>)> = Vec::new();
        for rule in rules.rules.iter().filter(|r| r.is_effective(as_of)) {
            for &kind in &rule.subjects {
                let at = match kinds.iter().position(|(k, _)| *k == kind) {
                    Some(at) => at,
                    None => {
                        kinds.push((kind, KindRules::default()));
                        kinds.len() - 1
                    }
                };
                let of_kind = &mut kinds[at].1;
                match reports_not_judged(rule) {
                    true => of_kind.reporting.push(rule),
                    false => of_kind.judging.push(rule),
                }
            }
        }
        InEffect { as_of, kinds }
    }

    fn of(&self, kind: Kind) -> Option<&KindRules<'r>> {
        self.kinds.iter().find(|(k, _)| *k == kind).map(|(_, rules)| rules)
    }

    /// What each rule of `kind`, but those that report what others left,
    /// makes of the subject, in rule order.
    fn verdicts<'f>(&self, kind: Kind, facts: &'f dyn Facts) -> impl Iterator<Item = (&'r Arc<Rule>, Verdict)> + use<'r, 'f, '_> {
        let as_of = self.as_of;
        self.of(kind)
            .into_iter()
            .flat_map(|rules| rules.judging.iter())
            .map(move |&r| (r, judge(r, facts, as_of)))
    }
}

/// The effective rules of the subject's kind that could not judge it, each
/// with the unknown value that stopped it, in rule order.
pub fn not_judged<'r>(rules: &InEffect<'r>, kind: Kind, facts: &dyn Facts) -> Vec<(&'r str, UnknownFact)> {
    rules
        .verdicts(kind, facts)
        .flat_map(|(r, verdict)| match verdict {
            Verdict::NotJudged(values) | Verdict::FiresInPart(values) => values.into_iter().map(|u| (r.id.as_str(), u)).collect(),
            _ => Vec::new(),
        })
        .collect()
}

/// The findings of every effective rule of the subject's kind on one subject.
/// Messages are not rendered here: a report renders each when it writes it.
pub fn evaluate(rules: &InEffect<'_>, subject_ref: SubjectRef, facts: &dyn Facts, out: &mut Vec<Finding>) {
    let as_of = rules.as_of;
    // A replay judges the account as it stood on the as-of date: what was
    // made later was not in it (the summary counts it, `unjudged`).
    if facts.made().is_some_and(|m| m.after(as_of)) {
        return;
    }
    // By the reference's kind: the subject's names are not read to judge it.
    let mut not_judged: Vec<(&str, UnknownFact)> = Vec::new();
    for (rule, verdict) in rules.verdicts(subject_ref.kind, facts) {
        match verdict {
            Verdict::Fires => emit(rule, subject_ref, facts, as_of, out),
            Verdict::FiresInPart(elements) => {
                emit(rule, subject_ref, facts, as_of, out);
                not_judged.extend(elements.into_iter().map(|u| (rule.id.as_str(), u)));
            }
            Verdict::Passes => {}
            Verdict::NotJudged(values) => not_judged.extend(values.into_iter().map(|u| (rule.id.as_str(), u))),
        }
    }
    let with_not_judged = WithNotJudged {
        inner: facts,
        not_judged: &not_judged,
    };
    for rule in rules.of(subject_ref.kind).into_iter().flat_map(|rules| rules.reporting.iter()) {
        if rule.when.iter().all(|c| c.holds(&with_not_judged, as_of)) {
            emit(rule, subject_ref, &with_not_judged, as_of, out);
        }
    }
}

fn emit(rule: &std::sync::Arc<Rule>, subject_ref: SubjectRef, facts: &dyn Facts, as_of: NaiveDate, out: &mut Vec<Finding>) {
    let at_path = rule.at.and_then(|name| facts.get(name)).map(|f| f.path);
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
    match rule.for_each.and_then(|name| facts.get(name)) {
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

/// A subject's facts with what its rules could not judge: `not_judged`,
/// one item in words a value, each at the unknown value, naming the rules
/// it stopped.
pub struct WithNotJudged<'f> {
    pub inner: &'f dyn Facts,
    pub not_judged: &'f [(&'f str, UnknownFact)],
}

impl Facts for WithNotJudged<'_> {
    fn subject(&self) -> crate::facts::Subject<'_> {
        self.inner.subject()
    }

    fn get(&self, name: FactName) -> Option<Fact> {
        let Some((_, first)) = self.not_judged.first() else {
            return self.inner.get(name);
        };
        if name != NOT_JUDGED {
            return self.inner.get(name);
        }
        // One item a value: the rules each unknown value stopped, at that
        // value, with the advice its source takes.
        let mut groups: Vec<(&UnknownFact, Vec<&str>)> = Vec::new();
        for (id, u) in self.not_judged {
            match groups.iter_mut().find(|(g, _)| g.value.at == u.value.at && g.of == u.of) {
                Some((_, rules)) => rules.push(id),
                None => groups.push((u, vec![id])),
            }
        }
        let items = groups
            .into_iter()
            .map(|(u, rules)| {
                let (verb, read) = if rules.len() == 1 { ("it", "reads") } else { ("they", "read") };
                let of = u.of.as_ref().map(|o| format!(" of {o}")).unwrap_or_default();
                // The words go with the finding (its item): a report renders them
                // without judging the subject again.
                Item {
                    text: format!(
                        "{} could not judge this resource: {verb} {read} `{}`{of}, which is not known before apply ({}); {}",
                        crate::words::list(&rules),
                        u.value.field_name(),
                        u.value.why,
                        u.value.why.source.advice(),
                    ),
                    path: Some(u.value.at.clone()),
                    elsewhere: u.elsewhere.clone(),
                }
            })
            .collect();
        let at = first.value.at.clone();
        Some(Fact::at(Value::List(items), at))
    }

    fn replacement_bodies(&self) -> &[crate::model::notification::NewPolicy] {
        self.inner.replacement_bodies()
    }
}
