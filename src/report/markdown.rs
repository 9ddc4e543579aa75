//! A Markdown report for pull-request comments and audits: a summary table by
//! rule and severity, then the findings grouped by resource.

use std::collections::BTreeMap;

use super::summary::Summary;
use super::{Context, Which};
use crate::findings::{Finding, Severity};

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

pub fn render(ctx: &Context, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let summary = Summary::of(ctx.outcome);
    writeln!(out, "# edgeaudit report\n")?;
    writeln!(
        out,
        "As of {} · {} finding(s): {} error(s), {} warning(s), {} note(s) · {} file(s), {} record(s){}\n",
        ctx.outcome.as_of,
        summary.findings,
        summary.count(Severity::Error),
        summary.count(Severity::Warning),
        summary.count(Severity::Note),
        summary.files,
        summary.records_total(),
        match summary.skipped_files {
            0 => String::new(),
            n => format!(" · **{n} file(s) skipped, not analysed**"),
        }
    )?;
    let messages: Vec<String> = ctx.with_messages(Which::All, |m| m.collect());
    if summary.findings == 0 {
        writeln!(out, "No findings.")?;
    } else {
        findings(ctx, &messages, out)?;
    }
    accepted(ctx, &summary, out)?;
    skipped(ctx, out)?;
    notices(ctx, out)
}

fn skipped(ctx: &Context, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    if ctx.outcome.skipped.is_empty() {
        return Ok(());
    }
    writeln!(out, "\n## Skipped files (not analysed)\n")?;
    for e in &ctx.outcome.skipped {
        writeln!(out, "- `{}`: {}", e.file, cell(e.skip_reason()))?;
    }
    Ok(())
}

fn findings(ctx: &Context, messages: &[String], out: &mut dyn std::io::Write) -> std::io::Result<()> {
    writeln!(out, "| Rule | Name | Severity | Findings |\n|---|---|---|---:|")?;
    let mut by_rule: BTreeMap<(&str, &str, &str), usize> = BTreeMap::new();
    for f in ctx.outcome.active() {
        *by_rule
            .entry((f.rule.id.as_str(), f.rule.name.as_str(), f.severity.as_str()))
            .or_default() += 1;
    }
    for ((id, name, severity), n) in &by_rule {
        writeln!(out, "| {id} | {name} | {severity} | {n} |")?;
    }
    // Findings grouped by resource, resources in the order of their first finding.
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, f) in ctx.outcome.findings.iter().enumerate() {
        if f.is_suppressed() {
            continue;
        }
        let title = resource_title(ctx, f);
        match groups.iter_mut().find(|(t, _)| *t == title) {
            Some((_, list)) => list.push(i),
            None => groups.push((title, vec![i])),
        }
    }
    for (title, list) in &groups {
        writeln!(out, "\n## {title}\n")?;
        for &i in list {
            let f = &ctx.outcome.findings[i];
            writeln!(
                out,
                "- **{}** {} — {} (`{}:{}:{}` `{}`)",
                f.rule.id,
                f.severity,
                cell(&messages[i]),
                ctx.file(f),
                f.location.line,
                f.location.column,
                f.location.pointer
            )?;
        }
    }
    Ok(())
}

fn resource_title(ctx: &Context, f: &Finding) -> String {
    let r = ctx.resource(f);
    match (r.name.is_empty(), r.id.is_empty()) {
        (false, false) => format!("{} `{}` ({})", r.kind, r.name, r.id),
        (false, true) => format!("{} `{}`", r.kind, r.name),
        (true, false) => format!("{} `{}`", r.kind, r.id),
        (true, true) => r.kind.to_string(),
    }
}

/// What waivers and the baseline accepted, and why: an auditor reads this.
fn accepted(ctx: &Context, summary: &Summary, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    if summary.suppressed_total() == 0 {
        return Ok(());
    }
    writeln!(
        out,
        "\n## Accepted findings\n\n{} waived, {} known from the baseline; they do not fail the run.\n",
        summary.suppressed.waived, summary.suppressed.baseline
    )?;
    writeln!(out, "| Rule | Severity | Resource | Why |\n|---|---|---|---|")?;
    for f in ctx.outcome.findings.iter().filter(|f| f.is_suppressed()) {
        writeln!(
            out,
            "| {} | {} | {} | {} |",
            f.rule.id,
            f.severity,
            cell(&resource_title(ctx, f)),
            cell(&ctx.justification(f).unwrap_or_default())
        )?;
    }
    Ok(())
}

fn notices(ctx: &Context, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    if ctx.outcome.triage.notices.is_empty() {
        return Ok(());
    }
    writeln!(out, "\n## Notices\n")?;
    for n in &ctx.outcome.triage.notices {
        writeln!(
            out,
            "- `{}` {} (`{}:{}:{}`)",
            n.code,
            cell(&n.message),
            n.place.file,
            n.place.line,
            n.place.column
        )?;
    }
    Ok(())
}

/// A failed run: an error section naming every error.
pub fn failure(failure: &super::Failure, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    writeln!(out, "## edgeaudit: the input could not be analysed\n")?;
    writeln!(
        out,
        "The run stopped with exit code 2 before any finding: fix these and run it again.\n"
    )?;
    writeln!(out, "| file | line | column | error |")?;
    writeln!(out, "|---|---:|---:|---|")?;
    for e in failure.errors {
        writeln!(out, "| {} | {} | {} | {} |", cell(&e.file), e.line, e.column, cell(&e.message))?;
    }
    Ok(())
}
