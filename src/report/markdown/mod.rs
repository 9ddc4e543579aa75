//! A Markdown report for pull-request comments, step summaries and audits:
//! one page whatever the account's size — five lines by migration and by
//! action, a summary table by rule and severity, then the first findings of
//! each rule with the rest counted, then what was accepted, skipped and
//! noted; then pictures: each pool's coverage, and a timeline of the
//! certificates against the chain change.

mod coverage;
mod overview;
mod timeline;

use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::Context;
use super::summary::Summary;
use crate::findings::{Finding, Severity};
use crate::words::plural;

/// Findings listed per rule when `--max-findings` is not given.
pub const DEFAULT_LISTED: usize = 10;
/// Without `--max-findings`, the page stays below this many bytes: a
/// pull-request comment holds 65,536 characters (GitHub's limit on a comment
/// body), and a step summary 1 MiB.
pub const PAGE_BUDGET: usize = 60_000;

/// Text from outside (or our words holding some) inside Markdown: one code
/// span (`text::escape::markdown::code`), no longer than a report shows.
/// In a table cell it also passes through `markdown::cell`.
fn text(s: &str) -> String {
    crate::text::escape::markdown::code(&crate::findings::shown(s))
}

/// A table cell holding text from outside.
fn cell_text(s: &str) -> String {
    crate::text::escape::markdown::cell(&text(s))
}

impl Group<'_> {
    /// The rule's name: ours as it is, a pack's in a code span (a table cell's when `in_table`).
    fn shown_name(&self, in_table: bool) -> String {
        match (self.builtin, in_table) {
            (true, _) => self.name.to_string(),
            (false, true) => cell_text(self.name),
            (false, false) => text(self.name),
        }
    }
}

/// The findings of one rule at one severity: how many, and which are listed.
struct Group<'a> {
    name: &'a str,
    /// The rule is edgeaudit's own: its name is ours, not text from outside.
    builtin: bool,
    count: usize,
    listed: Vec<usize>,
}

pub fn render(ctx: &Context, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let summary = Summary::of(ctx.outcome);
    let mut page = String::new();
    header(ctx, &summary, &mut page);
    if let Some(traffic) = &summary.traffic {
        page.push_str(&format!("{}\n\n", text(&traffic.line())));
    }
    overview::write(ctx, &mut page);
    // The pictures are bounded (rows and bars); the findings' listing gets
    // what they leave of the page.
    let mut pictures = String::new();
    coverage::write(ctx, &mut pictures);
    timeline::write(ctx, &mut pictures);
    if summary.findings == 0 {
        page.push_str("No findings.\n");
    } else {
        findings(ctx, pictures.len(), &mut page);
    }
    page.push_str(&pictures);
    accepted(ctx, &summary, &mut page);
    skipped(ctx, &mut page);
    notices(ctx, &mut page);
    out.write_all(page.as_bytes())
}

fn header(ctx: &Context, summary: &Summary, page: &mut String) {
    let _ = writeln!(page, "# edgeaudit report\n");
    let _ = writeln!(
        page,
        "As of {} ({}) · {} · {}: {}, {}, {} · {} ({}){}\n",
        ctx.outcome.as_of,
        ctx.settings.as_of_source.describe(ctx.settings.config),
        match ctx.settings.config {
            Some(file) => format!("config {}", text(file)),
            None => "no config file".to_string(),
        },
        plural(summary.findings, "finding", "findings"),
        plural(summary.count(Severity::Error), "error", "errors"),
        plural(summary.count(Severity::Warning), "warning", "warnings"),
        plural(summary.count(Severity::Note), "note", "notes"),
        plural(summary.files, "file", "files"),
        summary.records_words(),
        match (summary.skipped_files, summary.skipped_resources) {
            (0, 0) => String::new(),
            (0, r) => format!(" · **{} not analysed**", plural(r, "resource", "resources")),
            (n, 0) => format!(" · **{} skipped, not analysed**", plural(n, "file", "files")),
            (n, r) => format!(
                " · **{} skipped, {} not analysed**",
                plural(n, "file", "files"),
                plural(r, "resource", "resources")
            ),
        }
    );
}

