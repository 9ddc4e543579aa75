//! `edgeaudit plan`: the migration as ordered requests, in three formats,
//! proved by a replay before it is written.

use crate::common;

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
fn the_shell_format_is_retired_for_apply_and_ids_stay_one_path_segment() {
    let hostile = r#"{"result": [
      {"id": "p1", "name": "x'; rm -rf / #", "origins": [], "notification_email": "o'brien@example.com"},
      {"id": "$(touch pwned)", "name": "`touch pwned`", "origins": [], "notification_email": "ops@example.com"}
    ]}"#;
    let dir = temp_dir(&[("pools.json", hostile.as_bytes())]);
    let pools = path_str(&dir.path().join("pools.json"));
    let shell = run(&["plan", &pools, "--format", "shell"]);
    assert_eq!(shell.code, 2);
    assert!(shell.stdout.is_empty());
    assert!(shell.stderr.contains("edgeaudit apply"), "{}", shell.stderr);
    let r = run(&["plan", &pools, "--format", "json", "--per-page", "1"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let doc = json(&r);
    let paths: Vec<&str> = doc["accounts"][0]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["path"].as_str())
        .collect();
    assert!(
        paths.contains(&"/accounts/{account_id}/load_balancers/pools/%24%28touch%20pwned%29"),
        "{paths:?}"
    );
}

/// A pools export whose `result_info` announces 40 pools with 4 loaded
/// (EX001): no page-wide clear (it would clear pools never seen), per-pool
/// clears of the 4, and the plan says why in every format.
#[test]
fn an_incomplete_pools_export_gets_per_pool_clears_and_says_why_in_every_format() {
    let pools: Vec<serde_json::Value> = (0..4)
        .map(|i| serde_json::json!({"id": format!("p{i}"), "name": format!("web-{i}"), "origins": [], "notification_email": "ops@example.com"}))
        .collect();
    let export = serde_json::json!({
        "pools": {"success": true, "errors": [], "messages": [], "result": pools,
                  "result_info": {"page": 1, "per_page": 4, "count": 4, "total_count": 40, "total_pages": 10}},
        "notification_policies": {"success": true, "errors": [], "messages": [], "result": [],
                  "result_info": {"page": 1, "per_page": 25, "count": 0, "total_count": 0, "total_pages": 0}},
    });
    let dir = temp_dir(&[("account.json", export.to_string().as_bytes())]);
    let file = path_str(&dir.path().join("account.json"));
    let r = run(&["plan", &file, "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let doc = json(&r);
    assert_eq!(doc["summary"]["page_clears"], 0, "{doc:#}");
    assert_eq!(doc["summary"]["pool_clears"], 4);
    assert_eq!(doc["accounts"][0]["pools_complete"], false);
    assert_eq!(
        doc["accounts"][0]["proof"]["covers"],
        "only the pools loaded: the pools export is incomplete (EX001)"
    );
    let warning = doc["accounts"][0]["warnings"][0].as_str().unwrap();
    assert!(
        warning.contains("EX001") && warning.contains("only the 4 pools loaded"),
        "{warning}"
    );
    assert!(r.stderr.contains("warning: the pools export is incomplete (EX001"), "{}", r.stderr);
    assert!(r.stderr.contains("the proof covers only the pools loaded"), "{}", r.stderr);
    for (format, mark) in [
        ("markdown", "> **Warning:** ``the pools export is incomplete"),
        ("terraform", "# Warning: the pools export is incomplete"),
    ] {
        let r = run(&["plan", &file, "--format", format]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(r.stdout.contains(mark), "{format}: {}", r.stdout);
    }
    // Complete, the same pools share one page-wide clear.
    let complete = export
        .to_string()
        .replace("\"total_count\":40", "\"total_count\":4")
        .replace("\"total_pages\":10", "\"total_pages\":1");
    let dir = temp_dir(&[("account.json", complete.as_bytes())]);
    let r = run(&["plan", &path_str(&dir.path().join("account.json")), "--format", "json"]);
    assert_eq!(json(&r)["summary"]["page_clears"], 1, "{}", r.stdout);
    assert_eq!(json(&r)["accounts"][0]["warnings"], serde_json::json!([]));
}

#[test]
fn legacy_pools_without_any_policy_loaded_are_warned_about_in_every_format() {
    let pools = r#"{"result": [{"id": "p1", "name": "web", "origins": [], "notification_email": "ops@example.com"}]}"#;
    let dir = temp_dir(&[("pools.json", pools.as_bytes())]);
    let file = path_str(&dir.path().join("pools.json"));
    for format in common::plan_formats() {
        let r = run(&["plan", &file, "--format", &format]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(
            r.stdout.contains("no notification policy was loaded at all"),
            "{format}: {}",
            r.stdout
        );
        assert!(
            r.stderr.contains("no notification policy was loaded at all"),
            "{format}: {}",
            r.stderr
        );
    }
}

/// A policy the plan updates is rendered in Terraform as its change (an
/// import and the resource as the update leaves it), and every pool whose
/// clear needs it is listed for removal only with it.
#[test]
fn terraform_renders_a_policy_update_as_the_change_to_that_resource() {
    let r = run(&["plan", "fixtures/demo", "--as-of", "2024-10-01", "--format", "terraform"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("import {\n  to = cloudflare_notification_policy.api_pool_health\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("resource \"cloudflare_notification_policy\" \"api_pool_health\""),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("new_health\" = [\"Unhealthy\", \"Healthy\"]"), "{}", r.stdout);
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
        let expected: BTreeSet<String> = ["LB001", "LB002", "LB003", "LB004", "CA003", "CA004", "CA011"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(with_requests, expected, "{format}");
    }
}
