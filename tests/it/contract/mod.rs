//! The service's published contract (`../shared/api/cloudflare-openapi-excerpt.json`,
//! when it is beside the project): what a request may carry, read from the
//! excerpt itself, not from edgeaudit's declaration of it. Where edgeaudit
//! relies on something the excerpt does not publish, its declaration must
//! say so (`relies_on` names the parameter or field in backticks, or says the
//! operation itself).

#![allow(dead_code)]

use edgeaudit::api::{Operation, parse_query};
use serde_json::Value;

/// The excerpt, or `None` with a notice when `../shared` is not beside the project.
pub fn excerpt() -> Option<Value> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/api/cloudflare-openapi-excerpt.json");
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(serde_json::from_str(&text).expect("the excerpt is JSON")),
        Err(_) => {
            eprintln!("NOTICE: {} is absent; the published contract is not checked", path.display());
            None
        }
    }
}

/// The excerpt's operation for a declared one (`METHOD /path/{template}`).
pub fn published<'e>(excerpt: &'e Value, operation: &Operation) -> Option<&'e Value> {
    excerpt["operations"].get(format!("{} {}", operation.method, operation.path))
}

/// Whether the declaration says it relies on `what` beyond the excerpt.
pub fn relied_on(operation: &Operation, what: &str) -> bool {
    operation.relies_on.iter().any(|r| r.contains(&format!("`{what}`")))
}

/// The object schema with `properties` in a schema (through allOf/oneOf/anyOf).
fn objects(schema: &Value) -> Vec<&Value> {
    let mut out = Vec::new();
    if schema.get("properties").is_some() {
        out.push(schema);
    }
    for key in ["allOf", "oneOf", "anyOf"] {
        for part in schema[key].as_array().into_iter().flatten() {
            out.extend(objects(part));
        }
    }
    out
}

/// Why a value is not one a schema's `type`/`enum`/`minimum`/`maximum` admit, if it is not.
fn value_fits(schema: &Value, value: &Value) -> Result<(), String> {
    if let Some(values) = schema["enum"].as_array()
        && !values
            .iter()
            .any(|v| v == value || v.as_str().is_some_and(|s| Some(s) == value.as_str()))
    {
        return Err(format!("{value} is not one of {}", Value::Array(values.clone())));
    }
    if let Some(n) = value.as_f64().or_else(|| value.as_str().and_then(|s| s.parse().ok()))
        && matches!(schema["type"].as_str(), Some("number" | "integer"))
        && (schema["minimum"].as_f64().is_some_and(|min| n < min) || schema["maximum"].as_f64().is_some_and(|max| n > max))
    {
        return Err(format!("{n} is outside {}..{}", schema["minimum"], schema["maximum"]));
    }
    Ok(())
}

/// Why a body's fields are not the schema's, recursively, if they are not.
fn body_fits(schema: &Value, body: &Value, at: &str, operation: &Operation, out: &mut Vec<String>) {
    let Some(fields) = body.as_object() else { return };
    let objects = objects(schema);
    if objects.is_empty() {
        return;
    }
    for (name, value) in fields {
        let property = objects.iter().find_map(|o| o["properties"].get(name));
        match property {
            None if relied_on(operation, name) => {}
            None => out.push(format!("body field `{at}{name}` is not in the published contract")),
            Some(p) => {
                if let Err(why) = value_fits(p, value)
                    && !relied_on(operation, name)
                {
                    out.push(format!("body field `{at}{name}`: {why}"));
                }
                body_fits(p, value, &format!("{at}{name}."), operation, out);
            }
        }
    }
}

/// Everything in one request that the published contract does not allow
/// and the declaration does not say it relies on.
pub fn violations(excerpt: &Value, method: &str, target: &str, body: &Value) -> Vec<String> {
    let Some(operation) = Operation::find(method, target) else {
        return vec![format!("{method} {target}: no declared operation")];
    };
    let Some(published) = published(excerpt, operation) else {
        return if operation.relies_on.iter().any(|r| r.contains("the operation itself")) {
            Vec::new()
        } else {
            vec![format!("{method} {target}: not in the published contract")]
        };
    };
    let mut out = Vec::new();
    let params = published["parameters"].as_array().cloned().unwrap_or_default();
    for (name, value) in parse_query(target) {
        // What the current reference adds (../shared/api/README.md) is declared apart.
        if operation.reference.iter().any(|p| p.name == name && p.values.admits(&value)) {
            continue;
        }
        match params.iter().find(|p| p["in"] == "query" && p["name"] == name.as_str()) {
            None if relied_on(operation, &name) => {}
            None => out.push(format!("query parameter `{name}` is not in the published contract")),
            Some(p) => {
                if let Err(why) = value_fits(&p["schema"], &Value::String(value.clone())) {
                    out.push(format!("query `{name}={value}`: {why}"));
                }
            }
        }
    }
    let schema = &published["requestBody"]["content"]["application/json"]["schema"];
    match (body.is_null(), schema.is_null()) {
        (true, _) => {}
        (false, true) => out.push("a body where the contract has none".into()),
        (false, false) => body_fits(schema, body, "", operation, &mut out),
    }
    out.into_iter().map(|v| format!("{method} {target}: {v}")).collect()
}
