//! Small resources for unit tests of the stages after the model.

use super::notification::{Event, EventSource, HEALTH_ALERT_TYPE, Health, Mechanism, Policy, Pool, Valued};
use super::origin::RecordOrigin;
use crate::model::origin::FileId;

pub fn origin() -> RecordOrigin {
    RecordOrigin {
        file: FileId(0),
        pointer: "/result/0".into(),
        anchor: None,
    }
}

pub fn all_events() -> Vec<Event> {
    EventSource::ALL
        .into_iter()
        .flat_map(|source| Health::ALL.into_iter().map(move |health| Event { source, health }))
        .collect()
}

pub fn pool(id: &str, recipients: &[&str], events: Vec<Event>) -> Pool {
    Pool {
        fields: &crate::adapt::api::POOL,
        origin: origin(),
        id: id.into(),
        name: "web".into(),
        legacy_recipients: recipients.iter().map(|s| s.to_string()).collect(),
        legacy_events: events.into_iter().collect(),
    }
}

/// Filter values as the model holds them, with their paths.
pub fn valued(field: &str, values: &[&str]) -> Vec<Valued> {
    values
        .iter()
        .enumerate()
        .map(|(i, v)| Valued {
            value: v.to_string(),
            path: format!("/filters/{field}/{i}"),
        })
        .collect()
}

/// An enabled health-alert policy e-mailing `recipients`, with no filters.
pub fn health_policy(recipients: &[&str]) -> Policy {
    Policy {
        fields: &crate::adapt::api::POLICY,
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
