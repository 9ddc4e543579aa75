//! The README's and the docs' (the book's) command blocks are run, as a reader would run
//! them, in a fresh directory holding the demo (`fixtures/`, and its
//! exports again under `exports/`) and a Terraform configuration under
//! `infra/lb/`; a block that talks to the live account talks to the
//! stand-in service (`tests/it/service`).
//!
//! - ```` ```sh ```` blocks: every command runs; `edgeaudit check` may exit
//!   0 or 1 (findings), anything else must exit 0.
//! - ```` ```console ```` blocks: `$ command` lines run in order, and what
//!   each prints (standard output, then standard error) is exactly the
//!   lines shown under it.
//! - A block that cannot run here is preceded by
//!   `<!-- not run by tests/it/doc_commands.rs: why -->`, and the why is
//!   required.

use crate::common;
use crate::service;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::root;
use serde_json::json;
use service::{Service, State, TOKEN};

const ACCOUNT: &str = "023e105f4ecef8ad9ca31a8372d0c353";
const ZONE: &str = "9a7806061c88ada191ed06f989cc3dac";
const NOT_RUN: &str = "<!-- not run by tests/it/doc_commands.rs:";

#[derive(Debug)]
struct Block {
    /// `README.md:59`: the file and the line of its first command.
    place: String,
    lang: String,
    lines: Vec<String>,
    /// Why it is not run, when it is not.
    not_run: Option<String>,
}

/// README.md, and every page under docs/ (the book's sources included).
fn documents() -> Vec<PathBuf> {
    let mut files = vec![root().join("README.md")];
    // The built book is not a source.
    files.extend(crate::common::files_with(&root().join("docs"), "md", &["book"]));
    files
}

/// The `sh` and `console` blocks of a Markdown file.
fn blocks(path: &Path) -> Vec<Block> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path.strip_prefix(root()).unwrap_or(path).display().to_string();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(lang) = lines[i].strip_prefix("```").filter(|l| !l.is_empty() && !l.contains('`')) else {
            i += 1;
            continue;
        };
        let start = i + 1;
        let mut end = start;
        while end < lines.len() && !lines[end].starts_with("```") {
            end += 1;
        }
        if lang == "sh" || lang == "console" {
            let before = lines[..i].iter().rev().find(|l| !l.trim().is_empty()).copied().unwrap_or("");
            let not_run = before
                .strip_prefix(NOT_RUN)
                .map(|why| why.trim_end_matches("-->").trim().to_string());
            out.push(Block {
                place: format!("{name}:{}", start + 1),
                lang: lang.to_string(),
                lines: lines[start..end].iter().map(|l| l.to_string()).collect(),
                not_run,
            });
        }
        i = end + 1;
    }
    out
}

fn all_blocks() -> Vec<Block> {
    documents().iter().flat_map(|p| blocks(p)).collect()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read dir").filter_map(Result::ok) {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// A reader's directory: the demo, its exports, a Terraform configuration,
/// a home for completions, a git repository (the baseline is committed).
fn sandbox(with_exports: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    copy_dir(&root().join("fixtures"), &dir.path().join("fixtures"));
    if with_exports {
        copy_dir(&root().join("fixtures/demo"), &dir.path().join("exports"));
    } else {
        std::fs::create_dir_all(dir.path().join("exports")).expect("exports/");
    }
    std::fs::create_dir_all(dir.path().join("infra/lb")).expect("infra/lb");
    std::fs::copy(
        root().join("tests/fixtures/terraform/hcl-v5/main.tf"),
        dir.path().join("infra/lb/alerts.tf"),
    )
    .expect("a configuration");
    for home in [".local/share/bash-completion/completions", ".zfunc", ".config/fish/completions"] {
        std::fs::create_dir_all(dir.path().join("home").join(home)).expect("home");
    }
    let git = Command::new("git").args(["init", "-q"]).current_dir(dir.path()).status();
    assert!(git.is_ok_and(|s| s.success()), "git init");
    dir
}

/// A small account for the live commands: pools with legacy e-mails (one
/// covered), a policy, custom hostnames and Total TLS on Let's Encrypt.
fn live_account() -> State {
    let pools = (0..3)
        .map(|i| {
            json!({"id": format!("{:032x}", 1000 + i), "name": format!("pool-{i}"), "enabled": true,
                   "origins": [{"name": "o1", "address": "192.0.2.1", "enabled": true}],
                   "notification_email": "noc@example.com"})
        })
        .collect();
    let policies = vec![json!({
        "id": "aaaa0000000000000000000000000001", "name": "pool-0 health", "alert_type": "load_balancing_health_alert",
        "enabled": true, "mechanisms": {"email": [{"id": "noc@example.com"}]},
        "filters": {"pool_id": [format!("{:032x}", 1000)]}})];
    let custom_hostnames = (0..2)
        .map(|i| {
            json!({"id": format!("{i:08x}-0000-4000-8000-{i:012x}"), "hostname": format!("shop{i}.customer.example"),
                   "status": "active", "ssl": {"id": format!("{:032x}", 5000 + i), "type": "dv", "method": "http",
                   "status": "active", "certificate_authority": "lets_encrypt"}})
        })
        .collect();
    State {
        account: ACCOUNT.into(),
        pools,
        policies,
        zone: ZONE.into(),
        custom_hostnames,
        total_tls: json!({"enabled": true, "certificate_authority": "lets_encrypt", "validity_period": 90}),
        ..State::default()
    }
}

/// A shell for the block: the binary first on the PATH, the reader's
/// variables set, the credentials of whoever runs the tests removed.
fn shell(dir: &Path, service: Option<&Service>) -> Command {
    let bin = Path::new(env!("CARGO_BIN_EXE_edgeaudit")).parent().expect("bin dir").to_path_buf();
    let mut c = Command::new("bash");
    c.current_dir(dir)
        .env("PATH", format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default()))
        .env("HOME", dir.join("home"))
        .env("ACCOUNT_ID", ACCOUNT)
        .env("ZONE_ID", ZONE)
        .env("ACCOUNT", ACCOUNT)
        .env("ZONE", ZONE)
        .env("EA_TOKEN", TOKEN)
        .stdin(std::process::Stdio::null());
    for name in [
        "NO_COLOR",
        "COLUMNS",
        "TERM",
        "FORCE_COLOR",
        "CLICOLOR",
        "CLICOLOR_FORCE",
        "CLOUDFLARE_API_TOKEN",
        "CLOUDFLARE_EMAIL",
        "CLOUDFLARE_API_KEY",
        "CLOUDFLARE_API_BASE",
    ] {
        c.env_remove(name);
    }
    // The live commands' reader has the token set (the exporting guide's first step).
    if let Some(service) = service {
        c.env("CLOUDFLARE_API_BASE", service.base()).env("CLOUDFLARE_API_TOKEN", TOKEN);
    }
    c
}

