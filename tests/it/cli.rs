//! The command-line contract: exit codes, options, inputs.

use crate::common;

use common::{json, path_str, run, run_with_stdin, temp_dir};

const CLEAN_POOL: &[u8] = br#"{"result": [{"id": "p1", "name": "quiet", "notification_email": "", "origins": []}]}"#;

/// `edgeaudit check fixtures/demo --as-of 2024-10-01 EXTRA…`.
fn demo_run(extra: &[&str]) -> common::Run {
    let mut args = vec!["check", "fixtures/demo", "--as-of", "2024-10-01"];
    args.extend(extra);
    run(&args)
}

#[test]
fn exit_codes_follow_fail_on() {
    // The demo has errors (LB001, LB005), warnings and a note (LB004).
    assert_eq!(
        run(&["check", "fixtures/demo", "--as-of", "2024-10-01"]).code,
        1,
        "default --fail-on warning"
    );
    assert_eq!(demo_run(&["--fail-on", "error"]).code, 1);
    assert_eq!(demo_run(&["--fail-on", "never"]).code, 0);
    assert_eq!(demo_run(&["--select", "LB004"]).code, 0, "a note does not fail at warning");
    assert_eq!(demo_run(&["--select", "LB004", "--fail-on", "note"]).code, 1);
    assert_eq!(
        demo_run(&["--select", "LB002,LB003", "--fail-on", "error"]).code,
        0,
        "warnings only"
    );
}

