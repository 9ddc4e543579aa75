//! `edgeaudit plan`: the migration as ordered requests, in three formats,
//! proved by a replay before it is written.

mod common;

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
    let summary = &doc["summary"];
    assert_eq!(summary["policy_creates"], 3);
    assert_eq!(summary["page_clears"], 1);
    assert_eq!(summary["per_pool_requests"], 7);
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
