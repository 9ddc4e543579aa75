//! Existing policies, corrected and completed rather than duplicated
//! (docs/src/commands/plan.md). A PUT replaces the whole policy, so each update starts from the
//! exported record ([`super::record`]) and changes only filter values and
//! e-mail recipients:
//!
//! - **corrected**: a health filter value that is an allowed one up to case
//!   and blanks (`unhealthy`, `Pool`, LB005) is respelt — the policy was
//!   meant to send those alerts and sends none;
//! - **completed**: a policy whose `filters.pool_id` names a pool that still
//!   misses some (event, recipient) gets the missing events and recipients,
//!   but only when that adds no delivery nobody had: every (pool, event,
//!   recipient) it newly delivers, for every pool it names, is one a legacy
//!   e-mail delivers today, and no new event reaches a webhook or PagerDuty.
//!   Otherwise the planner creates a policy for what is missing. A policy
//!   that names no pool (all pools, also those created later) is never
//!   widened.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::request::Request;
use super::service::Service;
use crate::facts::policy::intended_value;
use crate::model::delivery::Reach;
use crate::model::notification::{Event, EventSource, Health};

/// One policy's update, built up over the pools it completes.
struct Update {
    id: String,
    body: Map<String, Value>,
    pools: Vec<String>,
    corrections: Vec<String>,
}

/// The updates so far, in the order the policies were first touched, and per
/// policy the filter values corrected (pointers relative to the record), so
/// the LB005 findings they settle need no manual step.
#[derive(Default)]
pub struct Updates {
    list: Vec<Update>,
    pub corrected: BTreeMap<String, Vec<String>>,
}

impl Updates {
    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The PUTs, one per policy, each with the policy's final body.
    pub fn requests(self) -> Vec<Request> {
        self.list.into_iter().map(request).collect()
    }
}

/// Corrects the misspelt filter values of the policies in `bodies`, on
/// `service` too.
pub fn correct(service: &mut Service, bodies: &BTreeMap<String, Map<String, Value>>) -> Updates {
    let mut updates = Updates::default();
    for (id, body) in bodies {
        let Some(fix) = corrected_filters(body) else { continue };
        let mut update = Update {
            id: id.clone(),
            body: fix.body,
            pools: Vec::new(),
            corrections: fix.descriptions,
        };
        // The pools it starts delivering legacy alerts for: their clears wait for it.
        let named = service.pools_named_by(id).unwrap_or_else(|| (0..service.pools.len()).collect());
        let undelivered: Vec<(usize, Event, String)> = named
            .into_iter()
            .flat_map(|i| legacy_pairs(service, i).map(move |(e, r)| (i, e, r)))
            .filter(|(i, e, r)| !service.by_policy(&service.pools[*i].id.to_ascii_lowercase(), *e, r))
            .collect();
        apply(service, &update);
        for (i, e, r) in undelivered {
            let pool = &service.pools[i];
            if service.by_policy(&pool.id.to_ascii_lowercase(), e, &r) && !update.pools.contains(&pool.id) {
                update.pools.push(pool.id.clone());
            }
        }
        updates.corrected.insert(id.clone(), fix.paths);
        updates.list.push(update);
    }
    updates
}

/// Completes, pool by pool (in name order), a policy naming the pool with
/// what the pool still misses, where that is safe; on `service` too.
pub fn complete(service: &mut Service, bodies: &BTreeMap<String, Map<String, Value>>, updates: &mut Updates) {
    for index in 0..service.pools.len() {
        let pool = &service.pools[index];
        let pool_id = pool.id.to_ascii_lowercase();
        let missing: Vec<(Event, String)> = legacy_pairs(service, index)
            .filter(|(e, r)| !service.by_policy(&pool_id, *e, r))
            .collect();
        if missing.is_empty() {
            continue;
        }
        let mut candidates: Vec<&Reach> = service
            .policies_naming(&pool_id)
            .filter(|p| p.can_deliver && bodies.contains_key(&p.id))
            .collect();
        candidates.sort_by(|a, b| a.id.cmp(&b.id));
        let Some((policy_id, extension)) = candidates
            .into_iter()
            .find_map(|p| completed(service, p, &missing).map(|e| (p.id.clone(), e)))
        else {
            continue;
        };
        let completed_pool = pool.id.clone();
        let position = match updates.list.iter().position(|u| u.id == policy_id) {
            Some(i) => i,
            None => {
                updates.list.push(Update {
                    id: policy_id.clone(),
                    body: bodies.get(&policy_id).cloned().unwrap_or_default(),
                    pools: Vec::new(),
                    corrections: Vec::new(),
                });
                updates.list.len() - 1
            }
        };
        let update = &mut updates.list[position];
        extend_body(&mut update.body, &extension);
        if !update.pools.contains(&completed_pool) {
            update.pools.push(completed_pool);
        }
        apply(service, update);
    }
}

