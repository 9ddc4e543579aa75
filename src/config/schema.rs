//! The JSON Schema of `.edgeaudit.yaml`, for editors (YAML language servers
//! complete and check keys with it). The value types below exist only to
//! describe what the parser accepts; the parser itself checks them with
//! located errors.

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

/// A calendar date, `YYYY-MM-DD`.
pub struct Date;

impl JsonSchema for Date {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Date".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"})
    }
}

/// The severity from which a finding fails the run: `--fail-on`'s values.
pub struct FailOn;

impl JsonSchema for FailOn {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "FailOn".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let values: Vec<String> = <crate::findings::FailOn as clap::ValueEnum>::value_variants()
            .iter()
            .filter_map(clap::ValueEnum::to_possible_value)
            .map(|v| v.get_name().to_string())
            .collect();
        json_schema!({"description": "The severity from which a finding fails the run.", "type": "string", "enum": values})
    }
}

/// A rule's severity.
pub struct Severity;

impl JsonSchema for Severity {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Severity".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let values: Vec<&str> = crate::findings::Severity::ALL.iter().map(|s| s.as_str()).collect();
        json_schema!({"description": "A rule's severity.", "type": "string", "enum": values})
    }
}

/// A rule id or prefix: `LB`, `LB00`, `LB001`, `ALL`.
pub struct RuleSelector;

impl JsonSchema for RuleSelector {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RuleSelector".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "minLength": 1})
    }
}

/// `kind/id` or `kind/name` with globs, or `*`.
pub struct Resource;

impl JsonSchema for Resource {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Resource".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "pattern": "^(\\*|[^/]+/.*)$"})
    }
}

/// A non-empty reason.
pub struct Reason;

impl JsonSchema for Reason {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Reason".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "pattern": "\\S"})
    }
}

/// The schema as it is published (`docs/edgeaudit.schema.json`), pretty JSON
/// with a final newline.
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(super::ConfigSpec);
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}
