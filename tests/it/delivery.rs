//! One decision of delivery (`model::delivery::Reach`), shared by the rules'
//! coverage, the plan's model of the service and `apply`, held against the
//! stand-in service's own model (`service::policy_sends`, written apart) on
//! generated accounts: policies of every alert type, enabled or not or
//! silent, with and without mechanisms, filters absent, empty or naming
//! pools in another case, misspelt filter values, entries that are not
//! strings, addresses in another case and with spaces.

use std::collections::BTreeSet;

use crate::common;
use crate::service;
use edgeaudit::model::delivery::Reach;
use edgeaudit::model::notification::Event;
use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::{Value, json};

const POOLS: [&str; 3] = [
    "aaaa0000000000000000000000000001",
    "aaaa0000000000000000000000000002",
    "AAAA0000000000000000000000000003",
];
/// The same three mailboxes, as people type them.
const ADDRESSES: [&str; 5] = [
    "noc@example.com",
    " NOC@Example.com",
    "oncall@example.com",
    "Oncall@example.com ",
    "sre@example.org",
];

fn subset(values: &'static [&'static str]) -> impl Strategy<Value = Vec<&'static str>> {
    prop::sample::subsequence(values.to_vec(), 0..=values.len())
}

/// A filter list: absent, empty, or some values.
fn filter(values: &'static [&'static str]) -> impl Strategy<Value = Option<Vec<&'static str>>> {
    prop::option::of(subset(values))
}

fn policy(i: usize) -> impl Strategy<Value = Value> {
    (
        prop::sample::select(vec!["load_balancing_health_alert", "g6_health_alert", "universal_ssl_event_type"]),
        prop::option::of(any::<bool>()),
        subset(&ADDRESSES),
        any::<bool>(),
        filter(&[
            "aaaa0000000000000000000000000001",
            "AAAA0000000000000000000000000002",
            "aaaa0000000000000000000000000003",
        ]),
        filter(&["pool", "origin", "Pool"]),
        filter(&["Healthy", "Unhealthy", "unhealthy"]),
        prop::option::of(0..3usize),
    )
        .prop_map(move |(alert_type, enabled, emails, webhook, pools, sources, healths, junk)| {
            let mut mechanisms = serde_json::Map::new();
            if !emails.is_empty() {
                mechanisms.insert("email".into(), json!(emails.iter().map(|e| json!({"id": e})).collect::<Vec<_>>()));
            }
            if webhook {
                mechanisms.insert("webhooks".into(), json!([{"id": "5b1f0b1e6bd1475aa0b1d1b2a1c8c3d4"}]));
            }
            let mut filters = serde_json::Map::new();
            for (key, values) in [("pool_id", pools), ("event_source", sources), ("new_health", healths)] {
                if let Some(values) = values {
                    filters.insert(key.into(), json!(values));
                }
            }
            let mut p = json!({
                "id": format!("{i:032x}"),
                "name": format!("policy {i}"),
                "alert_type": alert_type,
                "mechanisms": mechanisms,
                "filters": filters,
            });
            if let Some(enabled) = enabled {
                p["enabled"] = json!(enabled);
            }
            // An entry that is not a string, in one of the filters.
            if let Some(filter) = junk.map(|i| ["pool_id", "event_source", "new_health"][i]) {
                match p["filters"][filter].as_array_mut() {
                    Some(values) => values.push(Value::Null),
                    None => p["filters"][filter] = json!([null]),
                }
            }
            p
        })
}

fn pool(i: usize) -> impl Strategy<Value = Value> {
    (
        subset(&ADDRESSES),
        prop::option::of((
            prop::option::of(any::<bool>()),
            prop::option::of(any::<bool>()),
            any::<bool>(),
            any::<bool>(),
        )),
    )
        .prop_map(move |(emails, legacy_filter)| {
            let mut pool = json!({
                "id": POOLS[i],
                "name": format!("pool-{i}"),
                "origins": [{"name": "o1", "address": "192.0.2.1", "enabled": true}],
                "notification_email": emails.iter().map(|e| e.trim()).collect::<Vec<_>>().join(", "),
            });
            if let Some((pool_healthy, origin_healthy, disable_pool, disable_origin)) = legacy_filter {
                pool["notification_filter"] = json!({
                    "pool": {"healthy": pool_healthy, "disable": disable_pool},
                    "origin": {"healthy": origin_healthy, "disable": disable_origin},
                });
            }
            pool
        })
}