/// The (event, recipient) pairs pool `index`'s legacy e-mail delivers.
fn legacy_pairs(service: &Service, index: usize) -> impl Iterator<Item = (Event, String)> + '_ {
    let pool = &service.pools[index];
    pool.events
        .iter()
        .flat_map(move |e| pool.recipients.iter().map(move |r| (e, r.clone())))
}

fn request(update: Update) -> Request {
    Request::UpdatePolicy {
        policy_id: update.id,
        body: Value::Object(update.body),
        pools: update.pools,
        corrections: update.corrections,
    }
}

fn apply(service: &mut Service, update: &Update) {
    // The policy is in the service: it came from the same account.
    let _ = service.apply(&Request::UpdatePolicy {
        policy_id: update.id.clone(),
        body: Value::Object(update.body.clone()),
        pools: Vec::new(),
        corrections: Vec::new(),
    });
}

struct Correction {
    body: Map<String, Value>,
    descriptions: Vec<String>,
    paths: Vec<String>,
}

/// The body with its misspelt health filter values respelt (and then
/// repeated values dropped); `None` when there is nothing to correct.
fn corrected_filters(body: &Map<String, Value>) -> Option<Correction> {
    let mut fixed = body.clone();
    let mut descriptions = Vec::new();
    let mut paths = Vec::new();
    let filters = fixed.get_mut("filters").and_then(Value::as_object_mut)?;
    for (field, allowed) in [("new_health", &Health::API_VALUES), ("event_source", &EventSource::API_VALUES)] {
        let Some(values) = filters.get_mut(field).and_then(Value::as_array_mut) else {
            continue;
        };
        let mut changed = false;
        for (i, value) in values.iter_mut().enumerate() {
            let Some(text) = value.as_str() else { continue };
            if allowed.contains(&text) {
                continue;
            }
            if let Some(meant) = intended_value(text, allowed) {
                descriptions.push(format!("filters.{field} `{text}` → `{meant}`"));
                paths.push(format!("/filters/{field}/{i}"));
                *value = json!(meant);
                changed = true;
            }
        }
        if changed {
            let mut seen = Vec::new();
            values.retain(|v| {
                let new = !seen.contains(v);
                seen.push(v.clone());
                new
            });
        }
    }
    (!descriptions.is_empty()).then_some(Correction {
        body: fixed,
        descriptions,
        paths,
    })
}

/// What a completion adds to a policy's filters and e-mail recipients.
struct Extension {
    sources: Option<Vec<String>>,
    healths: Option<Vec<String>>,
    emails: Vec<String>,
}

/// `policy` widened to deliver `missing` (on a pool it names), when the
/// widening delivers nothing that no legacy e-mail delivers today.
fn completed(service: &Service, policy: &Reach, missing: &[(Event, String)]) -> Option<Extension> {
    // Empty filters admit everything already; otherwise add what is missing.
    let widen = |values: &[String], wanted: Vec<&str>| -> Option<Vec<String>> {
        if values.is_empty() {
            return None;
        }
        let mut out = values.to_vec();
        for w in wanted {
            if !out.iter().any(|v| v == w) {
                out.push(w.to_string());
            }
        }
        (out.len() > values.len()).then_some(out)
    };
    let sources = widen(&policy.sources, missing.iter().map(|(e, _)| e.source.api_value()).collect());
    let healths = widen(&policy.healths, missing.iter().map(|(e, _)| e.health.api_value()).collect());
    let mut emails = Vec::new();
    for (_, r) in missing {
        if !policy.emails.contains(r) && !emails.contains(r) {
            emails.push(r.clone());
        }
    }
    if (sources.is_some() || healths.is_some()) && policy.other_mechanisms {
        return None;
    }
    let mut wider = policy.clone();
    if let Some(s) = &sources {
        wider.sources = s.clone();
    }
    if let Some(h) = &healths {
        wider.healths = h.clone();
    }
    wider.emails.extend(emails.iter().cloned());
    for pool_id in &wider.pool_ids {
        let legacy = service.pool_position(pool_id).map(|i| &service.pools[i]);
        for event in Event::ALL {
            for r in &wider.emails {
                let new = wider.delivers(pool_id, event, r) && !policy.delivers(pool_id, event, r);
                let wanted = legacy.is_some_and(|p| p.events.iter().any(|e| e == event) && p.recipients.contains(r));
                if new && !wanted {
                    return None;
                }
            }
        }
    }
    Some(Extension { sources, healths, emails })
}

