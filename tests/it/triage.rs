//! Config, waivers and baselines, end to end: what a team that adopts
//! edgeaudit on an account with existing findings relies on.

use crate::common;

use common::{json, run_in, temp_dir};

/// Two pools: `web` is covered by a policy but keeps its legacy e-mail
/// (LB002, warning), `api` has no replacement (LB001, error); the account is
/// mid-migration (LB004, note).
const POOLS: &str = r#"pools:
  - id: aaaa0000000000000000000000000001
    name: web
    notification_email: noc@example.com
    origins: []
  - id: aaaa0000000000000000000000000002
    name: api
    notification_email: api-oncall@example.com
    origins: []
notification_policies:
  - name: web health
    alert_type: load_balancing_health_alert
    mechanisms: {email: [{id: noc@example.com}]}
    filters: {pool_id: [aaaa0000000000000000000000000001]}
"#;

fn rules_of(report: &serde_json::Value, list: &str) -> Vec<String> {
    report[list]
        .as_array()
        .unwrap_or_else(|| panic!("no {list} in {report}"))
        .iter()
        .map(|f| {
            format!(
                "{} {}",
                f["rule"].as_str().unwrap_or(""),
                f["resource"]["name"].as_str().unwrap_or("")
            )
        })
        .collect()
}

/// `edgeaudit check exports --as-of 2024-10-01 EXTRA…` in `dir`.
fn check_exports(dir: &tempfile::TempDir, extra: &[&str]) -> common::Run {
    let mut args = vec!["check", "exports", "--as-of", "2024-10-01"];
    args.extend(extra);
    run_in(dir.path(), &args)
}

fn account(config: Option<&str>) -> tempfile::TempDir {
    let mut files: Vec<(&str, &[u8])> = vec![("exports/lb.yaml", POOLS.as_bytes())];
    if let Some(c) = config {
        files.push((".edgeaudit.yaml", c.as_bytes()));
    }
    temp_dir(&files)
}

