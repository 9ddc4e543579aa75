//! Whether a policy delivers a pool's legacy alert (DESIGN §2.1), decided in
//! one place: the rules' coverage (`facts::coverage`), the plan's model of
//! the service (`plan::service`) and `apply`'s checks on the live account
//! all ask [`Reach::delivers`]. A policy is reduced to what decides it,
//! from the model (an export) or from a body as the API takes and returns
//! it (a plan's step, a live read), the two ways a policy reaches us.
//!
//! The stand-in service of the tests keeps its own model of delivery,
//! written apart from this one; a property test holds the two together
//! (`tests/it/delivery.rs`).

use std::collections::BTreeSet;

use serde_json::Value;

use super::notification::{Event, HEALTH_ALERT_TYPES, Policy};

/// One policy, reduced to what decides delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reach {
    pub id: String,
    /// A health alert, enabled (absent counts as enabled), with at least
    /// one delivery mechanism.
    pub can_deliver: bool,
    /// `filters.pool_id`, lower-cased, a set: a policy may name 25 000
    /// pools, and each of them is asked about; empty = all pools.
    pub pool_ids: BTreeSet<String>,
    /// `filters.event_source` and `filters.new_health` as spelt (the
    /// service matches them exactly: `unhealthy` is not `Unhealthy`); empty
    /// = all.
    pub sources: Vec<String>,
    pub healths: Vec<String>,
    /// E-mail mechanism ids, trimmed and lower-cased.
    pub emails: Vec<String>,
    /// Whether it also delivers elsewhere (webhooks, PagerDuty): more events
    /// would reach those too.
    pub other_mechanisms: bool,
}

/// How an e-mail address is compared: trimmed, whatever its case.
pub fn address(recipient: &str) -> String {
    recipient.trim().to_ascii_lowercase()
}

/// A policy of an export can deliver a health alert at all: the right type,
/// enabled, and at least one delivery mechanism.
pub fn can_deliver(p: &Policy) -> bool {
    p.is_health_alert() && p.enabled && !p.mechanisms.is_empty()
}

impl Reach {
    /// A policy of an export.
    pub fn of_policy(p: &Policy) -> Self {
        Reach {
            id: p.id.clone(),
            can_deliver: can_deliver(p),
            pool_ids: p.pool_ids.iter().map(|v| v.value.to_ascii_lowercase()).collect(),
            sources: p.event_source.iter().map(|v| v.value.clone()).collect(),
            healths: p.new_health.iter().map(|v| v.value.clone()).collect(),
            emails: p.email_recipients().map(address).collect(),
            other_mechanisms: p.mechanisms.iter().any(|m| m.kind != "email"),
        }
    }

    /// A policy as a create or update body makes it, or as the API returns it.
    pub fn of_body(id: &str, body: &Value) -> Self {
        // A filter entry that is not a string (`[null]`) still makes the
        // filter non-empty, and matches nothing: kept as its JSON text, it
        // never equals an event value or a pool id as the API spells them.
        let strings = |v: Option<&Value>| -> Vec<String> {
            v.and_then(Value::as_array)
                .map(|a| a.iter().map(|e| e.as_str().map_or_else(|| e.to_string(), str::to_string)).collect())
                .unwrap_or_default()
        };
        let filters = body.get("filters");
        let mechanisms = body.get("mechanisms").and_then(Value::as_object);
        let has_mechanism = mechanisms.is_some_and(|m| m.values().any(|v| v.as_array().is_some_and(|a| !a.is_empty())));
        let emails = mechanisms
            .and_then(|m| m.get("email"))
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(|e| e.get("id").and_then(Value::as_str)).map(address).collect())
            .unwrap_or_default();
        let other_mechanisms =
            mechanisms.is_some_and(|m| m.iter().any(|(k, v)| k != "email" && v.as_array().is_some_and(|a| !a.is_empty())));
        let alert_type = body.get("alert_type").and_then(Value::as_str).unwrap_or("");
        Reach {
            id: id.to_string(),
            can_deliver: HEALTH_ALERT_TYPES.contains(&alert_type)
                && body.get("enabled").and_then(Value::as_bool).unwrap_or(true)
                && has_mechanism,
            pool_ids: strings(filters.and_then(|f| f.get("pool_id")))
                .into_iter()
                .map(|s| s.to_ascii_lowercase())
                .collect(),
            sources: strings(filters.and_then(|f| f.get("event_source"))),
            healths: strings(filters.and_then(|f| f.get("new_health"))),
            emails,
            other_mechanisms,
        }
    }

    /// Whether `filters.pool_id` names this pool (whatever its case) or is
    /// empty (= all pools).
    pub fn names_pool(&self, pool_id: &str) -> bool {
        self.pool_ids.is_empty()
            || self.pool_ids.contains(pool_id)
            || (pool_id.bytes().any(|b| b.is_ascii_uppercase()) && self.pool_ids.contains(&pool_id.to_ascii_lowercase()))
    }

    /// Whether the filters let this event through.
    pub fn admits(&self, event: Event) -> bool {
        let admits = |values: &[String], wanted: &str| values.is_empty() || values.iter().any(|v| v == wanted);
        admits(&self.sources, event.source.api_value()) && admits(&self.healths, event.health.api_value())
    }

    /// Whether an e-mail mechanism names this address.
    pub fn emails(&self, recipient: &str) -> bool {
        let recipient = recipient.trim();
        self.emails.iter().any(|e| e.eq_ignore_ascii_case(recipient))
    }

    /// Whether this policy e-mails `recipient` about `event` on pool
    /// `pool_id`: the one decision of delivery.
    pub fn delivers(&self, pool_id: &str, event: Event, recipient: &str) -> bool {
        self.can_deliver && self.names_pool(pool_id) && self.admits(event) && self.emails(recipient)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::notification::Event;
    use serde_json::json;

    /// A filter whose entries are not strings is not "all": it names
    /// nothing the service would match, as the stand-in reads it too.
    #[test]
    fn a_filter_of_non_strings_admits_nothing() {
        let body = |filters: Value| json!({"alert_type": "load_balancing_health_alert", "mechanisms": {"email": [{"id": "a@x.io"}]}, "filters": filters});
        let event = Event::ALL[0];
        assert!(Reach::of_body("p", &body(json!({}))).delivers("p1", event, "a@x.io"));
        for filters in [
            json!({"pool_id": [null]}),
            json!({"event_source": [1]}),
            json!({"new_health": [{}]}),
        ] {
            assert!(
                !Reach::of_body("p", &body(filters.clone())).delivers("p1", event, "a@x.io"),
                "{filters}"
            );
        }
    }
}
