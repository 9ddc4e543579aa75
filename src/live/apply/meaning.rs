//! What a plan's steps mean, checked before anything is sent, whatever the
//! plan's digest says (an attacker who edits a plan file can compute a new
//! one): a created or updated policy is a load-balancing health alert whose
//! e-mail recipients are within the legacy recipients of the pools it names
//! (and, for an update, those the exported policy already had), and those
//! pools are in the plan's state; a clear names pools of the state; a
//! certificate step changes nothing but the CA, moves it off Let's Encrypt,
//! never disables Universal SSL or Total TLS, and touches only the zones and
//! hostnames the state records. Each refusal names the step and the rule.

use std::collections::{BTreeSet, HashMap};

use serde_json::{Map, Value};

use super::plan_file::{Kind, PlanAccount, Step};
use crate::model::notification::{HEALTH_ALERT_TYPE, HEALTH_ALERT_TYPES};

/// The CAs a certificate step may move a resource to: the alternatives to
/// Let's Encrypt the service offers, and the default (`""`, a custom hostname's).
const TARGET_CAS: [&str; 3] = ["google", "ssl_com", ""];

/// An id as real ids are (hex, UUIDs): letters, digits, `-` and `_`. No `%`,
/// `/`, `\`, `.`, space or control character: checked as the file holds it,
/// which is what is encoded into a path.
pub fn plain_id(id: &str) -> Result<(), String> {
    let plain = !id.is_empty() && id.len() <= 128 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if plain {
        Ok(())
    } else {
        Err(format!(
            "`{}` is not an id (letters, digits, `-` and `_` only)",
            crate::text::escape::terminal::value(id)
        ))
    }
}

/// Every step of the account, checked for what it does.
pub fn check(account: &PlanAccount) -> Result<(), String> {
    let pools: HashMap<String, &crate::plan::state::PoolState> =
        account.state.pools.iter().map(|p| (p.id.to_ascii_lowercase(), p)).collect();
    // The state's hostnames by (zone, id): each step's found in constant time.
    let hostnames: std::collections::HashSet<(&str, &str)> = account
        .state
        .custom_hostnames
        .iter()
        .map(|h| (h.zone_id.as_str(), h.id.as_str()))
        .collect();
    for step in account.each_step() {
        let step = &step;
        let refuse = |rule: &str| Err(format!("step {} ({:?}) is refused: {rule}", step.step, step.kind));
        let Some(body) = step.body.as_ref().and_then(Value::as_object) else {
            continue;
        };
        // Every pool a step names is one the plan's state holds.
        if let Some(unknown) = step.pools.iter().find(|p| !pools.contains_key(&p.to_ascii_lowercase())) {
            return refuse(&format!(
                "it names pool `{}`, which is not in the plan's state",
                crate::text::escape::terminal::value(unknown)
            ));
        }
        // A certificate step moves a resource off Let's Encrypt, and only
        // while it is there: what it expects to find is that, nothing else.
        if matches!(step.kind, Kind::EditCustomHostname | Kind::SetTotalTls | Kind::SetUniversalSsl) {
            let expects = step
                .expects
                .as_ref()
                .and_then(|e| e.get("certificate_authority"))
                .and_then(Value::as_str);
            if expects != Some(crate::plan::Request::MOVES_OFF) {
                return refuse("a certificate step expects to find the resource on `lets_encrypt`, nothing else");
            }
            let expected_hostname = step.expects.as_ref().and_then(|e| e.get("hostname_id")).and_then(Value::as_str);
            if step.kind == Kind::EditCustomHostname && expected_hostname != step.hostname_id.as_deref() {
                return refuse("its `expects.hostname_id` is not the hostname it changes");
            }
        }
        let outcome = match step.kind {
            Kind::CreatePolicy => created_policy(step, body, &pools),
            Kind::UpdatePolicy => updated_policy(step, body, account, &pools),
            Kind::ClearPage | Kind::ClearPool => Ok(()),
            Kind::EditCustomHostname => hostname_change(step, body, &hostnames),
            Kind::SetTotalTls => zone_setting(step, body, account, true),
            Kind::SetUniversalSsl => zone_setting(step, body, account, false),
            Kind::Manual | Kind::Terraform => Ok(()),
        };
        if let Err(rule) = outcome {
            return refuse(&rule);
        }
    }
    Ok(())
}

fn text_list(value: Option<&Value>) -> Option<Vec<String>> {
    match value {
        None | Some(Value::Null) => Some(Vec::new()),
        Some(Value::Array(items)) => items.iter().map(|v| v.as_str().map(str::to_string)).collect(),
        Some(_) => None,
    }
}

