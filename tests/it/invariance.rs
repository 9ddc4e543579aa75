//! The findings describe the account, not the way it was exported: the same
//! findings (rule, resource, field — not array indices or files) when records
//! are reordered, when a list is split into pages in one file or across
//! files, when the data is YAML instead of JSON, minified, or passed as files
//! in another order; and every format is byte-identical across runs.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{json, path_str, run, temp_dir};
use serde_json::{Value, json};

const AS_OF: &str = "2024-10-01";
const SOURCES: [&str; 2] = ["tests/fixtures/real", "fixtures/demo"];

/// The findings' identities (the JSON `fingerprint`: rule, resource, field
/// without array indices, element), which must be SARIF's too.
fn identities(args: &[&str]) -> BTreeMap<String, usize> {
    let run_as = |format: &str| {
        let mut all = vec!["check"];
        all.extend(args);
        all.extend(["--format", format, "--fail-on", "never", "--as-of", AS_OF, "--no-config"]);
        let r = run(&all);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        json(&r)
    };
    let doc = run_as("json");
    assert_eq!(doc["summary"]["skipped"], json!([]), "{args:?}: nothing skipped");
    let mut out = BTreeMap::new();
    for f in doc["findings"].as_array().expect("findings") {
        let fingerprint = f["fingerprint"].as_str().expect("a fingerprint");
        let key = format!("{} {fingerprint}", f["rule"].as_str().unwrap_or(""));
        *out.entry(key).or_default() += 1;
    }
    let sarif = run_as("sarif");
    let mut in_sarif = BTreeMap::new();
    for r in sarif["runs"][0]["results"].as_array().expect("results") {
        let fingerprint = r["partialFingerprints"]["primaryLocationLineHash"].as_str().expect("a fingerprint");
        let key = format!("{} {fingerprint}", r["ruleId"].as_str().unwrap_or(""));
        *in_sarif.entry(key).or_default() += 1;
    }
    assert_eq!(in_sarif, out, "{args:?}: SARIF and JSON give each finding the same identity");
    out
}

/// Every file of a fixture directory: name and text.
fn files(source: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(common::root().join(source))
        .expect("fixture dir")
        .map(|e| e.expect("entry").path())
        .map(|p| {
            let name = p.file_name().expect("name").to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).expect("read"))
        })
        .collect();
    out.sort();
    out
}

/// How a JSON document (by its file stem) is written out again: one or more (name, text) files.
type Rewrite = dyn Fn(&str, Value) -> Vec<(String, String)>;

/// Writes the files, with each JSON document rewritten by `rewrite`.
fn rewritten(source: &str, rewrite: &Rewrite) -> tempfile::TempDir {
    let dir = temp_dir(&[]);
    for (name, text) in files(source) {
        let outputs = match name.strip_suffix(".json") {
            Some(stem) => rewrite(stem, serde_json::from_str(&text).expect("fixture JSON")),
            None => vec![(name, text)],
        };
        for (out_name, out_text) in outputs {
            std::fs::write(dir.path().join(out_name), out_text).expect("write");
        }
    }
    dir
}

/// Every record list of a document, reversed (API `result` lists and bundle lists).
fn reverse_lists(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                if let Value::Array(items) = value
                    && matches!(
                        key.as_str(),
                        "result" | "pools" | "notification_policies" | "custom_hostnames" | "custom_certificates" | "dns_records"
                    )
                {
                    items.reverse();
                }
                reverse_lists(value);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(reverse_lists),
        _ => {}
    }
}

/// An API list envelope as one page per record, each with its paging.
fn pages(v: &Value) -> Option<Vec<Value>> {
    let records = v.get("result")?.as_array()?;
    if records.len() < 2 {
        return None;
    }
    let n = records.len();
    Some(
        records
            .iter()
            .enumerate()
            .map(|(i, record)| {
                json!({"success": true, "errors": [], "messages": [], "result": [record],
                       "result_info": {"page": i + 1, "per_page": 1, "count": 1, "total_count": n, "total_pages": n}})
            })
            .collect(),
    )
}

/// One JSON text per line, with a blank line and CR LF line ends among them.
fn json_lines(items: &[Value]) -> String {
    let lines: Vec<String> = items.iter().map(|v| serde_json::to_string(v).expect("json")).collect();
    format!("{}\r\n\n", lines.join("\r\n"))
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).expect("json")
}

