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

/// What is not a finding (a file not analysed or unreadable, a run's note)
/// as an issue at its place, told apart by its check, file and text.
fn issue_at<'a>(path: &'a str, line: usize, check: &str, description: String, severity: &'static str) -> Issue<'a> {
    Issue {
        fingerprint: crate::triage::baseline::fingerprint(check, path, &description, None),
        description,
        check_name: check.to_string(),
        severity,
        location: Location {
            path,
            lines: Lines { begin: line.max(1) },
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
            issue_at(
                &e.file,
                e.line,
                "edgeaudit/skipped",
                format!("skipped, not analysed: {}", e.skip_reason()),
                "minor",
            )
        }));
        // The run's notes (a waiver expired, an as-of date before the export…), at their place.
        issues.extend(ctx.outcome.triage.notices.iter().map(|n| {
            issue_at(
                &n.place.file,
                n.place.line,
                &format!("edgeaudit/{}", n.code),
                format!("note[{}]: {}", n.code, n.message),
                "info",
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
        .map(|e| issue_at(&e.file, e.line, "edgeaudit/input-error", e.to_string(), "blocker"))
        .collect();
    write(&issues, out)
}

fn write(issues: &[Issue], out: &mut dyn std::io::Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, issues).map_err(std::io::Error::other)?;
    writeln!(out)
}
