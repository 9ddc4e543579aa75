//! The rules' metadata and the behaviour no single fixture shows. Each
//! fixture's own test is in tests/rule_fixtures.rs.

use crate::common;

use std::collections::BTreeSet;

use common::{json, run};

#[test]
fn every_lb_rule_has_a_fixture_that_fires_it() {
    let out = run(&["rules", "--format", "json"]);
    let rules = json(&out);
    let with_fixtures: BTreeSet<String> = common::rule_fixtures().into_iter().map(|(rule, _)| rule).collect();
    for rule in rules.as_array().expect("rules") {
        let id = rule["id"].as_str().unwrap_or_default();
        if id == "LB004" || id == "CA003" || id == "EX001" {
            // Subjects without names to match: see migration_incomplete_counts_pools_and_pages,
            // total_tls_on_lets_encrypt_is_flagged_only_when_enabled and tests/it/real_exports.rs.
            continue;
        }
        assert!(with_fixtures.contains(id), "rule {id} has no fixture in tests/fixtures/rules");
    }
}

/// Reports group findings by the rule's `migration` and `action` (the
/// Markdown report's five lines): every built-in rule names both, and a
/// pack's value outside the vocabulary is an error at its place.
#[test]
fn every_rule_names_its_migration_and_action() {
    let rules = json(&run(&["rules", "--format", "json"]));
    for rule in rules.as_array().expect("rules") {
        let id = rule["id"].as_str().unwrap_or_default();
        let migration = rule["migration"].as_str().unwrap_or_default();
        let expected = match &id[..2] {
            "LB" => "notifications",
            "CA" => "certificates",
            _ => "export",
        };
        assert_eq!(migration, expected, "{id}");
        assert!(rule["action"].is_string(), "{id} names no action");
    }
    let dir = common::temp_dir(&[(
        "pack.yaml",
        b"rules:\n  - id: ORG001\n    name: n\n    subject: pool\n    severity: note\n    action: panic_now\n    summary: s\n    when: []\n    message: m\n    rationale: r\n    remediation: r\n",
    )]);
    let pack = common::path_str(&dir.path().join("pack.yaml"));
    let r = run(&["check", "fixtures/demo", "--rules", &pack]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("pack.yaml:6:") && r.stderr.contains("panic_now"), "{}", r.stderr);
}

/// A rule names its remedy's kind; a pack's rule can use the same kinds,
/// and a kind built for another subject is refused at its place.
#[test]
fn a_packs_rule_can_name_a_remedy_kind() {
    let rule = |subject: &str, remedy: &str| {
        format!(
            "rules:\n  - id: ORG001\n    name: n\n    subject: {subject}\n    severity: warning\n    remedy: {remedy}\n    summary: s\n    when:\n      - fact: name\n        equals: legacy-eu\n    at: legacy_recipients\n    message: m\n    rationale: r\n    remediation: r\n"
        )
    };
    let dir = common::temp_dir(&[
        ("pool.yaml", rule("pool", "clear_pool").as_bytes()),
        ("wrong.yaml", rule("notification_policy", "clear_pool").as_bytes()),
    ]);
    let pack = common::path_str(&dir.path().join("pool.yaml"));
    let doc = json(&run(&[
        "check",
        "fixtures/demo",
        "--rules",
        &pack,
        "--select",
        "ORG",
        "--format",
        "json",
    ]));
    let actions = &doc["findings"][0]["actions"];
    assert_eq!(actions[0]["method"], "PATCH", "{doc}");
    assert_eq!(actions[0]["body"], serde_json::json!({"notification_email": ""}));
    let wrong = common::path_str(&dir.path().join("wrong.yaml"));
    let r = run(&["check", "fixtures/demo", "--rules", &wrong]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("wrong.yaml:6:13")
            && r.stderr
                .contains("remedy `clear_pool` is built for subject pool, not notification_policy"),
        "{}",
        r.stderr
    );
}

#[test]
fn each_pool_with_a_legacy_email_gets_exactly_one_of_lb001_lb002_lb003() {
    for path in [
        "tests/fixtures/rules/LB001.yaml",
        "tests/fixtures/rules/LB002.yaml",
        "tests/fixtures/rules/LB003.yaml",
        "fixtures/demo",
    ] {
        let r = run(&[
            "check",
            path,
            "--select",
            "LB001,LB002,LB003",
            "--format",
            "json",
            "--fail-on",
            "never",
        ]);
        let doc = json(&r);
        let mut seen = BTreeSet::new();
        for f in doc["findings"].as_array().expect("findings") {
            let id = f["resource"]["id"].as_str().unwrap_or_default().to_string();
            assert!(seen.insert(id.clone()), "{path}: pool {id} got two of LB001/LB002/LB003");
        }
        let with_legacy = json(&run(&[
            "check",
            path,
            "--select",
            "LB004",
            "--format",
            "json",
            "--fail-on",
            "never",
        ]));
        let message = with_legacy["findings"][0]["message"].as_str().unwrap_or_default().to_string();
        let count: usize = message
            .split(": ")
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .and_then(|n| n.parse().ok())
            .expect("LB004 count");
        assert_eq!(
            seen.len(),
            count,
            "{path}: pools with a legacy e-mail vs LB001-3 findings ({message})"
        );
    }
}

