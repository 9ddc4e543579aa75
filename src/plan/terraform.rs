//! Remedies in Terraform's words, for resources of Terraform source: a
//! replacement policy body becomes a `cloudflare_notification_policy`
//! resource block in the configuration's provider generation, naming its
//! pools by reference; clearing a pool is removing its `notification_email`.
//! Rendered from the same policy bodies as the API requests, so the block,
//! the JSON body and the plan cannot disagree.

use crate::model::fields::PoolFields;
use crate::model::notification::NewPolicy;
use crate::model::terraform::reference;

pub use crate::model::terraform::Generation;

impl Generation {
    /// The generation whose layout a pool was read with.
    pub fn of(fields: &PoolFields) -> Generation {
        if std::ptr::eq(fields, crate::input::terraform::V4.pool) {
            Generation::V4
        } else {
            Generation::V5
        }
    }
}

/// A resource name from a policy name: letters, digits and `_`, starting
/// with a letter (`web health alerts` → `web_health_alerts`).
pub fn label(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' })
        .collect();
    while out.contains("__") {
        out = out.replace("__", "_");
    }
    let out = out.trim_matches('_').to_string();
    match out.chars().next() {
        Some(c) if c.is_ascii_alphabetic() => out,
        _ => format!("policy_{out}"),
    }
}

use crate::text::escape::hcl::{comment, is_identifier, is_pool_address, string};

fn list(items: impl Iterator<Item = String>) -> String {
    format!("[{}]", items.collect::<Vec<_>>().join(", "))
}

/// A pool id as the configuration names it: a reference for a resource of
/// the same configuration, the id itself otherwise. Anything else that only
/// looks like a reference (`${var.…}` in an API export) is the string it is.
fn pool_expression(id: &str) -> String {
    reference(id)
        .filter(|r| is_pool_address(r))
        .map_or_else(|| string(id), str::to_string)
}

/// The `cloudflare_notification_policy` block named `label` (see [`label`])
/// for a policy body (`name`, `alert_type`, `enabled`, `mechanisms.email`, `filters`).
pub fn policy_block(body: &NewPolicy, label: &str, generation: Generation) -> String {
    let emails: Vec<&str> = body.mechanisms.email.iter().map(|m| m.id.as_str()).collect();
    let filters = &body.filters;
    let pools = list(filters.pool_id.iter().map(|id| pool_expression(id)));
    let healths = list(filters.new_health.iter().map(|h| string(h)));
    let sources = list(filters.event_source.iter().map(|s| string(s)));
    let mut out = format!("resource \"cloudflare_notification_policy\" \"{label}\" {{\n");
    out.push_str("  account_id = var.account_id # the account of the pools\n");
    out.push_str(&format!("  name       = {}\n", string(&body.name)));
    out.push_str(&format!("  alert_type = {}\n", string(body.alert_type)));
    out.push_str("  enabled    = true\n");
    // v4 writes blocks (`filters { … }`), v5 objects (`filters = { … }`).
    let opening = match generation {
        Generation::V4 => {
            for email in &emails {
                out.push_str(&format!("  email_integration {{\n    id = {}\n  }}\n", string(email)));
            }
            "  filters {\n"
        }
        Generation::V5 => {
            let email = list(emails.iter().map(|e| format!("{{ id = {} }}", string(e))));
            out.push_str(&format!("  mechanisms = {{\n    email = {email}\n  }}\n"));
            "  filters = {\n"
        }
    };
    out.push_str(opening);
    out.push_str(&format!("    pool_id      = {pools}\n"));
    out.push_str(&format!("    new_health   = {healths}\n"));
    out.push_str(&format!("    event_source = {sources}\n"));
    out.push_str("  }\n");
    out.push('}');
    out
}

/// A JSON value as an HCL expression (provider v5 mirrors the API's
/// objects): objects as `{ key = value }`, arrays as lists, strings escaped.
fn expression(value: &serde_json::Value, indent: usize) -> String {
    use serde_json::Value;
    match value {
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => string(s),
        Value::Array(items) => list(items.iter().map(|v| expression(v, indent))),
        Value::Object(map) if map.is_empty() => "{}".to_string(),
        Value::Object(map) => {
            let pad = " ".repeat(indent + 2);
            let mut out = String::from("{\n");
            for (k, v) in map {
                out.push_str(&format!("{pad}{} = {}\n", string(k), expression(v, indent + 2)));
            }
            out.push_str(&" ".repeat(indent));
            out.push('}');
            out
        }
    }
}

