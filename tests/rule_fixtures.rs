//! One test per rule fixture: every rule fires on its fixtures and stays
//! silent on their near misses. Fixtures live in
//! tests/fixtures/rules/<RULE>[-<case>].{json,yaml} (or a directory); each
//! record named `fires-*` must get the rule, each named `near-miss-*` must
//! not. A failure names its rule and fixture, and the other fixtures still
//! run (libtest-mimic). One snapshot per fixture records each finding's
//! place and its rendered message.

#[path = "it/common/mod.rs"]
mod common;

use std::collections::BTreeSet;

use common::{fixture_text, json, names_with_prefix, rule_fixtures, run};
use libtest_mimic::{Arguments, Failed, Trial};

fn main() -> std::process::ExitCode {
    let args = Arguments::from_args();
    let trials = rule_fixtures()
        .into_iter()
        .map(|(rule, path)| {
            let name = format!("{rule}::{}", path.rsplit('/').next().unwrap_or_default());
            Trial::test(name, move || check_fixture(&rule, &path))
        })
        .collect();
    libtest_mimic::run(&args, trials).exit_code()
}

fn check_fixture(rule: &str, path: &str) -> Result<(), Failed> {
    let text = fixture_text(path);
    // EX005 says what the other rules could not judge: they run too, and
    // only its findings are looked at.
    let select = if rule == "EX005" { "ALL" } else { rule };
    let r = run(&[
        "check",
        path,
        "--select",
        select,
        "--format",
        "json",
        "--as-of",
        "2024-10-01",
        "--fail-on",
        "never",
        "--no-config",
    ]);
    if r.code != 0 {
        return Err(format!("{path}: exit {}: {}", r.code, r.stderr).into());
    }
    let doc = json(&r);
    let findings: Vec<&serde_json::Value> = doc["findings"]
        .as_array()
        .ok_or("no findings list")?
        .iter()
        .filter(|f| f["rule"] == rule)
        .collect();
    let fired: BTreeSet<String> = findings
        .iter()
        .map(|f| f["resource"]["name"].as_str().unwrap_or_default().to_string())
        .collect();
    let expected = names_with_prefix(&text, "fires-");
    let near_misses = names_with_prefix(&text, "near-miss-");
    if expected.is_empty() && near_misses.is_empty() {
        return Err(format!("{path} has no fires-/near-miss- records").into());
    }
    // Resource names contain their token (a hostname such as `fires-app.customer.org`).
    for name in &fired {
        if !expected.iter().any(|t| name.contains(t.as_str())) {
            return Err(format!("{path}: {rule} fired on {name}, which is not a fires-* record").into());
        }
        if near_misses.iter().any(|t| name.contains(t.as_str())) {
            return Err(format!("{path}: {rule} fired on near miss {name}").into());
        }
    }
    for token in &expected {
        if !fired.iter().any(|n| n.contains(token.as_str())) {
            return Err(format!("{path}: {rule} did not fire on {token}").into());
        }
    }
    // Where each finding points, and what it says.
    let summary: Vec<String> = findings
        .iter()
        .map(|f| {
            format!(
                "{} {} {}:{}:{} {}\n  {}",
                f["rule"].as_str().unwrap_or_default(),
                f["resource"]["name"].as_str().unwrap_or_default(),
                f["location"]["file"].as_str().unwrap_or_default(),
                f["location"]["line"],
                f["location"]["column"],
                f["location"]["pointer"].as_str().unwrap_or_default(),
                f["message"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    let snapshot_name = path.rsplit('/').next().unwrap_or_default().replace('.', "_");
    // A snapshot that differs panics; the harness reports it as this trial's failure.
    insta::assert_snapshot!(snapshot_name, summary.join("\n"));
    Ok(())
}