/// The summary table, then a section per rule and severity listing its first
/// findings. One pass groups the findings (linear in their number); only the
/// listed ones have their messages rendered.
fn findings(ctx: &Context, reserved: usize, page: &mut String) {
    let per_rule = ctx.max_listed.unwrap_or(DEFAULT_LISTED);
    // Most severe first, then by rule id.
    let mut groups: BTreeMap<(Reverse<Severity>, &str), Group> = BTreeMap::new();
    for (i, f) in ctx.outcome.findings.iter().enumerate() {
        if f.is_suppressed() {
            continue;
        }
        let group = groups.entry((Reverse(f.severity), f.rule.id.as_str())).or_insert_with(|| Group {
            name: f.rule.name.as_str(),
            builtin: f.rule.builtin,
            count: 0,
            listed: Vec::new(),
        });
        group.count += 1;
        // With traffic every finding is a candidate: the listed ones are those that hurt most.
        if group.listed.len() < per_rule || ctx.outcome.traffic.is_some() {
            group.listed.push(i);
        }
    }
    if ctx.outcome.traffic.is_some() {
        for group in groups.values_mut() {
            let findings: Vec<&Finding> = group.listed.iter().map(|&i| &ctx.outcome.findings[i]).collect();
            let order = ctx.listing_order(&findings);
            group.listed = order.into_iter().take(per_rule).map(|k| group.listed[k]).collect();
        }
    }
    let _ = writeln!(page, "| Rule | Name | Severity | Findings |\n|---|---|---|---:|");
    for ((Reverse(severity), id), group) in &groups {
        let _ = writeln!(
            page,
            "| {} | {} | {severity} | {} |",
            rule_link(ctx, id),
            group.shown_name(true),
            group.count
        );
    }
    let mut listed = vec![false; ctx.outcome.findings.len()];
    for group in groups.values() {
        for &i in &group.listed {
            listed[i] = true;
        }
    }
    let messages: BTreeMap<usize, String> = ctx.with_rendered(
        |i, _| listed[i],
        |f| ctx.markdown_message(f),
        |messages| {
            groups
                .values()
                .flat_map(|g| g.listed.iter().copied())
                .collect::<std::collections::BTreeSet<usize>>()
                .into_iter()
                .zip(messages)
                .collect()
        },
    );
    // Only the default listing is bounded by size: `--max-findings N` lists
    // what was asked for.
    let budget = if ctx.max_listed.is_some() {
        usize::MAX
    } else {
        PAGE_BUDGET.saturating_sub(reserved)
    };
    let mut unlisted_for_size = 0;
    for ((Reverse(severity), id), group) in &groups {
        let _ = writeln!(
            page,
            "\n## {id} {} · {severity} · {}\n",
            group.shown_name(false),
            plural(group.count, "finding", "findings")
        );
        let mut shown = 0;
        for &i in &group.listed {
            let f = &ctx.outcome.findings[i];
            let line = item(ctx, f, messages.get(&i).map_or("", String::as_str));
            if page.len() + line.len() > budget {
                unlisted_for_size += group.listed.len() - shown;
                break;
            }
            page.push_str(&line);
            shown += 1;
        }
        if group.count > shown {
            let _ = writeln!(page, "- … and {}", plural(group.count - shown, "more finding", "more findings"));
        }
    }
    let _ = writeln!(
        page,
        "\n{}`--format json` or `--format sarif` lists every finding{}.",
        if unlisted_for_size > 0 {
            format!("{unlisted_for_size} listed findings were left out to keep this page within a pull-request comment's size. ")
        } else {
            String::new()
        },
        if ctx.max_listed.is_none() {
            format!("; `--max-findings N` lists N of each rule here (default {DEFAULT_LISTED})")
        } else {
            String::new()
        }
    );
}

/// A rule's id, linked to its page where the build knows the published book.
fn rule_link(ctx: &Context, id: &str) -> String {
    match ctx.rules.get(id).and_then(|r| crate::engine::docs::page_url(r)) {
        Some(url) => format!("[{id}]({url})"),
        None => id.to_string(),
    }
}

