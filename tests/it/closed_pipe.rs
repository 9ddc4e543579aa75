//! A reader that goes away (`edgeaudit … 2>&1 | head -1`) is never a panic:
//! every command, with standard output, standard error or both a pipe whose
//! reading end is already closed, exits with its own code (0, 1 or 2).
//! Writing to a closed pipe fails on the first write, so these runs are as
//! hostile as a pipe can be, and they do not depend on timing.

use crate::common;

use std::process::{Command, Stdio};

/// A pipe whose reading end is closed: every write to it fails with EPIPE.
fn closed() -> Stdio {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    Stdio::from(writer)
}

/// Which streams are closed.
#[derive(Debug, Clone, Copy)]
enum Closed {
    Stdout,
    Stderr,
    Both,
}

/// Runs edgeaudit with the given streams closed; the exit code, and what it
/// wrote on the streams left open.
fn run_closed(args: &[&str], closed_streams: Closed) -> (i32, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_edgeaudit"));
    command.args(args).current_dir(common::root()).stdin(Stdio::null());
    for name in [
        "CLOUDFLARE_API_TOKEN",
        "CLOUDFLARE_EMAIL",
        "CLOUDFLARE_API_KEY",
        "CLOUDFLARE_API_BASE",
    ] {
        command.env_remove(name);
    }
    let (stdout, stderr) = match closed_streams {
        Closed::Stdout => (closed(), Stdio::piped()),
        Closed::Stderr => (Stdio::piped(), closed()),
        Closed::Both => (closed(), closed()),
    };
    let out = command.stdout(stdout).stderr(stderr).output().expect("run edgeaudit");
    let open = String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    (out.status.code().unwrap_or(-1), open)
}

#[test]
fn every_command_keeps_its_exit_code_when_its_reader_is_gone() {
    let skipped = common::temp_dir(&[
        ("package.json", b"{\"name\": \"x\"}"),
        ("tsconfig.json", b"{\"compilerOptions\": {}}"),
        (
            "pools.json",
            br#"{"result": [{"id": "p1", "name": "web", "origins": [], "notification_email": "ops@x.io"}]}"#,
        ),
    ]);
    let skipped = common::path_str(skipped.path());
    let cases: Vec<(Vec<&str>, i32)> = vec![
        (vec!["check", "fixtures/demo", "--as-of", "2024-10-01"], 1),
        (vec!["check", "fixtures/demo", "--as-of", "2024-10-01", "--format", "json"], 1),
        (vec!["check", "fixtures/demo", "--as-of", "2024-10-01", "--statistics"], 1),
        // Skipped files are warned about on standard error.
        (vec!["check", &skipped, "--format", "json"], 1),
        (vec!["check", "no-such-file.json"], 2),
        (vec!["plan", "fixtures/demo", "--as-of", "2024-10-01"], 0),
        (vec!["plan", "fixtures/demo", "--as-of", "2024-10-01", "--format", "json"], 0),
        (vec!["plan", "tests/fixtures/terraform/hcl-v4", "--format", "terraform"], 0),
        (vec!["inventory", "fixtures/demo"], 0),
        (vec!["rules"], 0),
        (vec!["explain", "LB001"], 0),
        (vec!["explain", "XX999"], 2),
        (vec!["man"], 0),
        (vec!["completions", "bash"], 0),
        (vec!["config-schema"], 0),
        (vec!["--help"], 0),
        (vec!["check", "--no-such-flag"], 2),
    ];
    for (args, code) in &cases {
        for closed_streams in [Closed::Stdout, Closed::Stderr, Closed::Both] {
            let (got, open) = run_closed(args, closed_streams);
            assert!(!open.contains("panicked"), "{args:?} with {closed_streams:?} closed: {open}");
            assert_eq!(got, *code, "{args:?} with {closed_streams:?} closed: {open}");
        }
    }
}
