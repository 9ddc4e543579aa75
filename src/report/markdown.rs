//! A Markdown report for pull-request comments and audits: a summary table by
//! rule and severity, then the findings grouped by resource.

use std::collections::BTreeMap;

use super::Context;
use super::summary::Summary;
use crate::findings::Severity;

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

pub fn render(ctx: &Context, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let summary = Summary::of(ctx.outcome);
    writeln!(out, "# edgeaudit report\n")?;
    writeln!(
        out,
        "As of {} · {} finding(s): {} error(s), {} warning(s), {} note(s) · {} file(s), {} record(s)\n",
        ctx.outcome.as_of,
        summary.findings,
        summary.count(Severity::Error),
        summary.count(Severity::Warning),
        summary.count(Severity::Note),
        summary.files,
        summary.records_total()
    )?;
    if summary.findings == 0 {
        return writeln!(out, "No findings.");
    }
    writeln!(out, "| Rule | Name | Severity | Findings |\n|---|---|---|---:|")?;
    let mut by_rule: BTreeMap<(&str, &str, &str), usize> = BTreeMap::new();
    for f in &ctx.outcome.findings {
        *by_rule
            .entry((f.rule.id.as_str(), f.rule.name.as_str(), f.severity.as_str()))
            .or_default() += 1;
    }
    for ((id, name, severity), n) in &by_rule {
        writeln!(out, "| {id} | {name} | {severity} | {n} |")?;
    }
    // Findings grouped by resource, resources in the order of their first finding.
    let messages: Vec<String> = ctx.with_messages(|m| m.collect());
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, f) in ctx.outcome.findings.iter().enumerate() {
        let r = ctx.resource(f);
        let title = match (r.name.is_empty(), r.id.is_empty()) {
            (false, false) => format!("{} `{}` ({})", r.kind, r.name, r.id),
            (false, true) => format!("{} `{}`", r.kind, r.name),
            (true, false) => format!("{} `{}`", r.kind, r.id),
            (true, true) => r.kind.to_string(),
        };
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
