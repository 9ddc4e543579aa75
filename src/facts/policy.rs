use super::coverage::can_cover;
use super::{Facts, Item, Subject, Value};
use crate::facts::coverage::CoverageIndex;
use crate::model::Kind;
use crate::model::notification::{EventSource, Health, Policy, Valued};

pub fn facts(policy: &Policy, index: &CoverageIndex) -> Facts {
    let mut f = Facts::new(Subject {
        kind: Kind::NotificationPolicy,
        id: policy.id.clone(),
        name: policy.name.clone(),
        origin: policy.origin.clone(),
    });
    f.set("id", Value::Text(policy.id.clone()), "/id");
    f.set("name", Value::Text(policy.name.clone()), "/name");
    f.set("alert_type", Value::Text(policy.alert_type.clone()), "/alert_type");
    f.set("is_health_alert", Value::Bool(policy.is_health_alert()), "/alert_type");
    f.set("enabled", Value::Bool(policy.enabled), "/enabled");
    f.set("mechanism_count", Value::Int(policy.mechanisms.len() as i64), "/mechanisms");
    let (delivery, at) = if can_cover(policy) || !policy.is_health_alert() {
        ("delivers", "")
    } else if !policy.enabled {
        ("disabled", "/enabled")
    } else {
        ("no_mechanisms", "/mechanisms")
    };
    f.set("delivery", Value::Text(delivery.into()), at);
    let reason = match delivery {
        "disabled" => "it is disabled (`enabled: false`)",
        "no_mechanisms" => "it has no delivery mechanism under `mechanisms`",
        _ => "",
    };
    f.set("delivery_reason", Value::Text(reason.into()), at);

    let mut invalid = Vec::new();
    if policy.is_health_alert() {
        let healths: Vec<&str> = Health::ALL.iter().map(|h| h.api_value()).collect();
        let sources: Vec<&str> = EventSource::ALL.iter().map(|s| s.api_value()).collect();
        invalid.extend(invalid_values(&policy.new_health, "new_health", &healths));
        invalid.extend(invalid_values(&policy.event_source, "event_source", &sources));
    }
    f.set("invalid_filter_values", Value::List(invalid), "/filters");

    let unknown: Vec<Item> = if index.pool_ids.is_empty() {
        Vec::new()
    } else {
        policy
            .pool_ids
            .iter()
            .filter(|v| !index.pool_ids.contains(&v.value.to_ascii_lowercase()))
            .map(|v| Item {
                text: v.value.clone(),
                path: Some(v.path.clone()),
            })
            .collect()
    };
    f.set("unknown_pool_ids", Value::List(unknown), "/filters/pool_id");
    f.set("loaded_pool_count", Value::Int(index.pool_count as i64), "");
    f
}

fn invalid_values(values: &[Valued], field: &str, allowed: &[&str]) -> Vec<Item> {
    values
        .iter()
        .filter(|v| !allowed.contains(&v.value.as_str()))
        .map(|v| {
            let hint = allowed
                .iter()
                .find(|a| a.eq_ignore_ascii_case(v.value.trim()))
                .map(|a| format!("; did you mean `{a}`?"))
                .unwrap_or_default();
            Item {
                text: format!("`{}` in filters.{field} (allowed: {}{hint})", v.value, allowed.join(", ")),
                path: Some(v.path.clone()),
            }
        })
        .collect()
}