/// An existing policy (from an API export, so not in the configuration)
/// that the plan updates: an `import` block that brings it under Terraform
/// and its resource block as the update leaves it (provider v5), so that
/// `terraform apply` makes the update.
pub fn updated_policy_block(policy_id: &str, body: &serde_json::Value, label: &str, account: Option<&str>) -> String {
    let id = match account {
        Some(account) => string(&format!("{account}/{policy_id}")),
        None => {
            // The literal's inside: its quotes are its first and last bytes
            // (an id ending in `"` keeps its escaped quote).
            let quoted = string(policy_id);
            let inside = quoted.get(1..quoted.len().saturating_sub(1)).unwrap_or("");
            format!("\"${{var.account_id}}/{inside}\"")
        }
    };
    let mut out = format!("import {{\n  to = cloudflare_notification_policy.{label}\n  id = {id}\n}}\n\n");
    out.push_str(&format!("resource \"cloudflare_notification_policy\" \"{label}\" {{\n"));
    out.push_str("  account_id = var.account_id # the account of the pools\n");
    if let Some(map) = body.as_object() {
        for (k, v) in map {
            // An attribute's name is code: only a Terraform name is written as one.
            if is_identifier(k) {
                out.push_str(&format!("  {k} = {}\n", expression(v, 2)));
            } else {
                out.push_str(&format!(
                    "  # left out: the field {} is no Terraform attribute name\n",
                    comment(&string(k))
                ));
            }
        }
    }
    out.push('}');
    out
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::input::hcl::eval::Scope;
    use crate::model::notification::{EventSource, Health};

    fn policy() -> NewPolicy {
        NewPolicy::new(
            "web ${x} health alerts".into(),
            ["ops@example.com", "sre@example.com"],
            vec![
                "${cloudflare_load_balancer_pool.web.id}".into(),
                "17b5962d775c646f3f9725cbc7a53df4".into(),
            ],
            &[EventSource::Pool],
            &[Health::Unhealthy],
        )
    }

    fn body() -> Value {
        serde_json::to_value(policy()).unwrap()
    }

    /// The block, read back by the `.tf` reader, is the body again (in the
    /// shape of its generation).
    fn read_back(block: &str) -> serde_json::Map<String, Value> {
        let parsed = hcl_edit::parser::parse_body(block).expect("the block is valid HCL");
        let resource = crate::input::hcl::tree::resource_blocks(&parsed).next().expect("a resource");
        assert_eq!(resource.name, "web_x_health_alerts");
        let (values, unknown) = crate::input::hcl::tree::attributes(&Scope::default(), &resource.block.body);
        assert_eq!(unknown.len(), 1, "only var.account_id: {unknown:?}");
        values
    }

    #[test]
    fn an_updated_policy_is_imported_and_declared_as_its_put_body() {
        let body = json!({"name": "web ${x}", "alert_type": "load_balancing_health_alert", "enabled": true, "alert_interval": "30m",
            "mechanisms": {"email": [{"id": "ops@example.com"}], "webhooks": [{"id": "hook"}]},
            "filters": {"pool_id": ["p1", "p2"], "new_health": ["Unhealthy"]}});
        let block = updated_policy_block("pol-1", &body, "web_x", Some("acc"));
        let parsed = hcl_edit::parser::parse_body(&block).expect("valid HCL");
        let resource = crate::input::hcl::tree::resource_blocks(&parsed).next().expect("a resource");
        assert_eq!(resource.name, "web_x");
        let (values, unknown) = crate::input::hcl::tree::attributes(&Scope::default(), &resource.block.body);
        assert_eq!(unknown.len(), 1, "only var.account_id: {unknown:?}");
        for key in ["name", "alert_type", "enabled", "alert_interval", "mechanisms", "filters"] {
            assert_eq!(values[key], body[key], "{key}");
        }
        assert!(
            block.starts_with("import {\n  to = cloudflare_notification_policy.web_x\n  id = \"acc/pol-1\"\n}"),
            "{block}"
        );
    }

    #[test]
    fn v5_blocks_read_back_as_the_body() {
        let values = read_back(&policy_block(&policy(), "web_x_health_alerts", Generation::V5));
        assert_eq!(values["name"], "web ${x} health alerts", "a `${{` in a name stays literal");
        assert_eq!(values["mechanisms"], body()["mechanisms"]);
        assert_eq!(values["filters"], body()["filters"]);
    }

    #[test]
    fn v4_blocks_read_back_as_the_body() {
        let values = read_back(&policy_block(&policy(), "web_x_health_alerts", Generation::V4));
        assert_eq!(
            values["email_integration"],
            json!([{"id": "ops@example.com"}, {"id": "sre@example.com"}])
        );
        assert_eq!(values["filters"], json!([body()["filters"]]));
    }

    #[test]
    fn labels_are_terraform_names() {
        assert_eq!(label("web health alerts"), "web_health_alerts");
        assert_eq!(label("1st pool — EU"), "policy_1st_pool_eu");
        assert_eq!(label(""), "policy_");
        assert_eq!(
            Scope::default().eval(&hcl_edit::parser::parse_expr(&string("a\"${b}")).unwrap()),
            Ok(json!("a\"${b}"))
        );
    }
}
