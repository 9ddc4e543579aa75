//! Every list a person would otherwise keep in step by hand is derived from
//! its registry; these tests walk each registry and fail when one of its
//! entries is missing from a place derived from it (DESIGN §5, "One fact, one
//! place"). A new input format, report format, record kind or rule shows up
//! here as a failure naming what to add, never as a silent gap.

use std::collections::BTreeSet;

use crate::common;
use common::{json, run, run_with_stdin};
use edgeaudit::input::FORMATS;

/// One sample of each input format: a file that loads records. A format
/// added to `input::FORMATS` without a sample here fails
/// `every_input_format_reads_standard_input_when_named`.
fn sample(format: &str) -> Option<String> {
    let path = match format {
        "json" => "fixtures/demo/pools.json",
        "yaml" => "fixtures/demo/notification-policies.yaml",
        "bind" => "fixtures/demo/customer-two.net.zone",
        "tfstate" => "tests/fixtures/terraform/v4.tfstate",
        "hcl" => "tests/fixtures/verdicts/count-absent/main.tf",
        "jsonl" => "tests/fixtures/formats/pools.jsonl",
        _ => return None,
    };
    std::fs::read_to_string(common::root().join(path)).ok()
}

/// What a check found, without the file names (stdin is `-`) and the
/// account's id where it is named after the directory (Terraform's).
fn verdict(r: &common::Run) -> (i32, Vec<(String, String)>, serde_json::Value) {
    let doc = json(r);
    let findings = doc["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            let id = f["resource"]["id"].as_str().unwrap_or_default();
            let id = if id.starts_with("terraform:") { "terraform:DIR" } else { id };
            (f["rule"].as_str().unwrap_or_default().to_string(), id.to_string())
        })
        .collect();
    (r.code, findings, doc["summary"]["records"].clone())
}

#[test]
fn every_input_format_reads_standard_input_when_named() {
    for format in FORMATS.iter().map(|f| f.name()) {
        let text = sample(format).unwrap_or_else(|| panic!("input format `{format}` has no sample in tests/it/registries.rs: add one"));
        let extension = FORMATS
            .iter()
            .find(|f| f.name() == format)
            .and_then(|f| f.extensions().first())
            .expect("an extension");
        let dir = common::temp_dir(&[(&format!("sample.{extension}"), text.as_bytes())]);
        let file = common::path_str(&dir.path().join(format!("sample.{extension}")));
        let base = ["--format", "json", "--no-config", "--as-of", "2024-10-01"];
        let by_name = run(&[&["check", file.as_str()][..], &base].concat());
        let by_stdin = run_with_stdin(
            &[&["check", "-", "--input-format", format][..], &base].concat(),
            Some(text.as_bytes()),
        );
        assert!(by_name.code < 2, "{format}: {}", by_name.stderr);
        let (code, findings, records) = verdict(&by_name);
        assert!(
            records.as_object().is_some_and(|r| !r.is_empty()),
            "{format}: the sample loads no record"
        );
        assert_eq!(
            verdict(&by_stdin),
            (code, findings, records),
            "{format} on stdin:\n{}",
            by_stdin.stderr
        );
    }
}

#[test]
fn the_cli_offers_every_registry_entry() {
    let help = run(&["check", "--help"]).stdout;
    let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
    let values = flat
        .split("--input-format <FORMAT>")
        .nth(1)
        .and_then(|rest| rest.split("[possible values: ").nth(1))
        .and_then(|rest| rest.split(']').next())
        .expect("--input-format lists its values");
    let offered: Vec<&str> = values.split(", ").collect();
    assert_eq!(offered, edgeaudit::input::names(), "--input-format's values");
    for format in FORMATS {
        for extension in format.extensions() {
            assert!(
                flat.contains(&format!("*.{extension}")),
                "check's PATH help lacks *.{extension}:\n{help}"
            );
        }
    }
    for kind in edgeaudit::model::Kind::RECORD_KINDS {
        assert!(flat.contains(kind.as_str()), "--kind's help lacks {}", kind.as_str());
    }
    for format in common::report_formats() {
        assert!(flat.contains(&format!(" {format}")), "--format's help lacks {format}");
        let r = run(&["check", "fixtures/demo", "--format", &format, "--as-of", "2024-10-01", "-q"]);
        assert_eq!(r.code, 1, "{format}: {}", r.stderr);
    }
    let unknown = run(&["check", "fixtures/demo", "--format", "xml"]);
    assert_eq!(unknown.code, 2);
    for format in common::report_formats() {
        assert!(
            unknown.stderr.contains(&format),
            "the unknown-format message lacks {format}: {}",
            unknown.stderr
        );
    }
}

