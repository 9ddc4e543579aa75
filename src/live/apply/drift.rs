//! Before the first change: the live account against the state the plan
//! relies on. A difference that the plan's own steps explain (a pool it
//! clears found cleared, a policy it updates found updated, a policy it
//! creates found by its marker) is progress of an earlier run; any other is
//! drift, and `apply` refuses to start.

use std::collections::{HashMap, HashSet};

use crate::facts::pool::describe;

use serde_json::Value;

use super::plan_file::{Kind, PlanAccount};
use crate::plan::state::{Delivers, PoolState, writable};

/// Whether a live record holds every top-level field of a body as sent
/// (the service may add fields of its own, and keep lists in its own order).
pub fn matches_body(live: &Value, body: &Value) -> bool {
    match (live.as_object(), body.as_object()) {
        (Some(live), Some(body)) => body.iter().all(|(k, v)| live.get(k).is_some_and(|l| same(l, v))),
        _ => false,
    }
}

/// Equal up to the order of list items (a service may sort `pool_id` or
/// mechanisms).
pub fn same(a: &Value, b: &Value) -> bool {
    canonical(a) == canonical(b)
}

fn canonical(v: &Value) -> Value {
    match v {
        Value::Array(items) => {
            let mut items: Vec<Value> = items.iter().map(canonical).collect();
            items.sort_by_cached_key(|i| i.to_string());
            Value::Array(items)
        }
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), canonical(v))).collect()),
        other => other.clone(),
    }
}

fn id_of(record: &Value) -> &str {
    record.get("id").and_then(Value::as_str).unwrap_or("")
}

/// Every difference between the live pools and policies and what the plan
/// relies on; empty when the plan may start (or go on).
pub fn differences(plan: &PlanAccount, live_pools: &[Value], live_policies: &[Value]) -> Vec<String> {
    let mut out = Vec::new();
    let cleared = plan.cleared_pools();
    let live: HashMap<&str, PoolState> = live_pools.iter().map(|p| (id_of(p), PoolState::from_api(p))).collect();
    let planned: HashSet<&str> = plan.state.pools.iter().map(|p| p.id.as_str()).collect();
    for seen in &plan.state.pools {
        let Some(now) = live.get(seen.id.as_str()) else {
            out.push(format!("pool {} was deleted", describe(&seen.name, &seen.id)));
            continue;
        };
        if now.name != seen.name {
            out.push(format!(
                "pool {} was renamed to `{}` (the page-wide clear pages pools by name)",
                describe(&seen.name, &seen.id),
                now.name
            ));
        }
        let same = now.recipients == seen.recipients && now.events == seen.events;
        let cleared_by_plan = !now.is_legacy() && cleared.contains(seen.id.as_str());
        if !same && !cleared_by_plan {
            out.push(format!(
                "pool {}: legacy e-mail {} about {} in the plan, now {} about {}",
                describe(&seen.name, &seen.id),
                list(&seen.recipients),
                list(&seen.events),
                list(&now.recipients),
                list(&now.events)
            ));
        }
    }
    // Only a complete pool list tells an added pool from one never loaded.
    if plan.pools_complete {
        for (id, now) in &live {
            if !planned.contains(id) {
                let legacy = if now.is_legacy() {
                    format!(" with a legacy e-mail to {}", list(&now.recipients))
                } else {
                    String::new()
                };
                out.push(format!("pool {} was added{legacy}", describe(&now.name, id)));
            }
        }
    }
    let update_steps: Vec<_> = plan.each_step().filter(|s| s.kind == Kind::UpdatePolicy).collect();
    let updates: HashMap<&str, &Value> = update_steps
        .iter()
        .filter_map(|s| Some((s.policy_id.as_deref()?, s.body.as_ref()?)))
        .collect();
    let policies: HashMap<&str, &Value> = live_policies.iter().map(|p| (id_of(p), p)).collect();
    for seen in &plan.state.policies {
        let who = format!("policy `{}` ({})", seen.name, seen.id);
        let Some(now) = policies.get(seen.id.as_str()) else {
            out.push(format!("{who} was deleted"));
            continue;
        };
        match (updates.get(seen.id.as_str()), &seen.record) {
            (Some(body), Some(record)) => {
                if !same(&Value::Object(writable(now)), &Value::Object(record.clone())) && !matches_body(now, body) {
                    out.push(format!(
                        "{who} was edited since the export: the plan's PUT would overwrite the edit"
                    ));
                }
            }
            _ => {
                let delivers = Delivers::from_api(now);
                if delivers != seen.delivers {
                    out.push(format!("{who} {}", changes(&seen.delivers, &delivers)));
                }
            }
        }
    }
    out.sort();
    // Names, ids and addresses are the account's: each difference is one
    // line of terminal text.
    out.into_iter()
        .map(|line| crate::text::escape::terminal::value(&line).into_owned())
        .collect()
}

fn list(items: &[String]) -> String {
    if items.is_empty() { "nobody".to_string() } else { items.join(", ") }
}

/// How a policy's delivery changed, in words.
fn changes(before: &Delivers, now: &Delivers) -> String {
    let mut what = Vec::new();
    if before.can_deliver != now.can_deliver {
        what.push(if now.can_deliver {
            "can deliver again".to_string()
        } else {
            "no longer delivers (disabled, another alert type, or no mechanism)".to_string()
        });
    }
    for (field, b, n) in [
        ("e-mails", &before.emails, &now.emails),
        ("filters.pool_id", &before.pool_ids, &now.pool_ids),
        ("filters.event_source", &before.event_source, &now.event_source),
        ("filters.new_health", &before.new_health, &now.new_health),
    ] {
        if b != n {
            what.push(format!("{field} {} → {}", b.join(", "), n.join(", ")));
        }
    }
    format!("changed since the export: {}", what.join("; "))
}
