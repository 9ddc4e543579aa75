//! Every output format on the demo account: a reviewed snapshot each, and
//! SARIF validated against the 2.1.0 schema.

use crate::common;

use std::collections::BTreeSet;

use common::{json, run};

const AS_OF: &str = "2024-10-01";

/// The demo's findings as of `AS_OF` by severity (errors, warnings, notes),
/// from its JSON report: the figures the other formats must agree with, so
/// a rule that starts firing on the demo moves its snapshots, not these tests.
fn demo_by_severity() -> (usize, usize, usize) {
    let doc = json(&run(&["check", "fixtures/demo", "--format", "json", "--as-of", AS_OF]));
    let count = |level: &str| doc["summary"]["by_severity"][level].as_u64().expect("a count") as usize;
    (count("error"), count("warning"), count("note"))
}

fn demo(format: &str) -> String {
    let r = run(&["check", "fixtures/demo", "--format", format, "--as-of", AS_OF, "--color", "never"]);
    assert_eq!(r.code, 1, "the demo has warnings and errors: {}", r.stderr);
    if format == "sarif" {
        common::assert_valid_sarif(&json(&r));
    }
    r.stdout
}

#[test]
fn human_report_snapshot() {
    insta::assert_snapshot!("demo_human", demo("human"));
}

#[test]
fn json_report_snapshot() {
    let out = demo("json");
    let doc: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["as_of"], AS_OF);
    insta::assert_snapshot!("demo_json", out);
}

#[test]
fn sarif_report_snapshot() {
    insta::assert_snapshot!("demo_sarif", demo("sarif"));
}

