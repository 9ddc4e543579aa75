//! The state of the account a plan relies on, as the plan's JSON records it
//! for `edgeaudit apply` (docs/src/commands/apply.md): every pool loaded (in the order the
//! bulk clear pages them) with its legacy e-mail, and each exported policy a
//! step counts on or updates, as it delivers and as it was exported. `apply`
//! reads the same shapes from the live account and compares.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::model::notification::{Event, EventSet, EventSource, legacy_events, parse_recipients};

/// A pool as far as a plan relies on it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PoolState {
    /// The legacy events, as [`Event::as_str`] names them.
    pub events: Vec<String>,
    pub id: String,
    pub name: String,
    /// Lower-cased, trimmed, sorted legacy recipients; empty = none.
    pub recipients: Vec<String>,
}

impl PoolState {
    pub fn new(id: &str, name: &str, recipients: &[String], events: EventSet) -> PoolState {
        let mut recipients: Vec<String> = recipients.iter().map(|r| r.trim().to_ascii_lowercase()).collect();
        recipients.sort();
        recipients.dedup();
        PoolState {
            id: id.to_string(),
            name: name.to_string(),
            recipients,
            events: events.iter().map(|e| e.as_str().to_string()).collect(),
        }
    }

    /// A pool as the API returns it (`id`, `name`, `notification_email`,
    /// `notification_filter`).
    pub fn from_api(record: &Value) -> PoolState {
        let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("").to_string();
        let filter = record.get("notification_filter");
        let setting = |source: EventSource| {
            let s = filter.and_then(|f| f.get(source.api_value()));
            let flag = |name: &str| s.and_then(|s| s.get(name)).and_then(Value::as_bool);
            (source, flag("disable"), flag("healthy"))
        };
        let events = legacy_events([setting(EventSource::Pool), setting(EventSource::Origin)]);
        let recipients = parse_recipients(record.get("notification_email").and_then(Value::as_str));
        PoolState::new(&text(record.get("id")), &text(record.get("name")), &recipients, events)
    }

    /// The legacy events.
    pub fn event_set(&self) -> EventSet {
        self.events.iter().filter_map(|e| Event::parse(e)).collect()
    }

    /// Whether it still carries a legacy e-mail.
    pub fn is_legacy(&self) -> bool {
        !self.recipients.is_empty()
    }
}

/// What decides whether a policy delivers a legacy alert (docs/src/rules/list.md, LB rules), in
/// a form that compares equal exactly when two policies deliver the same.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Delivers {
    /// A health alert, enabled, with at least one mechanism.
    pub can_deliver: bool,
    /// Lower-cased, trimmed, sorted e-mail mechanism ids.
    pub emails: Vec<String>,
    /// As spelt, sorted; empty = all.
    pub event_source: Vec<String>,
    pub new_health: Vec<String>,
    /// Lower-cased, sorted; empty = every pool.
    pub pool_ids: Vec<String>,
}

impl Delivers {
    pub fn of(policy: &crate::model::delivery::Reach) -> Delivers {
        let sorted = |v: &[String]| {
            let mut v = v.to_vec();
            v.sort();
            v.dedup();
            v
        };
        Delivers {
            can_deliver: policy.can_deliver,
            pool_ids: policy.pool_ids.iter().cloned().collect(),
            event_source: sorted(&policy.sources),
            new_health: sorted(&policy.healths),
            emails: sorted(&policy.emails),
        }
    }

    /// A policy as the API returns it.
    pub fn from_api(record: &Value) -> Delivers {
        Delivers::of(&crate::model::delivery::Reach::of_body("", record))
    }
}

/// A custom hostname a certificate step of the plan changes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HostnameState {
    pub id: String,
    pub zone_id: String,
}

/// An exported policy a plan counts on or updates.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PolicyState {
    pub delivers: Delivers,
    pub id: String,
    pub name: String,
    /// Its record as exported, without the fields the service sets
    /// (`id`, `created`, `modified`); present for the policies a step updates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<Map<String, Value>>,
}

/// A policy's record without the fields the service sets: what a `PUT`
/// sends, and what two reads of one unedited policy share.
pub fn writable(record: &Value) -> Map<String, Value> {
    let mut body = record.as_object().cloned().unwrap_or_default();
    super::record::drop_read_only(&mut body);
    body
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_pool_read_from_the_api_keeps_its_legacy_notification() {
        let pool = PoolState::from_api(&json!({
            "id": "p1", "name": "web", "notification_email": " Ops@x.io, b@y.io,",
            "notification_filter": {"pool": {"disable": true}, "origin": {"healthy": false}}
        }));
        assert_eq!(pool.recipients, vec!["b@y.io", "ops@x.io"]);
        assert_eq!(pool.events, vec!["origin Unhealthy"]);
        assert!(pool.is_legacy());
        let cleared = PoolState::from_api(&json!({"id": "p1", "name": "web", "notification_email": ""}));
        assert!(!cleared.is_legacy());
        assert_eq!(cleared.event_set().to_vec().len(), 4, "no filter: every event");
    }

    #[test]
    fn two_policies_deliver_alike_whatever_their_order_and_case() {
        let a = Delivers::from_api(
            &json!({"alert_type": "load_balancing_health_alert", "mechanisms": {"email": [{"id": "A@x.io"}, {"id": "b@x.io"}]},
            "filters": {"pool_id": ["P2", "p1"], "new_health": ["Healthy"]}}),
        );
        let b = Delivers::from_api(
            &json!({"alert_type": "load_balancing_health_alert", "enabled": true, "mechanisms": {"email": [{"id": "b@x.io"}, {"id": "a@x.io "}]},
            "filters": {"pool_id": ["p1", "p2"], "new_health": ["Healthy"]}}),
        );
        assert_eq!(a, b);
        let disabled = Delivers::from_api(
            &json!({"alert_type": "load_balancing_health_alert", "enabled": false, "mechanisms": {"email": [{"id": "a@x.io"}, {"id": "b@x.io"}]},
            "filters": {"pool_id": ["p1", "p2"], "new_health": ["Healthy"]}}),
        );
        assert_ne!(a, disabled);
    }
}
