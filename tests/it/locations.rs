//! Every finding points at the exact value: the text at its line and column
//! is the value its JSON pointer names, in JSON and in YAML.

use crate::common;

use common::{json, run, temp_dir};

fn check_locations(dir: &std::path::Path) -> usize {
    let doc = json(&common::run_in(dir, &["check", ".", "--format", "json", "--as-of", "2024-10-01"]));
    let findings = doc["findings"].as_array().expect("findings");
    for f in findings {
        let loc = &f["location"];
        let file = loc["file"].as_str().expect("file");
        if file.ends_with(".tf") {
            // HCL has no JSON pointers of its own: tests/it/terraform.rs checks the text at each.
            continue;
        }
        let text = std::fs::read_to_string(dir.join(file)).expect("read");
        let pointer = loc["pointer"].as_str().expect("pointer");
        let rest = common::text_at(
            &text,
            loc["line"].as_u64().unwrap_or(0) as usize,
            loc["column"].as_u64().unwrap_or(0) as usize,
        );
        let is_json = file.ends_with(".json") || file.ends_with(".jsonl");
        let document: serde_json::Value = if file.ends_with(".jsonl") {
            // JSON Lines: the file is one list, a line an element.
            let lines = text.lines().filter(|l| !l.trim().is_empty());
            serde_json::Value::Array(lines.map(|l| serde_json::from_str(l).expect("a JSON line")).collect())
        } else if is_json {
            serde_json::from_str(&text).expect("json")
        } else {
            serde_saphyr::from_str(&text).expect("yaml")
        };
        let value = document
            .pointer(pointer)
            .unwrap_or_else(|| panic!("{file}: {pointer} names no value"));
        match value {
            serde_json::Value::String(s) if is_json => {
                assert!(
                    rest.starts_with(&serde_json::to_string(s).expect("quote")),
                    "{file}:{pointer} at {rest:.40}"
                )
            }
            serde_json::Value::String(s) => assert!(
                rest.starts_with(s.as_str()) || rest[1..].starts_with(s.as_str()),
                "{file}:{pointer} at {rest:.40}"
            ),
            serde_json::Value::Bool(b) => assert!(rest.starts_with(&b.to_string()), "{file}:{pointer} at {rest:.40}"),
            serde_json::Value::Object(_) if is_json => assert!(rest.starts_with('{'), "{file}:{pointer} at {rest:.40}"),
            // A JSON Lines file as a whole (an account's finding) is its first line.
            serde_json::Value::Array(_) if pointer.is_empty() && file.ends_with(".jsonl") => {}
            serde_json::Value::Array(_) if is_json => assert!(rest.starts_with('['), "{file}:{pointer} at {rest:.40}"),
            _ => {}
        }
    }
    findings.len()
}

#[test]
fn every_demo_finding_points_at_its_value() {
    assert_eq!(check_locations(&common::root().join("fixtures/demo")), 21);
}

#[test]
fn json_lines_findings_point_at_their_values() {
    // The demo with its pools and its zone's hostnames one record per line.
    let demo = common::root().join("fixtures/demo");
    let dir = temp_dir(&[]);
    for entry in std::fs::read_dir(&demo).expect("demo") {
        let path = entry.expect("entry").path();
        let name = path.file_name().expect("name").to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).expect("read");
        std::fs::write(dir.path().join(&name), &text).expect("write");
    }
    let pools: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(demo.join("pools.json")).expect("pools")).expect("json");
    let lines: Vec<String> = pools["result"]
        .as_array()
        .expect("a pool list")
        .iter()
        .map(|p| p.to_string())
        .collect();
    std::fs::remove_file(dir.path().join("pools.json")).expect("remove");
    // Blank lines between records are skipped; the pointer counts records.
    std::fs::write(dir.path().join("pools.jsonl"), format!("\n{}\n", lines.join("\n\n"))).expect("write");
    let findings = check_locations(dir.path());
    assert_eq!(findings, 21, "the same findings as the JSON export");
    let doc = json(&common::run_in(
        dir.path(),
        &["check", ".", "--format", "json", "--select", "LB001", "--as-of", "2024-10-01"],
    ));
    let at = &doc["findings"][0]["location"];
    assert_eq!(at["file"], "pools.jsonl");
    assert!(
        at["pointer"]
            .as_str()
            .is_some_and(|p| p.starts_with('/') && !p.starts_with("/result")),
        "{at}"
    );
}

