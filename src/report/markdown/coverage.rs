//! Per pool with a legacy e-mail: its recipients and events, the policies
//! that deliver them, and what no policy delivers — read from the same
//! coverage facts the LB rules judge, so the table and the findings agree.
//! Gaps first; a page holds [`MAX_POOLS`] rows and counts the rest.

use std::fmt::Write as _;

use super::super::Context;
use super::cell_text as text;
use crate::facts::coverage::Coverage;
use crate::report::views::coverage::rows;
use crate::words::plural;

/// Rows at most.
pub const MAX_POOLS: usize = 50;

/// `a, b` escaped for a table cell; `—` for none.
fn cell(values: &[String]) -> String {
    if values.is_empty() {
        "—".to_string()
    } else {
        values.iter().map(|v| text(v)).collect::<Vec<_>>().join(", ")
    }
}

pub fn write(ctx: &Context, page: &mut String) {
    let rows = rows(ctx);
    if rows.is_empty() {
        return;
    }
    let total = rows.len();
    let _ = writeln!(page, "\n## Pools with a legacy e-mail: who gets which alert\n");
    let _ = writeln!(
        page,
        "| Pool | Legacy recipients | Events | Covered | Delivered by | Not delivered by any policy |\n|---|---|---|---|---|---|"
    );
    let mut names: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for row in rows.iter().take(MAX_POOLS) {
        *names.entry(row.name.as_str()).or_default() += 1;
    }
    for row in rows.iter().take(MAX_POOLS) {
        let covered = match row.coverage {
            Some(Coverage::Full) => "yes: clear now",
            Some(Coverage::Partial) => "**partly**: create a policy first",
            Some(Coverage::None) => "**no**: create a policy first",
            Some(Coverage::Unknown) => "not known before apply (EX005)",
            Some(Coverage::NotApplicable) => Coverage::NotApplicable.as_str(),
            None => "",
        };
        let covered = if row.accepted {
            format!("{covered} (accepted: a waiver or the baseline)")
        } else {
            covered.to_string()
        };
        // Two pools of one name (two accounts) are told apart by their ids.
        let name = if names.get(row.name.as_str()).is_some_and(|n| *n > 1) && row.name != row.id {
            format!("{} ({})", text(&row.name), text(&row.id))
        } else {
            text(&row.name)
        };
        let mut gaps = Vec::new();
        if !row.uncovered_events.is_empty() {
            gaps.push(format!("events: {}", cell(&row.uncovered_events)));
        }
        if !row.uncovered_recipients.is_empty() {
            gaps.push(format!("recipients: {}", cell(&row.uncovered_recipients)));
        }
        let _ = writeln!(
            page,
            "| {name} | {} | {} | {covered} | {} | {} |",
            cell(&row.recipients),
            cell(&row.events),
            cell(&row.covering),
            if gaps.is_empty() { "—".to_string() } else { gaps.join("; ") }
        );
    }
    if total > MAX_POOLS {
        let _ = writeln!(
            page,
            "\n{} not shown (the gaps come first); `--format json` has every finding.",
            plural(total - MAX_POOLS, "more pool", "more pools")
        );
    }
}
