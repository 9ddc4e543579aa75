//! The pool × policy matrix: a row per pool with a legacy e-mail (gaps
//! first), a column per policy that delivers any of them, a cell saying
//! whether the policy covers the pool, and what no policy delivers — the
//! gaps — highlighted and named. Read from the same coverage facts the LB
//! rules judge (`report/views/coverage.rs`).

use std::fmt::Write as _;

use super::super::Context;
use super::text;
use crate::facts::coverage::Coverage;
use crate::report::views::coverage::rows;
use crate::words::plural;

/// Rows and policy columns at most.
pub const MAX_POOLS: usize = 200;
pub const MAX_POLICIES: usize = 40;

fn list(values: &[String]) -> String {
    if values.is_empty() {
        "—".to_string()
    } else {
        values.iter().map(|v| text(v)).collect::<Vec<_>>().join(", ")
    }
}

/// `pool Healthy, pool Unhealthy, origin Unhealthy` as `pool: Healthy,
/// Unhealthy · origin: Unhealthy` (events are `source health`).
fn events(values: &[String]) -> String {
    let mut by_source: Vec<(&str, Vec<&str>)> = Vec::new();
    for v in values {
        let (source, health) = v.split_once(' ').unwrap_or((v.as_str(), ""));
        match by_source.iter_mut().find(|(s, _)| *s == source) {
            Some((_, healths)) => healths.push(health),
            None => by_source.push((source, vec![health])),
        }
    }
    if by_source.is_empty() {
        return "—".to_string();
    }
    by_source
        .iter()
        .map(|(source, healths)| format!("{}: {}", text(source), text(&healths.join(", "))))
        .collect::<Vec<_>>()
        .join(" · ")
}

pub fn write(ctx: &Context, page: &mut String) {
    let rows = rows(ctx);
    if rows.is_empty() {
        return;
    }
    let shown = &rows[..rows.len().min(MAX_POOLS)];
    // The policies that deliver any shown pool's alerts, by how many pools they cover.
    let mut policies: Vec<(&str, usize)> = Vec::new();
    for row in shown {
        for p in &row.covering {
            match policies.iter_mut().find(|(name, _)| *name == p.as_str()) {
                Some(entry) => entry.1 += 1,
                None => policies.push((p.as_str(), 1)),
            }
        }
    }
    policies.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let more_policies = policies.len().saturating_sub(MAX_POLICIES);
    policies.truncate(MAX_POLICIES);
    page.push_str("<section id=\"coverage\" aria-labelledby=\"coverage-h\">\n<h2 id=\"coverage-h\">Pools with a legacy e-mail × the policies that deliver their alerts</h2>\n");
    page.push_str("<p class=\"note\">A pool's legacy <code>notification_email</code> can be cleared once every event and recipient it e-mails is delivered by a covering policy: rows with a gap need a policy first.</p>\n");
    page.push_str("<div class=\"scroll\"><table class=\"matrix\">\n<thead><tr><th scope=\"col\">Pool</th><th scope=\"col\">Legacy recipients</th><th scope=\"col\">Events</th><th scope=\"col\">Covered</th>");
    for (name, _) in &policies {
        let _ = write!(page, "<th scope=\"col\">{}</th>", text(name));
    }
    page.push_str("<th scope=\"col\">Not delivered by any policy</th></tr></thead>\n<tbody>\n");
    for row in shown {
        let gap = !row.uncovered_events.is_empty() || !row.uncovered_recipients.is_empty() || row.coverage == Some(Coverage::None);
        let verdict = match row.coverage {
            Some(Coverage::Full) => "yes: clear now",
            Some(Coverage::Partial) => "partly: create a policy first",
            Some(Coverage::None) => "no: create a policy first",
            Some(Coverage::Unknown) => "not known before apply (EX005)",
            Some(Coverage::NotApplicable) | None => "",
        };
        let accepted = if row.accepted {
            " (accepted: a waiver or the baseline)"
        } else {
            ""
        };
        let name = if row.name == row.id {
            text(&row.name)
        } else {
            format!("{}<br><small class=\"muted\">{}</small>", text(&row.name), text(&row.id))
        };
        let _ = write!(
            page,
            "<tr class=\"{}\" data-pool=\"{}\" data-coverage=\"{}\"><th scope=\"row\">{name}</th><td>{}</td><td>{}</td><td>{}{accepted}</td>",
            if gap { "gap" } else { "covered" },
            text(&row.id),
            text(row.coverage.map_or("", Coverage::as_str)),
            list(&row.recipients),
            events(&row.events),
            verdict,
        );
        for (name, _) in &policies {
            if row.covering.iter().any(|p| p == name) {
                page.push_str("<td class=\"covers\">✓ covers</td>");
            } else {
                page.push_str("<td class=\"none\"><span class=\"muted\">—</span></td>");
            }
        }
        let mut gaps = Vec::new();
        if !row.uncovered_events.is_empty() {
            gaps.push(format!("events: {}", events(&row.uncovered_events)));
        }
        if !row.uncovered_recipients.is_empty() {
            gaps.push(format!("recipients: {}", list(&row.uncovered_recipients)));
        }
        if gaps.is_empty() && row.coverage == Some(Coverage::None) {
            gaps.push("every event and recipient".to_string());
        }
        if gaps.is_empty() {
            page.push_str("<td>—</td></tr>\n");
        } else {
            let _ = writeln!(page, "<td class=\"gap\"><strong>gap:</strong> {}</td></tr>", gaps.join("; "));
        }
    }
    page.push_str("</tbody>\n</table></div>\n");
    let mut left = Vec::new();
    if rows.len() > shown.len() {
        left.push(plural(rows.len() - shown.len(), "more pool", "more pools"));
    }
    if more_policies > 0 {
        left.push(plural(more_policies, "more policy column", "more policy columns"));
    }
    if !left.is_empty() {
        let _ = writeln!(
            page,
            "<p class=\"note\">Not shown: {} (the gaps come first); <code>--format json</code> has every finding.</p>",
            left.join(", ")
        );
    }
    page.push_str("</section>\n");
}
