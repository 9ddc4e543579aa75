//! GitLab's Code Quality report: a JSON array of issues, each with its
//! description, check, fingerprint, severity and place, which a merge
//! request shows beside the diff (`artifacts: reports: codequality:` in
//! `.gitlab-ci.yml`). The subset of the Code Climate issue GitLab reads.

use serde::Serialize;

use super::{Context, Which};
use crate::engine::severity::Severity;

#[derive(Serialize)]
struct Issue<'a> {
    description: String,
    check_name: String,
    /// Unique per issue: GitLab shows one issue per fingerprint, and tells
    /// new from fixed by it between a merge request and its target.
    fingerprint: String,
    severity: &'static str,
    location: Location<'a>,
}

#[derive(Serialize)]
struct Location<'a> {
    path: &'a str,
    lines: Lines,
}

#[derive(Serialize)]
struct Lines {
    begin: usize,
}

/// GitLab's scale is info, minor, major, critical, blocker: an error blocks
/// nothing by itself (the run's exit code does), so it is `major`.
fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "major",
        Severity::Warning => "minor",
        Severity::Note => "info",
    }
}

/// A file that was not analysed, or could not be read, as an issue at its place.
fn input_issue<'a>(e: &'a crate::text::error::InputError, check: &str, description: String, severity: &'static str) -> Issue<'a> {
    Issue {
        fingerprint: crate::triage::baseline::fingerprint(check, &e.file, &e.message, None),
        description,
        check_name: check.to_string(),
        severity,
        location: Location {
            path: &e.file,
            lines: Lines { begin: e.line.max(1) },
        },
    }
}

pub fn render(ctx: &Context, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    ctx.with_messages(Which::Active, |messages| {
        let mut issues: Vec<Issue> = ctx
            .outcome
            .active()
            .zip(messages)
            .map(|(f, message)| Issue {
                description: format!("{} {message}", f.rule.id),
                check_name: format!("edgeaudit/{}", f.rule.id),
                fingerprint: ctx.fingerprint(f),
                severity: severity(f.severity),
                location: Location {
                    path: ctx.file(f),
                    lines: Lines { begin: f.location.line },
                },
            })
            .collect();
        // Nothing is left out silently: files not analysed are issues too.
        issues.extend(ctx.outcome.skipped.iter().map(|e| {
            input_issue(
                e,
                "edgeaudit/skipped",
                format!("skipped, not analysed: {}", e.skip_reason()),
                "minor",
            )
        }));
        write(&issues, out)
    })
}

/// A failed run: each input error as an issue at its place.
pub fn failure(failure: &super::Failure, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let issues: Vec<Issue> = failure
        .errors
        .iter()
        .map(|e| input_issue(e, "edgeaudit/input-error", e.to_string(), "blocker"))
        .collect();
    write(&issues, out)
}

fn write(issues: &[Issue], out: &mut dyn std::io::Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, issues).map_err(std::io::Error::other)?;
    writeln!(out)
}
