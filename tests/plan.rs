//! `edgeaudit plan`: the migration as ordered requests, in three formats,
//! proved by a replay before it is written.

mod common;

use std::collections::BTreeSet;

use common::{json, path_str, run, temp_dir};

fn demo(format: &str) -> common::Run {
    let r = run(&["plan", "fixtures/demo", "--as-of", "2024-10-01", "--format", format]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("replayed on a model of the service: no alert lost at any step"),
        "the proof is stated: {}",
        r.stderr
    );
    r
}

#[test]
fn the_demo_plan_in_every_format() {
    insta::assert_snapshot!("plan_markdown", demo("markdown").stdout);
    insta::assert_snapshot!("plan_shell", demo("shell").stdout);
    let doc = json(&demo("json"));
    insta::assert_json_snapshot!("plan_json", doc);
}

#[test]
fn the_demo_plan_creates_before_it_clears_and_every_clear_depends_on_its_creates() {
    let doc = json(&demo("json"));
    let steps = doc["accounts"][0]["steps"].as_array().expect("steps").clone();
    let first_clear = steps
        .iter()
        .position(|s| s["path"].as_str().is_some_and(|p| p.contains("load_balancers/pools")))
        .expect("a clear");
    let last_create = steps
        .iter()
        .rposition(|s| s["path"].as_str().is_some_and(|p| p.ends_with("/alerting/v3/policies")))
        .expect("a create");
    assert!(last_create < first_clear, "creates come first");
    for s in &steps {
        for d in s["depends_on"].as_array().unwrap() {
            assert!(d.as_u64().unwrap() < s["step"].as_u64().unwrap(), "{s}");
        }
    }
    // The page-wide clear of the demo (6 pools, 4 with a legacy e-mail) replaces 3 pools' policies first.
    let clear = &steps[first_clear];
    assert_eq!(clear["method"], "PATCH");
    assert_eq!(clear["path"], "/accounts/{account_id}/load_balancers/pools?per_page=25&page=1");
    assert_eq!(clear["body"], serde_json::json!({"notification_email": ""}));
    assert_eq!(clear["depends_on"], serde_json::json!([1, 2, 3]));
    // CA004's request keeps the hostname's validation method and type.
    let hostname = steps
        .iter()
        .find(|s| s["path"].as_str().is_some_and(|p| p.contains("custom_hostnames")))
        .expect("CA004");
    assert_eq!(
        hostname["body"]["ssl"],
        serde_json::json!({"method": "txt", "type": "dv", "certificate_authority": "google"})
    );
    // The policy that filters on `unhealthy` is corrected and completed in place (PUT), not duplicated.
    let update = &steps[0];
    assert_eq!(update["method"], "PUT");
    assert_eq!(
        update["path"],
        "/accounts/{account_id}/alerting/v3/policies/2b8f3c1d-7e4a-4b6c-9d0e-1f2a3b4c5d6e"
    );
    assert_eq!(update["pools"], serde_json::json!(["9290f38c5d07c2e2f4df57b1f61d4196"]));
    assert_eq!(update["body"]["name"], "API pool health");
    assert_eq!(update["body"]["filters"]["new_health"], serde_json::json!(["Unhealthy", "Healthy"]));
    assert_eq!(
        update["body"]["mechanisms"]["email"],
        serde_json::json!([{"id": "ops@example.com"}, {"id": "noc@example.com"}])
    );
    assert!(update["body"].get("id").is_none(), "read-only fields are not sent");
    let summary = &doc["summary"];
    assert_eq!(summary["policy_creates"], 2);
    assert_eq!(summary["policy_updates"], 1);
    assert_eq!(summary["page_clears"], 1);
    assert_eq!(summary["per_pool_requests"], 9);
    // The LB005 value the update respells needs no manual step; LB007's decision stays one.
    let manual: Vec<&str> = steps
        .iter()
        .filter(|s| s["manual"] == true)
        .map(|s| s["reason"].as_str().unwrap())
        .collect();
    assert!(!manual.iter().any(|m| m.starts_with("LB005")), "{manual:?}");
    assert!(manual.iter().any(|m| m.starts_with("LB007")), "{manual:?}");
}

