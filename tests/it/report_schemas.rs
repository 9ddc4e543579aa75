//! The JSON reports of `check`, `plan` and `inventory` carry a version and
//! match the schemas published in `docs/schemas/`: every run below is
//! validated, and the schemas are strict enough that a renamed or extra
//! member fails.

use crate::common;

use common::{Run, json, path_str, root, run, run_in, temp_dir};
use serde_json::Value;

fn schema(name: &str) -> Value {
    let path = root().join("docs/schemas").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name} is not JSON: {e}"))
}

fn errors(schema_name: &str, doc: &Value) -> Vec<String> {
    let validator = jsonschema::validator_for(&schema(schema_name)).unwrap_or_else(|e| panic!("{schema_name} compiles: {e}"));
    validator
        .iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

fn assert_valid(schema_name: &str, what: &str, r: &Run) {
    let doc = json(r);
    let errors = errors(schema_name, &doc);
    assert!(errors.is_empty(), "{what}: invalid against {schema_name}:\n{}", errors.join("\n"));
}

/// Every rule fixture, the demo, Terraform, the as-of fixture and real shapes.
fn inputs() -> Vec<String> {
    let mut paths = vec!["fixtures/demo".to_string(), "tests/fixtures/as-of".to_string()];
    for dir in ["tests/fixtures/rules", "tests/fixtures/terraform"] {
        let mut entries: Vec<String> = std::fs::read_dir(root().join(dir))
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
            .filter_map(Result::ok)
            .map(|e| format!("{dir}/{}", e.file_name().to_string_lossy()))
            .collect();
        entries.sort();
        paths.extend(entries);
    }
    paths
}

#[test]
fn every_check_report_matches_the_published_schema() {
    for path in inputs() {
        for as_of in ["2024-05-01", "2024-10-01"] {
            let r = run(&["check", &path, "--format", "json", "--as-of", as_of, "--no-config"]);
            assert!(r.code <= 1, "{path}: {}", r.stderr);
            assert_valid("check.schema.json", &format!("check {path} --as-of {as_of}"), &r);
        }
    }
}

#[test]
fn a_check_report_with_waivers_a_baseline_and_notices_matches_the_schema() {
    let pools = br#"pools:
  - {id: aaaa0000000000000000000000000001, name: web, notification_email: noc@example.com}
  - {id: aaaa0000000000000000000000000002, name: api, notification_email: api@example.com}
"#;
    let config = b"waivers:\n  - rule: LB001\n    resource: pool/aaaa0000000000000000000000000001\n    reason: reviewed\n    expires: 2030-01-01\n  - {rule: LB003, resource: pool/nothing, reason: matches nothing}\n";
    let dir = temp_dir(&[("exports/lb.yaml", pools), (".edgeaudit.yaml", config)]);
    let written = run_in(dir.path(), &["check", "exports", "--write-baseline", "base.json", "-q"]);
    assert!(written.code <= 1, "{}", written.stderr);
    let r = run_in(dir.path(), &["check", "exports", "--format", "json", "--baseline", "base.json"]);
    let doc = json(&r);
    let kinds: Vec<&str> = doc["suppressed"]
        .as_array()
        .map(|s| s.iter().filter_map(|f| f["suppression"]["kind"].as_str()).collect())
        .unwrap_or_default();
    assert!(kinds.contains(&"waiver") && kinds.contains(&"baseline"), "{doc}");
    assert!(doc["notices"].as_array().is_some_and(|n| !n.is_empty()), "{doc}");
    assert_eq!(doc["config"], ".edgeaudit.yaml");
    assert_valid("check.schema.json", "waivers and baseline", &r);
}

#[test]
fn a_failed_check_writes_the_failure_document_of_the_schema() {
    let dir = temp_dir(&[("broken.json", b"{\"result\": [\n")]);
    let r = run(&[
        "check",
        &path_str(&dir.path().join("broken.json")),
        &path_str(&dir.path().join("missing.json")),
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let doc = json(&r);
    assert_eq!(doc["success"], false);
    assert_valid("check.schema.json", "a failed run", &r);
}

#[test]
fn every_plan_matches_the_published_schema() {
    for path in inputs() {
        let r = run(&["plan", &path, "--format", "json", "--as-of", "2024-10-01", "--no-config"]);
        if r.code == 2 {
            continue; // an input plan refuses is tested in tests/it/plan.rs
        }
        let doc = json(&r);
        assert_eq!(doc["version"], edgeaudit::plan::render::VERSION);
        assert_valid("plan.schema.json", &format!("plan {path}"), &r);
    }
}

#[test]
fn every_inventory_matches_the_published_schema() {
    for path in inputs() {
        let r = run(&["inventory", &path, "--format", "json", "--no-config"]);
        assert_eq!(r.code, 0, "{path}: {}", r.stderr);
        assert_eq!(json(&r)["version"], 1);
        assert_valid("inventory.schema.json", &format!("inventory {path}"), &r);
    }
}

/// The schemas say what a consumer may rely on, so they refuse what the
/// tool does not write: a renamed member, an extra one, a wrong type.
#[test]
fn the_schemas_refuse_what_the_tool_does_not_write() {
    let check = json(&run(&["check", "fixtures/demo", "--format", "json", "--as-of", "2024-10-01"]));
    let plan = json(&run(&["plan", "fixtures/demo", "--format", "json", "--as-of", "2024-10-01"]));
    let inventory = json(&run(&["inventory", "fixtures/demo", "--format", "json"]));
    for (name, doc) in [
        ("check.schema.json", &check),
        ("plan.schema.json", &plan),
        ("inventory.schema.json", &inventory),
    ] {
        assert!(errors(name, doc).is_empty(), "{name}: the demo is valid");
        let mut extra = doc.clone();
        extra["unexpected"] = Value::Bool(true);
        assert!(!errors(name, &extra).is_empty(), "{name}: an extra member is refused");
        let mut version = doc.clone();
        version["version"] = Value::from(99);
        assert!(!errors(name, &version).is_empty(), "{name}: another version is refused");
    }
    let mut renamed = check.clone();
    renamed["findings"][0]["rule_id"] = renamed["findings"][0]["rule"].take();
    assert!(!errors("check.schema.json", &renamed).is_empty());
    let mut severity = check.clone();
    severity["findings"][0]["severity"] = Value::from("fatal");
    assert!(!errors("check.schema.json", &severity).is_empty());
    let mut step = plan.clone();
    step["accounts"][0]["steps"][0]["kind"] = Value::from("delete_everything");
    assert!(!errors("plan.schema.json", &step).is_empty());
    let mut row = inventory.clone();
    row["certificates"][0]["chain"] = Value::from("fine");
    assert!(!errors("inventory.schema.json", &row).is_empty());
}

/// The schemas are valid JSON Schema (2020-12).
#[test]
fn the_published_schemas_are_valid_schemas() {
    for name in ["check.schema.json", "plan.schema.json", "inventory.schema.json"] {
        let s = schema(name);
        assert!(jsonschema::meta::is_valid(&s), "{name} is not a valid JSON Schema");
        assert_eq!(s["$schema"], "https://json-schema.org/draft/2020-12/schema", "{name}");
    }
}