/// A command as the shell runs it here: `cargo run --release --` is the
/// binary under test, and the token a reader pastes is the stand-in's.
fn runnable(line: &str) -> String {
    line.replacen("cargo run --release --", "edgeaudit", 1)
        .replace("CLOUDFLARE_API_TOKEN=…", "CLOUDFLARE_API_TOKEN=\"$EA_TOKEN\"")
}

/// A line with a command (comments and blank lines are not).
fn is_command(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty() && !t.starts_with('#')
}

/// A block that exports from or applies to the live account (its commands,
/// not its comments).
fn uses_service(lines: &[String]) -> bool {
    lines
        .iter()
        .map(|l| l.split(" #").next().unwrap_or(""))
        .any(|l| l.contains("edgeaudit export") || l.contains("edgeaudit apply"))
}

/// A block that applies a plan without exporting first starts where the
/// export left off (docs/src/commands/export.md): the stand-in account under `exports/`.
fn exported(dir: &Path, service: &Service, lines: &[String]) {
    if lines.iter().any(|l| l.contains("edgeaudit export")) {
        return;
    }
    let out = shell(dir, Some(service))
        .args([
            "-c",
            "CLOUDFLARE_API_TOKEN=\"$EA_TOKEN\" edgeaudit export \"$ACCOUNT_ID\" \"$ZONE_ID\" -o exports/account.json",
        ])
        .output()
        .expect("bash runs");
    assert!(out.status.success(), "the export: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn every_command_block_is_run_or_says_why_not() {
    let blocks = all_blocks();
    assert!(blocks.len() >= 10, "the blocks are found: {blocks:?}");
    for b in &blocks {
        if let Some(why) = &b.not_run {
            assert!(why.len() > 10, "{}: a block that is not run says why", b.place);
        }
    }
    // The README's test command is the one CI runs.
    let readme = blocks.iter().filter(|b| b.place.starts_with("README.md:")).collect::<Vec<_>>();
    let test_command = readme
        .iter()
        .find(|b| b.lines.iter().any(|l| l.trim() == "cargo test"))
        .expect("the README's test command");
    assert!(test_command.not_run.is_some(), "the suite does not run itself");
    let ci = std::fs::read_to_string(root().join(".ci/run")).expect(".ci/run");
    assert!(
        ci.lines().any(|l| l.trim() == "cargo test"),
        ".ci/run runs the README's test command"
    );
}

#[test]
fn every_sh_block_runs() {
    for block in all_blocks().iter().filter(|b| b.lang == "sh" && b.not_run.is_none()) {
        let live = uses_service(&block.lines);
        let service = live.then(|| Service::start(live_account()));
        let dir = sandbox(!live);
        if let Some(service) = &service {
            exported(dir.path(), service, &block.lines);
        }
        let codes = dir.path().join("exit-codes");
        let commands: Vec<&String> = block.lines.iter().filter(|l| is_command(l)).collect();
        let mut script = String::from("set +e\n");
        for line in &commands {
            script.push_str(&runnable(line));
            script.push_str(&format!("\necho $? >> '{}'\n", codes.display()));
        }
        let out = shell(dir.path(), service.as_ref())
            .args(["-c", &script])
            .output()
            .expect("bash runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            !stdout.contains(TOKEN) && !stderr.contains(TOKEN),
            "{}: the token is never shown",
            block.place
        );
        let codes: Vec<i32> = std::fs::read_to_string(&codes)
            .unwrap_or_default()
            .lines()
            .filter_map(|c| c.parse().ok())
            .collect();
        assert_eq!(codes.len(), commands.len(), "{}: every command ran:\n{stderr}", block.place);
        for (line, code) in commands.iter().zip(&codes) {
            let allowed: &[i32] = if runnable(line).contains("edgeaudit check") {
                &[0, 1]
            } else {
                &[0]
            };
            assert!(
                allowed.contains(code),
                "{}: `{line}` exited {code}:\n{stdout}\n{stderr}",
                block.place
            );
        }
    }
}

/// `$ command` lines and what each prints.
fn steps(block: &Block) -> Vec<(String, Vec<String>)> {
    let mut steps: Vec<(String, Vec<String>)> = Vec::new();
    for line in &block.lines {
        match line.strip_prefix("$ ") {
            Some(command) => steps.push((command.to_string(), Vec::new())),
            None => match steps.last_mut() {
                Some((_, output)) => output.push(line.trim_end().to_string()),
                None => panic!("{}: a console block starts with `$ `", block.place),
            },
        }
    }
    steps
}

#[test]
fn every_console_block_prints_what_it_shows() {
    for block in all_blocks().iter().filter(|b| b.lang == "console" && b.not_run.is_none()) {
        let live = uses_service(&block.lines);
        let service = live.then(|| Service::start(live_account()));
        let dir = sandbox(!live);
        if let Some(service) = &service {
            exported(dir.path(), service, &block.lines);
        }
        for (command, expected) in steps(block) {
            let out = shell(dir.path(), service.as_ref())
                .args(["-c", &runnable(&command)])
                .output()
                .expect("bash runs");
            let printed = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
            let mut printed: Vec<String> = printed.lines().map(|l| l.trim_end().to_string()).collect();
            // A block cannot show trailing blank lines.
            while printed.last().is_some_and(|l| l.is_empty()) {
                printed.pop();
            }
            let mut expected = expected;
            while expected.last().is_some_and(|l| l.is_empty()) {
                expected.pop();
            }
            assert_eq!(
                printed.join("\n"),
                expected.join("\n"),
                "{}: `{command}` prints otherwise than shown",
                block.place
            );
            let code = out.status.code().unwrap_or(-1);
            assert!((0..=2).contains(&code), "{}: `{command}` exited {code}", block.place);
        }
    }
}

/// The YAML blocks of the docs that are a config or a rule pack load as
/// one: an example that the tool refuses would be documentation that lies.
#[test]
fn the_docs_config_and_rule_pack_examples_load() {
    let docs: String = documents()
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("read"))
        .collect::<Vec<_>>()
        .join("\n");
    let yaml_blocks: Vec<&str> = docs
        .split("```yaml\n")
        .skip(1)
        .filter_map(|rest| rest.split("\n```").next())
        .collect();
    let config = yaml_blocks.iter().find(|b| b.starts_with("as_of:")).expect("a config example");
    let pack = yaml_blocks.iter().find(|b| b.starts_with("rules:")).expect("a rule pack example");
    let dir = sandbox(true);
    std::fs::write(dir.path().join("example.yaml"), config).expect("write");
    std::fs::write(dir.path().join("pack.yaml"), pack).expect("write");
    // The config's `packs` names a pack of the reader's: the README's own.
    std::fs::create_dir_all(dir.path().join("rules")).expect("rules/");
    std::fs::write(dir.path().join("rules/our-policies.yaml"), pack).expect("write");
    let r = common::run_in(dir.path(), &["check", "exports/", "--config", "example.yaml", "--show-config"]);
    assert_eq!(r.code, 0, "the config example: {}", r.stderr);
    let r = common::run_in(dir.path(), &["rules", "--rules", "pack.yaml"]);
    assert_eq!(r.code, 0, "the rule pack example: {}", r.stderr);
    assert!(r.stdout.contains("ORG001"), "{}", r.stdout);
}

/// The docs' summary of the commands names the commands the binary has.
#[test]
fn the_usage_page_names_every_command() {
    let page = std::fs::read_to_string(root().join("docs/src/usage.md")).expect("docs/src/usage.md");
    let usage = page
        .split("```text\n")
        .nth(1)
        .and_then(|s| s.split("\n```").next())
        .expect("the usage block");
    let mut named: Vec<&str> = usage
        .lines()
        .filter_map(|l| l.strip_prefix("edgeaudit "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let help = common::run(&["--help"]).stdout;
    let mut commands: Vec<&str> = help
        .split("Commands:")
        .nth(1)
        .unwrap_or("")
        .lines()
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    named.sort_unstable();
    commands.sort_unstable();
    assert_eq!(named, commands, "{usage}");
}
