//! The report's opening: when and by what it was judged, the findings by
//! migration and severity with the resources they are about, and the three
//! things people act on; at its end, what was skipped and noted.

use std::fmt::Write as _;

use super::super::Context;
use super::super::summary::Summary;
use super::text;
use crate::engine::rule::Migration;
use crate::findings::Severity;
use crate::html::escape;
use crate::report::views::overview::{ACTIONS, tallies};
use crate::words::plural;

pub fn meta(ctx: &Context, summary: &Summary, page: &mut String) {
    let _ = writeln!(
        page,
        "<p class=\"meta\">As of <strong>{}</strong> ({}) · {} · {} ({}){}</p>",
        ctx.outcome.as_of,
        escape(&ctx.settings.as_of_source.describe(ctx.settings.config)),
        match ctx.settings.config {
            Some(file) => format!("config <code>{}</code>", escape(file)),
            None => "no config file".to_string(),
        },
        plural(summary.files, "file", "files"),
        summary.records_words(),
        match (summary.skipped_files, summary.skipped_resources) {
            (0, 0) => String::new(),
            (n, r) => format!(
                " · <strong>{} skipped, {} not analysed</strong> (listed at the end)",
                plural(n, "file", "files"),
                plural(r, "resource", "resources")
            ),
        }
    );
}

/// One table: a row per migration, the findings by severity and the
/// resources they are about; then the three lines of what to do.
pub fn write(ctx: &Context, summary: &Summary, page: &mut String) {
    let (migrations, actions) = tallies(ctx);
    page.push_str("<section id=\"summary\" aria-labelledby=\"summary-h\">\n<h2 id=\"summary-h\">Summary</h2>\n");
    let _ = writeln!(
        page,
        "<p>{}: {}, {}, {}{}.</p>",
        plural(summary.findings, "finding", "findings"),
        plural(summary.count(Severity::Error), "error", "errors"),
        plural(summary.count(Severity::Warning), "warning", "warnings"),
        plural(summary.count(Severity::Note), "note", "notes"),
        match summary.suppressed_total() {
            0 => String::new(),
            n => format!(" ({} accepted by waivers or the baseline, not counted)", n),
        }
    );
    if let Some(traffic) = &summary.traffic {
        let _ = writeln!(page, "<p class=\"traffic\">{}</p>", escape(&traffic.line()));
    }
    page.push_str("<div class=\"scroll\"><table class=\"summary\">\n<caption class=\"muted\">Findings that count, by migration and severity</caption>\n<thead><tr><th scope=\"col\">Migration</th><th scope=\"col\" class=\"num\">Errors</th><th scope=\"col\" class=\"num\">Warnings</th><th scope=\"col\" class=\"num\">Notes</th><th scope=\"col\">About</th></tr></thead>\n<tbody>\n");
    for migration in [Migration::Notifications, Migration::Certificates, Migration::Export] {
        let tally = migrations.get(&migration);
        let count = |s: Severity| tally.and_then(|t| t.by_severity.get(&s)).copied().unwrap_or(0);
        let _ = writeln!(
            page,
            "<tr><th scope=\"row\">{}</th><td class=\"num sev-error\">{}</td><td class=\"num sev-warning\">{}</td><td class=\"num sev-note\">{}</td><td>{}</td></tr>",
            escape(migration.words()),
            count(Severity::Error),
            count(Severity::Warning),
            count(Severity::Note),
            tally.map_or_else(|| "no findings".to_string(), |t| escape(&t.resources_words()))
        );
    }
    page.push_str("</tbody>\n</table></div>\n<ul class=\"actions\">\n");
    for (action, what) in ACTIONS {
        let line = match actions.get(&action) {
            Some(t) => format!(
                "{} — {} ({})",
                escape(&t.resources_words()),
                crate::html::with_code_spans(what),
                escape(&t.rules_words())
            ),
            None => "none".to_string(),
        };
        let _ = writeln!(page, "<li><strong>{}</strong>: {line}</li>", escape(action.words()));
    }
    page.push_str("</ul>\n</section>\n");
}

/// Skipped files, resources not analysed, and the run's notes.
pub fn skipped_and_notices(ctx: &Context, page: &mut String) {
    let skipped = super::super::summary::SkippedFile::all(ctx.outcome);
    let notices = &ctx.outcome.triage.notices;
    if skipped.is_empty() && notices.is_empty() {
        return;
    }
    page.push_str("<section id=\"notes\" aria-labelledby=\"notes-h\">\n<h2 id=\"notes-h\">Skipped and noted</h2>\n<ul>\n");
    for s in skipped.iter().take(super::findings::MAX_LISTED) {
        let place = match (s.line, s.column) {
            (Some(l), Some(c)) => format!("{}:{l}:{c}", text(&s.file)),
            _ => text(&s.file),
        };
        let _ = writeln!(page, "<li>skipped <code>{place}</code>: {}</li>", text(&s.reason));
    }
    if skipped.len() > super::findings::MAX_LISTED {
        let _ = writeln!(
            page,
            "<li>{} more skipped (the JSON report lists every one)</li>",
            skipped.len() - super::findings::MAX_LISTED
        );
    }
    for n in notices {
        let _ = writeln!(
            page,
            "<li>note <code>{}:{}:{}</code>: {}</li>",
            text(&n.place.file),
            n.place.line,
            n.place.column,
            text(&n.message)
        );
    }
    page.push_str("</ul>\n</section>\n");
}