#[test]
fn without_config_every_finding_counts() {
    let dir = account(None);
    let r = run_in(dir.path(), &["check", "exports", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let report = json(&r);
    assert_eq!(
        rules_of(&report, "findings"),
        ["LB004 ", "LB002 web", "LB001 api"],
        "the account finding points at the pools list"
    );
    assert_eq!(report["suppressed"], serde_json::json!([]));
}

#[test]
fn config_is_found_upward_and_sets_the_run() {
    let config = "as_of: 2024-10-01\nfail_on: error\nignore: [LB004]\nseverity:\n  LB001: warning\n";
    let dir = account(Some(config));
    let r = run_in(&dir.path().join("exports"), &["check", ".", "--format", "json"]);
    assert_eq!(r.code, 0, "LB001 lowered to warning, and only errors fail: {}", r.stderr);
    let report = json(&r);
    assert_eq!(report["as_of"], "2024-10-01");
    assert_eq!(rules_of(&report, "findings"), ["LB002 web", "LB001 api"], "LB004 ignored");
    assert_eq!(report["findings"][1]["severity"], "warning");

    // The command line wins: --fail-on, --as-of, --select; --ignore adds.
    let r = run_in(
        &dir.path().join("exports"),
        &[
            "check",
            ".",
            "--format",
            "json",
            "--fail-on",
            "warning",
            "--as-of",
            "2024-01-02",
            "--select",
            "LB00",
            "--ignore",
            "LB002",
        ],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    let report = json(&r);
    assert_eq!(report["as_of"], "2024-01-02");
    assert_eq!(rules_of(&report, "findings"), ["LB001 api"]);

    // --no-config forgets it; --config names another.
    let r = run_in(dir.path(), &["check", "exports", "--format", "json", "--no-config"]);
    assert_eq!(rules_of(&json(&r), "findings").len(), 3);
    std::fs::write(dir.path().join("other.yaml"), "select: [LB001]\n").unwrap();
    let r = run_in(dir.path(), &["check", "exports", "--format", "json", "--config", "other.yaml"]);
    assert_eq!(rules_of(&json(&r), "findings"), ["LB001 api"]);
}

#[test]
fn config_packs_are_relative_to_the_config() {
    let pack = r#"rules:
  - id: ORG001
    name: pool-still-e-mailing
    subject: pool
    severity: note
    summary: A pool that still e-mails the old way.
    when:
      - fact: coverage
        in: [none, partial, full]
    message: "Pool {name} still e-mails {legacy_recipients}."
    rationale: Our own policy.
    remediation: Move the e-mails.
"#;
    let dir = temp_dir(&[
        ("exports/lb.yaml", POOLS.as_bytes()),
        ("audit/.edgeaudit.yaml", b"packs: [packs/org.yaml]\nselect: [ORG]\n"),
        ("audit/packs/org.yaml", pack.as_bytes()),
    ]);
    let r = run_in(
        dir.path(),
        &["check", "exports", "--format", "json", "--config", "audit/.edgeaudit.yaml"],
    );
    assert_eq!(rules_of(&json(&r), "findings"), ["ORG001 web", "ORG001 api"], "{}", r.stderr);
}

#[test]
fn an_invalid_config_is_exit_2_with_file_line_and_column() {
    let cases: &[(&str, &str)] = &[
        ("fail_on: sometimes\n", ".edgeaudit.yaml:1:10: fail_on `sometimes`"),
        (
            "select: [LB]\nwaivers:\n  - rule: LB002\n    resource: pool/web\n",
            ".edgeaudit.yaml:3:5: waivers[0]: a waiver needs a `reason`",
        ),
        (
            "waivers:\n  - rule: XX1\n    resource: pool/web\n    reason: r\n",
            ".edgeaudit.yaml:2:5: waiver: rule `XX1` matches no rule id",
        ),
        ("ignore: [LB9]\n", ".edgeaudit.yaml:1:10: ignore: `LB9` matches no rule id"),
        ("packs: [missing.yaml]\n", ".edgeaudit.yaml:1:9: packs: cannot read missing.yaml"),
        ("as_of: 2024-02-30\n", ".edgeaudit.yaml:1:8: as_of `2024-02-30` is not a date"),
        ("fail_on: [\n", ".edgeaudit.yaml:1:10: invalid config"),
    ];
    for (config, expected) in cases {
        let dir = account(Some(config));
        let r = run_in(dir.path(), &["check", "exports"]);
        assert_eq!(r.code, 2, "{config:?}: {}", r.stderr);
        assert!(r.stderr.contains(expected), "{config:?}: expected {expected:?} in {}", r.stderr);
        assert!(r.stdout.is_empty(), "no report on a config error");
    }
    let dir = account(None);
    let r = run_in(dir.path(), &["check", "exports", "--config", "nope.yaml"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("nope.yaml: cannot read the config: No such file"), "{}", r.stderr);
}

const WAIVERS: &str = r#"waivers:
  - rule: LB002
    resource: pool/web
    reason: Policy reviewed in CHG-1234; field cleared in the next window
    expires: 2024-10-31
  - rule: LB00?
    resource: pool/aaaa0000000000000000000000000002
    reason: API team owns this; ticket OPS-77
    expires: 2024-10-15
  - rule: LB001
    resource: pool/no-such-pool
    reason: left over
"#;

#[test]
fn waivers_suppress_until_they_expire_then_say_so() {
    let dir = account(Some(WAIVERS));
    let check = |as_of: &str| {
        run_in(
            dir.path(),
            &["check", "exports", "--format", "json", "--as-of", as_of, "--ignore", "LB004"],
        )
    };

    // Both waivers hold: nothing fails; the one that matches nothing is a note.
    let r = check("2024-10-01");
    assert_eq!(r.code, 0, "{}", r.stdout);
    let report = json(&r);
    assert_eq!(rules_of(&report, "findings"), Vec::<String>::new());
    assert_eq!(rules_of(&report, "suppressed"), ["LB002 web", "LB001 api"]);
    let waiver = &report["suppressed"][0]["suppression"];
    assert_eq!(waiver["kind"], "waiver");
    assert_eq!(waiver["reason"], "Policy reviewed in CHG-1234; field cleared in the next window");
    assert_eq!(waiver["expires"], "2024-10-31");
    assert_eq!(
        waiver["config"],
        serde_json::json!({"file": ".edgeaudit.yaml", "line": 2, "column": 5})
    );
    let notices = report["notices"].as_array().unwrap();
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert_eq!(notices[0]["code"], "waiver-unmatched");
    assert_eq!(
        notices[0]["location"],
        serde_json::json!({"file": ".edgeaudit.yaml", "line": 10, "column": 5})
    );
    assert_eq!(report["summary"]["suppressed"], serde_json::json!({"waived": 2, "baseline": 0}));

    // Its last day still holds.
    assert_eq!(check("2024-10-15").code, 0);

    // The day after, the error is back and the run says why.
    let r = check("2024-10-16");
    assert_eq!(r.code, 1);
    let report = json(&r);
    assert_eq!(rules_of(&report, "findings"), ["LB001 api"]);
    assert_eq!(rules_of(&report, "suppressed"), ["LB002 web"]);
    let expired = common::item(&report, "notices", "code", "waiver-expired");
    assert_eq!(expired["location"]["line"], 6);
    let message = expired["message"].as_str().unwrap();
    assert!(message.contains("expired on 2024-10-15"), "{message}");
    assert!(message.contains("1 finding it matches is reported again"), "{message}");
    assert!(message.contains("OPS-77"), "{message}");

    // The human report shows the notices with their places, and the count.
    let r = run_in(
        dir.path(),
        &["check", "exports", "--as-of", "2024-10-16", "--ignore", "LB004", "--color", "never"],
    );
    assert!(
        r.stdout.contains(
            ".edgeaudit.yaml:6:5: note[waiver-expired]: waiver for LB00? on pool/aaaa0000000000000000000000000002 expired on 2024-10-15"
        ),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains(".edgeaudit.yaml:10:5: note[waiver-unmatched]"), "{}", r.stdout);
    assert!(r.stdout.contains("; 1 finding waived."), "{}", r.stdout);
    assert!(
        !r.stdout.contains("legacy-email-replaced-not-cleared"),
        "the waived finding is not shown:\n{}",
        r.stdout
    );
    let quiet = run_in(
        dir.path(),
        &[
            "check",
            "exports",
            "--as-of",
            "2024-10-16",
            "--ignore",
            "LB004",
            "--color",
            "never",
            "-q",
        ],
    );
    assert_eq!(quiet.code, 1);
    assert!(
        !quiet.stdout.contains("note[waiver"),
        "--quiet prints findings only:\n{}",
        quiet.stdout
    );
    assert!(quiet.stdout.contains("legacy-email-without-replacement"), "{}", quiet.stdout);
}

#[test]
fn sarif_keeps_suppressed_results_and_notifications() {
    let dir = account(Some(WAIVERS));
    let r = run_in(dir.path(), &["check", "exports", "--format", "sarif", "--as-of", "2024-10-16"]);
    assert_eq!(r.code, 1);
    let sarif = json(&r);
    common::assert_valid_sarif(&sarif);
    let run = &sarif["runs"][0];
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 3, "suppressed results are kept");
    let web = results.iter().find(|r| r["ruleId"] == "LB002").unwrap();
    let suppression = &web["suppressions"][0];
    assert_eq!(suppression["kind"], "external");
    assert_eq!(suppression["status"], "accepted");
    assert!(suppression["justification"].as_str().unwrap().contains("CHG-1234"));
    assert_eq!(
        suppression["location"]["physicalLocation"]["artifactLocation"]["uri"],
        ".edgeaudit.yaml"
    );
    assert_eq!(suppression["location"]["physicalLocation"]["region"]["startLine"], 2);
    let api = results.iter().find(|r| r["ruleId"] == "LB001").unwrap();
    assert!(api.get("suppressions").is_none(), "an expired waiver suppresses nothing");
    assert!(web.get("baselineState").is_none(), "no baseline, no baseline state");
    assert_eq!(run["invocations"][0]["exitCode"], 1);
    let notes = run["invocations"][0]["toolConfigurationNotifications"].as_array().unwrap();
    let ids: Vec<&str> = notes.iter().map(|n| n["descriptor"]["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["waiver-expired", "waiver-unmatched"]);
    assert_eq!(notes[0]["locations"][0]["physicalLocation"]["region"]["startLine"], 6);
}

#[test]
fn every_format_renders_the_triaged_run() {
    let dir = account(Some(WAIVERS));
    std::fs::write(
        dir.path().join("other.yaml"),
        POOLS.replace("web", "web2").replace("aaaa00", "bbbb00"),
    )
    .unwrap();
    let r = check_exports(&dir, &["--write-baseline", ".baseline.json", "-q"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let base = [
        "check",
        "exports",
        "other.yaml",
        "--as-of",
        "2024-10-16",
        "--baseline",
        ".baseline.json",
        "--color",
        "never",
    ];
    for format in common::report_formats() {
        let format = format.as_str();
        let mut args = base.to_vec();
        args.extend(["--format", format]);
        let r = run_in(dir.path(), &args);
        assert_eq!(r.code, 1, "{format}: {}", r.stderr);
        if format == "sarif" {
            let sarif = json(&r);
            common::assert_valid_sarif(&sarif);
            let states: Vec<&str> = sarif["runs"][0]["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["baselineState"].as_str().unwrap())
                .collect();
            // Only the account's LB004 was recorded; the waived finding and the one whose
            // waiver has expired were not (a waiver covered them when the baseline was written).
            assert_eq!(states, ["unchanged", "new", "new", "new", "new"]);
        }
        insta::assert_snapshot!(format!("triaged_{format}"), r.stdout);
    }
}

#[test]
fn baseline_round_trip() {
    let dir = account(None);
    let check = |extra: &[&str]| {
        let mut args = vec!["check", "exports", "--format", "json", "--as-of", "2024-10-01"];
        args.extend(extra);
        run_in(dir.path(), &args)
    };
    // Accept today's state.
    let r = check(&["--write-baseline", ".edgeaudit-baseline.json"]);
    assert_eq!(r.code, 0, "writing a baseline accepts what it records: {}", r.stderr);
    assert!(r.stderr.contains("wrote .edgeaudit-baseline.json with 3 findings"), "{}", r.stderr);
    let text = std::fs::read_to_string(dir.path().join(".edgeaudit-baseline.json")).unwrap();
    let baseline: serde_json::Value = serde_json::from_str(&text).unwrap();
    let entries = baseline["findings"].as_array().unwrap();
    assert_eq!(entries.len(), 3);
    assert!(
        !text.contains("\"line\"") && !text.contains("exports/"),
        "no lines or files in a baseline:\n{text}"
    );
    assert_eq!(
        text.lines().filter(|l| l.contains("\"fingerprint\"")).count(),
        3,
        "one entry per line"
    );

    // Known findings are kept as suppressed and do not fail.
    let r = check(&["--baseline", ".edgeaudit-baseline.json"]);
    assert_eq!(r.code, 0);
    let report = json(&r);
    assert_eq!(rules_of(&report, "findings"), Vec::<String>::new());
    assert_eq!(report["suppressed"].as_array().unwrap().len(), 3);
    assert_eq!(
        report["suppressed"][0]["suppression"],
        serde_json::json!({"kind": "baseline", "file": ".edgeaudit-baseline.json"})
    );

    // Re-pulled exports: records reordered, file renamed, lines moved — still known.
    std::fs::remove_file(dir.path().join("exports/lb.yaml")).unwrap();
    let reordered = POOLS.replace(
        "  - id: aaaa0000000000000000000000000001\n    name: web\n    notification_email: noc@example.com\n    origins: []\n",
        "",
    );
    let reordered = reordered.replace(
        "    origins: []\nnotification_policies:",
        "    origins: []\n  - id: aaaa0000000000000000000000000001\n    name: web\n    notification_email: noc@example.com\n    origins: []\nnotification_policies:",
    );
    assert_ne!(reordered, POOLS);
    std::fs::write(
        dir.path().join("exports/load-balancing-2024-10.yaml"),
        format!("# re-pulled\n\n{reordered}"),
    )
    .unwrap();
    let r = check(&["--baseline", ".edgeaudit-baseline.json"]);
    assert_eq!(r.code, 0, "{}", r.stdout);

    // A new problem fails; the known ones stay accepted.
    std::fs::write(
        dir.path().join("exports/more.yaml"),
        "pools:\n  - {id: aaaa0000000000000000000000000009, name: new-pool, notification_email: x@example.com, origins: []}\n",
    )
    .unwrap();
    let r = check(&["--baseline", ".edgeaudit-baseline.json"]);
    assert_eq!(r.code, 1);
    let report = json(&r);
    assert_eq!(rules_of(&report, "findings"), ["LB001 new-pool"]);

    // A fixed problem leaves a stale entry, reported where it is written.
    std::fs::remove_file(dir.path().join("exports/more.yaml")).unwrap();
    let fixed = reordered.replace("    notification_email: api-oncall@example.com\n", "");
    std::fs::write(dir.path().join("exports/load-balancing-2024-10.yaml"), fixed).unwrap();
    let r = check(&["--baseline", ".edgeaudit-baseline.json"]);
    assert_eq!(r.code, 0);
    let report = json(&r);
    let stale: Vec<&serde_json::Value> = report["notices"].as_array().unwrap().iter().collect();
    assert_eq!(stale.len(), 1, "LB001 on api; LB004 (the account) still fires: {stale:?}");
    assert!(stale.iter().all(|n| n["code"] == "baseline-stale"));
    let lb001_line = text.lines().position(|l| l.contains("\"rule\":\"LB001\"")).unwrap() + 1;
    assert!(
        stale.iter().any(|n| n["location"]["line"] == lb001_line
            && n["message"]
                .as_str()
                .unwrap()
                .contains("LB001 on pool/aaaa0000000000000000000000000002 (api)")),
        "{stale:?}"
    );
    // Rewriting drops the stale entries.
    let r = check(&[
        "--baseline",
        ".edgeaudit-baseline.json",
        "--write-baseline",
        ".edgeaudit-baseline.json",
    ]);
    assert_eq!(r.code, 0);
    let text = std::fs::read_to_string(dir.path().join(".edgeaudit-baseline.json")).unwrap();
    assert_eq!(text.matches("\"fingerprint\"").count(), 2, "{text}");
    assert_eq!(
        json(&check(&["--baseline", ".edgeaudit-baseline.json"]))["notices"],
        serde_json::json!([])
    );
}

#[test]
fn waivers_win_over_the_baseline_and_are_not_recorded_in_it() {
    let config = "waivers:\n  - rule: LB002\n    resource: pool/web\n    reason: accepted\n";
    let dir = account(Some(config));
    let r = run_in(
        dir.path(),
        &["check", "exports", "--as-of", "2024-10-01", "--write-baseline", "b.json", "-q"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let text = std::fs::read_to_string(dir.path().join("b.json")).unwrap();
    assert!(!text.contains("LB002"), "the waiver covers it:\n{text}");
    let r = check_exports(&dir, &["--baseline", "b.json", "--format", "json"]);
    let report = json(&r);
    let kinds: Vec<&str> = report["suppressed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["suppression"]["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["baseline", "waiver", "baseline"], "LB004, LB002 web, LB001 api");
}

#[test]
fn a_bad_baseline_is_exit_2_with_its_place() {
    let dir = account(None);
    let cases: &[(&str, &str)] = &[
        (
            "{\"version\": 1, \"tool\": \"edgeaudit\", \"findings\": [\n  {\"rule\": \"LB001\"}\n]}\n",
            "b.json:2:",
        ),
        ("{\"version\": 1,", "b.json:1:14: invalid baseline: EOF"),
        (
            "[]",
            "b.json:1:2: invalid baseline: expected an object with `version`, `tool` and `findings`",
        ),
        (
            "{\"version\": 1, \"tool\": \"other\", \"findings\": []}",
            "expected an edgeaudit baseline",
        ),
    ];
    for (text, expected) in cases {
        std::fs::write(dir.path().join("b.json"), text).unwrap();
        let r = run_in(dir.path(), &["check", "exports", "--baseline", "b.json"]);
        assert_eq!(r.code, 2, "{text}: {}", r.stderr);
        assert!(r.stderr.contains(expected), "{text}: expected {expected:?} in {}", r.stderr);
    }
    for flag in ["--baseline", "--write-baseline"] {
        let r = run_in(dir.path(), &["check", "exports", flag, "-"]);
        assert_eq!(r.code, 2, "{flag} -");
        assert!(r.stderr.contains("needs a file name"), "{}", r.stderr);
    }
    assert!(!dir.path().join("-").exists());
    let r = run_in(dir.path(), &["check", "exports", "--baseline", "missing.json"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("missing.json: cannot read baseline"), "{}", r.stderr);
    assert!(r.stderr.contains("--write-baseline"), "says how to make one: {}", r.stderr);
}

#[test]
fn init_writes_a_starter_config_that_check_uses() {
    let dir = account(None);
    let r = run_in(dir.path(), &["init"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let text = std::fs::read_to_string(dir.path().join(".edgeaudit.yaml")).unwrap();
    for key in [
        "as_of", "fail_on", "select", "ignore", "severity", "packs", "waivers", "reason", "expires",
    ] {
        assert!(text.contains(key), "the starter explains {key}");
    }
    // As written, it changes nothing: the same findings, the same exit.
    let with = run_in(dir.path(), &["check", "exports", "--format", "json", "--as-of", "2024-10-01"]);
    let without = run_in(
        dir.path(),
        &["check", "exports", "--format", "json", "--as-of", "2024-10-01", "--no-config"],
    );
    // Only the report's `config` differs: it names the file.
    let (mut with_doc, mut without_doc) = (json(&with), json(&without));
    assert_eq!(with_doc["config"], ".edgeaudit.yaml");
    assert_eq!(without_doc["config"], serde_json::Value::Null);
    with_doc["config"] = serde_json::Value::Null;
    without_doc["config"] = serde_json::Value::Null;
    assert_eq!((with.code, with_doc), (without.code, without_doc), "{}", with.stderr);
    // Its commented waiver example is valid once uncommented.
    let (head, examples) = text.split_once("waivers: []\n").expect("a waivers key");
    let examples: Vec<String> = examples
        .lines()
        .map(|l| l.strip_prefix("#  ").map_or(l.to_string(), |rest| format!("  {rest}")))
        .collect();
    let uncommented = format!("{head}waivers:\n{}\n", examples.join("\n"));
    std::fs::write(dir.path().join(".edgeaudit.yaml"), uncommented).unwrap();
    let r = check_exports(&dir, &["--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(json(&r)["notices"].as_array().unwrap().len(), 2, "both examples match nothing here");

    // Never over an existing file, unless forced.
    let r = run_in(dir.path(), &["init"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("already exists"), "{}", r.stderr);
    let r = run_in(dir.path(), &["init", "--force"]);
    assert_eq!(r.code, 0);
    assert_eq!(std::fs::read_to_string(dir.path().join(".edgeaudit.yaml")).unwrap(), text);
}

#[test]
fn a_hand_edited_baseline_with_an_entry_twice_is_not_stale() {
    let dir = account(None);
    let r = run_in(
        dir.path(),
        &["check", "exports", "--as-of", "2024-10-01", "--write-baseline", "b.json", "-q"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let text = std::fs::read_to_string(dir.path().join("b.json")).unwrap();
    let first = text.lines().find(|l| l.contains("\"fingerprint\"")).unwrap();
    let doubled = text.replacen(first, &format!("{first}\n{}", first.trim_end_matches(',').to_string() + ","), 1);
    assert_eq!(doubled.matches("\"fingerprint\"").count(), 4, "{doubled}");
    std::fs::write(dir.path().join("b.json"), doubled).unwrap();
    let r = check_exports(&dir, &["--baseline", "b.json", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let report = json(&r);
    assert_eq!(report["notices"], serde_json::json!([]), "{report}");
    assert_eq!(report["suppressed"].as_array().unwrap().len(), 3);
}