fn pools_export(total: usize, with_legacy: usize) -> String {
    let pools: Vec<String> = (0..total)
        .map(|i| {
            let email = if i < with_legacy { "ops@example.com" } else { "" };
            format!(r#"{{"id": "{i:032x}", "name": "pool-{i}", "notification_email": "{email}", "origins": []}}"#)
        })
        .collect();
    format!(r#"{{"success": true, "result": [{}]}}"#, pools.join(",\n"))
}

#[test]
fn migration_incomplete_counts_pools_and_pages() {
    let dir = common::temp_dir(&[("pools.json", pools_export(30, 2).as_bytes())]);
    let file = common::path_str(&dir.path().join("pools.json"));
    let doc = json(&run(&[
        "check",
        &file,
        "--select",
        "LB004",
        "--format",
        "json",
        "--fail-on",
        "never",
    ]));
    let findings = doc["findings"].as_array().expect("findings");
    assert_eq!(findings.len(), 1);
    let f = &findings[0];
    assert_eq!(f["severity"], "note");
    assert_eq!(f["resource"]["kind"], "account");
    assert_eq!(f["location"]["pointer"], "/result", "account findings point at the pools list");
    let message = f["message"].as_str().unwrap_or_default();
    assert!(message.contains("2 of 30 pools"), "{message}");
    assert!(message.contains("takes 2 requests at the default page size of 25"), "{message}");
    assert!(
        message.contains("each request clears its whole page, including the 2 pools without a complete replacement"),
        "{message}"
    );

    // Exactly 25 pools is one page; no legacy e-mail at all is no finding.
    let dir = common::temp_dir(&[
        ("a.json", pools_export(25, 25).as_bytes()),
        ("b.json", pools_export(3, 0).as_bytes()),
    ]);
    let doc = json(&run(&[
        "check",
        &common::path_str(&dir.path().join("a.json")),
        "--select",
        "LB004",
        "--format",
        "json",
    ]));
    assert!(
        doc["findings"][0]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("takes one request (all 25 pools fit on one page of 25); it clears its whole page, including the 25 pools")
    );
    let doc = json(&run(&[
        "check",
        &common::path_str(&dir.path().join("b.json")),
        "--select",
        "LB004",
        "--format",
        "json",
    ]));
    assert_eq!(doc["findings"].as_array().map(Vec::len), Some(0));
}

#[test]
fn replacement_policy_reproduces_the_legacy_notification() {
    let doc = json(&run(&[
        "check",
        "fixtures/demo",
        "--select",
        "LB001",
        "--format",
        "json",
        "--fail-on",
        "never",
    ]));
    let message = doc["findings"][0]["message"].as_str().unwrap_or_default();
    let body_start = message.find("{\"name\"").expect("policy body in message");
    let body: serde_json::Value = serde_json::Deserializer::from_str(&message[body_start..])
        .into_iter()
        .next()
        .expect("a JSON body")
        .expect("valid JSON");
    assert_eq!(body["alert_type"], "load_balancing_health_alert");
    assert_eq!(body["filters"]["pool_id"], serde_json::json!(["a7d3c2b1e0f9a8b7c6d5e4f3a2b1c0d9"]));
    assert_eq!(body["filters"]["new_health"], serde_json::json!(["Healthy", "Unhealthy"]));
    assert_eq!(body["filters"]["event_source"], serde_json::json!(["pool", "origin"]));
    assert_eq!(body["mechanisms"]["email"], serde_json::json!([{"id": "eu-ops@example.com"}]));
}

/// The README says every LB and CA rule fires on the demo at least once,
/// today and as of 2024-10-01: a new rule comes with a demo resource.
#[test]
fn every_lb_and_ca_rule_fires_on_the_demo() {
    let listed = json(&run(&["rules", "--format", "json"]));
    let ids: std::collections::BTreeSet<String> = listed
        .as_array()
        .expect("rules")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .filter(|id| id.starts_with("LB") || id.starts_with("CA"))
        .map(str::to_string)
        .collect();
    assert!(ids.len() >= 18, "{ids:?}");
    for as_of in [None, Some("2024-10-01")] {
        let mut args = vec!["check", "fixtures/demo", "--format", "json", "--no-config"];
        args.extend(as_of.iter().flat_map(|d| ["--as-of", *d]));
        let doc = json(&run(&args));
        let fired: std::collections::BTreeSet<String> = doc["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .filter_map(|f| f["rule"].as_str().map(str::to_string))
            .collect();
        let missing: Vec<&String> = ids.difference(&fired).collect();
        assert!(missing.is_empty(), "as of {as_of:?}, no demo finding of {missing:?}");
    }
}
