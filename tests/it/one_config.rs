//! `check`, `plan` and `inventory` read one `.edgeaudit.yaml` the same way:
//! `--config`, `--no-config`, found upward from the checked paths; its
//! `as_of`, `exclude` and waivers (a waived finding is not a plan step); a
//! broken config is exit 2 for each.

use crate::common;

use common::{json, path_str, run_in, temp_dir};

const CONFIG: &str = "as_of: 2024-10-01
exclude: [exports/archive/]
waivers:
  - rule: CA002
    resource: certificate_pack/*
    reason: re-ordered by the platform team (OPS-1)
  - rule: LB001
    resource: pool/legacy-eu
    reason: the EU team keeps its e-mail until its pager moves (OPS-2)
";

/// The demo's exports under `exports/`, an archived pools export that the
/// config excludes, and the config beside them.
fn project(config: &str) -> tempfile::TempDir {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(common::root().join("fixtures/demo"))
        .expect("demo")
        .map(|e| {
            let path = e.expect("entry").path();
            let name = path.file_name().expect("name").to_string_lossy().into_owned();
            (format!("exports/{name}"), std::fs::read(&path).expect("read"))
        })
        .collect();
    files.push((
        "exports/archive/pools-2023.json".into(),
        br#"{"result": [{"id": "aaaa0000000000000000000000000001", "name": "archived-pool", "origins": [], "notification_email": "old@example.com"}]}"#.to_vec(),
    ));
    files.push((
        "exports/archive/certificates-2023.json".into(),
        br#"{"result": [{"id": "archived-cert", "hosts": ["old.example.com"], "issuer": "LetsEncrypt", "signature": "SHA256WithRSA", "bundle_method": "ubiquitous", "uploaded_on": "2023-01-01T00:00:00Z", "expires_on": "2023-04-01T00:00:00Z", "status": "expired"}]}"#.to_vec(),
    ));
    files.push((".edgeaudit.yaml".into(), config.as_bytes().to_vec()));
    let borrowed: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
    temp_dir(&borrowed)
}

fn plan_json(dir: &std::path::Path, extra: &[&str]) -> (serde_json::Value, String) {
    let mut args = vec!["plan", "exports", "--format", "json"];
    args.extend_from_slice(extra);
    let r = run_in(dir, &args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    (json(&r), r.stderr)
}

/// The plan's steps, as text.
fn steps_text(plan: &serde_json::Value) -> String {
    plan["accounts"][0]["steps"].to_string()
}

const HELD: &str = "a7d3c2b1e0f9a8b7c6d5e4f3a2b1c0d9";

#[test]
fn plan_takes_the_date_the_exclusions_and_the_waivers_of_the_config() {
    let dir = project(CONFIG);
    let (plan, stderr) = plan_json(dir.path(), &[]);
    assert_eq!(plan["as_of"], "2024-10-01", "the config's as_of, not today");
    assert!(
        !plan["accounts"].to_string().contains("aaaa0000000000000000000000000001"),
        "the excluded archive is not read"
    );
    let text = steps_text(&plan);
    // CA002 is waived: no manual step for it.
    assert!(!text.contains("CA002"), "a waived finding is not a step: {text}");
    // LB001 on legacy-eu is waived: the pool is neither replaced nor cleared,
    // and no page-wide clear reaches it.
    let steps = plan["accounts"][0]["steps"].as_array().expect("steps");
    assert!(
        steps.iter().all(|s| s["kind"] != "clear_page"),
        "the held pool's page is cleared pool by pool"
    );
    for step in steps {
        let pools = step["pools"].as_array().map(Vec::as_slice).unwrap_or_default();
        assert!(!pools.iter().any(|p| p == HELD), "no step is for the held pool: {step}");
    }
    assert!(steps.iter().any(|s| s["kind"] == "clear_pool"), "the other pools are still cleared");
    assert!(
        stderr.contains("pool legacy-eu (a7d3c2b1e0f9a8b7c6d5e4f3a2b1c0d9) keeps its legacy e-mail"),
        "{stderr}"
    );
    assert!(
        stderr.contains("no pool keeps a legacy e-mail but those kept as they are: 1 pool whose finding is waived"),
        "{stderr}"
    );

    // Without the config: today, the archive read, every finding a step.
    let (plan, _) = plan_json(dir.path(), &["--no-config", "--as-of", "2024-10-01"]);
    let text = steps_text(&plan);
    assert!(text.contains("aaaa0000000000000000000000000001"));
    assert!(text.contains("CA002"));
    assert!(text.contains(HELD));

    // `check` reads the same file the same way.
    let r = run_in(dir.path(), &["check", "exports", "--format", "json"]);
    let doc = json(&r);
    assert_eq!(doc["as_of"], "2024-10-01");
    assert!(!doc.to_string().contains("archived-pool"));
}

#[test]
fn the_config_is_found_upward_from_the_checked_paths_and_named_with_config() {
    let dir = project(CONFIG);
    let elsewhere = temp_dir(&[]);
    let exports = path_str(&dir.path().join("exports"));
    // From another working directory: the config beside the exports applies.
    let r = run_in(elsewhere.path(), &["check", &exports, "--format", "json"]);
    assert_eq!(json(&r)["as_of"], "2024-10-01", "{}", r.stderr);
    let r = run_in(elsewhere.path(), &["plan", &exports, "--format", "json"]);
    assert_eq!(json(&r)["as_of"], "2024-10-01", "{}", r.stderr);
    let r = run_in(elsewhere.path(), &["inventory", &exports, "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stdout.contains("archived-cert"), "inventory applies the config's exclude");
    let r = run_in(elsewhere.path(), &["inventory", &exports, "--format", "json", "--no-config"]);
    assert!(r.stdout.contains("archived-cert"), "{}", r.stderr);
    // `--config` names another file; paths under two configs are refused.
    let other = temp_dir(&[
        ("custom.yaml", b"as_of: 2024-05-01\n"),
        ("more/.edgeaudit.yaml", b"as_of: 2024-06-01\n"),
        ("more/pools.json", br#"{"result": [{"id": "p1", "name": "web", "origins": []}]}"#),
    ]);
    let custom = path_str(&other.path().join("custom.yaml"));
    let r = run_in(dir.path(), &["plan", "exports", "--format", "json", "--config", &custom]);
    assert_eq!(json(&r)["as_of"], "2024-05-01", "{}", r.stderr);
    let more = path_str(&other.path().join("more"));
    let r = run_in(dir.path(), &["check", "exports", &more]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("fall under different configs"), "{}", r.stderr);
    // A path under no config beside one under a config: the config would
    // cover a file it does not apply to.
    let bare = temp_dir(&[("pools.json", br#"{"result": [{"id": "p1", "name": "web", "origins": []}]}"#)]);
    let r = run_in(dir.path(), &["check", "exports", &path_str(bare.path())]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains(".edgeaudit.yaml and none)"), "{}", r.stderr);
}

#[test]
fn a_broken_config_stops_every_command() {
    let dir = project("as_of: 2024-10-01\nbogus: 1\n");
    for command in ["check", "plan", "inventory"] {
        let r = run_in(dir.path(), &[command, "exports"]);
        assert_eq!(r.code, 2, "{command}: {}", r.stderr);
        assert!(
            r.stderr.contains(".edgeaudit.yaml:2:1") && r.stderr.contains("unknown field `bogus`"),
            "{command}: {}",
            r.stderr
        );
        // `--no-config` sets it aside.
        let r = run_in(dir.path(), &[command, "exports", "--no-config"]);
        assert!(
            r.code == 0 || (command == "check" && r.code == 1),
            "{command} --no-config: {}",
            r.stderr
        );
    }
}

#[test]
fn show_config_names_the_file_and_the_values_in_force() {
    let dir = project(CONFIG);
    let r = run_in(dir.path(), &["check", "exports", "--show-config", "--ignore", "EX"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    for line in [
        "config: .edgeaudit.yaml",
        "as_of: 2024-10-01 (as_of in .edgeaudit.yaml)",
        "fail_on: warning",
        "exclude: exports/archive/; by default: node_modules/, vendor/, dist/",
        "waivers: 2",
        "baseline: none",
    ] {
        assert!(r.stdout.lines().any(|l| l == line), "{line}:\n{}", r.stdout);
    }
    assert!(
        r.stdout.contains(&format!(
            "rules: {} (CA001,",
            common::builtin_rule_ids("CA").len() + common::builtin_rule_ids("LB").len()
        )) && !r.stdout.contains("EX001"),
        "{}",
        r.stdout
    );
    let broken = project("bogus: 1\n");
    assert_eq!(run_in(broken.path(), &["check", "exports", "--show-config"]).code, 2);
}

/// `plan` and `inventory` show the values they use, in `check`'s words, and
/// only those: a plan has no fail-on or baseline, an inventory judges nothing.
#[test]
fn plan_and_inventory_show_their_config_in_checks_words() {
    let dir = project(CONFIG);
    let check = run_in(dir.path(), &["check", "exports", "--show-config"]);
    let plan = run_in(dir.path(), &["plan", "exports", "--show-config"]);
    assert_eq!(plan.code, 0, "{}", plan.stderr);
    assert!(
        !plan.stdout.contains("# edgeaudit migration plan"),
        "no plan is made:\n{}",
        plan.stdout
    );
    let check_lines: Vec<&str> = check.stdout.lines().collect();
    for line in plan.stdout.lines() {
        assert!(check_lines.contains(&line), "{line} is said as check says it:\n{}", check.stdout);
    }
    for line in [
        "config: .edgeaudit.yaml",
        "as_of: 2024-10-01 (as_of in .edgeaudit.yaml)",
        "waivers: 2",
    ] {
        assert!(plan.stdout.lines().any(|l| l == line), "{line}:\n{}", plan.stdout);
    }
    assert!(
        plan.stdout
            .lines()
            .any(|l| l.starts_with(&format!("rules: {} (", common::builtin_rule_ids("").len()))),
        "{}",
        plan.stdout
    );
    assert!(
        !plan.stdout.contains("fail_on") && !plan.stdout.contains("baseline"),
        "{}",
        plan.stdout
    );
    let r = run_in(
        dir.path(),
        &["plan", "exports", "--show-config", "--as-of", "2024-05-01", "--no-config"],
    );
    assert_eq!(
        r.stdout.lines().take(2).collect::<Vec<_>>(),
        ["config: none", "as_of: 2024-05-01 (--as-of)"]
    );

    let inventory = run_in(dir.path(), &["inventory", "exports", "--show-config", "--exclude", "*.bak"]);
    assert_eq!(inventory.code, 0, "{}", inventory.stderr);
    assert_eq!(
        inventory.stdout,
        "config: .edgeaudit.yaml\nexclude: exports/archive/, *.bak; by default: node_modules/, vendor/, dist/\n"
    );
    let broken = project("bogus: 1\n");
    assert_eq!(run_in(broken.path(), &["plan", "exports", "--show-config"]).code, 2);
    assert_eq!(run_in(broken.path(), &["inventory", "exports", "--show-config"]).code, 2);
}