#[test]
fn a_clean_export_exits_zero_and_says_so() {
    let dir = temp_dir(&[("pools.json", CLEAN_POOL)]);
    let r = run(&["check", &path_str(dir.path()), "--color", "never"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("No findings in 1 file (1 record: 1 pool)."), "{}", r.stdout);
}

#[test]
fn usage_errors_exit_two() {
    for args in [
        &["check", "fixtures/demo", "--as-of", "2024-10-01", "--format", "xml"][..],
        &["check", "fixtures/demo", "--as-of", "2024-13-01"],
        &["check", "fixtures/demo", "--as-of", "2024-10-01", "--select", "XX9"],
        &["check", "fixtures/demo", "--as-of", "2024-10-01", "--ignore", "LB9"],
        &["check", "fixtures/demo", "--as-of", "2024-10-01", "--fail-on", "sometimes"],
        &["check", "fixtures/demo", "--as-of", "2024-10-01", "--kind", "zone"],
        &[
            "check",
            "fixtures/demo",
            "--as-of",
            "2024-10-01",
            "--format",
            "json",
            "--format",
            "sarif",
        ],
        &["check", "does/not/exist"],
        &["explain", "LB999"],
        &["frobnicate"],
    ] {
        let r = run(args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(!r.stderr.is_empty(), "{args:?} says why");
        assert!(!r.stderr.contains("panicked"), "{args:?}");
    }
}

/// The rules that fire on the demo with these options, sorted, once each.
fn demo_rules(args: &[&str]) -> Vec<String> {
    let mut all = vec![
        "check",
        "fixtures/demo",
        "--as-of",
        "2024-10-01",
        "--format",
        "json",
        "--fail-on",
        "never",
    ];
    all.extend_from_slice(args);
    let r = run(&all);
    assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    let mut ids: Vec<String> = json(&r)["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["rule"].as_str().unwrap_or_default().to_string())
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

#[test]
fn select_and_ignore_take_ids_and_prefixes() {
    assert_eq!(demo_rules(&["--select", "LB00"]).len(), 7);
    assert_eq!(demo_rules(&["--select", "LB001", "--select", "LB005"]), vec!["LB001", "LB005"]);
    assert_eq!(
        demo_rules(&["--ignore", "LB00"]),
        common::builtin_rule_ids("CA"),
        "every CA rule fires on the demo, and ignoring LB00 leaves them all"
    );
    assert_eq!(demo_rules(&["--ignore", "LB,CA"]), Vec::<String>::new());
    assert_eq!(
        demo_rules(&["--select", "ALL", "--ignore", "LB001,LB002,LB003,CA"]),
        vec!["LB004", "LB005", "LB006", "LB007"]
    );
}

#[test]
fn several_formats_in_one_run() {
    let dir = temp_dir(&[]);
    let sarif = path_str(&dir.path().join("out.sarif"));
    let report = path_str(&dir.path().join("report.json"));
    let r = run(&[
        "check",
        "fixtures/demo",
        "--as-of",
        "2024-10-01",
        "--format",
        "human",
        "--format",
        &format!("sarif={sarif}"),
        "--output",
        &report,
        "--color",
        "never",
    ]);
    assert_eq!(r.code, 1);
    assert!(r.stdout.is_empty(), "human went to --output");
    assert!(
        std::fs::read_to_string(&report)
            .expect("report written")
            .contains("Found 21 findings")
    );
    let clash = run(&[
        "check",
        "fixtures/demo",
        "--format",
        "human",
        "--format",
        "json",
        "--output",
        &report,
    ]);
    assert_eq!(clash.code, 2, "two formats into one file");
    let sarif_doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&sarif).expect("sarif written")).expect("sarif json");
    assert_eq!(sarif_doc["version"], "2.1.0");
    common::assert_valid_sarif(&sarif_doc);
    let only_files = run(&[
        "check",
        "fixtures/demo",
        "--as-of",
        "2024-10-01",
        "--format",
        &format!("sarif={sarif}"),
        "--format",
        "json",
    ]);
    assert_eq!(json(&only_files)["version"], 1, "json to stdout, sarif to its file");
}

#[test]
fn as_of_is_reported() {
    let doc = json(&run(&["check", "fixtures/demo", "--format", "json", "--as-of", "2024-06-15"]));
    assert_eq!(doc["as_of"], "2024-06-15");
}

#[test]
fn stdin_is_read_with_dash() {
    let r = run_with_stdin(&["check", "-", "--format", "json", "--fail-on", "never"], Some(CLEAN_POOL));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(json(&r)["summary"]["records"]["pool"], 1);

    let yaml = b"result:\n  - id: p1\n    name: loud\n    notification_email: a@example.com\n    origins: []\n";
    let r = run_with_stdin(
        &["check", "-", "--input-format", "yaml", "--format", "json", "--select", "LB001"],
        Some(yaml),
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    let doc = json(&r);
    assert_eq!(doc["findings"][0]["rule"], "LB001");
    assert_eq!(doc["findings"][0]["location"]["file"], "-");
    assert_eq!(doc["findings"][0]["location"]["line"], 4);
}

#[test]
fn kind_reads_a_single_object() {
    let pool = br#"{"id": "p1", "name": "solo", "notification_email": "a@example.com"}"#;
    let dir = temp_dir(&[("pool.json", pool)]);
    let file = path_str(&dir.path().join("pool.json"));
    let without = run(&["check", &file]);
    assert_eq!(without.code, 2, "a bare object is not an export without --kind");
    assert!(without.stderr.contains("--kind"), "{}", without.stderr);
    let with = json(&run(&["check", &file, "--kind", "pool", "--format", "json", "--select", "LB001"]));
    assert_eq!(with["findings"][0]["rule"], "LB001");
    assert_eq!(with["findings"][0]["location"]["pointer"], "/notification_email");
}

#[test]
fn directories_skip_files_that_are_not_exports() {
    let dir = temp_dir(&[
        ("exports/package.json", br#"{"name": "x", "version": "1.0.0"}"#),
        ("exports/pools.json", CLEAN_POOL),
        ("exports/.hidden/bad.json", b"{"),
    ]);
    let r = run(&["check", &path_str(&dir.path().join("exports"))]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("package.json: skipped, not analysed: it has no export structure"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("1 file skipped, not analysed"), "{}", r.stdout);

    // --quiet drops the summary, never the files left out.
    let quiet = run(&["check", &path_str(&dir.path().join("exports")), "--quiet"]);
    assert!(quiet.stdout.contains("package.json: skipped, not analysed"), "{}", quiet.stdout);
    // With the report in a file, standard error says it.
    let out = dir.path().join("report.json");
    let to_file = run(&[
        "check",
        &path_str(&dir.path().join("exports")),
        "--format",
        &format!("json={}", path_str(&out)),
        "--quiet",
    ]);
    assert_eq!(to_file.code, 0);
    assert!(to_file.stderr.contains("package.json: skipped, not analysed"), "{}", to_file.stderr);

    let only = temp_dir(&[("package.json", br#"{"name": "x"}"#)]);
    let r = run(&["check", &path_str(only.path())]);
    assert_eq!(r.code, 2, "nothing to check is not a silent success");

    let empty = temp_dir(&[("README.md", b"hi")]);
    assert_eq!(run(&["check", &path_str(empty.path())]).code, 2);

    // A file named explicitly must be an export.
    let r = run(&["check", &path_str(&dir.path().join("exports/package.json"))]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("package.json:1:1"), "{}", r.stderr);
}

#[test]
fn directories_are_walked_in_sorted_order() {
    let loud =
        |id: &str| format!(r#"{{"result": [{{"id": "{id}", "name": "{id}", "notification_email": "a@example.com", "origins": []}}]}}"#);
    let dir = temp_dir(&[
        ("b/z.json", loud("p3").as_bytes()),
        ("a.yaml", b"result: []\n"),
        ("b/a.json", loud("p2").as_bytes()),
    ]);
    let doc = json(&common::run_in(
        dir.path(),
        &["check", ".", "--select", "LB001", "--format", "json"],
    ));
    let files: Vec<&str> = doc["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["location"]["file"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(files, vec!["b/a.json", "b/z.json"]);
}

#[test]
fn rules_and_explain_render_the_metadata() {
    let text = run(&["rules"]);
    assert_eq!(text.code, 0);
    let doc = json(&run(&["rules", "--format", "json"]));
    let ids: Vec<String> = doc
        .as_array()
        .expect("rules")
        .iter()
        .map(|r| r["id"].as_str().unwrap_or_default().to_string())
        .collect();
    for id in [
        "LB001", "LB002", "LB003", "LB004", "LB005", "LB006", "LB007", "CA006", "CA007", "CA008", "CA009", "CA010",
    ] {
        assert!(ids.iter().any(|i| i == id), "{id} in `rules --format json`");
    }
    for id in &ids {
        assert!(text.stdout.contains(id.as_str()), "{id} listed");
        let explain = run(&["explain", id]);
        assert_eq!(explain.code, 0);
        assert!(
            explain.stdout.contains("Why it matters:") && explain.stdout.contains("What to do:"),
            "{id}"
        );
    }
    let lb001 = run(&["explain", "lb001"]).stdout;
    assert!(
        lb001.contains("absent or empty, which is taken to mean all pools"),
        "the all-pools assumption is documented"
    );
    let md = run(&["rules", "--format", "markdown"]).stdout;
    assert!(md.contains("## LB004 `migration-incomplete`"));
}

#[test]
fn json_and_yaml_exports_give_the_same_findings() {
    let yaml = std::fs::read_to_string(common::root().join("fixtures/demo/notification-policies.yaml")).expect("demo");
    let as_json = {
        let value: serde_json::Value = serde_saphyr::from_str(&yaml).expect("demo YAML parses");
        serde_json::to_string_pretty(&value).expect("json")
    };
    let pools = std::fs::read(common::root().join("fixtures/demo/pools.json")).expect("pools");
    let dir_yaml = temp_dir(&[("pools.json", &pools), ("policies.yaml", yaml.as_bytes())]);
    let dir_json = temp_dir(&[("pools.json", &pools), ("policies.json", as_json.as_bytes())]);
    let findings = |dir: &tempfile::TempDir| -> Vec<(String, String, String)> {
        let doc = json(&common::run_in(dir.path(), &["check", ".", "--format", "json"]));
        let mut v: Vec<_> = doc["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|f| {
                (
                    f["rule"].to_string(),
                    f["resource"]["id"].to_string(),
                    f["location"]["pointer"].to_string(),
                )
            })
            .collect();
        v.sort();
        v
    };
    let (y, j) = (findings(&dir_yaml), findings(&dir_json));
    assert_eq!(y.len(), 8);
    assert_eq!(y, j);
}

#[test]
fn a_custom_rule_pack_uses_the_same_vocabulary() {
    let pack = br#"rules:
  - id: ORG001
    name: pool-without-name
    subject: pool
    severity: warning
    summary: Pools must be named.
    when:
      - fact: name
        empty: true
    at: name
    message: "Pool {id} has no name."
    rationale: Names are how on-call finds a pool.
    remediation: Name it.
"#;
    let dir = temp_dir(&[
        ("org.yaml", pack),
        (
            "pools.json",
            br#"{"result": [{"id": "p1", "name": "", "origins": []}, {"id": "p2", "name": "named", "origins": []}]}"#,
        ),
    ]);
    let r = run(&[
        "check",
        &path_str(&dir.path().join("pools.json")),
        "--rules",
        &path_str(&dir.path().join("org.yaml")),
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let doc = json(&r);
    assert_eq!(doc["findings"].as_array().map(Vec::len), Some(1));
    assert_eq!(doc["findings"][0]["message"], "Pool p1 has no name.");
    assert_eq!(doc["findings"][0]["location"]["pointer"], "/result/0/name");
    let explain = run(&["explain", "ORG001", "--rules", &path_str(&dir.path().join("org.yaml"))]);
    assert!(explain.stdout.contains("Names are how on-call finds a pool."));
}

#[test]
fn a_broken_rule_pack_is_an_error_with_its_location() {
    let cases: &[(&[u8], &str)] = &[
        (b"rules:\n  - id: ORG001\n    name: x\n    subject: pool\n    severity: warning\n    summary: s\n    when:\n      - fact: nmae\n        empty: true\n    message: m\n    rationale: r\n    remediation: r\n", ":8:"),
        (b"rules:\n  - id: ORG001\n    name: x\n    subject: pool\n    severity: fatal\n", ":5:"),
        (b"rules:\n  - id: ORG001\n    name: x\n    subject: pool\n    severity: note\n    summary: s\n    when:\n      - fact: coverage\n        equals: nne\n    message: m\n    rationale: r\n    remediation: r\n", ":8:"),
        (b"rules:\n  - id: ORG001\n    name: x\n    subject: pool\n    severity: note\n    summary: s\n    when: []\n    message: \"{nope}\"\n    rationale: r\n    remediation: r\n", ":8:"),
        (b"rules:\n  - id: LB001\n    name: x\n    subject: pool\n    severity: note\n    summary: s\n    when: []\n    message: m\n    rationale: r\n    remediation: r\n", ":2:"),
        (b"rules: [\n", ":"),
    ];
    for (pack, position) in cases {
        let dir = temp_dir(&[("pack.yaml", pack)]);
        let path = path_str(&dir.path().join("pack.yaml"));
        let r = run(&["check", "fixtures/demo", "--as-of", "2024-10-01", "--rules", &path]);
        assert_eq!(r.code, 2, "{}", String::from_utf8_lossy(pack));
        assert!(r.stderr.contains(&format!("pack.yaml{position}")), "{}", r.stderr);
        assert!(!r.stderr.contains("panicked"));
    }
}

/// Rule ids are not case-sensitive, and a near miss says what was meant.
#[test]
fn rule_selectors_ignore_case_and_suggest_the_id_meant() {
    assert_eq!(demo_rules(&["--select", "lb001"]), ["LB001"]);
    assert!(demo_rules(&["--ignore", "ca,ex"]).iter().all(|id| id.starts_with("LB")));
    let r = run(&["check", "fixtures/demo", "--select", "LB0001"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("did you mean `LB001`?"), "{}", r.stderr);
    let r = run(&["explain", "ca01"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("did you mean `CA001`?"), "{}", r.stderr);
    assert_eq!(run(&["explain", "ca001"]).code, 0);
}

/// `node_modules/`, `vendor/` and `dist/` are never walked (no list of their
/// hundreds of files as skipped), unless a `!` pattern walks one again.
#[test]
fn tool_directories_are_not_walked_unless_asked() {
    let pools = br#"{"result": [{"id": "p1", "name": "web", "origins": [], "notification_email": ""}]}"#;
    let dir = temp_dir(&[
        ("exports/pools.json", pools),
        ("exports/node_modules/left-pad/package.json", b"{\"name\": \"left-pad\"}"),
        ("exports/web/dist/app.json", b"{\"bundle\": true}"),
        (
            "exports/vendor/pools.json",
            br#"{"result": [{"id": "p2", "name": "vendored", "origins": [], "notification_email": "a@x.io"}]}"#,
        ),
    ]);
    let exports = path_str(&dir.path().join("exports"));
    let r = run(&["check", &exports, "--format", "json", "--no-config"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let doc = json(&r);
    assert_eq!(doc["summary"]["records"]["pool"], 1, "vendor/ is not read");
    assert_eq!(
        doc["summary"]["skipped_files"], 0,
        "nothing listed from node_modules/ or dist/: {doc}"
    );
    let r = run(&["check", &exports, "--format", "json", "--no-config", "--exclude", "!vendor/"]);
    assert_eq!(json(&r)["summary"]["records"]["pool"], 2, "{}", r.stderr);
    // A file named on the command line is checked whatever directory it is
    // in, even with --force-exclude (as pre-commit runs from a checkout in `dist/`).
    let named = path_str(&dir.path().join("exports/vendor/pools.json"));
    let r = run(&["check", &named, "--format", "json", "--no-config", "--force-exclude"]);
    assert_eq!(json(&r)["summary"]["records"]["pool"], 1, "{}", r.stderr);
}

/// `--version` names the commit and its date when built from a repository.
#[test]
fn version_names_the_commit_and_its_date() {
    let r = run(&["--version"]);
    assert_eq!(r.code, 0);
    let line = r.stdout.trim();
    let inside = line
        .strip_prefix(&format!("edgeaudit {} (", env!("CARGO_PKG_VERSION")))
        .and_then(|rest| rest.strip_suffix(')'))
        .unwrap_or_else(|| panic!("{line}"));
    if inside != "commit unknown" {
        let (commit, date) = inside.split_once(' ').unwrap_or_else(|| panic!("{line}"));
        assert!(commit.len() >= 7 && commit.bytes().all(|b| b.is_ascii_hexdigit()), "{line}");
        assert!(chrono::NaiveDate::parse_from_str(date, "%Y-%m-%d").is_ok(), "{line}");
    }
}

/// Pools checked without their account's policies: every format says the
/// policies export may be missing, at the pools list; the demo, which has
/// policies, does not.
#[test]
fn pools_without_any_policy_loaded_say_the_policies_may_be_missing() {
    let pools = br#"{"result": [{"id": "p1", "name": "web", "origins": [], "notification_email": "ops@x.io"}]}"#;
    let dir = temp_dir(&[("pools.json", pools)]);
    let file = path_str(&dir.path().join("pools.json"));
    let r = run(&["check", &file, "--format", "json", "--no-config"]);
    let notices = json(&r)["notices"].clone();
    assert_eq!(notices[0]["code"], "no-policies-loaded", "{notices}");
    assert!(notices[0]["message"].as_str().unwrap_or_default().contains("add their export"));
    assert_eq!(notices[0]["location"]["line"], 1);
    let r = run(&["check", &file, "--format", "sarif", "--no-config"]);
    assert!(r.stdout.contains("no notification policy was loaded"), "{}", r.stdout);
    let r = run(&["check", "fixtures/demo", "--format", "json", "--no-config", "--as-of", "2024-10-01"]);
    assert!(!r.stdout.contains("no-policies-loaded"));
}

/// Many files skipped for one reason are one line with a count, on the
/// terminal and on standard error; `--show-files` lists each; the JSON
/// report always lists every file.
#[test]
fn skipped_files_are_counted_by_reason_unless_shown() {
    let pools = br#"{"result": [{"id": "p1", "name": "web", "origins": [], "notification_email": ""}]}"#;
    let mut files: Vec<(String, Vec<u8>)> = (0..5)
        .map(|i| (format!("fixtures/f{i}.json"), b"{\"name\": \"x\"}".to_vec()))
        .collect();
    files.push(("pools.json".into(), pools.to_vec()));
    let borrowed: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
    let dir = temp_dir(&borrowed);
    let path = path_str(dir.path());
    let r = run(&["check", &path, "--no-config"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().filter(|l| l.contains("skipped, not analysed:")).collect();
    assert_eq!(lines.len(), 1, "{}", r.stdout);
    assert!(
        lines[0].starts_with("5 files skipped, not analysed: ") && lines[0].contains("--show-files"),
        "{}",
        lines[0]
    );
    let r = run(&["check", &path, "--no-config", "--show-files"]);
    assert_eq!(
        r.stdout.lines().filter(|l| l.contains("skipped, not analysed:")).count(),
        5,
        "{}",
        r.stdout
    );
    let r = run(&["check", &path, "--no-config", "--format", "json"]);
    assert_eq!(
        r.stderr.lines().filter(|l| l.contains("skipped, not analysed:")).count(),
        1,
        "{}",
        r.stderr
    );
    assert_eq!(json(&r)["summary"]["skipped"].as_array().map(Vec::len), Some(5));
}

/// `check --help` groups its options under headings and ends with examples.
#[test]
fn check_help_has_headings_and_examples() {
    let help = run(&["check", "--help"]).stdout;
    for heading in ["Output:", "Judging:", "Configuration:", "Input:", "Files:", "Examples:"] {
        assert!(help.lines().any(|l| l == heading), "{heading}\n{help}");
    }
    assert!(help.contains("edgeaudit check exports/ --as-of 2024-10-01"), "{help}");
}

/// `plan --help` and `inventory --help` too, in the same headings.
#[test]
fn plan_and_inventory_help_have_headings_and_examples() {
    let plan = run(&["plan", "--help"]).stdout;
    for heading in ["Output:", "Judging:", "Configuration:", "Input:", "Files:", "Examples:"] {
        assert!(plan.lines().any(|l| l == heading), "{heading}\n{plan}");
    }
    assert!(plan.contains("edgeaudit plan exports/ --format json -o plan.json"), "{plan}");
    assert!(plan.contains("--show-config"), "{plan}");
    let inventory = run(&["inventory", "--help"]).stdout;
    for heading in ["Selection:", "Output:", "Configuration:", "Input:", "Files:", "Examples:"] {
        assert!(inventory.lines().any(|l| l == heading), "{heading}\n{inventory}");
    }
    assert!(inventory.contains("--ca lets_encrypt --format csv"), "{inventory}");
    assert!(inventory.contains("--show-config"), "{inventory}");
}
