//! Conditions over facts, as written in rule files and as evaluated.

use std::fmt;

use chrono::{DateTime, NaiveDate, Utc};
use serde::Deserialize;
use serde_saphyr::Spanned;

use crate::facts::{FactName, FactSpec, Facts, Value, ValueType};

/// A literal in a rule file.
#[derive(Debug, Clone, PartialEq)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    Text(String),
}

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Scalar;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a boolean, an integer or a string")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Scalar, E> {
                Ok(Scalar::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Scalar, E> {
                Ok(Scalar::Int(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Scalar, E> {
                i64::try_from(v).map(Scalar::Int).map_err(E::custom)
            }
            fn visit_str<E>(self, v: &str) -> Result<Scalar, E> {
                Ok(Scalar::Text(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Bool(b) => write!(f, "{b}"),
            Scalar::Int(i) => write!(f, "{i}"),
            Scalar::Text(s) => write!(f, "`{s}`"),
        }
    }
}

/// A date in a condition: a literal day (midnight UTC) or the run's as-of date.
#[derive(Debug, Clone, PartialEq)]
pub enum DateRef {
    AsOf,
    Day(NaiveDate),
}

impl DateRef {
    fn parse(s: &str) -> Result<DateRef, String> {
        if s == "as_of" {
            return Ok(DateRef::AsOf);
        }
        super::dates::parse(s).map(DateRef::Day).map_err(|e| format!("{e}, or `as_of`"))
    }

    fn instant(&self, as_of: NaiveDate) -> DateTime<Utc> {
        let day = match self {
            DateRef::AsOf => as_of,
            DateRef::Day(d) => *d,
        };
        day.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc()
    }
}

impl fmt::Display for DateRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DateRef::AsOf => f.write_str("the as-of date"),
            DateRef::Day(d) => write!(f, "{d}"),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Test {
    Equals(Scalar),
    NotEquals(Scalar),
    In(Vec<Scalar>),
    NotIn(Vec<Scalar>),
    Empty(bool),
    GreaterThan(i64),
    LessThan(i64),
    Before(DateRef),
    OnOrAfter(DateRef),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    Fact {
        /// Resolved when the pack loads: evaluating it compares no text.
        fact: FactName,
        test: Test,
    },
    /// The run's as-of date against a literal date (effective windows).
    AsOf(Test),
    Any(Vec<Condition>),
    All(Vec<Condition>),
    Not(Box<Condition>),
}

/// A condition as written: exactly one operator, with `fact` for fact tests.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConditionSpec {
    pub fact: Option<Spanned<String>>,
    pub equals: Option<Scalar>,
    pub not_equals: Option<Scalar>,
    #[serde(rename = "in")]
    pub one_of: Option<Vec<Scalar>>,
    pub not_in: Option<Vec<Scalar>>,
    pub empty: Option<bool>,
    pub greater_than: Option<i64>,
    pub less_than: Option<i64>,
    pub before: Option<String>,
    pub on_or_after: Option<String>,
    pub as_of_before: Option<String>,
    pub as_of_on_or_after: Option<String>,
    pub any: Option<Vec<ConditionSpec>>,
    pub all: Option<Vec<ConditionSpec>>,
    pub not: Option<Box<ConditionSpec>>,
}

/// A problem in a rule file, with the line and column it was found at (0
/// when only the enclosing rule is known).
#[derive(Debug)]
pub struct SpecError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl ConditionSpec {
    /// Checks the condition against the subject's fact catalogue.
    pub fn compile(self, facts: &[FactSpec]) -> Result<Condition, SpecError> {
        let fact = self.fact.clone();
        let at = |message: String| match &fact {
            Some(f) => SpecError {
                line: f.referenced.line() as usize,
                column: f.referenced.column() as usize,
                message,
            },
            None => SpecError {
                line: 0,
                column: 0,
                message,
            },
        };
        let mut ops: Vec<Test> = Vec::new();
        let mut nested: Vec<Condition> = Vec::new();
        if let Some(v) = self.equals {
            ops.push(Test::Equals(v));
        }
        if let Some(v) = self.not_equals {
            ops.push(Test::NotEquals(v));
        }
        if let Some(v) = self.one_of {
            ops.push(Test::In(v));
        }
        if let Some(v) = self.not_in {
            ops.push(Test::NotIn(v));
        }
        if let Some(v) = self.empty {
            ops.push(Test::Empty(v));
        }
        if let Some(v) = self.greater_than {
            ops.push(Test::GreaterThan(v));
        }
        if let Some(v) = self.less_than {
            ops.push(Test::LessThan(v));
        }
        if let Some(v) = &self.before {
            ops.push(Test::Before(DateRef::parse(v).map_err(at)?));
        }
        if let Some(v) = &self.on_or_after {
            ops.push(Test::OnOrAfter(DateRef::parse(v).map_err(at)?));
        }
        let mut as_of_tests = Vec::new();
        if let Some(v) = &self.as_of_before {
            as_of_tests.push(Test::Before(DateRef::parse(v).map_err(at)?));
        }
        if let Some(v) = &self.as_of_on_or_after {
            as_of_tests.push(Test::OnOrAfter(DateRef::parse(v).map_err(at)?));
        }
        let compile_all = |specs: Vec<ConditionSpec>| specs.into_iter().map(|c| c.compile(facts)).collect::<Result<Vec<_>, _>>();
        if let Some(any) = self.any {
            nested.push(Condition::Any(compile_all(any)?));
        }
        if let Some(all) = self.all {
            nested.push(Condition::All(compile_all(all)?));
        }
        if let Some(not) = self.not {
            nested.push(Condition::Not(Box::new(not.compile(facts)?)));
        }
        let operators = ops.len() + nested.len() + as_of_tests.len();
        if operators != 1 {
            return Err(at(format!(
                "a condition needs exactly one operator (equals, not_equals, in, not_in, empty, greater_than, less_than, before, on_or_after, as_of_before, as_of_on_or_after, any, all, not); found {operators}"
            )));
        }
        if let Some(test) = as_of_tests.pop() {
            if fact.is_some() {
                return Err(at(
                    "`as_of_before`/`as_of_on_or_after` test the run's date and take no `fact`".into()
                ));
            }
            return Ok(Condition::AsOf(test));
        }
        if let Some(condition) = nested.pop() {
            if fact.is_some() {
                return Err(at("`any`, `all` and `not` take no `fact`".into()));
            }
            return Ok(condition);
        }
        let Some(name) = fact.as_ref().map(|f| f.value.clone()) else {
            return Err(at("this condition needs a `fact`".into()));
        };
        let test = ops.pop().ok_or_else(|| at("missing operator".into()))?;
        let spec = facts.iter().find(|s| s.name.as_str() == name).ok_or_else(|| {
            at(format!(
                "unknown fact `{name}`; this subject has: {}",
                facts.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", ")
            ))
        })?;
        check_test(spec, &test).map_err(at)?;
        Ok(Condition::Fact { fact: spec.name, test })
    }
}

fn check_test(spec: &FactSpec, test: &Test) -> Result<(), String> {
    let ty = spec.value_type;
    let scalar_fits = |s: &Scalar| match (ty, s) {
        (ValueType::Bool, Scalar::Bool(_)) | (ValueType::Int, Scalar::Int(_)) => Ok(()),
        (ValueType::Text, Scalar::Text(t)) if spec.values.is_empty() || spec.values.contains(&t.as_str()) => Ok(()),
        (ValueType::Text, Scalar::Text(t)) => Err(format!(
            "fact `{}` is never `{t}`; its values are: {}",
            spec.name,
            spec.values.join(", ")
        )),
        _ => Err(format!("fact `{}` is a {}, and {s} is not", spec.name, ty.as_str())),
    };
    match test {
        Test::Equals(s) | Test::NotEquals(s) => scalar_fits(s),
        Test::In(list) | Test::NotIn(list) => list.iter().try_for_each(scalar_fits),
        Test::Empty(_) if matches!(ty, ValueType::List | ValueType::Text) => Ok(()),
        Test::GreaterThan(_) | Test::LessThan(_) if ty == ValueType::Int => Ok(()),
        Test::Before(_) | Test::OnOrAfter(_) if ty == ValueType::Date => Ok(()),
        _ => Err(format!("this operator does not apply to fact `{}`, a {}", spec.name, ty.as_str())),
    }
}

impl Condition {
    pub fn holds(&self, facts: &dyn Facts, as_of: NaiveDate) -> bool {
        match self {
            Condition::Fact { fact, test } => facts.get(*fact).is_some_and(|f| test.holds(&f.value, as_of)),
            Condition::AsOf(test) => test.holds(&Value::Date(DateRef::AsOf.instant(as_of)), as_of),
            Condition::Any(cs) => cs.iter().any(|c| c.holds(facts, as_of)),
            Condition::All(cs) => cs.iter().all(|c| c.holds(facts, as_of)),
            Condition::Not(c) => !c.holds(facts, as_of),
        }
    }
}

impl Test {
    fn holds(&self, value: &Value, as_of: NaiveDate) -> bool {
        let eq = |s: &Scalar| match (value, s) {
            (Value::Bool(a), Scalar::Bool(b)) => a == b,
            (Value::Int(a), Scalar::Int(b)) => a == b,
            (Value::Text(a), Scalar::Text(b)) => a == b,
            _ => false,
        };
        match (self, value) {
            (Test::Equals(s), _) => eq(s),
            (Test::NotEquals(s), _) => !eq(s),
            (Test::In(list), _) => list.iter().any(eq),
            (Test::NotIn(list), _) => !list.iter().any(eq),
            (Test::Empty(want), Value::List(items)) => items.is_empty() == *want,
            (Test::Empty(want), Value::Text(s)) => s.is_empty() == *want,
            (Test::GreaterThan(n), Value::Int(i)) => i > n,
            (Test::LessThan(n), Value::Int(i)) => i < n,
            (Test::Before(d), Value::Date(t)) => *t < d.instant(as_of),
            (Test::OnOrAfter(d), Value::Date(t)) => *t >= d.instant(as_of),
            _ => false,
        }
    }
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let join = |cs: &[Condition], sep: &str| cs.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(sep);
        match self {
            Condition::Fact { fact, test } => write!(f, "{fact} {test}"),
            Condition::AsOf(test) => write!(f, "the as-of date {test}"),
            Condition::Any(cs) => write!(f, "({})", join(cs, " or ")),
            Condition::All(cs) => write!(f, "({})", join(cs, " and ")),
            Condition::Not(c) => write!(f, "not {c}"),
        }
    }
}

impl fmt::Display for Test {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |l: &[Scalar]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", ");
        match self {
            Test::Equals(s) => write!(f, "is {s}"),
            Test::NotEquals(s) => write!(f, "is not {s}"),
            Test::In(l) => write!(f, "is one of {}", list(l)),
            Test::NotIn(l) => write!(f, "is none of {}", list(l)),
            Test::Empty(true) => write!(f, "is empty"),
            Test::Empty(false) => write!(f, "is not empty"),
            Test::GreaterThan(n) => write!(f, "is greater than {n}"),
            Test::LessThan(n) => write!(f, "is less than {n}"),
            Test::Before(d) => write!(f, "is before {d}"),
            Test::OnOrAfter(d) => write!(f, "is on or after {d}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value the export does not give matches no value of a condition,
    /// not even its own placeholder's text, and is never empty or full.
    #[test]
    fn a_value_not_in_the_export_holds_no_test() {
        let absent = Value::NotInExport { placeholder: "zone_id" };
        let as_of = NaiveDate::from_ymd_opt(2024, 10, 1).unwrap_or_default();
        for test in [
            Test::Equals(Scalar::Text("{zone_id}".into())),
            Test::In(vec![Scalar::Text("{zone_id}".into()), Scalar::Text(String::new())]),
            Test::Empty(true),
            Test::Empty(false),
        ] {
            assert!(!test.holds(&absent, as_of), "{test:?}");
        }
        assert!(Test::NotEquals(Scalar::Text("{zone_id}".into())).holds(&absent, as_of));
    }
}