#[test]
fn sarif_is_valid_against_the_schema_with_and_without_results() {
    let with_results: serde_json::Value = serde_json::from_str(&demo("sarif")).expect("json");
    assert!(!with_results["runs"][0]["results"].as_array().expect("results").is_empty());
    common::assert_valid_sarif(&with_results);

    let dir = common::temp_dir(&[(
        "pools.json",
        br#"{"result": [{"id": "p1", "name": "quiet", "notification_email": "", "origins": []}]}"#,
    )]);
    let r = run(&["check", &common::path_str(&dir.path().join("pools.json")), "--format", "sarif"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let empty = json(&r);
    assert_eq!(empty["runs"][0]["results"].as_array().map(Vec::len), Some(0));
    common::assert_valid_sarif(&empty);
}

#[test]
fn sarif_carries_what_code_scanning_needs() {
    let doc: serde_json::Value = serde_json::from_str(&demo("sarif")).expect("json");
    let run0 = &doc["runs"][0];
    assert_eq!(run0["tool"]["driver"]["name"], "edgeaudit");
    assert_eq!(
        run0["invocations"][0]["exitCode"], 1,
        "the demo fails at the default --fail-on warning"
    );
    assert_eq!(run0["automationDetails"]["id"], "edgeaudit/");
    let region = &run0["results"][0]["locations"][0]["physicalLocation"]["region"];
    assert!(region["endLine"].as_u64() >= region["startLine"].as_u64());
    assert_eq!(
        run0["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"],
        "%SRCROOT%"
    );
    let rules = run0["tool"]["driver"]["rules"].as_array().expect("rules");
    let explain = run(&["explain", "LB001"]).stdout;
    let lb001 = rules.iter().find(|r| r["id"] == "LB001").expect("LB001 metadata");
    assert_eq!(
        lb001["help"]["text"].as_str(),
        Some(explain.as_str()),
        "SARIF help and `explain` come from one source"
    );
    for result in run0["results"].as_array().expect("results") {
        let index = result["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
        let location = &result["locations"][0];
        assert!(location["physicalLocation"]["region"]["startLine"].as_u64().is_some());
        let fqn = location["logicalLocations"][0]["fullyQualifiedName"].as_str().expect("fqn");
        let (kind, _) = fqn.split_once('/').expect("kind/id");
        assert!(
            [
                "pool",
                "notification_policy",
                "custom_certificate",
                "certificate_pack",
                "total_tls",
                "custom_hostname",
                "universal_ssl",
                "account"
            ]
            .contains(&kind),
            "{fqn}"
        );
        assert!(result["properties"]["pointer"].as_str().is_some());
        // Only order-independent keys are partial fingerprints; the
        // location-based one is a property.
        let keys: Vec<&String> = result["partialFingerprints"].as_object().expect("fingerprints").keys().collect();
        assert_eq!(keys, ["edgeaudit/resource/v1", "primaryLocationLineHash"]);
        assert_eq!(result["properties"]["edgeaudit/location/v1"].as_str().map(str::len), Some(64));
        assert_eq!(
            result["partialFingerprints"]["primaryLocationLineHash"].as_str().map(str::len),
            Some(32)
        );
        assert_eq!(
            result["partialFingerprints"]["primaryLocationLineHash"],
            result["partialFingerprints"]["edgeaudit/resource/v1"]
        );
    }
}

#[test]
fn fingerprints_do_not_change_when_lines_move() {
    let original = std::fs::read_to_string(common::root().join("fixtures/demo/pools.json")).expect("demo");
    let shifted = format!("\n\n\n{original}");
    let renamed = original.replace("web-primary", "web-primary-renamed");
    let results = |text: &str| -> Vec<(String, u64)> {
        let dir = common::temp_dir(&[("exports/pools.json", text.as_bytes())]);
        let doc = json(&common::run_in(dir.path(), &["check", "exports", "--format", "sarif"]));
        common::assert_valid_sarif(&doc);
        doc["runs"][0]["results"]
            .as_array()
            .expect("results")
            .iter()
            .map(|r| {
                let fp = r["properties"]["edgeaudit/location/v1"].as_str().unwrap_or_default().to_string();
                (
                    fp,
                    r["locations"][0]["physicalLocation"]["region"]["startLine"]
                        .as_u64()
                        .unwrap_or_default(),
                )
            })
            .collect()
    };
    let (before, after) = (results(&original), results(&shifted));
    assert!(!before.is_empty());
    assert_eq!(before.len(), after.len());
    for ((fa, la), (fb, lb)) in before.iter().zip(&after) {
        assert_eq!(fa, fb, "same finding, same fingerprint");
        assert_eq!(la + 3, *lb, "the lines did move");
    }
    // A pool's name is not part of its identity: renaming it keeps fingerprints.
    let renamed: Vec<String> = results(&renamed).into_iter().map(|(f, _)| f).collect();
    assert_eq!(renamed, before.iter().map(|(f, _)| f.clone()).collect::<Vec<_>>());
}

#[test]
fn statistics_count_findings_per_rule() {
    let r = run(&["check", "fixtures/demo", "--statistics", "--color", "never", "--as-of", AS_OF]);
    assert!(
        r.stdout.contains("     2  LB003   warning  legacy-email-partly-replaced"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("     1  LB001   error    legacy-email-without-replacement"),
        "{}",
        r.stdout
    );
    // The counts instead of every finding.
    assert!(
        !r.stdout.contains("legacy `notification_email`"),
        "no finding is printed:\n{}",
        r.stdout
    );
    assert!(r.stdout.contains("Found 21 findings"), "{}", r.stdout);
}

#[test]
fn concise_is_one_line_per_finding() {
    let r = run(&["check", "fixtures/demo", "--format", "concise", "--as-of", AS_OF]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    let (errors, warnings, notes) = demo_by_severity();
    assert_eq!(lines.len(), errors + warnings + notes, "{}", r.stdout);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("fixtures/demo/pools.json:") && l.contains(": LB001 Pool ")),
        "{}",
        r.stdout
    );
    assert!(lines.iter().all(|l| l.splitn(4, ':').count() == 4), "{}", r.stdout);
}

#[test]
fn quiet_drops_the_summary() {
    let r = run(&["check", "fixtures/demo", "--as-of", "2024-10-01", "--quiet", "--color", "never"]);
    assert!(!r.stdout.contains("Found 21 findings"));
    assert!(r.stdout.contains("LB001"));
    let r = run(&["check", "fixtures/demo", "--as-of", "2024-10-01", "--color", "never"]);
    assert!(
        r.stdout.contains("Found 21 findings (6 errors, 11 warnings, 4 notes) in 6 files"),
        "{}",
        r.stdout
    );
}

#[test]
fn colour_follows_the_flag() {
    let always = run(&["check", "fixtures/demo", "--as-of", "2024-10-01", "--color", "always"]);
    assert!(always.stdout.contains("\u{1b}["), "ANSI escapes with --color always");
    let never = run(&["check", "fixtures/demo", "--as-of", "2024-10-01", "--color", "never"]);
    assert!(!never.stdout.contains("\u{1b}["));
    // Not a terminal: auto means no colour.
    let auto = run(&["check", "fixtures/demo", "--as-of", "2024-10-01"]);
    assert!(!auto.stdout.contains("\u{1b}["));
}

#[test]
fn policy_bodies_in_the_human_report_can_be_copied_as_json() {
    let out = demo("human");
    let bodies: Vec<&str> = out.lines().filter_map(|l| l.find("{\"name\"").map(|i| &l[i..])).collect();
    // Wrapping breaks lines between words, never inside a body.
    assert_eq!(bodies.len(), 3, "LB001 and two LB003 each carry a body on one line:\n{out}");
    for line in bodies {
        let body = serde_json::Deserializer::from_str(line)
            .into_iter::<serde_json::Value>()
            .next()
            .expect("a value");
        assert!(body.is_ok(), "not JSON: {line}");
    }
}

/// GitLab's Code Quality report: one issue per finding that counts, each
/// with the fields GitLab requires, a fingerprint of its own (GitLab shows
/// one issue per fingerprint) and the severity on GitLab's scale; a broken
/// input is a blocker at its place.
#[test]
fn gitlab_code_quality_snapshot() {
    let r = run(&["check", "fixtures/demo", "--format", "gitlab", "--as-of", AS_OF]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let issues = json(&r);
    let issues = issues.as_array().expect("an array of issues");
    let findings = json(&run(&["check", "fixtures/demo", "--format", "json", "--as-of", AS_OF]));
    assert_eq!(issues.len(), findings["findings"].as_array().map_or(0, Vec::len));
    let fingerprints: BTreeSet<&str> = issues.iter().filter_map(|i| i["fingerprint"].as_str()).collect();
    assert_eq!(fingerprints.len(), issues.len(), "fingerprints are unique");
    for issue in issues {
        for key in ["description", "check_name", "fingerprint", "severity"] {
            assert!(issue[key].as_str().is_some_and(|v| !v.is_empty()), "{key}: {issue}");
        }
        assert!(
            ["info", "minor", "major"].contains(&issue["severity"].as_str().unwrap_or("")),
            "{issue}"
        );
        assert!(
            issue["location"]["path"].as_str().is_some_and(|p| p.starts_with("fixtures/demo/")),
            "{issue}"
        );
        assert!(issue["location"]["lines"]["begin"].as_u64().is_some_and(|l| l >= 1), "{issue}");
    }
    insta::assert_snapshot!("demo_gitlab", r.stdout);
    let dir = common::temp_dir(&[("pools.json", b"{\"result\": [")]);
    let broken = run(&["check", &common::path_str(dir.path()), "--format", "gitlab"]);
    assert_eq!(broken.code, 2, "{}", broken.stderr);
    let issues = json(&broken);
    assert_eq!(issues[0]["severity"], "blocker", "{issues}");
    assert_eq!(issues[0]["check_name"], "edgeaudit/input-error");
    assert!(
        issues[0]["location"]["path"].as_str().is_some_and(|p| p.ends_with("pools.json")),
        "{issues}"
    );
}

#[test]
fn github_annotations_snapshot() {
    let out = run(&["check", "fixtures/demo", "--format", "github", "--as-of", AS_OF]).stdout;
    // 11 warnings: GitHub shows 10 of a level per step, so the 11th is
    // counted in a notice of its own instead of annotated.
    let (annotations, more): (Vec<&str>, Vec<&str>) = out
        .lines()
        .partition(|l| l.starts_with("::error file=") || l.starts_with("::warning file=") || l.starts_with("::notice file="));
    let (errors, warnings, notes) = demo_by_severity();
    assert_eq!(warnings, 11, "the demo has one warning more than GitHub shows");
    assert_eq!(
        annotations.len(),
        errors.min(10) + warnings.min(10) + notes.min(10),
        "one annotation per finding but the 11th warning"
    );
    assert_eq!(
        more,
        [
            "::notice title=edgeaudit: more findings::0 errors, 1 warning and 0 notices more are not annotated: GitHub shows 10 of each level per step. Every finding is in the SARIF upload (code scanning) and in --format json."
        ]
    );
    insta::assert_snapshot!("demo_github", out);
}

#[test]
fn markdown_report_snapshot() {
    let out = run(&["check", "fixtures/demo", "--format", "markdown", "--as-of", AS_OF]).stdout;
    assert!(out.contains("| LB003 | legacy-email-partly-replaced | warning | 2 |"), "{out}");
    insta::assert_snapshot!("demo_markdown", out);
}

/// The demo's HTML page, whole (its behaviour in a browser: tests/it/html_report.rs).
#[test]
fn html_report_snapshot() {
    let out = run(&["check", "fixtures/demo", "--format", "html", "--as-of", AS_OF]).stdout;
    assert!(out.starts_with("<!DOCTYPE html>") && out.ends_with("</html>\n"), "{out}");
    insta::assert_snapshot!("demo_html", out);
}

#[test]
fn junit_report_snapshot() {
    let out = run(&["check", "fixtures/demo", "--format", "junit", "--as-of", AS_OF]).stdout;
    assert!(
        out.contains(r#"<testsuites name="edgeaudit" tests="26" failures="17" skipped="0">"#),
        "{out}"
    );
    assert_eq!(
        out.lines().filter(|l| l.contains("<testcase ") && !l.ends_with("/>")).count(),
        out.matches("</testcase>").count(),
        "every case with a body closes"
    );
    // The 4 notes are below the default --fail-on (warning): said, not failed.
    let (errors, warnings, _) = demo_by_severity();
    assert_eq!(out.matches("<failure ").count(), errors + warnings);
    assert_eq!(out.matches("<system-out>").count(), 4);
    assert!(out.contains(" note: Migration incomplete"), "{out}");
    insta::assert_snapshot!("demo_junit", out);
}

#[test]
fn junit_failures_follow_fail_on() {
    let failures = |fail_on: &str| {
        let out = run(&[
            "check",
            "fixtures/demo",
            "--format",
            "junit",
            "--as-of",
            AS_OF,
            "--fail-on",
            fail_on,
        ])
        .stdout;
        (out.matches("<failure ").count(), out.matches("<system-out>").count())
    };
    let (errors, warnings, notes) = demo_by_severity();
    assert!(errors > 0 && warnings > 0 && notes > 0, "the demo has findings of every level");
    let all = errors + warnings + notes;
    assert_eq!(failures("note"), (all, 0));
    assert_eq!(failures("warning"), (errors + warnings, notes));
    assert_eq!(failures("error"), (errors, warnings + notes));
    assert_eq!(failures("never"), (0, all));
}

/// On broken input every requested report is still written, names every
/// broken file at its place, and says the run failed (exit 2): CI's upload
/// step finds a valid SARIF, JUnit shows the errors, the PR comment says why.
#[test]
fn every_format_is_written_on_input_errors() {
    let dir = common::temp_dir(&[
        ("exports/a.json", b"{\"result\": [\n"),
        ("exports/b.yaml", b"x: [\n"),
        ("exports/pools.json", br#"{"result": []}"#),
    ]);
    let at = |name: &str| common::path_str(&dir.path().join(name));
    let (sarif, junit, markdown, json_out, human) = (at("r.sarif"), at("r.xml"), at("r.md"), at("r.json"), at("r.txt"));
    let html = at("r.html");
    let r = common::run_in(
        dir.path(),
        &[
            "check",
            "exports",
            "--format",
            &format!("sarif={sarif}"),
            "--format",
            &format!("junit={junit}"),
            "--format",
            &format!("markdown={markdown}"),
            "--format",
            &format!("json={json_out}"),
            "--format",
            &format!("human={human}"),
            "--format",
            &format!("html={html}"),
            "--format",
            "github",
        ],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    // Every format of the registry, each alone: written, and naming both broken files.
    for format in common::report_formats() {
        let alone = common::run_in(dir.path(), &["check", "exports", "--format", &format]);
        assert_eq!(alone.code, 2, "{format}: {}", alone.stderr);
        // (The human report says it on standard error, as a terminal's reader expects.)
        let said = format!("{}{}", alone.stdout, alone.stderr);
        for broken in ["exports/a.json", "exports/b.yaml"] {
            assert!(said.contains(broken), "{format} names {broken}:\n{said}");
        }
    }
    assert!(
        r.stderr.contains("exports/a.json:2:1:") && r.stderr.contains("exports/b.yaml:1:4:"),
        "{}",
        r.stderr
    );
    // GitHub annotations on stdout, one per broken file, at its line.
    assert!(
        r.stdout
            .contains("::error file=exports/a.json,line=2,col=1,title=edgeaudit input error::truncated JSON"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("::error file=exports/b.yaml,line=1,col=4,"), "{}", r.stdout);

    let read = |path: &str| std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path} not written: {e}"));
    let doc: serde_json::Value = serde_json::from_str(&read(&sarif)).expect("SARIF is JSON");
    common::assert_valid_sarif(&doc);
    let invocation = &doc["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    assert_eq!(invocation["exitCode"], 2);
    let notes = invocation["toolExecutionNotifications"].as_array().expect("notifications");
    let places: Vec<(String, u64)> = notes
        .iter()
        .map(|n| {
            let loc = &n["locations"][0]["physicalLocation"];
            (
                loc["artifactLocation"]["uri"].as_str().unwrap_or("").to_string(),
                loc["region"]["startLine"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(places, vec![("exports/a.json".to_string(), 2), ("exports/b.yaml".to_string(), 1)]);
    assert!(notes.iter().all(|n| n["level"] == "error"));
    assert_eq!(doc["runs"][0]["results"], serde_json::json!([]));
    assert!(
        doc["runs"][0]["tool"]["driver"]["rules"].as_array().is_some_and(|r| r.len() >= 20),
        "rule metadata kept"
    );

    let junit = read(&junit);
    assert!(
        junit.contains(r#"<testsuites name="edgeaudit" tests="2" failures="0" errors="2">"#),
        "{junit}"
    );
    assert!(junit.contains(r#"name="exports/a.json" file="exports/a.json" line="2""#), "{junit}");
    let markdown = read(&markdown);
    assert!(markdown.contains("the input could not be analysed"), "{markdown}");
    assert!(
        markdown.contains("| `exports/a.json` | 2 | 1 | `truncated JSON") && markdown.contains("| `exports/b.yaml` | 1 | 4 |"),
        "{markdown}"
    );
    let html = read(&html);
    assert!(html.contains("<h1>edgeaudit: the input could not be analysed</h1>"), "{html}");
    assert!(
        html.contains("<td><code>exports/a.json</code></td><td class=\"num\">2</td><td class=\"num\">1</td><td>truncated JSON"),
        "{html}"
    );
    let json_doc: serde_json::Value = serde_json::from_str(&read(&json_out)).expect("JSON");
    assert_eq!(json_doc["success"], false);
    assert_eq!(json_doc["errors"].as_array().map(Vec::len), Some(2));
    assert_eq!(json_doc["findings"], serde_json::json!([]));
    let human = read(&human);
    assert!(
        human.contains("error: exports/a.json:2:1:") && human.contains("No findings: 2 errors stopped the run"),
        "{human}"
    );
}

/// A bad config or command-line value is a failure too: the SARIF is still
/// written, with the error (and its place when it has one).
#[test]
fn the_sarif_is_written_on_a_bad_config_or_value() {
    let dir = common::temp_dir(&[
        ("exports/pools.json", br#"{"result": []}"#),
        (".edgeaudit.yaml", b"fail_on: sometimes\n"),
    ]);
    let sarif = common::path_str(&dir.path().join("r.sarif"));
    let r = common::run_in(dir.path(), &["check", "exports", "--format", &format!("sarif={sarif}")]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&sarif).expect("written")).expect("JSON");
    common::assert_valid_sarif(&doc);
    let note = &doc["runs"][0]["invocations"][0]["toolExecutionNotifications"][0];
    assert_eq!(
        note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], ".edgeaudit.yaml",
        "{note}"
    );

    let r = common::run_in(
        dir.path(),
        &[
            "check",
            "exports",
            "--no-config",
            "--as-of",
            "tomorrow",
            "--format",
            &format!("sarif={sarif}"),
        ],
    );
    assert_eq!(r.code, 2);
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&sarif).expect("written")).expect("JSON");
    common::assert_valid_sarif(&doc);
    let note = &doc["runs"][0]["invocations"][0]["toolExecutionNotifications"][0];
    assert!(
        note["message"]["text"].as_str().is_some_and(|t| t.contains("--as-of `tomorrow`")),
        "{note}"
    );
    assert!(note.get("locations").is_none(), "an error about no file has no location: {note}");
}

/// Above code scanning's 25,000 results per run, the SARIF keeps the most
/// severe (every error first), says how many it left out and how to see
/// them, and stays valid; the JSON report still has every finding.
#[test]
fn sarif_stays_within_the_code_scanning_results_limit() {
    const COVERED: usize = 24_990;
    const UNCOVERED: usize = 30;
    let pool = |i: usize| format!(r#"{{"id": "p{i:031}", "name": "pool-{i:05}", "notification_email": "noc@example.com", "origins": []}}"#);
    let pools: Vec<String> = (0..COVERED + UNCOVERED).map(pool).collect();
    let covered: Vec<String> = (0..COVERED).map(|i| format!(r#""p{i:031}""#)).collect();
    let export = format!(
        r#"{{"pools": [{}], "notification_policies": [{{"id": "n1", "name": "covers most", "alert_type": "load_balancing_health_alert", "mechanisms": {{"email": [{{"id": "noc@example.com"}}]}}, "filters": {{"pool_id": [{}]}}}}]}}"#,
        pools.join(",\n"),
        covered.join(",")
    );
    let dir = common::temp_dir(&[("account.json", export.as_bytes())]);
    let file = common::path_str(&dir.path().join("account.json"));
    let r = run(&["check", &file, "--format", "sarif", "--as-of", AS_OF]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("21 of 25021 findings are not in this SARIF file"), "{}", r.stderr);
    let doc = json(&r);
    common::assert_valid_sarif(&doc);
    let run0 = &doc["runs"][0];
    let results = run0["results"].as_array().expect("results");
    assert_eq!(results.len(), 25_000);
    let errors = results.iter().filter(|r| r["level"] == "error").count();
    assert_eq!(errors, UNCOVERED, "every error is kept");
    assert!(
        results.iter().all(|r| r["level"] != "note"),
        "the note (LB004) is left out before any warning"
    );
    assert_eq!(run0["properties"]["omittedResults"], 21);
    let notes = run0["invocations"][0]["toolExecutionNotifications"]
        .as_array()
        .expect("notifications");
    assert!(
        notes
            .iter()
            .any(|n| n["descriptor"]["id"] == "results-limit" && n["message"]["text"].as_str().is_some_and(|t| t.contains("--format json"))),
        "{notes:?}"
    );
    let all = json(&run(&["check", &file, "--format", "json", "--as-of", AS_OF]));
    assert_eq!(all["findings"].as_array().map(Vec::len), Some(25_021));
}

/// A SARIF that code scanning would refuse for its size (10 MB
/// gzip-compressed) is never written silently: only strings of many
/// kilobytes in every result can make one, and the run says so.
#[test]
fn a_sarif_over_the_compressed_size_limit_is_said() {
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut noise = |n: usize| -> String {
        (0..n)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                char::from(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"[(seed % 62) as usize])
            })
            .collect()
    };
    let pools: Vec<String> = (0..1000)
        .map(|i| {
            format!(
                r#"{{"id": "p{i}", "name": "{}", "notification_email": "noc@example.com", "origins": []}}"#,
                noise(16_000)
            )
        })
        .collect();
    let export = format!(r#"{{"result": [{}]}}"#, pools.join(",\n"));
    let dir = common::temp_dir(&[("pools.json", export.as_bytes())]);
    let file = common::path_str(&dir.path().join("pools.json"));
    let r = run(&["check", &file, "--format", "sarif", "--as-of", AS_OF, "--select", "LB001"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("gzip-compressed, over code scanning's limit of 10000000 bytes"),
        "{}",
        r.stderr
    );

    // A small SARIF says nothing of the kind.
    let r = run(&["check", "fixtures/demo", "--format", "sarif", "--as-of", AS_OF]);
    assert!(!r.stderr.contains("limit"), "{}", r.stderr);
}

/// GitHub shows 10 annotations of each level per step: edgeaudit writes no
/// more than that, skipped files first among the warnings, and one notice
/// that counts what it left out and where to find it.
#[test]
fn github_annotations_are_capped_as_github_shows_them() {
    let pool = |i: usize| format!(r#"{{"id": "p{i:031}", "name": "pool-{i:02}", "notification_email": "noc@example.com", "origins": []}}"#);
    let covered: Vec<String> = (25..40).map(|i| format!(r#""p{i:031}""#)).collect();
    let export = format!(
        r#"{{"pools": [{}], "notification_policies": [{{"id": "n1", "name": "n", "alert_type": "load_balancing_health_alert", "mechanisms": {{"email": [{{"id": "noc@example.com"}}]}}, "filters": {{"pool_id": [{}]}}}}]}}"#,
        (0..40).map(pool).collect::<Vec<_>>().join(",\n"),
        covered.join(",")
    );
    let dir = common::temp_dir(&[
        ("exports/account.json", export.as_bytes()),
        ("exports/package.json", b"{\"name\": \"x\"}"),
    ]);
    let r = run(&[
        "check",
        &common::path_str(&dir.path().join("exports")),
        "--format",
        "github",
        "--as-of",
        AS_OF,
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let count = |prefix: &str| r.stdout.lines().filter(|l| l.starts_with(prefix)).count();
    assert_eq!(count("::error "), 10, "{}", r.stdout);
    assert_eq!(count("::warning "), 10);
    assert!(
        r.stdout
            .lines()
            .find(|l| l.starts_with("::warning "))
            .is_some_and(|l| l.contains("package.json")),
        "skipped files come first"
    );
    assert_eq!(count("::notice "), 2, "LB004 and the summary");
    let summary = r.stdout.lines().last().unwrap_or_default();
    assert!(
        summary.starts_with("::notice title=edgeaudit: more findings::15 errors, 6 warnings and 0 notices more are not annotated"),
        "{summary}"
    );
}
