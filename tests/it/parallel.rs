//! The parallel parse of large record lists (docs/src/performance.md) gives the
//! output of a one-thread run, byte for byte: findings, locations, skipped
//! files, errors and exit codes. `EDGEAUDIT_SPLIT_BYTES=1` splits every JSON
//! list (and every JSON Lines text) into one-element parts, so each fixture
//! exercises the part boundaries; `EDGEAUDIT_THREADS=1` is the one-pass parse.

use crate::common;

use common::{path_str, run_with_env, temp_dir};

/// One-pass, then split into one-element parts on 2, 3 and 8 threads, then
/// into parts of a few elements.
const SPLITS: [&[(&str, &str)]; 4] = [
    &[("EDGEAUDIT_THREADS", "2"), ("EDGEAUDIT_SPLIT_BYTES", "1")],
    &[("EDGEAUDIT_THREADS", "3"), ("EDGEAUDIT_SPLIT_BYTES", "1")],
    &[("EDGEAUDIT_THREADS", "8"), ("EDGEAUDIT_SPLIT_BYTES", "1")],
    &[("EDGEAUDIT_THREADS", "2"), ("EDGEAUDIT_SPLIT_BYTES", "300")],
];

fn assert_same_as_one_thread(args: &[&str]) {
    let one = run_with_env(args, &[("EDGEAUDIT_THREADS", "1")]);
    for env in SPLITS {
        let split = run_with_env(args, env);
        assert_eq!(
            (split.code, &split.stdout, &split.stderr),
            (one.code, &one.stdout, &one.stderr),
            "{args:?} with {env:?} differs from one thread"
        );
    }
}

fn check(path: &str) -> Vec<&str> {
    vec![
        "check",
        "--no-config",
        "--as-of",
        "2024-10-01",
        "--fail-on",
        "never",
        "--format",
        "json",
        path,
    ]
}

/// Every JSON and JSON Lines file under `dir`, recursively, sorted.
fn json_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).expect("fixtures").flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            json_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "json" || e == "jsonl") {
            out.push(path);
        }
    }
}

#[test]
fn every_json_fixture_gives_the_one_thread_output() {
    let root = common::root();
    let mut files = Vec::new();
    json_files(&root.join("fixtures"), &mut files);
    json_files(&root.join("tests/fixtures"), &mut files);
    assert!(files.len() > 20, "fixtures found: {}", files.len());
    for file in &files {
        let name = path_str(file.strip_prefix(&root).expect("under the root"));
        assert_same_as_one_thread(&check(&name));
    }
    // And the demo as the README runs it: a directory, human output.
    assert_same_as_one_thread(&["check", "--no-config", "--as-of", "2024-10-01", "fixtures/demo"]);
}

const AUTHORITIES: [&str; 3] = ["lets_encrypt", "", "google"];

/// A generated export: pools with and without legacy e-mails, policies,
/// custom hostnames, a pack, with escapes and brackets inside strings, in
/// the envelope the API returns (`pretty`: one member per line).
fn generated(count: usize, pretty: bool) -> String {
    let mut records = Vec::new();
    for i in 0..count {
        let record = match i % 5 {
            0 => serde_json::json!({
                "id": format!("{i:032x}"), "name": format!("pool-{i} \"quoted\" [x] {{y}}"),
                "origins": [{"name": "o", "address": "192.0.2.1"}],
                "notification_email": if i % 3 == 0 { format!("noc-{i}@example.com, ops@example.com") } else { String::new() },
                "notification_filter": {"pool": {"disable": i % 7 == 0, "healthy": null}},
            }),
            1 => serde_json::json!({
                "id": format!("policy-{i}"), "name": "health \\ alert", "alert_type": "load_balancing_health_alert",
                "enabled": i % 4 != 1, "mechanisms": {"email": [{"id": format!("noc-{}@example.com", i - 1)}]},
                "filters": {"pool_id": [format!("{:032x}", i - 1)], "new_health": ["Unhealthy", if i % 2 == 0 { "Healthy" } else { "unhealthy" }]},
            }),
            2 | 3 => serde_json::json!({
                "created_on": "2023-01-01T00:00:00Z",
                "id": format!("host-{i}"), "hostname": format!("shop-{i}.customer.example"),
                "ssl": {"method": "http", "type": "dv", "certificate_authority": AUTHORITIES[i % 3],
                        "issuer": "LetsEncrypt", "signature": "SHA256WithRSA", "expires_on": if i % 2 == 0 { "2024-01-01T00:00:00Z" } else { "2025-01-01T00:00:00Z" }},
                "custom_metadata": {"note": "é ü \u{2028} }]"},
            }),
            _ => serde_json::json!({
                "id": format!("pack-{i}"), "type": "advanced", "hosts": ["example.com", "*.example.com"],
                "certificate_authority": "lets_encrypt", "status": "active",
            }),
        };
        records.push(record);
    }
    let envelope = serde_json::json!({
        "success": true, "errors": [], "messages": [],
        "result": records,
        "result_info": {"page": 1, "per_page": count, "count": count, "total_count": count + 10, "total_pages": 1},
    });
    if pretty {
        serde_json::to_string_pretty(&envelope).unwrap()
    } else {
        serde_json::to_string(&envelope).unwrap()
    }
}

