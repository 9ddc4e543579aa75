//! Scaffolds a rule: its entry in the pack of its id's prefix and its
//! fixture with one `fires-` and one `near-miss-` record.
//!
//!     cargo run --example new_rule -- LB008 pool-without-origins pool
//!
//! The template compiles (the binary's built-in rules still load) but says
//! `SCAFFOLD:` wherever there is something to write; tests/it/architecture.rs
//! fails while any is left, and tests/rule_fixtures.rs fails until the rule
//! fires on its `fires-` record. `--root DIR` writes under DIR instead of
//! the repository (tests use it).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use edgeaudit::engine::RuleSet;
use edgeaudit::facts::catalogue;
use edgeaudit::model::Kind;

const USAGE: &str = "usage: cargo run --example new_rule -- ID NAME SUBJECT [--root DIR]
  ID       upper-case letters then digits; LB, CA or EX picks the pack (rules/lb.yaml, …)
  NAME     kebab-case, e.g. pool-without-origins
  SUBJECT  a kind with facts (src/facts/catalogue.rs): pool, notification_policy, certificate_pack, custom_certificate, custom_hostname, total_tls, account or list";

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(written) => {
            for path in written {
                println!("wrote {}", path.display());
            }
            println!("now: replace every `SCAFFOLD:` (tests fail while one is left), then `cargo test`");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("new_rule: {e}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn run(args: Vec<String>) -> Result<Vec<PathBuf>, String> {
    let mut positional = Vec::new();
    let mut root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut args = args.into_iter();
    while let Some(a) = args.next() {
        if a == "--root" {
            root = PathBuf::from(args.next().ok_or("--root needs a directory")?);
        } else {
            positional.push(a);
        }
    }
    let [id, name, subject] = positional.as_slice() else {
        return Err("expected ID NAME SUBJECT".into());
    };
    let kind = Kind::parse(subject)
        .filter(|k| !catalogue(*k).is_empty())
        .ok_or_else(|| format!("unknown subject `{subject}`"))?;
    let prefix: String = id.chars().take_while(char::is_ascii_uppercase).collect();
    let (pack, migration) = match prefix.as_str() {
        "LB" => ("rules/lb.yaml", "notifications"),
        "CA" => ("rules/ca.yaml", "certificates"),
        "EX" => ("rules/ex.yaml", "export"),
        _ => {
            return Err(format!(
                "`{id}`: a built-in rule's id starts with LB, CA or EX (a team's own rules go in a pack given with --rules)"
            ));
        }
    };
    if !name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-') || name.is_empty() {
        return Err(format!("`{name}`: a name is kebab-case"));
    }
    let pack_path = root.join(pack);
    let text = std::fs::read_to_string(&pack_path).map_err(|e| format!("{}: {e}", pack_path.display()))?;
    if text.lines().any(|l| l.trim() == format!("- id: {id}")) {
        return Err(format!("{id} is in {pack} already"));
    }
    // A text fact of the subject for the placeholder condition, which
    // matches nothing until it is written.
    let fact = catalogue(kind)
        .iter()
        .find(|f| f.name == edgeaudit::facts::FactName::Name)
        .or_else(|| catalogue(kind).first())
        .map(|f| f.name)
        .ok_or("the subject has no facts")?;
    let entry = format!(
        r#"
  - id: {id}
    name: {name}
    subject: {subject}
    severity: warning
    migration: {migration}
    action: none
    summary: "SCAFFOLD: one sentence: what the finding means."
    when:
      - fact: {fact}
        equals: "SCAFFOLD: the conditions over facts (src/facts/catalogue.rs lists them)"
    message: "SCAFFOLD: {{{fact}}} … what is wrong, why it matters, what to do."
    rationale: "SCAFFOLD: why it matters."
    remediation: "SCAFFOLD: what to do."
    references: []
"#
    );
    let new_text = format!("{}{entry}", text.trim_end_matches('\n').to_string() + "\n");
    // The pack must still compile: the binary embeds it.
    let mut check = RuleSet { rules: Vec::new() };
    check
        .add_pack(pack, &new_text)
        .map_err(|e| format!("the template does not compile: {e}"))?;
    let fixture = root.join(format!("tests/fixtures/rules/{id}.yaml"));
    if fixture.exists() {
        return Err(format!("{} exists already", fixture.display()));
    }
    std::fs::write(&pack_path, new_text).map_err(|e| format!("{}: {e}", pack_path.display()))?;
    write_fixture(&fixture, id, kind)?;
    Ok(vec![pack_path, fixture])
}

/// Two records of the subject, in the shape the API exports them.
fn write_fixture(path: &Path, id: &str, kind: Kind) -> Result<(), String> {
    let records = |key: &str, fires: &str, near: &str| format!("{key}:\n  - {fires}\n  - {near}\n");
    let body = match kind {
        Kind::Pool => records(
            "pools",
            "{id: aaaa0000000000000000000000000001, name: fires-SCAFFOLD, notification_email: noc@example.com}",
            "{id: aaaa0000000000000000000000000002, name: near-miss-SCAFFOLD}",
        ),
        Kind::NotificationPolicy => records(
            "notification_policies",
            "{id: p1, name: fires-SCAFFOLD, alert_type: load_balancing_health_alert, enabled: true, mechanisms: {email: [{id: a@example.com}]}}",
            "{id: p2, name: near-miss-SCAFFOLD, alert_type: load_balancing_health_alert, enabled: true, mechanisms: {email: [{id: a@example.com}]}}",
        ),
        Kind::CustomHostname => format!(
            "zones:\n  - zone_id: 5a7805061c76ada191ed06f989cc3dac\n    {}",
            records(
                "custom_hostnames",
                "{id: h1, hostname: fires-SCAFFOLD.example, ssl: {method: txt, type: dv, certificate_authority: lets_encrypt}}",
                "{id: h2, hostname: near-miss-SCAFFOLD.example, ssl: {method: txt, type: dv, certificate_authority: google}}",
            )
            .replace("\n  -", "\n      -")
        ),
        _ => "# SCAFFOLD: records of the subject in the API's shape (see the other fixtures of its kind),\n# one named fires-… and one near-miss-….\n".to_string(),
    };
    let text = format!("# {id}: SCAFFOLD: what this fixture shows. Records named fires-* must get {id}; near-miss-* must not.\n{body}");
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}
