//! A Mermaid timeline (a Gantt chart, which GitHub renders in comments and
//! job summaries): each certificate as a bar from upload to expiry, by CA,
//! against the change's dates and the as-of date. A page holds a few dozen
//! bars: the certificates the change is about come first (a cross-signed
//! chain, then Let's Encrypt, soonest expiry first); the rest are counted.

use std::fmt::Write as _;

use super::super::Context;
use crate::report::views::timeline::{Timeline, ca_words, cross_signed, timeline};
use crate::words::plural;

/// Bars drawn at most.
pub const MAX_BARS: usize = 30;

/// Text from an export as a Mermaid task name: a task's name ends at `:`,
/// and `#`, `;` and markup mean something too, so only plain characters pass.
fn task_name(s: &str) -> String {
    let cleaned: String = s
        .chars()
        .take(60)
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '*' | '-' | '_' | ' ' | '(' | ')' | '+' | '\'') {
                c
            } else {
                '_'
            }
        })
        .collect();
    cleaned.trim().to_string()
}

pub fn write(ctx: &Context, page: &mut String) {
    let Timeline {
        bars,
        certificates,
        drawable,
        undated,
    } = timeline(ctx, MAX_BARS);
    if certificates == 0 {
        return;
    }
    let _ = writeln!(page, "\n## Certificates against the chain change\n");
    if bars.is_empty() {
        let _ = writeln!(
            page,
            "{} without both an upload and an expiry date in the export: nothing to draw.",
            plural(certificates, "certificate", "certificates")
        );
        return;
    }
    let as_of = ctx.outcome.as_of;
    let _ = writeln!(page, "```mermaid\ngantt\n    dateFormat YYYY-MM-DD\n    axisFormat %Y-%m");
    let _ = writeln!(page, "    section The change");
    for d in crate::engine::dates::DATES {
        let _ = writeln!(
            page,
            "    {} {} : milestone, {}, 0d",
            task_name(&d.name.replace('_', " ")),
            d.shown,
            d.day
        );
    }
    let _ = writeln!(page, "    As of {as_of} : milestone, {as_of}, 0d");
    // Sections by CA, in the order of their first bar.
    let mut sections: Vec<&str> = Vec::new();
    for bar in &bars {
        if !sections.contains(&bar.row.ca.as_str()) {
            sections.push(bar.row.ca.as_str());
        }
    }
    for ca in sections {
        let _ = writeln!(page, "    section {}", task_name(ca_words(ca)));
        for bar in bars.iter().filter(|b| b.row.ca == ca) {
            let mut hosts = bar.row.hosts.split_whitespace();
            let first = hosts.next().unwrap_or(bar.row.id.as_str());
            let more = hosts.count();
            let more = if more > 0 { format!(" +{more}") } else { String::new() };
            let kind = bar.row.kind.replace('_', " ");
            let chain = if cross_signed(&bar.row) { " cross-signed chain" } else { "" };
            // crit: a chain through the retired cross-sign; done: expired by the as-of date.
            let mut tags = Vec::new();
            if cross_signed(&bar.row) {
                tags.push("crit");
            }
            if bar.until < as_of {
                tags.push("done");
            } else if bar.row.ca == "lets_encrypt" {
                tags.push("active");
            }
            let tags: String = tags.iter().map(|t| format!("{t}, ")).collect();
            let _ = writeln!(
                page,
                "    {} : {tags}{}, {}",
                task_name(&format!("{first}{more} ({kind}{chain})")),
                bar.from,
                bar.until
            );
        }
    }
    let _ = writeln!(page, "```\n");
    let mut left = Vec::new();
    if drawable > bars.len() {
        left.push(format!("{} more with both dates", drawable - bars.len()));
    }
    if undated > 0 {
        left.push(format!("{undated} without an upload and an expiry date in the export"));
    }
    let _ = writeln!(
        page,
        "{} of {} drawn{}. A bar runs from upload to expiry; red (`crit`): a chain through the cross-signed ISRG Root X1; grey (`done`): expired by the as-of date; blue (`active`): Let's Encrypt. `edgeaudit inventory` lists every certificate.",
        bars.len(),
        plural(certificates, "certificate", "certificates"),
        if left.is_empty() {
            String::new()
        } else {
            format!(" (not drawn: {})", left.join(", "))
        },
    );
}