/// An envelope's records, one a line (`jq -c '.result[]'`).
fn json_lines(envelope: &str) -> String {
    let doc: serde_json::Value = serde_json::from_str(envelope).unwrap();
    let records = doc["result"].as_array().expect("an envelope");
    records.iter().map(|r| r.to_string()).collect::<Vec<_>>().join("\n")
}

#[test]
fn generated_exports_give_the_one_thread_output() {
    // Enough findings for several report batches (256 each) on each renderer.
    let minified = generated(1500, false);
    let pretty = generated(300, true);
    // Pages concatenated: an array of envelopes, each with its own records.
    let pages = format!("[{minified},\n{pretty}]");
    let bare: serde_json::Value = serde_json::from_str(&minified).unwrap();
    let bare = serde_json::to_string_pretty(&bare["result"]).unwrap();
    // One record a line, as `jq -c '.result[]'` writes it, with a page's
    // envelope on a line of its own, blank lines and CRLF line ends.
    let records = json_lines(&minified);
    let jsonl = format!("{records}\n\n{}\n", minified.replace('\n', " "));
    let crlf = records.replace('\n', "\r\n\r\n");
    let dir = temp_dir(&[
        ("minified.json", minified.as_bytes()),
        ("pretty.json", pretty.as_bytes()),
        ("pages.json", pages.as_bytes()),
        ("bare.json", bare.as_bytes()),
        ("records.jsonl", jsonl.as_bytes()),
        ("crlf.jsonl", crlf.as_bytes()),
    ]);
    for name in [
        "minified.json",
        "pretty.json",
        "pages.json",
        "bare.json",
        "records.jsonl",
        "crlf.jsonl",
    ] {
        let path = path_str(&dir.path().join(name));
        let one = run_with_env(&check(&path), &[("EDGEAUDIT_THREADS", "1")]);
        let findings = common::json(&one)["findings"].as_array().map_or(0, Vec::len);
        assert!(findings > 100, "{name}: {findings} findings, {}", one.stderr);
        assert_same_as_one_thread(&check(&path));
        let sarif: Vec<&str> = check(&path).into_iter().map(|a| if a == "json" { "sarif" } else { a }).collect();
        assert_same_as_one_thread(&sarif);
    }
}

/// Each document, written to a file of `extension`, checked as
/// `assert_same_as_one_thread` does.
fn each_gives_the_one_thread_output(documents: &[String], extension: &str) {
    let files: Vec<(String, &[u8])> = documents
        .iter()
        .enumerate()
        .map(|(i, d)| (format!("doc-{i:02}.{extension}"), d.as_bytes()))
        .collect();
    let refs: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (n.as_str(), *b)).collect();
    let dir = temp_dir(&refs);
    for (name, _) in &files {
        let path = path_str(&dir.path().join(name));
        assert_same_as_one_thread(&check(&path));
    }
}

