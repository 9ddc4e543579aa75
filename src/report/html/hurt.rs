//! Who is hurt (`--traffic`): the certificate resources of the findings that
//! count, one row each, ranked by the requests that come from impacted
//! clients, then by share — the table a provider works down. A resource with
//! no request in the traffic is left to the findings below; at most
//! [`MAX_ROWS`] rows, the rest counted.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::super::Context;
use super::text;
use crate::facts::SubjectRef;
use crate::html::escape;
use crate::traffic::impact::{Impact, percent};
use crate::words::{plural, thousands};

/// Rows at most: the head of the ranking is what a page is read for.
pub const MAX_ROWS: usize = 100;

struct Row {
    subject: SubjectRef,
    impact: Impact,
    /// The rules that found it, in the order met.
    rules: Vec<String>,
    finding: usize,
}

pub fn write(ctx: &Context, page: &mut String) {
    if ctx.outcome.traffic.is_none() {
        return;
    }
    let mut rows: Vec<Row> = Vec::new();
    let mut at: HashMap<SubjectRef, usize> = HashMap::new();
    for (i, f) in ctx.outcome.findings.iter().enumerate().filter(|(_, f)| !f.is_suppressed()) {
        let Some(impact) = ctx.outcome.impact(f).filter(|i| i.requests > 0) else {
            continue;
        };
        match at.get(&f.subject) {
            Some(&r) => {
                if !rows[r].rules.iter().any(|id| id == &f.rule.id) {
                    rows[r].rules.push(f.rule.id.clone());
                }
            }
            None => {
                at.insert(f.subject, rows.len());
                rows.push(Row {
                    subject: f.subject,
                    impact,
                    rules: vec![f.rule.id.clone()],
                    finding: i,
                });
            }
        }
    }
    let share = |r: &Row| r.impact.share.unwrap_or(0.0);
    rows.sort_by(|a, b| {
        b.impact
            .impacted
            .cmp(&a.impact.impacted)
            .then(share(b).total_cmp(&share(a)))
            .then(a.subject.cmp(&b.subject))
    });
    page.push_str("<section id=\"hurt\" aria-labelledby=\"hurt-h\">\n<h2 id=\"hurt-h\">Who is hurt</h2>\n");
    if rows.is_empty() {
        page.push_str("<p>No certificate finding's hosts had a request in the traffic given.</p>\n</section>\n");
        return;
    }
    let _ = writeln!(
        page,
        "<p>{} with requests in the traffic, by requests from impacted clients, then share{}.</p>",
        plural(rows.len(), "certificate resource", "certificate resources"),
        if rows.len() > MAX_ROWS {
            format!(" (the first {MAX_ROWS}; every one is in the findings below)")
        } else {
            String::new()
        }
    );
    page.push_str("<div class=\"scroll\"><table class=\"hurt\">\n<thead><tr><th scope=\"col\">Resource</th><th scope=\"col\">Kind</th><th scope=\"col\">Rules</th><th scope=\"col\" class=\"num\" aria-sort=\"descending\">Impacted requests</th><th scope=\"col\" class=\"num\">Requests</th><th scope=\"col\" class=\"num\">Share</th><th scope=\"col\" class=\"num\">Up to</th></tr></thead>\n<tbody>\n");
    for row in rows.iter().take(MAX_ROWS) {
        let f = &ctx.outcome.findings[row.finding];
        let r = ctx.resource(f);
        let name = match (r.name.is_empty(), r.id.is_empty()) {
            (false, false) if r.name != r.id => format!("{} ({})", text(&r.name), text(&r.id)),
            (false, _) => text(&r.name),
            _ => text(&r.id),
        };
        let i = &row.impact;
        let _ = writeln!(
            page,
            "<tr data-impacted=\"{}\"><th scope=\"row\">{name}{}</th><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            i.impacted,
            if i.lower_bound {
                " <span class=\"muted\" title=\"a lower bound: the window starts after the cross-signed chain was gone\">(at least)</span>"
            } else {
                ""
            },
            escape(&f.subject.kind.as_str().replace('_', " ")),
            escape(&row.rules.join(", ")),
            thousands(i.impacted),
            thousands(i.requests),
            i.share.map_or(String::new(), percent),
            i.upper_share.map_or(String::new(), percent),
        );
    }
    page.push_str("</tbody>\n</table></div>\n</section>\n");
}