#[test]
fn findings_do_not_depend_on_how_the_account_was_exported() {
    for source in SOURCES {
        let expected = identities(&[source]);
        assert!(!expected.is_empty(), "{source} has findings to compare");
        let variants: [(&str, &Rewrite); 7] = [
            ("renamed", &|stem, v| vec![(format!("renamed-{stem}.json"), pretty(&v))]),
            ("reversed", &|stem, mut v| {
                reverse_lists(&mut v);
                vec![(format!("{stem}.json"), pretty(&v))]
            }),
            ("minified", &|stem, v| {
                vec![(format!("{stem}.json"), serde_json::to_string(&v).expect("json"))]
            }),
            ("YAML", &|stem, v| {
                vec![(format!("{stem}.yaml"), serde_saphyr::to_string(&v).expect("yaml"))]
            }),
            // One line per element of a list (a record, or a page's
            // envelope), or a list envelope on one line; a bundle and a single
            // setting (`{"result": {…}}`, whose identity is its place) stay JSON.
            ("JSON Lines", &|stem, v| match &v {
                Value::Array(items) => vec![(format!("{stem}.jsonl"), json_lines(items))],
                Value::Object(o) if o.get("result").is_some_and(Value::is_array) => {
                    vec![(format!("{stem}.ndjson"), json_lines(std::slice::from_ref(&v)))]
                }
                _ => vec![(format!("{stem}.json"), pretty(&v))],
            }),
            ("pages in one file", &|stem, v| match pages(&v) {
                Some(p) => vec![(format!("{stem}.json"), pretty(&Value::Array(p)))],
                None => vec![(format!("{stem}.json"), pretty(&v))],
            }),
            ("pages in several files", &|stem, v| match pages(&v) {
                Some(p) => p
                    .iter()
                    .enumerate()
                    .map(|(i, page)| (format!("{stem}-page-{i}.json"), pretty(page)))
                    .collect(),
                None => vec![(format!("{stem}.json"), pretty(&v))],
            }),
        ];
        for (what, rewrite) in variants {
            let dir = rewritten(source, rewrite);
            assert_eq!(identities(&[&path_str(dir.path())]), expected, "{source}, {what}");
        }
        // The same files named one by one, in reverse order.
        let mut named: Vec<String> = files(source).into_iter().map(|(name, _)| format!("{source}/{name}")).collect();
        named.reverse();
        let args: Vec<&str> = named.iter().map(String::as_str).collect();
        assert_eq!(identities(&args), expected, "{source}, files in reverse order");
    }
}

#[test]
fn every_format_is_byte_identical_across_runs() {
    for format in common::report_formats() {
        let format = format.as_str();
        let once = |dir: &Path| {
            let r = common::run_in(
                dir,
                &[
                    "check",
                    "fixtures/demo",
                    "tests/fixtures/real",
                    "--format",
                    format,
                    "--as-of",
                    AS_OF,
                    "--color",
                    "never",
                ],
            );
            assert_eq!(r.code, 1, "{format}: {}", r.stderr);
            r.stdout
        };
        let root = common::root();
        assert_eq!(once(&root), once(&root), "{format}");
    }
}

/// Two findings are never one identity: the rule fixtures hold records
/// without ids (named by their name, or by their place when they have none)
/// and resources loaded twice (EX002 at each copy).
#[test]
fn every_finding_has_an_identity_of_its_own() {
    let r = run(&[
        "check",
        "tests/fixtures/rules",
        "--format",
        "json",
        "--as-of",
        AS_OF,
        "--fail-on",
        "never",
        "--no-config",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let doc = json(&r);
    let findings = doc["findings"].as_array().expect("findings");
    let mut seen = BTreeMap::new();
    for f in findings {
        let fingerprint = f["fingerprint"].as_str().expect("fingerprint").to_string();
        if let Some(earlier) = seen.insert(fingerprint, f.clone()) {
            panic!("one identity for two findings:\n{earlier}\n{f}");
        }
    }
    assert!(findings.iter().filter(|f| f["rule"] == "EX002").count() >= 2);
    assert!(
        findings
            .iter()
            .any(|f| f["resource"]["id"] == "" && f["resource"]["kind"] == "notification_policy")
    );
}