/// Documents the parallel parse must hand back to the one-pass parse, or
/// stop where a one-pass walk stops: the same error, file, line and column.
#[test]
fn broken_and_unusual_documents_give_the_one_thread_errors() {
    let pool = r#"{"id": "p1", "name": "a", "notification_email": "a@example.com"}"#;
    let documents = [
        // Not sound for the scan.
        format!(r#"{{"result": [{pool}, {pool} {pool}]}}"#),
        format!(r#"{{"result": [{pool}, {pool},]}}"#),
        format!(r#"{{"result": [{pool}, {pool}"#),
        format!(r#"{{"result": [{pool}, {pool}]}} trailing"#),
        format!(r#"{{"result": [{pool}, {{"id": "x", "name": "unterminated}}]}}"#),
        format!(r#"{{"result" [{pool}]}}"#),
        format!(r#"[{pool}, {pool}]]"#),
        // Sound for the scan, not for the parser.
        format!(r#"{{"result": [{pool}, {{"id": 42, "notification_email": "b@example.com"}}]}}"#),
        format!(r#"{{"result": [{pool}, {{"id" "x"}}]}}"#),
        format!(r#"{{"result": [{pool}, [1, 2], {pool}]}}"#),
        format!(r#"{{"result": [{pool}, 7]}}"#),
        format!(r#"{{"result": [{pool}], "result": [{pool}]}}"#),
        format!(r#"{{"result": [{pool}, {{"id": "x", "id": "y", "origins": []}}]}}"#),
        format!(r#"{{"result": [{pool}, {{"a": [}}]}}]}}"#),
        format!(r#"{{"result": [{pool}], "result_info": {{"page": "one"}}}}"#),
        format!("{{\"result\": [{pool}, {{\"id\": \"tab\there\", \"origins\": []}}]}}"),
        format!(
            r#"{{"result": [{pool}, {{"id": "deep", "origins": {}{}}}]}}"#,
            "[".repeat(130),
            "]".repeat(130)
        ),
        // Stopped by the walker at a record: the records before it were handed over.
        format!(r#"{{"success": false, "result": [{pool}]}}"#),
        format!(r#"{{"result": [{pool}, {{"id": "zone", "name": "example.com", "type": "full"}}, {pool}]}}"#),
        format!(r#"{{"pools": [{pool}, {{"id": "policy", "alert_type": "load_balancing_health_alert"}}]}}"#),
        // Unusual but sound.
        format!(r#"{{"res\u0075lt": [{pool}, {pool}]}}"#),
        r#"{"result": []}"#.to_string(),
        "[]".to_string(),
        format!(
            r#"{{"pools": [{pool}], "notification_policies": [], "zones": [{{"custom_hostnames": [{{"id": "h", "hostname": "a.example"}}]}}]}}"#
        ),
        format!(r#"[{{"result": [{pool}], "result_info": {{"total_count": 3}}}}, {{"result": [{pool}]}}]"#),
        r#"{"result": [{"id": "unknown", "origin": 1}, {"id": "unknown2"}]}"#.to_string(),
        format!(r#"{{"result": [{pool}, {{"id": "x", "hostname": 5}}]}}"#),
    ];
    each_gives_the_one_thread_output(&documents, "json");
}

/// JSON Lines texts the parallel parse must hand back to the one-pass walk,
/// or stop where it stops: the same error, file, line and column.
#[test]
fn broken_and_unusual_json_lines_give_the_one_thread_errors() {
    let pool = r#"{"id": "p1", "name": "a", "notification_email": "a@example.com"}"#;
    let documents = [
        format!("{pool}\n{pool} {pool}\n"),
        format!("{pool}\n{{\"id\": \"x\", \"name\": \"unterminated}}\n{pool}\n"),
        format!("{pool}\n{{\"id\": 42, \"notification_email\": \"b@example.com\"}}\n"),
        format!("{pool}\n[1, 2]\n{pool}\n"),
        format!("{pool}\n7\n"),
        format!("{pool}\n{{\"id\": \"x\", \"id\": \"y\", \"origins\": []}}\n"),
        // A line of blanks other than ASCII ones: nothing, as the one-pass walk trims it.
        format!("{pool}\n\u{3000}\u{a0}\n{pool}\n"),
        format!("{pool}\n\u{b}\n{pool}\n"),
        // Stopped by the walker at a record: the records before it were handed over.
        format!("{pool}\n{{\"id\": \"zone\", \"name\": \"example.com\", \"type\": \"full\"}}\n{pool}\n"),
        format!("{{\"success\": false, \"result\": [{pool}]}}\n{pool}\n"),
        format!("{pool}\n{{\"id\": \"policy\", \"alert_type\": \"load_balancing_health_alert\"}}\n"),
        // Unusual but sound.
        String::new(),
        "\n\n  \n".to_string(),
        format!("\u{feff}{pool}\n{pool}"),
        format!("{{\"result\": [{pool}], \"result_info\": {{\"total_count\": 3}}}}\n{{\"result\": [{pool}]}}\n"),
        r#"{"id": "unknown", "origin": 1}"#.to_string() + "\n" + r#"{"id": "unknown2"}"#,
    ];
    each_gives_the_one_thread_output(&documents, "jsonl");
}

/// Every finding's line and column, counted by the locating threads as they
/// pass over each file, name the value its pointer names: the text there
/// starts a JSON value, after its key (or after `[` or `,` for an element).
/// Several files and a record loaded twice (EX002 points into the other
/// file, out of the order the findings are counted in), on 1, 2 and 8
/// threads, in minified and pretty exports.
#[test]
fn lines_and_columns_counted_while_locating_point_at_the_pointed_value() {
    let minified = generated(1500, false);
    let pretty = generated(300, true);
    // A record of the minified export again, changed: EX002 at both copies.
    let doc: serde_json::Value = serde_json::from_str(&minified).unwrap();
    let mut copy = doc["result"][3].clone();
    copy["ssl"]["method"] = serde_json::json!("txt");
    let copy = serde_json::to_string_pretty(&serde_json::json!({"result": [doc["result"][2].clone(), copy]})).unwrap();
    let dir = temp_dir(&[
        ("a-minified.json", minified.as_bytes()),
        ("b-pretty.json", pretty.as_bytes()),
        ("c-copy.json", copy.as_bytes()),
    ]);
    findings_point_at_their_values(&dir, &["a-minified.json", "b-pretty.json", "c-copy.json"], 500, true);
}

/// Checks, on 1, 2 and 8 threads, that each finding in the files `names` of
/// `dir` (more than `at_least` of them; a duplicate among them when
/// `duplicate`) points at the start of its pointer's value: the text there
/// starts a JSON value, after its key (or after `[` or `,` for an element).
fn findings_point_at_their_values(dir: &tempfile::TempDir, names: &[&str], at_least: usize, duplicate: bool) {
    let texts: std::collections::BTreeMap<String, Positions> = names
        .iter()
        .map(|name| {
            (
                path_str(&dir.path().join(name)),
                Positions::of(std::fs::read_to_string(dir.path().join(name)).unwrap()),
            )
        })
        .collect();
    let dir_path = path_str(dir.path());
    for threads in ["1", "2", "8"] {
        let run = run_with_env(&check(&dir_path), &[("EDGEAUDIT_THREADS", threads)]);
        let doc = common::json(&run);
        let findings = doc["findings"].as_array().expect("findings");
        assert!(findings.len() > at_least, "{}", run.stderr);
        assert!(!duplicate || findings.iter().any(|f| f["rule"] == "EX002"), "a duplicate is found");
        for f in findings {
            let at = &f["location"];
            let Some(positions) = at["file"].as_str().and_then(|file| texts.get(file)) else {
                continue;
            };
            let (line, column) = (at["line"].as_u64().unwrap() as usize, at["column"].as_u64().unwrap() as usize);
            let text = positions.text.as_str();
            let offset = positions.offset(line, column);
            let value = &text[offset..];
            let before = text[..offset].trim_end();
            let pointer = at["pointer"].as_str().unwrap();
            let last = pointer.rsplit('/').next().unwrap();
            let after_its_key = if last.parse::<usize>().is_ok() {
                before.ends_with('[') || before.ends_with(',')
            } else {
                before.ends_with(&format!("\"{last}\":")) || before.ends_with(&format!("\"{last}\" :"))
            };
            assert!(
                after_its_key && value.starts_with(['{', '[', '"', 't', 'f', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']),
                "{threads} threads: {pointer} at {line}:{column} of {}: {:?}",
                at["file"],
                &value[..value.len().min(40)]
            );
        }
    }
}

/// A text with where each of its lines and characters starts, so that a
/// line and column is found at once (`common::text_at` walks the line: a
/// million-character line walked for each of thousands of findings took
/// minutes in a debug build).
struct Positions {
    text: String,
    /// The byte offset of each character.
    chars: Vec<usize>,
    /// The index in `chars` of each line's first character.
    lines: Vec<usize>,
}

impl Positions {
    fn of(text: String) -> Positions {
        let chars: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        let mut lines = vec![0];
        lines.extend(text.char_indices().enumerate().filter(|(_, (_, c))| *c == '\n').map(|(k, _)| k + 1));
        Positions { text, chars, lines }
    }

    /// The byte offset of 1-based `line` and `column` (columns count characters).
    fn offset(&self, line: usize, column: usize) -> usize {
        let at = self.lines[line - 1] + column - 1;
        self.chars.get(at).copied().unwrap_or(self.text.len())
    }
}

/// Large minified exports (mapped): one ASCII from end to end, whose
/// findings' lines and columns are known from where they lie, and one with a
/// character beyond ASCII halfway, past which they are counted. Findings at
/// a custom hostname's CA or expiry are placed where the parse saw the value,
/// unless it was written with escapes (then it is looked for).
#[test]
fn findings_on_the_plain_line_of_a_large_minified_export_point_at_their_values() {
    let ascii = generated(6000, false).replace("é ü \u{2028} }]", "e u x }]");
    assert!(ascii.is_ascii() && ascii.len() > 1 << 20, "mapped: over 1 MiB");
    let escaped = r#""certificate_authority":"lets\u005fencrypt""#;
    let ascii = ascii.replacen(r#""certificate_authority":"lets_encrypt""#, escaped, 40);
    assert!(ascii.contains(escaped));
    let halfway = ascii[ascii.len() / 2..].find("e u x").unwrap() + ascii.len() / 2;
    let wide = format!("{}é{}", &ascii[..halfway], &ascii[halfway + 1..]);
    let dir = temp_dir(&[("ascii.json", ascii.as_bytes()), ("wide.json", wide.as_bytes())]);
    findings_point_at_their_values(&dir, &["ascii.json", "wide.json"], 2000, false);
}