/// `- pool `web` (17b5…) — message · `pools.json:15:29``, and its traffic.
fn item(ctx: &Context, f: &Finding, message: &str) -> String {
    let impact = ctx.outcome.impact(f).map_or(String::new(), |i| {
        let share = i.share.map_or("no request".to_string(), crate::traffic::impact::percent);
        format!(" · **{share}** — {}", text(&crate::traffic::impact::words(&i)))
    });
    format!(
        "- {} — {} · {}{impact}\n",
        resource_title(ctx, f),
        message.replace(['\n', '\r'], " "),
        text(&format!("{}:{}:{}", ctx.file(f), f.location.line, f.location.column)),
    )
}

fn resource_title(ctx: &Context, f: &Finding) -> String {
    let r = ctx.resource(f);
    match (r.name.is_empty(), r.id.is_empty()) {
        (false, false) => format!("{} {} ({})", r.kind, text(&r.name), text(&r.id)),
        (false, true) => format!("{} {}", r.kind, text(&r.name)),
        (true, false) => format!("{} {}", r.kind, text(&r.id)),
        (true, true) => r.kind.to_string(),
    }
}

/// What waivers and the baseline accepted, and why: an auditor reads this.
/// Counted per rule and per waiver (a baseline can accept every finding).
fn accepted(ctx: &Context, summary: &Summary, page: &mut String) {
    if summary.suppressed_total() == 0 {
        return;
    }
    let _ = writeln!(
        page,
        "\n## Accepted findings\n\n{} waived, {} known from the baseline; they do not fail the run.\n",
        summary.suppressed.waived, summary.suppressed.baseline
    );
    let mut by_rule: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut by_waiver: BTreeMap<u32, usize> = BTreeMap::new();
    for f in ctx.outcome.findings.iter().filter(|f| f.is_suppressed()) {
        let counts = by_rule.entry(f.rule.id.as_str()).or_default();
        match f.suppression {
            Some(crate::triage::Suppression::Waiver(w)) => {
                counts.0 += 1;
                *by_waiver.entry(w).or_default() += 1;
            }
            _ => counts.1 += 1,
        }
    }
    let _ = writeln!(page, "| Rule | Waived | Baseline |\n|---|---:|---:|");
    for (id, (waived, baseline)) in &by_rule {
        let _ = writeln!(page, "| {id} | {waived} | {baseline} |");
    }
    if by_waiver.is_empty() {
        return;
    }
    let _ = writeln!(page, "\n| Waiver | Until | Findings | Why |\n|---|---|---:|---|");
    for (w, count) in by_waiver {
        if let Some(waiver) = ctx.outcome.triage.waivers.get(w as usize) {
            let _ = writeln!(
                page,
                "| {} | {} | {count} | {} |",
                cell_text(&format!("{}:{}:{}", waiver.place.file, waiver.place.line, waiver.place.column)),
                waiver.expires.map_or_else(|| "—".to_string(), |d| d.to_string()),
                cell_text(&waiver.reason)
            );
        }
    }
}

fn skipped(ctx: &Context, page: &mut String) {
    if ctx.outcome.skipped.is_empty() {
        return;
    }
    let _ = writeln!(page, "\n## Skipped files (not analysed)\n");
    for e in &ctx.outcome.skipped {
        let _ = writeln!(page, "- {}: {}", text(&e.file), text(e.skip_reason()));
    }
}

fn notices(ctx: &Context, page: &mut String) {
    if ctx.outcome.triage.notices.is_empty() {
        return;
    }
    let _ = writeln!(page, "\n## Notices\n");
    for n in &ctx.outcome.triage.notices {
        let _ = writeln!(
            page,
            "- `{}` {} ({})",
            n.code,
            text(&n.message),
            text(&format!("{}:{}:{}", n.place.file, n.place.line, n.place.column)),
        );
    }
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
        // A usage or config error without a place has no line to show.
        let (line, column) = match e.line {
            0 => (String::new(), String::new()),
            line => (line.to_string(), e.column.to_string()),
        };
        writeln!(out, "| {} | {line} | {column} | {} |", cell_text(&e.file), cell_text(&e.message))?;
    }
    Ok(())
}