#[test]
fn minified_and_multi_byte_exports_locate_exactly() {
    let pools = std::fs::read_to_string(common::root().join("fixtures/demo/pools.json")).expect("demo");
    let value: serde_json::Value = serde_json::from_str(&pools).expect("json");
    // One line, and names with characters of two, three and four bytes.
    let minified = serde_json::to_string(&value)
        .expect("json")
        .replace("web-primary", "wéb-primäry-✓-🙂");
    let policies = std::fs::read(common::root().join("fixtures/demo/notification-policies.yaml")).expect("demo");
    let dir = temp_dir(&[("pools.json", minified.as_bytes()), ("policies.yaml", &policies)]);
    assert_eq!(check_locations(dir.path()), 8);
}

#[test]
fn a_bundle_may_name_its_account_after_its_pools() {
    let bundle = br#"{
  "pools": [{"id": "p1", "name": "a", "notification_email": "ops@example.com", "origins": []}],
  "notification_policies": [{"id": "n1", "name": "all", "alert_type": "load_balancing_health_alert",
                             "mechanisms": {"email": [{"id": "ops@example.com"}]}}],
  "account_id": "023e105f4ecef8ad9ca31a8372d0c353"
}"#;
    // A policy in another, unnamed account must not cover the bundle's pool.
    let other = br#"{"result": [{"id": "n2", "name": "other", "alert_type": "load_balancing_health_alert", "mechanisms": {"email": [{"id": "x@example.com"}]}}]}"#;
    let dir = temp_dir(&[("bundle.json", bundle), ("other.json", other)]);
    let doc = json(&common::run_in(dir.path(), &["check", ".", "--format", "json", "--select", "LB00"]));
    let rules: Vec<&str> = doc["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["rule"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(rules, vec!["LB004", "LB002"], "covered by its own account's policy");
    let message = doc["findings"][0]["message"].as_str().unwrap_or_default();
    assert!(message.contains("account 023e105f4ecef8ad9ca31a8372d0c353"), "{message}");
    assert!(
        message.contains("PATCH /accounts/023e105f4ecef8ad9ca31a8372d0c353/load_balancers/pools"),
        "{message}"
    );
}

#[test]
fn pages_of_a_multi_page_export_are_read_as_one_list() {
    let pages = br#"[
  {"success": true, "result": [{"id": "p1", "name": "one", "notification_email": "a@example.com", "origins": []}], "result_info": {"page": 1, "total_count": 9223372036854775807}},
  {"success": true, "result": [{"id": "p2", "name": "two", "notification_email": "", "origins": []}], "result_info": {"page": 2}}
]"#;
    let dir = temp_dir(&[("pools.json", pages)]);
    let doc = json(&common::run_in(dir.path(), &["check", "pools.json", "--format", "json"]));
    assert_eq!(doc["summary"]["records"]["pool"], 2);
    let lb001 = doc["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["rule"] == "LB001")
        .expect("LB001");
    assert_eq!(lb001["location"]["pointer"], "/0/result/0/notification_email");
    assert_eq!(lb001["location"]["line"], 2);
    let lb004 = doc["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["rule"] == "LB004")
        .expect("LB004");
    // The first page announces more pools than were loaded: no total the export does not hold.
    let message = lb004["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("at least 1 of the 9223372036854775808 pools the export announces (only 2 loaded"),
        "{message}"
    );
}

#[test]
fn a_yaml_export_larger_than_the_parser_default_budgets_loads() {
    // serde-saphyr's defaults stop at 250 000 nodes; edgeaudit scales its
    // budgets to the input size.
    let mut yaml = String::from("result:\n");
    for i in 0..30_000 {
        yaml.push_str(&format!(
            "  - id: {i:032x}\n    name: pool-{i}\n    notification_email: ''\n    origins:\n      - {{address: 192.0.2.1, enabled: true, weight: 1}}\n      - {{address: 192.0.2.2, enabled: true, weight: 1}}\n"
        ));
    }
    let dir = temp_dir(&[("pools.yaml", yaml.as_bytes())]);
    let r = run(&["check", &common::path_str(&dir.path().join("pools.yaml")), "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(json(&r)["summary"]["records"]["pool"], 30_000);
}

#[test]
fn terraform_findings_point_at_the_attribute_in_state_plan_and_tfstate() {
    // show -json state (provider v4, a child module), a plan (provider v5), a raw .tfstate (v4, module, index keys).
    let dir = common::root().join("tests/fixtures/terraform");
    // The three JSON documents name one account: one LB004 for them, and the
    // plan's policy whose pool_id is unknown before apply leaves that
    // account's pools without LB001/LB003, each with EX005 at that value (16
    // findings); the `.tf` configurations add 30 of their own (hcl-modules:
    // LB001 and LB004 for the pool whose module is not followed — the
    // module's own policy, whose pool comes from the caller, is not "not
    // judged": no pool is loaded there, so LB006 does not apply; EX005 where
    // a variable has no value; duplicate-address: EX002 at both blocks and
    // CA002 at the second block's CA).
    assert_eq!(check_locations(&dir), 46);
}