/// The e-mail addresses a policy body sends to, trimmed and lower-cased.
fn emails(body: &Map<String, Value>) -> Result<BTreeSet<String>, String> {
    let Some(entries) = body.get("mechanisms").and_then(|m| m.get("email")) else {
        return Ok(BTreeSet::new());
    };
    let entries = entries.as_array().ok_or("`mechanisms.email` is not a list")?;
    entries
        .iter()
        .map(|e| {
            e.get("id")
                .and_then(Value::as_str)
                .map(|id| id.trim().to_ascii_lowercase())
                .ok_or_else(|| "an e-mail mechanism without an `id`".to_string())
        })
        .collect()
}

/// The legacy recipients of the step's pools.
fn legacy_recipients(step: &Step, pools: &HashMap<String, &crate::plan::state::PoolState>) -> BTreeSet<String> {
    step.pools
        .iter()
        .filter_map(|p| pools.get(&p.to_ascii_lowercase()))
        .flat_map(|p| p.recipients.iter().cloned())
        .collect()
}

/// The filter values a health alert takes: known values, and pools of the step.
fn filters(body: &Map<String, Value>, allowed_pools: &BTreeSet<String>) -> Result<(), String> {
    let filters = match body.get("filters") {
        None | Some(Value::Null) => return Err("a policy without `filters.pool_id` alerts about every pool".into()),
        Some(Value::Object(f)) => f,
        Some(_) => return Err("`filters` is not an object".into()),
    };
    for key in filters.keys() {
        if !["pool_id", "new_health", "event_source"].contains(&key.as_str()) {
            return Err(format!(
                "`filters.{}` is no filter of a health alert",
                crate::text::escape::terminal::value(key)
            ));
        }
    }
    let pool_ids = text_list(filters.get("pool_id")).ok_or("`filters.pool_id` is not a list of ids")?;
    if pool_ids.is_empty() {
        return Err("a policy without `filters.pool_id` alerts about every pool".into());
    }
    if let Some(other) = pool_ids.iter().find(|p| !allowed_pools.contains(&p.to_ascii_lowercase())) {
        return Err(format!(
            "`filters.pool_id` names `{}`, not a pool the step takes over",
            crate::text::escape::terminal::value(other)
        ));
    }
    let within = |name: &str, values: &[&str]| -> Result<(), String> {
        let given = text_list(filters.get(name)).ok_or_else(|| format!("`filters.{name}` is not a list"))?;
        match given.iter().find(|v| !values.contains(&v.as_str())) {
            Some(v) => Err(format!("`filters.{name}` holds `{}`", crate::text::escape::terminal::value(v))),
            None => Ok(()),
        }
    };
    within("new_health", &["Healthy", "Unhealthy"])?;
    within("event_source", &["pool", "origin"])
}

/// A new policy: exactly the health alert that takes over its pools' legacy e-mails.
fn created_policy(step: &Step, body: &Map<String, Value>, pools: &HashMap<String, &crate::plan::state::PoolState>) -> Result<(), String> {
    if step.pools.is_empty() {
        return Err("a created policy takes over the legacy e-mails of the pools it names in `pools`".into());
    }
    for key in body.keys() {
        if !["name", "alert_type", "enabled", "mechanisms", "filters", "description"].contains(&key.as_str()) {
            return Err(format!(
                "`{}` is not a field a created health alert has",
                crate::text::escape::terminal::value(key)
            ));
        }
    }
    if body.get("alert_type").and_then(Value::as_str) != Some(HEALTH_ALERT_TYPE) {
        return Err(format!("a created policy is a {HEALTH_ALERT_TYPE}"));
    }
    if body.get("enabled") != Some(&Value::Bool(true)) {
        return Err("a created policy is enabled".into());
    }
    let mechanisms = body
        .get("mechanisms")
        .and_then(Value::as_object)
        .ok_or("a created policy e-mails its recipients")?;
    if mechanisms.keys().any(|k| k != "email") {
        return Err("a created policy sends e-mail only (the legacy field's one mechanism)".into());
    }
    let allowed = legacy_recipients(step, pools);
    let sends = emails(body)?;
    if sends.is_empty() {
        return Err("a created policy e-mails its pools' legacy recipients".into());
    }
    if let Some(outsider) = sends.iter().find(|e| !allowed.contains(*e)) {
        return Err(format!(
            "it e-mails `{}`, who is not a legacy recipient of its pools",
            crate::text::escape::terminal::value(outsider)
        ));
    }
    let step_pools: BTreeSet<String> = step.pools.iter().map(|p| p.to_ascii_lowercase()).collect();
    filters(body, &step_pools)
}