/// Every report format has its entry in the book's page of output formats
/// (a bullet that starts with its name), and no other page lists them.
#[test]
fn the_book_documents_every_report_format() {
    let page = std::fs::read_to_string(common::root().join("docs/src/output-formats.md")).expect("output-formats.md");
    for format in common::report_formats() {
        assert!(
            page.lines().any(|l| l.starts_with(&format!("- `{format}`:"))),
            "docs/src/output-formats.md has no entry `- `{format}`: …`"
        );
    }
}

/// `.pre-commit-hooks.yaml`'s `files` pattern: exactly the endings of the
/// input formats and their companions (a `.tfvars` changes a `.tf`'s verdict).
#[test]
fn the_pre_commit_hooks_watch_every_input_format() {
    let text = std::fs::read_to_string(common::root().join(".pre-commit-hooks.yaml")).expect(".pre-commit-hooks.yaml");
    let hooks: Vec<serde_json::Value> = serde_saphyr::from_str(&text).expect("YAML");
    let expected: BTreeSet<String> = edgeaudit::input::watched_extensions().iter().map(|e| e.to_string()).collect();
    for hook in &hooks {
        let files = hook["files"].as_str().expect("every hook has `files`");
        let pattern = regex::Regex::new(files).expect("a regular expression");
        for extension in &expected {
            assert!(
                pattern.is_match(&format!("exports/a.{extension}")),
                "{}: `files` misses .{extension}",
                hook["id"]
            );
        }
        let watched: BTreeSet<String> = [
            "json", "jsonl", "ndjson", "yaml", "yml", "zone", "bind", "tf", "tfvars", "tfstate", "csv", "txt", "md", "log", "gz", "toml",
            "hcl", "xml",
        ]
        .iter()
        .filter(|e| pattern.is_match(&format!("exports/a.{e}")))
        .map(|e| e.to_string())
        .collect();
        assert_eq!(watched, expected, "{}: `files` watches what no input format reads", hook["id"]);
    }
}

