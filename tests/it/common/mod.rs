#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs the binary from the project root. A run that takes longer than
/// `HANG` is killed and fails the test: a guard against hangs, not a timing
/// assertion. The slowest run of the suite (a debug build reading a BIND
/// file of a million lines) takes about 4 s on a quiet two-core machine and
/// three times that with both cores busy: the guard stays more than ten
/// times above it, so a busy machine never fails a test.
pub fn run(args: &[&str]) -> Run {
    run_with_stdin(args, None)
}

const HANG: Duration = Duration::from_secs(300);

pub fn run_with_stdin(args: &[&str], stdin: Option<&[u8]>) -> Run {
    run_full(&root(), args, stdin, None, &[])
}

/// Runs the binary with these environment variables set (the terminal's
/// width and colour settings are otherwise removed, so that tests do not
/// depend on the shell that runs them).
pub fn run_with_env(args: &[&str], env: &[(&str, &str)]) -> Run {
    run_full(&root(), args, None, None, env)
}

/// Runs the binary with `dir` as the working directory.
pub fn run_in(dir: &Path, args: &[&str]) -> Run {
    run_full(dir, args, None, None, &[])
}

/// Runs the binary in `dir` with these environment variables set.
pub fn run_in_with_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    run_full(dir, args, None, None, env)
}

/// Runs the binary with its address space limited to `mib` MiB (on Linux,
/// by bash's `ulimit -v`): a run that needs more fails to allocate and
/// aborts, which fails the test. A bound on memory, as `HANG` is on time.
pub fn run_within(mib: u64, args: &[&str]) -> Run {
    run_full(&root(), args, None, Some(mib), &[])
}

fn run_full(dir: &Path, args: &[&str], stdin: Option<&[u8]>, memory_mib: Option<u64>, env: &[(&str, &str)]) -> Run {
    let start = Instant::now();
    let binary = env!("CARGO_BIN_EXE_edgeaudit");
    let mut command = match memory_mib {
        Some(mib) if cfg!(target_os = "linux") => {
            let mut c = Command::new("bash");
            c.args([
                "-c",
                r#"ulimit -v "$1" && shift && exec "$0" "$@""#,
                binary,
                &(mib * 1024).to_string(),
            ]);
            c
        }
        _ => Command::new(binary),
    };
    // Nor on the credentials of whoever runs them.
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
        command.env_remove(name);
    }
    let mut child = command
        .args(args)
        .current_dir(dir)
        .envs(env.iter().copied())
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn edgeaudit");
    if let Some(bytes) = stdin {
        // The child may stop reading early (a bound, an error): that is not the test's failure.
        if let Err(e) = child.stdin.take().expect("stdin").write_all(bytes) {
            assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "write stdin: {e}");
        }
    }
    // Pipes are drained on another thread so a large output cannot block the child.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let out = match rx.recv_timeout(HANG) {
        Ok(out) => out.expect("output"),
        Err(_) => panic!("edgeaudit {args:?} did not finish within {HANG:?}"),
    };
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        elapsed: start.elapsed(),
    }
}

pub fn json(run: &Run) -> serde_json::Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{}\n{}", run.stdout, run.stderr))
}

/// Writes `files` into a fresh temporary directory.
pub fn temp_dir(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, bytes) in files {
        let path = dir.path().join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&path, bytes).expect("write");
    }
    dir
}

/// The first fenced block of `lang` (```sql) after `marker` in a Markdown
/// text: a command block a test runs as the book or the README gives it.
pub fn fenced_after<'t>(text: &'t str, marker: &str, lang: &str) -> &'t str {
    text.split(marker)
        .nth(1)
        .and_then(|after| after.split(&format!("```{lang}")).nth(1))
        .and_then(|block| block.split("```").next())
        .unwrap_or_else(|| panic!("a ```{lang} block after {marker}"))
}

pub fn path_str(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

fn sarif_schema() -> Option<serde_json::Value> {
    let path = root().join("../shared/data/sarif-schema-2.1.0.json");
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(serde_json::from_str(&text).expect("schema is JSON")),
        Err(_) => {
            eprintln!("NOTICE: {} not found; skipping SARIF schema validation", path.display());
            None
        }
    }
}

/// Validates against ../shared/data/sarif-schema-2.1.0.json; says so and
/// skips when the file is not there.
pub fn assert_valid_sarif(sarif: &serde_json::Value) {
    let Some(schema) = sarif_schema() else { return };
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(sarif)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "SARIF invalid against 2.1.0:\n{}", errors.join("\n"));
}