/// An exported policy, updated: the same policy with only its filter values
/// and e-mail recipients changed, toward its pools' legacy e-mails.
fn updated_policy(
    step: &Step,
    body: &Map<String, Value>,
    account: &PlanAccount,
    pools: &HashMap<String, &crate::plan::state::PoolState>,
) -> Result<(), String> {
    let id = step.policy_id.as_deref().unwrap_or("");
    let Some(record) = account.state.policies.iter().find(|p| p.id == id).and_then(|p| p.record.as_ref()) else {
        return Err("the policy it updates is not in the plan's state as exported".into());
    };
    if !body
        .get("alert_type")
        .and_then(Value::as_str)
        .is_some_and(|t| HEALTH_ALERT_TYPES.contains(&t))
    {
        return Err("an updated policy is a load-balancing health alert".into());
    }
    // Everything but the filters and the e-mail mechanisms stays as exported.
    let keys: BTreeSet<&String> = body.keys().chain(record.keys()).collect();
    for key in keys {
        if key == "filters" || key == "mechanisms" {
            continue;
        }
        if body.get(key) != record.get(key) {
            return Err(format!(
                "it changes `{}`, which the plan keeps as exported",
                crate::text::escape::terminal::value(key)
            ));
        }
    }
    let other_mechanisms = |m: Option<&Value>| -> Map<String, Value> {
        let mut m = m.and_then(Value::as_object).cloned().unwrap_or_default();
        m.remove("email");
        m
    };
    if other_mechanisms(body.get("mechanisms")) != other_mechanisms(record.get("mechanisms")) {
        return Err("it changes a mechanism other than e-mail".into());
    }
    let mut allowed = legacy_recipients(step, pools);
    allowed.extend(emails(record)?);
    if let Some(outsider) = emails(body)?.iter().find(|e| !allowed.contains(*e)) {
        return Err(format!(
            "it e-mails `{}`, who is neither a legacy recipient of its pools nor one the policy had",
            crate::text::escape::terminal::value(outsider)
        ));
    }
    let mut allowed_pools: BTreeSet<String> = step.pools.iter().map(|p| p.to_ascii_lowercase()).collect();
    let exported_pools = text_list(record.get("filters").and_then(|f| f.get("pool_id"))).unwrap_or_default();
    if exported_pools.is_empty() && body.get("filters").and_then(|f| f.get("pool_id")).is_none() {
        // A policy of every pool stays one.
        return Ok(());
    }
    allowed_pools.extend(exported_pools.iter().map(|p| p.to_ascii_lowercase()));
    filters(body, &allowed_pools)
}

/// A custom hostname's change: its `ssl` with the CA moved off Let's Encrypt,
/// its validation method and type as they were; a hostname of the state.
fn hostname_change(step: &Step, body: &Map<String, Value>, hostnames: &std::collections::HashSet<(&str, &str)>) -> Result<(), String> {
    let (zone, hostname) = (step.zone_id.as_deref().unwrap_or(""), step.hostname_id.as_deref().unwrap_or(""));
    if !hostnames.contains(&(zone, hostname)) {
        return Err("the custom hostname it changes is not in the plan's state".into());
    }
    if body.keys().any(|k| k != "ssl") {
        return Err("a custom hostname's change sends its `ssl` only".into());
    }
    let ssl = body.get("ssl").and_then(Value::as_object).ok_or("its `ssl` is not an object")?;
    for key in ssl.keys() {
        if !["method", "type", "certificate_authority"].contains(&key.as_str()) {
            return Err(format!(
                "it sets `ssl.{}`: a certificate step changes the CA only",
                crate::text::escape::terminal::value(key)
            ));
        }
    }
    match ssl.get("certificate_authority").and_then(Value::as_str) {
        Some(ca) if TARGET_CAS.contains(&ca) => Ok(()),
        _ => Err("it moves the hostname to no CA the plan moves hostnames to (google, ssl_com or the default)".into()),
    }
}

/// Total TLS or Universal SSL: the CA moved off Let's Encrypt, nothing else;
/// never disabled; a zone of the state.
fn zone_setting(step: &Step, body: &Map<String, Value>, account: &PlanAccount, total_tls: bool) -> Result<(), String> {
    let zone = step.zone_id.as_deref().unwrap_or("");
    if !account.state.zones.iter().any(|z| z == zone) {
        return Err("the zone it changes is not in the plan's state".into());
    }
    let allowed: &[&str] = if total_tls {
        &["enabled", "certificate_authority"]
    } else {
        &["certificate_authority"]
    };
    if let Some(key) = body.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(format!(
            "it sets `{}`: a certificate step changes the CA only",
            crate::text::escape::terminal::value(key)
        ));
    }
    if total_tls && body.get("enabled") != Some(&Value::Bool(true)) {
        return Err("Total TLS stays enabled: `enabled` is true".into());
    }
    match body.get("certificate_authority").and_then(Value::as_str) {
        Some(ca) if ca == "google" || ca == "ssl_com" => Ok(()),
        _ => Err("it moves the zone to no CA the plan moves zones to (google or ssl_com)".into()),
    }
}
