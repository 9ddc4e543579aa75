//! The exported records of notification policies, read back whole: a policy
//! is updated with `PUT`, which replaces every field, so its body must carry
//! what the export holds beyond the model (description, alert interval,
//! webhooks, other filters) or the update would erase it.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value};

use crate::input::source::SourceFile;
use crate::model::Account;
use crate::model::notification::Policy;

/// A policy's record with only the fields a replace may send, as the
/// published contract lists them (the service sets `id`, `created`,
/// `modified` and derives others, such as `conditions`).
pub fn drop_read_only(body: &mut Map<String, Value>) {
    let writable = crate::api::Operation::of(crate::api::Op::UpdatePolicy).body;
    body.retain(|name, _| writable.iter().any(|f| f.name == name));
}

/// The writable body of every health-alert policy whose record is an API
/// record that can be read back and names the model's id, by policy id.
/// A policy loaded twice is left out: which copy holds the truth is unknown
/// (EX002 says so), and a PUT from the wrong one would undo the other.
pub fn policy_bodies(files: &[SourceFile], account: &Account) -> BTreeMap<String, Map<String, Value>> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for p in &account.policies {
        *seen.entry(p.id.as_str()).or_default() += 1;
    }
    // Each file's format reads its records back (keeping what it parses of a
    // file once); byte ranges only, no line and column.
    let mut locator = crate::input::locate::Locator::new(files);
    let mut bodies = BTreeMap::new();
    for policy in &account.policies {
        if policy.id.is_empty() || seen.get(policy.id.as_str()) != Some(&1) || !policy.is_health_alert() {
            continue;
        }
        if let Some(body) = read(&mut locator, policy) {
            bodies.insert(policy.id.clone(), body);
        }
    }
    bodies
}

fn read(locator: &mut crate::input::locate::Locator<'_>, policy: &Policy) -> Option<Map<String, Value>> {
    // Only API exports hold API bodies: a Terraform resource's attributes are
    // not one (every Terraform record has its address), and a PUT behind
    // Terraform's back would be undone by its next apply.
    if policy.origin.address().is_some() {
        return None;
    }
    let record = locator.read_record(&policy.origin)?;
    let Value::Object(mut body) = record else { return None };
    if body.get("id").and_then(Value::as_str) != Some(policy.id.as_str()) {
        return None;
    }
    drop_read_only(&mut body);
    Some(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_only_fields_are_dropped_and_everything_else_is_kept() {
        let text = r#"{"result": [{"id": "pol-1", "name": "web", "alert_type": "load_balancing_health_alert",
            "description": "kept", "alert_interval": "30m", "created": "2024-01-01T00:00:00Z",
            "mechanisms": {"webhooks": [{"id": "w"}]}, "filters": {"pool_id": ["p1"], "zones": ["z"]}}]}"#;
        for (name, text) in [("p.json", text.to_string()), ("p.yaml", text.to_string())] {
            let options = crate::load::LoadOptions::default();
            let dir = std::env::temp_dir().join(format!("edgeaudit-record-{}-{name}", std::process::id()));
            std::fs::write(&dir, &text).expect("temp file");
            let mut builder = crate::adapt::Builder::default();
            let path = dir.to_string_lossy().into_owned();
            let loaded = crate::load::load(std::slice::from_ref(&path), &options, &mut builder).expect("loads");
            let inventory = builder.finish();
            let bodies = policy_bodies(&loaded.files, &inventory.accounts[0]);
            let _ = std::fs::remove_file(&dir);
            let body = &bodies["pol-1"];
            assert_eq!(body.get("id"), None, "{name}");
            assert_eq!(body.get("created"), None, "{name}");
            assert_eq!(body["description"], "kept", "{name}");
            assert_eq!(body["alert_interval"], "30m", "{name}");
            assert_eq!(body["filters"]["zones"], serde_json::json!(["z"]), "{name}");
            assert_eq!(body["mechanisms"]["webhooks"][0]["id"], "w", "{name}");
        }
    }
}
