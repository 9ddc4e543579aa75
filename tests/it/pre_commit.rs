//! The pre-commit hooks of `.pre-commit-hooks.yaml`, for real: `pre-commit
//! try-repo` against this repository in a temporary git repository holding
//! exports, and a real `git commit` through installed hooks.
//!
//! Needs `pre-commit` (`pip install pre-commit`); without it the test says so
//! and skips, unless `EDGEAUDIT_REQUIRE_PRE_COMMIT` is set (CI sets it, so it
//! can never skip there). The tests run the `language: system` hooks with this
//! build's binary first on the PATH: no build of their own. The `language:
//! rust` hooks differ only in how pre-commit gets the binary (`cargo install`,
//! a release build of minutes), so `.ci/pre_commit_rust.sh` runs them once in
//! CI instead of in `cargo test`; `the_rust_hooks_are_the_system_hooks_built_from_source`
//! holds the two variants to the same entry and files.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

const CLEAN: &str = r#"{"result": [{"id": "aaaa0000000000000000000000000001", "name": "web", "notification_email": "", "origins": []}]}
"#;

/// The legacy e-mail of `api` has no replacement: LB001, an error.
const BAD: &str = r#"{"result": [{"id": "aaaa0000000000000000000000000002", "name": "api", "notification_email": "oncall@example.com", "origins": []}]}
"#;

fn pre_commit() -> Option<Vec<String>> {
    let works = |cmd: &[&str]| {
        Command::new(cmd[0])
            .args(&cmd[1..])
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if works(&["pre-commit"]) {
        return Some(vec!["pre-commit".into()]);
    }
    if works(&["python3", "-m", "pre_commit"]) {
        return Some(vec!["python3".into(), "-m".into(), "pre_commit".into()]);
    }
    None
}

fn sh(dir: &Path, program: &[String], args: &[&str]) -> Output {
    // The `language: system` hooks run the edgeaudit on the PATH: this build's.
    let bin = Path::new(env!("CARGO_BIN_EXE_edgeaudit"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let path = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())))
        .unwrap_or_default();
    Command::new(&program[0])
        .env("PATH", path)
        .args(&program[1..])
        .args(args)
        .current_dir(dir)
        // A store of its own: nothing from the user's ~/.cache/pre-commit.
        .env("PRE_COMMIT_HOME", dir.join(".pre-commit-home"))
        .env("GIT_AUTHOR_NAME", "edgeaudit test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "edgeaudit test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .env_remove("NO_COLOR")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program:?}: {e}"))
}

fn git(dir: &Path, args: &[&str]) -> Output {
    let out = sh(dir, &["git".to_string()], args);
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// `hook-name.....Passed` / `Failed`, as pre-commit prints it.
fn status(output: &str, hook: &str) -> &'static str {
    let line = output
        .lines()
        .find(|l| l.starts_with(hook) && l[hook.len()..].starts_with('.'))
        .unwrap_or_else(|| panic!("no status line for {hook}:\n{output}"));
    if line.ends_with("Passed") {
        "Passed"
    } else if line.ends_with("Failed") {
        "Failed"
    } else {
        panic!("unexpected status line: {line}")
    }
}

fn edgeaudit(dir: &Path, args: &[&str]) -> common::Run {
    common::run_in(dir, args)
}

/// The `language: system` hooks, each by `pre-commit try-repo` (which runs
/// one hook when named): (plain, new findings only) as pre-commit reports
/// them, and the output of both.
fn try_system_hooks(dir: &Path, pre_commit: &[String], repo: &str) -> (&'static str, &'static str, String) {
    let mut log = String::new();
    let mut statuses = Vec::new();
    for (id, name) in [
        ("edgeaudit-system", "edgeaudit (installed)"),
        ("edgeaudit-baseline-system", "edgeaudit (installed, new findings only)"),
    ] {
        let out = sh(dir, pre_commit, &["try-repo", repo, id, "--all-files", "--color", "never"]);
        let text = text(&out);
        let status = status(&text, name);
        assert_eq!(out.status.success(), status == "Passed", "{text}");
        statuses.push(status);
        log.push_str(&text);
    }
    (statuses[0], statuses[1], log)
}