fn extend_body(body: &mut Map<String, Value>, extension: &Extension) {
    if let Some(Value::Object(filters)) = body.get_mut("filters") {
        if let Some(sources) = &extension.sources {
            filters.insert("event_source".into(), json!(sources));
        }
        if let Some(healths) = &extension.healths {
            filters.insert("new_health".into(), json!(healths));
        }
    }
    if extension.emails.is_empty() {
        return;
    }
    let mechanisms = body.entry("mechanisms").or_insert_with(|| json!({}));
    if let Value::Object(m) = mechanisms {
        let email = m.entry("email").or_insert_with(|| json!([]));
        if !email.is_array() {
            *email = json!([]);
        }
        if let Value::Array(list) = email {
            list.extend(extension.emails.iter().map(|r| json!({"id": r})));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Account;
    use crate::model::notification::{Mechanism, Policy, Pool};
    use crate::model::samples::{all_events, api_body, health_policy, pool, valued};
    use crate::plan::build::{notification_steps, replay};

    fn named_pool(id: &str, name: &str, recipients: &[&str]) -> Pool {
        Pool {
            name: name.into(),
            ..pool(id, recipients, all_events())
        }
    }

    fn policy(id: &str, recipients: &[&str], pools: &[&str], sources: &[&str], healths: &[&str]) -> Policy {
        let mut p = health_policy(recipients);
        p.id = id.into();
        p.name = format!("{id} alerts");
        p.pool_ids = valued(pools);
        p.event_source = valued(sources);
        p.new_health = valued(healths);
        p
    }

    fn plan(pools: Vec<Pool>, policies: Vec<Policy>) -> (Account, Vec<Request>) {
        let bodies = policies.iter().map(|p| (p.id.clone(), api_body(p))).collect();
        let account = Account {
            pools,
            policies,
            ..Account::default()
        };
        let steps = notification_steps(&account, 25, &bodies).steps;
        assert!(replay(Service::of(&account), &steps).is_ok(), "{steps:#?}");
        (account, steps)
    }

    fn updates_of(steps: &[Request]) -> Vec<(&String, &Value, &Vec<String>)> {
        steps
            .iter()
            .filter_map(|s| match s {
                Request::UpdatePolicy {
                    policy_id, body, pools, ..
                } => Some((policy_id, body, pools)),
                _ => None,
            })
            .collect()
    }

    fn creates(steps: &[Request]) -> usize {
        steps.iter().filter(|s| matches!(s, Request::CreatePolicy { .. })).count()
    }

    #[test]
    fn misspelt_values_are_respelt_once_and_unknown_ones_left_alone() {
        let p = policy(
            "pol",
            &["ops@x.io"],
            &["p1"],
            &["Pool", "origin"],
            &["unhealthy", "Unhealthy", "degraded"],
        );
        let fix = corrected_filters(&api_body(&p)).expect("something to correct");
        assert_eq!(fix.body["filters"]["new_health"], json!(["Unhealthy", "degraded"]));
        assert_eq!(fix.body["filters"]["event_source"], json!(["pool", "origin"]));
        assert_eq!(fix.paths, vec!["/filters/new_health/0", "/filters/event_source/0"]);
        assert_eq!(
            fix.descriptions,
            vec![
                "filters.new_health `unhealthy` → `Unhealthy`",
                "filters.event_source `Pool` → `pool`"
            ]
        );
        assert_eq!(fix.body["description"], "kept as exported");
        let clean = policy("pol", &["ops@x.io"], &["p1"], &["pool"], &["degraded"]);
        assert!(corrected_filters(&api_body(&clean)).is_none());
    }

    #[test]
    fn a_policy_covering_part_of_a_pool_is_completed_not_duplicated() {
        // The policy sends pool events; the legacy e-mail also sends origin events.
        let (_, steps) = plan(
            vec![named_pool("p1", "a", &["ops@x.io"])],
            vec![policy("pol", &["ops@x.io"], &["p1"], &["pool"], &[])],
        );
        assert_eq!(creates(&steps), 0, "{steps:#?}");
        let updates = updates_of(&steps);
        assert_eq!(updates.len(), 1);
        let (id, body, pools) = updates[0];
        assert_eq!(id, "pol");
        assert_eq!(pools, &vec!["p1".to_string()]);
        assert_eq!(body["filters"]["event_source"], json!(["pool", "origin"]));
        assert_eq!(body["description"], "kept as exported", "a PUT keeps what the model does not hold");
        assert!(matches!(steps.last(), Some(Request::ClearPool { pool_id }) if pool_id == "p1"));
        assert_eq!(steps.len(), 2);
    }

    #[test]
    fn a_missing_recipient_is_added_to_the_policy() {
        let (_, steps) = plan(
            vec![named_pool("p1", "a", &["ops@x.io", "noc@x.io"])],
            vec![policy("pol", &["ops@x.io"], &["p1"], &[], &[])],
        );
        let updates = updates_of(&steps);
        assert_eq!(updates.len(), 1, "{steps:#?}");
        assert_eq!(updates[0].1["mechanisms"]["email"], json!([{"id": "ops@x.io"}, {"id": "noc@x.io"}]));
        assert_eq!(creates(&steps), 0);
    }

    #[test]
    fn a_completion_that_would_alert_another_pool_anew_becomes_a_create() {
        // The policy also names p2, whose legacy e-mail sends no origin events
        // to ops: widening it would send p2's origin events to ops.
        let mut p2 = named_pool("p2", "b", &["ops@x.io"]);
        p2.legacy_events = all_events().into_iter().filter(|e| e.source == EventSource::Pool).collect();
        let (_, steps) = plan(
            vec![named_pool("p1", "a", &["ops@x.io"]), p2],
            vec![policy("pol", &["ops@x.io"], &["p1", "p2"], &["pool"], &[])],
        );
        assert!(updates_of(&steps).is_empty(), "{steps:#?}");
        assert_eq!(creates(&steps), 1);
        // Both pools the policy names want origin events: the policy is widened.
        let (_, steps) = plan(
            vec![named_pool("p1", "a", &["ops@x.io"]), named_pool("p2", "b", &["ops@x.io"])],
            vec![policy("pol", &["ops@x.io"], &["p1", "p2"], &["pool"], &[])],
        );
        assert_eq!(updates_of(&steps).len(), 1, "{steps:#?}");
        assert_eq!(
            updates_of(&steps)[0].2,
            &vec!["p1".to_string()],
            "p2 needs nothing more once p1's completion ran"
        );
        assert_eq!(creates(&steps), 0);
    }

    #[test]
    fn webhooks_get_no_new_events_and_all_pool_policies_are_never_widened() {
        let mut hooked = policy("pol", &["ops@x.io"], &["p1"], &["pool"], &[]);
        hooked.mechanisms.push(Mechanism {
            kind: "webhooks".into(),
            target: Some("hook".into()),
        });
        let (_, steps) = plan(vec![named_pool("p1", "a", &["ops@x.io"])], vec![hooked.clone()]);
        assert!(updates_of(&steps).is_empty(), "{steps:#?}");
        // A recipient alone may be added: the webhook gets nothing new.
        let mut recipients_only = hooked;
        recipients_only.event_source.clear();
        let (_, steps) = plan(vec![named_pool("p1", "a", &["ops@x.io", "noc@x.io"])], vec![recipients_only]);
        assert_eq!(updates_of(&steps).len(), 1, "{steps:#?}");
        let all_pools = policy("pol", &["ops@x.io"], &[], &["pool"], &[]);
        let (_, steps) = plan(vec![named_pool("p1", "a", &["ops@x.io"])], vec![all_pools]);
        assert!(updates_of(&steps).is_empty(), "{steps:#?}");
        assert_eq!(creates(&steps), 1);
    }

    #[test]
    fn a_corrected_policy_may_make_creates_unnecessary() {
        let (account, steps) = plan(
            vec![named_pool("p1", "a", &["ops@x.io"])],
            vec![policy("pol", &["ops@x.io"], &["p1"], &[], &["unhealthy", "healthy"])],
        );
        assert_eq!(creates(&steps), 0, "{steps:#?}");
        assert!(
            matches!(&steps[0], Request::UpdatePolicy { corrections, pools, .. } if corrections.len() == 2 && pools == &vec!["p1".to_string()]),
            "the correction takes over p1's alerts: its clear waits for it"
        );
        assert_eq!(steps.len(), 2);
        let bodies = account.policies.iter().map(|p| (p.id.clone(), api_body(p))).collect();
        let planned = notification_steps(&account, 25, &bodies);
        assert_eq!(planned.corrected["pol"], vec!["/filters/new_health/0", "/filters/new_health/1"]);
        // Without its record the policy cannot be updated: a create takes over.
        let without = notification_steps(&account, 25, &BTreeMap::new()).steps;
        assert_eq!(creates(&without), 1);
    }
}