/// The JSON schemas' enums of what the registries hold: the API operations'
/// methods (a plan's step changes something, so no GET there), and the plan
/// file's step kinds, which `apply` reads.
#[test]
fn the_schemas_enumerate_the_registries() {
    let schema = |name: &str| -> serde_json::Value {
        let text = std::fs::read_to_string(common::root().join("docs/schemas").join(name)).expect("schema");
        serde_json::from_str(&text).expect("JSON")
    };
    let enums = |doc: &serde_json::Value, key: &str| -> Vec<BTreeSet<String>> {
        // Every `"<key>": {"enum": [...]}` in the document.
        let mut found = Vec::new();
        let mut stack = vec![doc.clone()];
        while let Some(v) = stack.pop() {
            match v {
                serde_json::Value::Object(map) => {
                    if let Some(values) = map.get(key).and_then(|k| k["enum"].as_array()) {
                        found.push(values.iter().filter_map(|v| v.as_str().map(str::to_string)).collect());
                    }
                    stack.extend(map.into_iter().map(|(_, v)| v));
                }
                serde_json::Value::Array(items) => stack.extend(items),
                _ => {}
            }
        }
        found
    };
    let methods: BTreeSet<String> = edgeaudit::api::OPERATIONS.iter().map(|o| o.method.to_string()).collect();
    let check = enums(&schema("check.schema.json"), "method");
    assert!(!check.is_empty(), "check.schema.json has a method enum");
    for found in check {
        assert_eq!(found, methods, "check.schema.json's methods are the operations'");
    }
    let changing: BTreeSet<String> = methods.iter().filter(|m| *m != "GET").cloned().collect();
    let plan = schema("plan.schema.json");
    for found in enums(&plan, "method") {
        assert_eq!(found, changing, "plan.schema.json's methods are the operations' that change");
    }
    // Generated from the step kind apply reads (docs/schemas/plan.schema.json).
    let kinds: Vec<BTreeSet<String>> = plan["$defs"]["StepKind"]["enum"]
        .as_array()
        .map(|e| e.iter().filter_map(|k| k.as_str().map(str::to_string)).collect())
        .into_iter()
        .collect();
    assert_eq!(kinds.len(), 1, "plan.schema.json has one step-kind enum");
    use edgeaudit::live::apply::plan_file::Kind;
    // A new step kind stops this match from compiling until it is listed.
    let name = |k: Kind| match k {
        Kind::CreatePolicy => "create_policy",
        Kind::UpdatePolicy => "update_policy",
        Kind::ClearPage => "clear_page",
        Kind::ClearPool => "clear_pool",
        Kind::EditCustomHostname => "edit_custom_hostname",
        Kind::SetTotalTls => "set_total_tls",
        Kind::SetUniversalSsl => "set_universal_ssl",
        Kind::Manual => "manual",
        Kind::Terraform => "terraform",
    };
    for kind in &kinds[0] {
        let parsed: Kind = serde_json::from_value(serde_json::json!(kind)).unwrap_or_else(|e| panic!("{kind}: {e}"));
        assert_eq!(name(parsed), kind, "the schema's step kind is apply's");
    }
    assert_eq!(kinds[0].len(), 9, "every step kind is in the schema: {:?}", kinds[0]);
    assert_eq!(kinds[0].len(), 9, "every step kind apply reads is in the schema");
}

/// `check.schema.json`'s `$defs`: its kinds are every resource kind, its
/// severities every severity.
#[test]
fn the_check_schema_names_every_kind_and_severity() {
    use edgeaudit::engine::severity::Severity;
    let text = std::fs::read_to_string(common::root().join("docs/schemas/check.schema.json")).expect("schema");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let listed = |def: &str| -> BTreeSet<String> {
        doc["$defs"][def]["enum"]
            .as_array()
            .unwrap_or_else(|| panic!("$defs.{def} is an enum"))
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect()
    };
    let kinds: BTreeSet<String> = edgeaudit::model::Kind::all().map(|k| k.as_str().to_string()).collect();
    assert_eq!(listed("kind"), kinds);
    let severities: BTreeSet<String> = Severity::ALL.iter().map(|s| s.as_str().to_string()).collect();
    assert_eq!(listed("severity"), severities);
}

/// `configuration.md` names every kind a waiver can name: the subjects of
/// the built-in rules (a finding is waived by its resource's kind).
#[test]
fn the_waiver_docs_name_every_subject_kind() {
    let page = std::fs::read_to_string(common::root().join("docs/src/configuration.md")).expect("configuration.md");
    let waivers = page
        .split("## Waivers")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("a Waivers section");
    let kinds: BTreeSet<&str> = edgeaudit::engine::registry::RuleSet::builtin()
        .expect("built-in rules")
        .rules
        .iter()
        .flat_map(|r| r.subjects.iter().map(|k| k.as_str()))
        .collect();
    assert!(kinds.len() >= 8, "{kinds:?}");
    let missing: Vec<&&str> = kinds.iter().filter(|k| !waivers.contains(&format!("`{k}`"))).collect();
    assert!(missing.is_empty(), "configuration.md's waivers lack the kinds {missing:?}");
}