#[test]
fn hooks_pass_clean_exports_and_fail_bad_ones() {
    let Some(pre_commit) = pre_commit() else {
        assert!(
            std::env::var_os("EDGEAUDIT_REQUIRE_PRE_COMMIT").is_none(),
            "EDGEAUDIT_REQUIRE_PRE_COMMIT is set but pre-commit is not installed"
        );
        eprintln!("NOTICE: pre-commit is not installed (pip install pre-commit); skipping the pre-commit round trip");
        return;
    };
    let this_repo = common::root();
    let repo = tempfile::tempdir().expect("tempdir");
    let dir = repo.path();
    git(dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join(".gitignore"), ".pre-commit-home/\n").unwrap();
    std::fs::create_dir_all(dir.join("exports")).unwrap();
    std::fs::write(dir.join("exports/pools.json"), CLEAN).unwrap();
    // An empty baseline: nothing is known yet.
    let r = edgeaudit(dir, &["check", "exports", "--write-baseline", ".edgeaudit-baseline.json", "-q"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    git(dir, &["add", "-A"]);
    let repo_arg = this_repo.to_str().expect("utf-8 path");

    // A clean export passes both hooks.
    let (plain, new_only, log) = try_system_hooks(dir, &pre_commit, repo_arg);
    assert_eq!((plain, new_only), ("Passed", "Passed"), "clean exports must pass:\n{log}");

    // A bad export (the demo) fails both, and says why.
    // The demo account, as shipped in fixtures/demo: every rule fires on it.
    let demo = dir.join("exports/demo");
    std::fs::create_dir_all(&demo).unwrap();
    for entry in std::fs::read_dir(this_repo.join("fixtures/demo")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), demo.join(entry.file_name())).unwrap();
    }
    git(dir, &["add", "-A"]);
    let (plain, new_only, log) = try_system_hooks(dir, &pre_commit, repo_arg);
    assert_eq!((plain, new_only), ("Failed", "Failed"), "a bad export must fail:\n{log}");
    assert!(log.contains("LB001"), "the report names the rule:\n{log}");
    assert!(log.contains("exports/demo/pools.json"), "and the file:\n{log}");

    // Once accepted in the baseline, only the plain hook still fails.
    let r = edgeaudit(dir, &["check", "exports", "--write-baseline", ".edgeaudit-baseline.json", "-q"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    git(dir, &["add", "-A"]);
    let (plain, new_only, log) = try_system_hooks(dir, &pre_commit, repo_arg);
    assert_eq!((plain, new_only), ("Failed", "Passed"), "{log}");

    // A real commit through installed hooks, when this repository's HEAD holds
    // the code under test (always so in CI's fresh clone).
    let dirty = Command::new("git")
        .args(["status", "--porcelain"])
        .current_dir(&this_repo)
        .output()
        .map(|o| !o.stdout.is_empty())
        .unwrap_or(true);
    if dirty {
        eprintln!("NOTICE: this repository has uncommitted changes; skipping the real `git commit` part (try-repo above used them)");
        return;
    }
    let head = String::from_utf8_lossy(&git(&this_repo, &["rev-parse", "HEAD"]).stdout)
        .trim()
        .to_string();
    std::fs::write(
        dir.join(".pre-commit-config.yaml"),
        format!("repos:\n  - repo: {repo_arg}\n    rev: {head}\n    hooks:\n      - id: edgeaudit-baseline-system\n"),
    )
    .unwrap();
    let out = sh(dir, &pre_commit, &["install"]);
    assert!(out.status.success(), "{}", text(&out));
    git(dir, &["add", "-A"]);
    let out = sh(dir, &["git".to_string()], &["commit", "-q", "-m", "accepted state"]);
    assert!(out.status.success(), "known findings do not block a commit:\n{}", text(&out));
    std::fs::write(
        dir.join("exports/new-pools.json"),
        BAD.replace("aaaa0000000000000000000000000002", "aaaa0000000000000000000000000003"),
    )
    .unwrap();
    git(dir, &["add", "-A"]);
    let out = sh(dir, &["git".to_string()], &["commit", "-q", "-m", "a new problem"]);
    let log = text(&out);
    assert!(!out.status.success(), "a new finding blocks the commit:\n{log}");
    assert!(log.contains("exports/new-pools.json") && log.contains("LB001"), "{log}");
    let committed = git(dir, &["log", "--oneline"]);
    assert_eq!(
        String::from_utf8_lossy(&committed.stdout).lines().count(),
        1,
        "the bad commit was not made"
    );
}

/// A change to Terraform alone (`.tf`, `.tfvars`, `.tfstate`) runs the hooks:
/// the installed-binary variant, on a repository holding only a `.tf` file
/// whose pool keeps a legacy e-mail, fails (before, its `files` pattern
/// matched no Terraform file and the hook was skipped).
#[test]
fn terraform_files_run_the_hooks() {
    let Some(pre_commit) = pre_commit() else {
        eprintln!("NOTICE: pre-commit is not installed (pip install pre-commit); skipping the Terraform hook run");
        return;
    };
    let repo = tempfile::tempdir().expect("tempdir");
    let dir = repo.path();
    git(dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join(".gitignore"), ".pre-commit-home/\n").unwrap();
    std::fs::write(
        dir.join("main.tf"),
        "resource \"cloudflare_load_balancer_pool\" \"web\" {\n  account_id         = \"023e105f4ecef8ad9ca31a8372d0c353\"\n  name               = \"web\"\n  notification_email = \"ops@example.com\"\n  origins {\n    name    = \"web-1\"\n    address = \"192.0.2.10\"\n  }\n}\n",
    )
    .unwrap();
    git(dir, &["add", "-A"]);
    let repo_arg = common::root();
    let repo_arg = repo_arg.to_str().expect("utf-8 path");
    for hook in ["edgeaudit-system", "edgeaudit-baseline-system"] {
        let out = sh(dir, &pre_commit, &["try-repo", repo_arg, hook, "--all-files", "--color", "never"]);
        let log = text(&out);
        assert!(!out.status.success(), "{hook} runs on a .tf change and fails:\n{log}");
        assert!(log.contains("LB001") || hook.contains("baseline"), "{log}");
        assert!(!log.contains("no files to check"), "{log}");
    }
}

/// Each `language: rust` hook is its `-system` twin built from source: the
/// same entry, files and options, so the system hooks' round trip above
/// speaks for both (`.ci/pre_commit_rust.sh` builds and runs the rust ones).
#[test]
fn the_rust_hooks_are_the_system_hooks_built_from_source() {
    let text = std::fs::read_to_string(common::root().join(".pre-commit-hooks.yaml")).expect(".pre-commit-hooks.yaml");
    let hooks: Vec<serde_json::Map<String, serde_json::Value>> = serde_saphyr::from_str(&text).expect("the hooks file is YAML");
    let by_id = |id: &str| {
        hooks
            .iter()
            .find(|h| h["id"] == id)
            .unwrap_or_else(|| panic!("no hook {id}"))
            .clone()
    };
    let rust: Vec<_> = hooks.iter().filter(|h| h["language"] == "rust").collect();
    assert_eq!(rust.len(), 2, "two hooks build from source");
    for hook in rust {
        let id = hook["id"].as_str().expect("id");
        let system = by_id(&format!("{id}-system"));
        assert_eq!(system["language"], "system");
        // What is left once the names and the language are set aside.
        let behaviour = |mut hook: serde_json::Map<String, serde_json::Value>| {
            for field in ["id", "name", "description", "language"] {
                hook.remove(field);
            }
            hook
        };
        assert_eq!(
            behaviour(hook.clone()),
            behaviour(system),
            "{id} and {id}-system differ beyond their names and language"
        );
    }
}