#[test]
fn the_shell_plan_is_valid_bash_that_quotes_everything_from_the_export() {
    let hostile = r#"{"result": [
      {"id": "p1", "name": "x'; rm -rf / #", "origins": [], "notification_email": "o'brien@example.com"},
      {"id": "$(touch pwned)", "name": "`touch pwned`", "origins": [], "notification_email": "ops@example.com"}
    ]}"#;
    let dir = temp_dir(&[("pools.json", hostile.as_bytes())]);
    let r = run(&[
        "plan",
        &path_str(&dir.path().join("pools.json")),
        "--format",
        "shell",
        "--per-page",
        "1",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let script = dir.path().join("plan.sh");
    std::fs::write(&script, &r.stdout).unwrap();
    let status = std::process::Command::new("bash").arg("-n").arg(&script).status().expect("bash");
    assert!(status.success(), "{}", r.stdout);
    assert!(
        r.stdout.contains("%24%28touch%20pwned%29"),
        "ids are encoded in paths:\n{}",
        r.stdout
    );
    assert!(r.stdout.contains(r#"o'\''brien@example.com"#), "{}", r.stdout);
    assert!(r.stdout.contains("set -euo pipefail"));
    assert!(r.stdout.contains("CLOUDFLARE_API_TOKEN") && r.stdout.contains("CLOUDFLARE_API_BASE"));
}

#[test]
fn a_broken_export_gives_no_plan() {
    let dir = temp_dir(&[("pools.json", b"{\"result\": [")]);
    let r = run(&["plan", &path_str(&dir.path().join("pools.json"))]);
    assert_eq!(r.code, 2);
    assert!(r.stdout.is_empty());
    assert!(r.stderr.contains("pools.json:1:"), "{}", r.stderr);
}

/// Every JSON value embedded in a message.
fn json_values(message: &str) -> Vec<serde_json::Value> {
    let mut values = Vec::new();
    for (i, _) in message.match_indices('{') {
        let mut stream = serde_json::Deserializer::from_str(&message[i..]).into_iter::<serde_json::Value>();
        if let Some(Ok(v)) = stream.next() {
            values.push(v);
        }
    }
    values
}

#[test]
fn findings_carry_their_remedy_as_actions_that_agree_with_their_messages() {
    for format in ["json", "sarif"] {
        let r = run(&["check", "fixtures/demo", "--as-of", "2024-10-01", "--format", format]);
        let doc = json(&r);
        let findings: Vec<(serde_json::Value, serde_json::Value, String)> = if format == "json" {
            doc["findings"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| (f["rule"].clone(), f["actions"].clone(), f["message"].as_str().unwrap().to_string()))
                .collect()
        } else {
            common::assert_valid_sarif(&doc);
            doc["runs"][0]["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| {
                    (
                        f["ruleId"].clone(),
                        f["properties"]["actions"].clone(),
                        f["message"]["text"].as_str().unwrap().to_string(),
                    )
                })
                .collect()
        };
        let mut with_requests = BTreeSet::new();
        for (rule, actions, message) in findings {
            let Some(actions) = actions.as_array() else { continue };
            let embedded = json_values(&message);
            for a in actions {
                if a["manual"] == true {
                    continue;
                }
                with_requests.insert(rule.as_str().unwrap().to_string());
                let path = a["path"].as_str().unwrap();
                // The message names the endpoint (the bulk clear without its page query) and the body.
                let endpoint = path.split('?').next().unwrap();
                assert!(message.contains(endpoint), "{format} {rule}: {endpoint} not in: {message}");
                assert!(
                    embedded.contains(&a["body"]),
                    "{format} {rule}: body {} not in: {message}",
                    a["body"]
                );
            }
        }
        let expected: BTreeSet<String> = ["LB001", "LB002", "LB003", "LB004", "CA003", "CA004"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(with_requests, expected, "{format}");
    }
}
