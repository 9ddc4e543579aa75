//! Small resources for unit tests of the stages after the model.

use super::notification::{Event, HEALTH_ALERT_TYPE, Mechanism, Policy, Pool, Valued};
use super::origin::RecordOrigin;
use crate::model::origin::FileId;

pub fn origin() -> RecordOrigin {
    RecordOrigin::new(FileId(0), "/result/0", None)
}

pub fn all_events() -> Vec<Event> {
    Event::ALL.to_vec()
}

pub fn pool(id: &str, recipients: &[&str], events: Vec<Event>) -> Pool {
    Pool {
        fields: &crate::model::fields::POOL,
        origin: origin(),
        id: id.into(),
        name: "web".into(),
        legacy_recipients: recipients.iter().map(|s| s.to_string()).collect(),
        legacy_events: events.into_iter().collect(),
        email_span: crate::model::origin::ValueSpan::NONE,
    }
}

/// Filter values as the model holds them.
pub fn valued(values: &[&str]) -> Vec<Valued> {
    values
        .iter()
        .enumerate()
        .map(|(index, v)| Valued {
            value: v.to_string(),
            index,
        })
        .collect()
}

/// An enabled health-alert policy e-mailing `recipients`, with no filters.
pub fn health_policy(recipients: &[&str]) -> Policy {
    Policy {
        fields: &crate::model::fields::POLICY,
        origin: origin(),
        id: "x".into(),
        name: "x".into(),
        alert_type: HEALTH_ALERT_TYPE.into(),
        enabled: true,
        mechanisms: recipients
            .iter()
            .map(|r| Mechanism {
                kind: "email".into(),
                target: Some(r.to_string()),
            })
            .collect(),
        pool_ids: vec![],
        new_health: vec![],
        event_source: vec![],
    }
}

/// The writable body an API export of `p` holds (what `edgeaudit plan` reads
/// back to update it), with a description the model does not keep.
pub fn api_body(p: &Policy) -> serde_json::Map<String, serde_json::Value> {
    use serde_json::json;
    let values = |v: &[Valued]| v.iter().map(|v| v.value.clone()).collect::<Vec<_>>();
    let mut mechanisms = serde_json::Map::new();
    for m in &p.mechanisms {
        let list = mechanisms.entry(m.kind.clone()).or_insert_with(|| json!([]));
        if let Some(list) = list.as_array_mut() {
            list.push(json!({"id": m.target}));
        }
    }
    let mut filters = serde_json::Map::new();
    for (field, v) in [
        ("pool_id", &p.pool_ids),
        ("new_health", &p.new_health),
        ("event_source", &p.event_source),
    ] {
        if !v.is_empty() {
            filters.insert(field.into(), json!(values(v)));
        }
    }
    let body = json!({
        "name": p.name,
        "description": "kept as exported",
        "alert_type": p.alert_type,
        "enabled": p.enabled,
        "mechanisms": mechanisms,
        "filters": filters,
    });
    match body {
        serde_json::Value::Object(map) => map,
        _ => serde_json::Map::new(),
    }
}