fn account() -> impl Strategy<Value = (Vec<Value>, Vec<Value>)> {
    let pools = (pool(0), pool(1), pool(2)).prop_map(|(a, b, c)| vec![a, b, c]);
    // An export's loader refuses a filter entry that is not a string (an
    // input error at its place): accounts hold strings only.
    let policies = (0..4usize)
        .prop_flat_map(|n| (0..n).map(policy).collect::<Vec<_>>())
        .prop_map(|mut policies| {
            for p in &mut policies {
                for values in p["filters"].as_object_mut().into_iter().flat_map(|f| f.values_mut()) {
                    if let Some(values) = values.as_array_mut() {
                        values.retain(Value::is_string);
                    }
                }
            }
            policies
        });
    (pools, policies)
}

/// The stand-in's verdict on one pool: every (event, recipient) its legacy
/// e-mail sends is sent by some policy too.
fn replaced_by_policies(pool: &Value, policies: &[Value]) -> bool {
    let id = pool["id"].as_str().unwrap_or("");
    let recipients = service::legacy_recipients(pool);
    ["pool", "origin"].iter().all(|source| {
        ["Healthy", "Unhealthy"].iter().all(|health| {
            !service::legacy_sends(pool, source, health)
                || recipients
                    .iter()
                    .all(|r| policies.iter().any(|p| service::policy_sends(p, id, source, health, r)))
        })
    })
}

proptest! {
    #![proptest_config(Config { cases: 256, failure_persistence: None, ..Config::default() })]

    /// Plan and apply read policies as bodies: `Reach::of_body` decides
    /// each (pool, event, recipient) as the stand-in does.
    #[test]
    fn a_body_delivers_what_the_stand_in_delivers(p in policy(1)) {
        let reach = Reach::of_body("p", &p);
        for pool in POOLS.iter().flat_map(|p| [p.to_string(), p.to_ascii_lowercase(), p.to_ascii_uppercase()]) {
            for event in Event::ALL {
                for r in ADDRESSES {
                    let ours = reach.delivers(&pool, event, r);
                    let theirs = service::policy_sends(&p, &pool, event.source.api_value(), event.health.api_value(), &r.trim().to_ascii_lowercase());
                    prop_assert_eq!(ours, theirs, "{} {:?} {:?}: {}", pool, event, r, p);
                }
            }
        }
    }
}

proptest! {
    // Each case runs the binary: fewer cases, each a whole account.
    #![proptest_config(Config { cases: 40, failure_persistence: None, ..Config::default() })]

    /// The rules read policies from the export (`Reach::of_policy`): a pool
    /// whose legacy e-mail carries anything gets LB002 (replaced, clear it)
    /// exactly when the stand-in finds every legacy alert sent by a policy.
    #[test]
    fn the_rules_find_replaced_what_the_stand_in_finds_delivered((pools, policies) in account()) {
        let pools_json = json!({"result": pools}).to_string();
        let policies_json = json!({"result": policies}).to_string();
        let dir = common::temp_dir(&[("pools.json", pools_json.as_bytes()), ("policies.json", policies_json.as_bytes())]);
        let r = common::run(&["check", &common::path_str(dir.path()), "--format", "json", "--no-config", "--as-of", "2024-10-01", "--select", "LB001,LB002,LB003"]);
        prop_assert!(r.code < 2, "{}", r.stderr);
        let doc = common::json(&r);
        let replaced: BTreeSet<String> = doc["findings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|f| f["rule"] == "LB002")
            .filter_map(|f| f["resource"]["id"].as_str().map(str::to_string))
            .collect();
        let expected: BTreeSet<String> = pools
            .iter()
            .filter(|p| p["notification_email"].as_str().is_some_and(|e| !e.is_empty()))
            .filter(|p| replaced_by_policies(p, &policies))
            .filter_map(|p| p["id"].as_str().map(str::to_string))
            .collect();
        prop_assert_eq!(replaced, expected, "policies: {}\npools: {}", policies_json, pools_json);
    }
}
