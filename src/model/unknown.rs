//! Values of a resource that are not known before apply (a Terraform
//! variable without a value, a reference to another resource, a value a plan
//! computes): kept beside the model, so that each rule is judged on what is
//! known and only the rules that read an unknown value are not.

use std::collections::HashMap;

use super::origin::{FileId, RecordOrigin};

/// What gives an unknown value its value, and so what a user can do to
/// have it judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// A variable with no value before a run: `-var`, `TF_VAR_…` or a
    /// `.tfvars` file gives it one.
    Variable,
    /// What Terraform reads or works out when it plans: a data source, a
    /// remote state, another module's output, another resource's attribute,
    /// what differs per instance. A plan's JSON holds it.
    Plan,
    /// What only apply gives (a plan's `after_unknown`): the applied state holds it.
    Apply,
    /// An expression edgeaudit does not evaluate (a function it does not
    /// know, a template directive, a `dynamic` block).
    Expression,
}

impl Source {
    /// How to give edgeaudit the value, in words.
    pub fn advice(self) -> &'static str {
        match self {
            Source::Variable => "give the variable a value (`-var`, `TF_VAR_<name>`, or a `.tfvars` file beside the configuration)",
            Source::Plan => "run edgeaudit on `terraform show -json` of a plan, which holds what Terraform reads",
            Source::Apply => "run edgeaudit on the state once applied (`terraform show -json`), which holds what apply gives",
            Source::Expression => "check `terraform show -json` of a plan or a state, which holds what Terraform knows",
        }
    }
}

/// Why a value is not known, in words naming the variable or reference, and
/// where it comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Why {
    pub text: String,
    pub source: Source,
}

impl Why {
    pub fn new(source: Source, text: impl Into<String>) -> Why {
        Why { text: text.into(), source }
    }

    /// An expression edgeaudit does not evaluate.
    pub fn expression(text: impl Into<String>) -> Why {
        Why::new(Source::Expression, text)
    }

    /// The same source, said within what holds it (`local.x: …`).
    pub fn within(self, say: impl FnOnce(&str) -> String) -> Why {
        Why {
            text: say(&self.text),
            source: self.source,
        }
    }
}

impl std::fmt::Display for Why {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownValue {
    /// The field in the API's shape, relative to the record
    /// (`/filters/pool_id`): what facts read. `""` is the whole record.
    pub field: String,
    /// Where the document has it, relative to the record's pointer
    /// (`/filters/0/pool_id` in provider v4's shape): where a finding points.
    pub at: String,
    /// Why it is not known, naming the variable or reference, and its source.
    pub why: Why,
}

impl UnknownValue {
    /// Whether a fact that reads the API field `read` depends on this value:
    /// one is the other or inside it.
    pub fn decides(&self, read: &str) -> bool {
        within(&self.field, read) || within(read, &self.field)
    }

    /// Whether it is the resource's existence that is not known (its `count`
    /// or `for_each`): such a resource is counted nowhere.
    pub fn is_existence(&self) -> bool {
        self.field.is_empty() && matches!(self.at.as_str(), "/count" | "/for_each")
    }

    /// The field as a reader names it: `filters.pool_id`, or `the resource`.
    pub fn field_name(&self) -> String {
        match self.at.trim_start_matches('/') {
            "" => "the resource".to_string(),
            at => at.replace('/', "."),
        }
    }
}

/// Whether pointer `inner` is `outer` or below it.
fn within(inner: &str, outer: &str) -> bool {
    inner
        .strip_prefix(outer)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// The unknown values of an account's resources, by the record they are in.
/// By file first: an account that mixes an API export with a plan asks for
/// every exported record, and those of a file with no unknown values are
/// answered without building the record's pointer.
#[derive(Debug, Default)]
pub struct UnknownValues {
    by_file: HashMap<FileId, HashMap<String, Vec<UnknownValue>>>,
}

impl UnknownValues {
    pub fn insert(&mut self, origin: &RecordOrigin, values: Vec<UnknownValue>) {
        if !values.is_empty() {
            self.by_file
                .entry(origin.file())
                .or_default()
                .entry(origin.pointer().into_owned())
                .or_default()
                .extend(values);
        }
    }

    /// The unknown values of the record at `origin` (most records: none).
    pub fn of(&self, origin: &RecordOrigin) -> &[UnknownValue] {
        match self.by_file.get(&origin.file()) {
            None => &[],
            Some(records) => records.get(origin.pointer().as_ref()).map_or(&[], Vec::as_slice),
        }
    }

    /// Takes out the unknown values of the record at `origin`.
    pub fn take(&mut self, origin: &RecordOrigin) -> Vec<UnknownValue> {
        self.by_file
            .get_mut(&origin.file())
            .and_then(|records| records.remove(origin.pointer().as_ref()))
            .unwrap_or_default()
    }

    pub fn extend(&mut self, other: UnknownValues) {
        for (file, records) in other.by_file {
            let mine = self.by_file.entry(file).or_default();
            for (pointer, values) in records {
                mine.entry(pointer).or_default().extend(values);
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.by_file.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unknown(field: &str) -> UnknownValue {
        UnknownValue {
            field: field.into(),
            at: field.into(),
            why: Why::expression(""),
        }
    }

    #[test]
    fn a_value_decides_the_facts_that_read_it_or_what_holds_it() {
        let pool_ids = unknown("/filters/pool_id");
        assert!(pool_ids.decides("/filters/pool_id"));
        assert!(pool_ids.decides("/filters"), "a fact of the whole filter reads it");
        assert!(!pool_ids.decides("/filters/new_health"));
        assert!(!pool_ids.decides("/filters/pool"), "a token, not a prefix of bytes");
        assert!(unknown("/filters").decides("/filters/new_health"));
        assert!(unknown("").decides("/alert_type"), "the whole record decides everything");
        assert_eq!(unknown("/filters/0/pool_id").field_name(), "filters.0.pool_id");
        assert_eq!(unknown("").field_name(), "the resource");
    }
}