/// The text at a 1-based line and column (columns count code points).
pub fn text_at(text: &str, line: usize, column: usize) -> &str {
    let start_of_line = text.split_inclusive('\n').take(line - 1).map(str::len).sum::<usize>();
    let rest = &text[start_of_line..];
    let offset = rest.char_indices().nth(column - 1).map_or(rest.len(), |(i, _)| i);
    &rest[offset..]
}

/// A set of string triples (rule, place, what), for comparing findings.
pub fn triples(items: &[(&str, &str, &str)]) -> std::collections::BTreeSet<(String, String, String)> {
    items
        .iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect()
}

/// The element of the array `list` of `doc` whose `key` is `value` (a
/// finding by rule, a notice by code); fails the test, showing `doc`, when
/// there is none.
pub fn item<'d>(doc: &'d serde_json::Value, list: &str, key: &str, value: &str) -> &'d serde_json::Value {
    doc[list]
        .as_array()
        .unwrap_or_else(|| panic!("no `{list}` array in {doc}"))
        .iter()
        .find(|x| x[key] == value)
        .unwrap_or_else(|| panic!("no {key} {value} in `{list}` of {doc}"))
}

/// The first finding of `rule` in a JSON report.
pub fn finding<'d>(doc: &'d serde_json::Value, rule: &str) -> &'d serde_json::Value {
    item(doc, "findings", "rule", rule)
}

/// An entry of the JSON `summary.not_judged`: `subjects` resources of
/// `kind` that `rules` could not judge for a value not known before apply.
pub fn not_judged(rules: &[&str], kind: &str, subjects: usize) -> serde_json::Value {
    serde_json::json!({
        "rules": rules,
        "kind": kind,
        "subjects": subjects,
        "why": "a value these rules read is not known before apply (EX005 names it, at the value)",
    })
}

/// The rule fixtures, `(rule, path)`: tests/fixtures/rules/<RULE>[-<case>].{json,yaml}
/// (or a directory: a Terraform configuration).
pub fn rule_fixtures() -> Vec<(String, String)> {
    let dir = root().join("tests/fixtures/rules");
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("fixtures dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .map(|name| {
            let rule = name.split(['-', '.']).next().unwrap_or_default().to_string();
            (rule, format!("tests/fixtures/rules/{name}"))
        })
        .collect();
    out.sort();
    out
}

/// A fixture's text: a file's, or a directory's files' (a Terraform configuration).
pub fn fixture_text(path: &str) -> String {
    let full = root().join(path);
    if full.is_dir() {
        let mut names: Vec<_> = std::fs::read_dir(&full)
            .expect("fixture dir")
            .map(|e| e.expect("entry").path())
            .collect();
        names.sort();
        names.iter().map(|p| std::fs::read_to_string(p).expect("read fixture")).collect()
    } else {
        std::fs::read_to_string(full).expect("read fixture")
    }
}

pub fn names_with_prefix(text: &str, prefix: &str) -> std::collections::BTreeSet<String> {
    text.match_indices(prefix)
        .map(|(i, _)| {
            text[i..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect::<String>()
        })
        .filter(|name| name.len() > prefix.len())
        .collect()
}

/// The values a clap enum offers, hidden (retired) ones left out: the
/// registry of a `--format`.
fn offered<E: clap::ValueEnum>() -> Vec<String> {
    E::value_variants()
        .iter()
        .filter_map(E::to_possible_value)
        .filter(|v| !v.is_hide_set())
        .map(|v| v.get_name().to_string())
        .collect()
}

/// Every report format `check --format` takes, from its registry (the
/// `report::Format` enum): a test over "every format" iterates these, so a
/// new format is covered by it the day it is added.
pub fn report_formats() -> Vec<String> {
    offered::<edgeaudit::report::Format>()
}

/// Every format `plan --format` offers, from its registry (the `PlanFormat` enum).
pub fn plan_formats() -> Vec<String> {
    offered::<edgeaudit::cli::args::PlanFormat>()
}

/// The files below `dir` whose extension is `extension`, in sorted order,
/// not entering directories named in `skip` (a built book is no source).
pub fn files_with(dir: &Path, extension: &str, skip: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if !path.file_name().is_some_and(|n| skip.iter().any(|s| n == *s)) {
                out.extend(files_with(&path, extension, skip));
            }
        } else if path.extension().is_some_and(|e| e == extension) {
            out.push(path);
        }
    }
    out
}

/// The built-in rules whose id starts with `prefix`, in id order: what a
/// test that means "every CA rule" compares with.
pub fn builtin_rule_ids(prefix: &str) -> Vec<String> {
    let mut ids: Vec<String> = edgeaudit::engine::registry::RuleSet::builtin()
        .expect("built-in rules load")
        .rules
        .iter()
        .map(|r| r.id.to_string())
        .filter(|id| id.starts_with(prefix))
        .collect();
    ids.sort();
    ids
}
