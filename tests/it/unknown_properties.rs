//! Property: a value not known before apply takes away only what it
//! decides. For generated Terraform configurations (pools, health and other
//! policies, certificate packs), making any one attribute unknown (a
//! variable without a value) never removes a finding unless an EX005 on the
//! same resource names its rule, and never turns a failing run into a
//! passing one.

use crate::common;

use std::collections::BTreeSet;

use proptest::prelude::*;
use proptest::test_runner::Config;

#[derive(Debug, Clone)]
struct Pool {
    email: &'static str,
}

#[derive(Debug, Clone)]
struct Policy {
    health: bool,
    enabled: bool,
    email: &'static str,
    /// The pool its `filters.pool_id` names, or none (all pools).
    pool: Option<usize>,
}

#[derive(Debug, Clone)]
struct Pack {
    advanced: bool,
    lets_encrypt: bool,
}

#[derive(Debug, Clone)]
struct Configuration {
    pools: Vec<Pool>,
    policies: Vec<Policy>,
    packs: Vec<Pack>,
}

const EMAILS: [&str; 3] = ["", "ops@example.com", "sre@example.com"];

fn configuration() -> impl Strategy<Value = Configuration> {
    let pool = prop::sample::select(&EMAILS[..]).prop_map(|email| Pool { email });
    let policy = (
        any::<bool>(),
        any::<bool>(),
        prop::sample::select(&EMAILS[1..]),
        prop::option::of(0usize..3),
    )
        .prop_map(|(health, enabled, email, pool)| Policy {
            health,
            enabled,
            email,
            pool,
        });
    let pack = (any::<bool>(), any::<bool>()).prop_map(|(advanced, lets_encrypt)| Pack { advanced, lets_encrypt });
    (
        prop::collection::vec(pool, 1..4),
        prop::collection::vec(policy, 0..3),
        prop::collection::vec(pack, 0..2),
    )
        .prop_map(|(pools, policies, packs)| Configuration { pools, policies, packs })
}

/// Every attribute a rule may read, as (resource address, attribute).
fn attributes(c: &Configuration) -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    for i in 0..c.pools.len() {
        out.push((format!("cloudflare_load_balancer_pool.p{i}"), "notification_email"));
    }
    for i in 0..c.policies.len() {
        for a in ["alert_type", "enabled", "mechanisms", "filters", "name"] {
            out.push((format!("cloudflare_notification_policy.n{i}"), a));
        }
    }
    for i in 0..c.packs.len() {
        for a in ["type", "certificate_authority", "hosts"] {
            out.push((format!("cloudflare_certificate_pack.c{i}"), a));
        }
    }
    out
}

/// The configuration as `.tf` source, with `open` (address, attribute) set
/// from a variable that has no value.
fn source(c: &Configuration, open: Option<&(String, &'static str)>) -> String {
    let value = |address: &str, attribute: &str, literal: String| -> String {
        match open {
            Some((a, at)) if a == address && *at == attribute => "var.open".to_string(),
            _ => literal,
        }
    };
    let mut tf = String::from("variable \"open\" {\n  type = any\n}\n\n");
    for (i, p) in c.pools.iter().enumerate() {
        let a = format!("cloudflare_load_balancer_pool.p{i}");
        tf.push_str(&format!(
            "resource \"cloudflare_load_balancer_pool\" \"p{i}\" {{\n  name = \"pool-{i}\"\n  origins = [{{ name = \"o\", address = \"192.0.2.{i}\" }}]\n  notification_email = {}\n}}\n\n",
            value(&a, "notification_email", format!("\"{}\"", p.email))
        ));
    }
    for (i, p) in c.policies.iter().enumerate() {
        let a = format!("cloudflare_notification_policy.n{i}");
        let alert = if p.health { "load_balancing_health_alert" } else { "dos_attack_l7" };
        let pool_id = p
            .pool
            .filter(|&k| k < c.pools.len())
            .map_or(String::new(), |k| format!("pool_id = [cloudflare_load_balancer_pool.p{k}.id]"));
        tf.push_str(&format!(
            "resource \"cloudflare_notification_policy\" \"n{i}\" {{\n  name = {}\n  alert_type = {}\n  enabled = {}\n  mechanisms = {}\n  filters = {}\n}}\n\n",
            value(&a, "name", format!("\"policy-{i}\"")),
            value(&a, "alert_type", format!("\"{alert}\"")),
            value(&a, "enabled", p.enabled.to_string()),
            value(&a, "mechanisms", format!("{{ email = [{{ id = \"{}\" }}] }}", p.email)),
            value(&a, "filters", format!("{{ {pool_id} }}")),
        ));
    }
    for (i, p) in c.packs.iter().enumerate() {
        let a = format!("cloudflare_certificate_pack.c{i}");
        let kind = if p.advanced { "advanced" } else { "universal" };
        let ca = if p.lets_encrypt { "lets_encrypt" } else { "google" };
        tf.push_str(&format!(
            "resource \"cloudflare_certificate_pack\" \"c{i}\" {{\n  zone_id = \"9a7806061c88ada191ed06f989cc3dac\"\n  type = {}\n  hosts = {}\n  certificate_authority = {}\n}}\n\n",
            value(&a, "type", format!("\"{kind}\"")),
            value(&a, "hosts", format!("[\"c{i}.example.com\"]")),
            value(&a, "certificate_authority", format!("\"{ca}\"")),
        ));
    }
    tf
}

struct Run {
    code: i32,
    /// (rule, resource) of every finding.
    findings: BTreeSet<(String, String)>,
    /// (resource, rules it names) of every EX005.
    not_judged: Vec<(String, String)>,
}

fn check(tf: &str) -> Run {
    let dir = common::temp_dir(&[("main.tf", tf.as_bytes())]);
    let r = common::run_in(
        dir.path(),
        &["check", ".", "--format", "json", "--as-of", "2024-10-01", "--no-config"],
    );
    assert!(r.code == 0 || r.code == 1, "{}\n{tf}", r.stderr);
    let doc = common::json(&r);
    let resource = |f: &serde_json::Value| {
        f["resource"]["address"]
            .as_str()
            .map_or_else(|| format!("{}/{}", f["resource"]["kind"], f["resource"]["id"]), str::to_string)
    };
    let findings = doc["findings"].as_array().expect("findings");
    Run {
        code: r.code,
        findings: findings
            .iter()
            .map(|f| (f["rule"].as_str().unwrap_or("").to_string(), resource(f)))
            .collect(),
        not_judged: findings
            .iter()
            .filter(|f| f["rule"] == "EX005")
            .map(|f| {
                let rules = f["message"].as_str().unwrap_or("").split(" could not judge").next().unwrap_or("");
                (resource(f), rules.to_string())
            })
            .collect(),
    }
}

proptest! {
    #![proptest_config(Config {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(24),
        ..Config::default()
    })]

    #[test]
    fn an_unknown_value_takes_away_only_what_it_decides(
        c in configuration(),
        pick in any::<prop::sample::Index>(),
    ) {
        let candidates = attributes(&c);
        let open = &candidates[pick.index(candidates.len())];
        let tf = source(&c, None);
        let known = check(&tf);
        let unknown = check(&source(&c, Some(open)));
        for (rule, resource) in &known.findings {
            let kept = unknown.findings.contains(&(rule.clone(), resource.clone()));
            let said = unknown
                .not_judged
                .iter()
                .any(|(r, rules)| r == resource && rules.split([',', ' ']).any(|id| id == rule));
            prop_assert!(
                kept || said,
                "{rule} on {resource} vanished when {open:?} became unknown, and no EX005 names it\n{tf}"
            );
        }
        if known.code == 1 {
            prop_assert_eq!(unknown.code, 1, "a failing run passed when {:?} became unknown\n{}", open, tf);
        }
    }
}
