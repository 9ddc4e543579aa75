//! The findings that count, by rule (most severe first), each with its
//! severity in words, its place, its resource and its message; a form above
//! them filters by severity and resource kind on the page alone. At most
//! [`MAX_LISTED`] are listed, shared fairly among the rules (a rule with
//! fewer findings than its share lists them all and leaves the rest to the
//! others); the rest are counted.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::super::Context;
use crate::findings::Severity;
use crate::html::escape;
use crate::words::plural;

/// Findings listed at most: a browser shows 10,000 within its 2 s budget
/// (the benchmark measures it), and a report of a million hostnames stays a
/// file people can attach.
pub const MAX_LISTED: usize = 10_000;

/// How many of each group's findings are listed: equal shares of `budget`,
/// a group's unused share going to the others (water-filling).
fn shares(counts: &[usize], budget: usize) -> Vec<usize> {
    let mut taken = vec![0; counts.len()];
    let mut left = budget;
    let mut open: Vec<usize> = (0..counts.len()).filter(|&g| counts[g] > 0).collect();
    while !open.is_empty() && left > 0 {
        let share = (left / open.len()).max(1);
        for &g in &open {
            let take = share.min(counts[g] - taken[g]).min(left);
            taken[g] += take;
            left -= take;
        }
        open.retain(|&g| taken[g] < counts[g]);
    }
    taken
}

/// A rule's findings at one severity: how many, how many may be listed,
/// and the indexes listed.
#[derive(Default)]
struct Group {
    count: usize,
    room: usize,
    listed: Vec<usize>,
}

pub fn write(ctx: &Context, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let findings = &ctx.outcome.findings;
    // Count the active findings by (severity desc, rule), share the listing
    // among the groups, then take the first of each group up to its share.
    let mut groups: BTreeMap<(Reverse<Severity>, &str), Group> = BTreeMap::new();
    for f in findings.iter().filter(|f| !f.is_suppressed()) {
        groups.entry((Reverse(f.severity), f.rule.id.as_str())).or_default().count += 1;
    }
    let counts: Vec<usize> = groups.values().map(|g| g.count).collect();
    for (group, room) in groups.values_mut().zip(shares(&counts, MAX_LISTED)) {
        group.room = room;
    }
    let mut listed = vec![false; findings.len()];
    let mut kinds: BTreeSet<&'static str> = BTreeSet::new();
    let mut severities: BTreeSet<Severity> = BTreeSet::new();
    // With traffic every finding is a candidate: each rule lists those that hurt most.
    let ranked = ctx.outcome.traffic.is_some();
    for (i, f) in findings.iter().enumerate().filter(|(_, f)| !f.is_suppressed()) {
        if let Some(group) = groups.get_mut(&(Reverse(f.severity), f.rule.id.as_str()))
            && (ranked || group.listed.len() < group.room)
        {
            group.listed.push(i);
        }
    }
    for group in groups.values_mut() {
        if ranked {
            let candidates: Vec<&crate::findings::Finding> = group.listed.iter().map(|&i| &findings[i]).collect();
            let order = ctx.listing_order(&candidates);
            group.listed = order.into_iter().take(group.room).map(|k| group.listed[k]).collect();
        }
        for &i in &group.listed {
            listed[i] = true;
            kinds.insert(findings[i].subject.kind.as_str());
            severities.insert(findings[i].severity);
        }
    }
    let accepted = findings.iter().filter(|f| f.is_suppressed()).count();
    let total: usize = counts.iter().sum();
    let shown: usize = groups.values().map(|g| g.listed.len()).sum();
    let mut page = String::new();
    page.push_str("<section id=\"findings\" aria-labelledby=\"findings-h\">\n<h2 id=\"findings-h\">Findings</h2>\n");
    if total == 0 {
        page.push_str("<p>No findings.</p>\n</section>\n");
        return out.write_all(page.as_bytes());
    }
    // Hidden until the script runs: without it, every finding shows.
    page.push_str(
        "<form id=\"filters\" class=\"no-print\" hidden aria-label=\"Filter the findings\">\n<fieldset><legend>Severity</legend>",
    );
    for s in Severity::ALL {
        if severities.contains(&s) {
            let _ = write!(
                page,
                "<label><input type=\"checkbox\" name=\"severity\" value=\"{s}\" checked> {s}</label>"
            );
        }
    }
    page.push_str("</fieldset>\n<fieldset><legend>Resource kind</legend>");
    for k in &kinds {
        let _ = write!(
            page,
            "<label><input type=\"checkbox\" name=\"kind\" value=\"{k}\" checked> {}</label>",
            k.replace('_', " ")
        );
    }
    page.push_str("</fieldset>\n</form>\n");
    let _ = writeln!(
        page,
        "<p id=\"shown\" aria-live=\"polite\">{shown} of {shown} listed findings shown</p>"
    );
    let mut left = Vec::new();
    if shown < total {
        left.push(format!(
            "{} not listed here (at most {MAX_LISTED} in all, shared among the rules); <code>--format json</code> and SARIF have every one",
            plural(total - shown, "finding", "findings")
        ));
    }
    if accepted > 0 {
        left.push(format!(
            "{} accepted by waivers or the baseline, not listed",
            plural(accepted, "finding", "findings")
        ));
    }
    if !left.is_empty() {
        let _ = writeln!(page, "<p class=\"note\">{}.</p>", left.join("; "));
    }
    out.write_all(page.as_bytes())?;
    page.clear();
    // Messages are rendered (on other threads) for the listed findings only,
    // in the findings' order.
    let messages: BTreeMap<usize, String> = ctx.with_messages_where(
        |i, _| listed[i],
        |messages| (0..findings.len()).filter(|&i| listed[i]).zip(messages).collect(),
    );
    for ((Reverse(severity), id), group) in &groups {
        let (count, indexes) = (&group.count, &group.listed);
        let rule = ctx.rules.get(id);
        let name = rule.map_or("", |r| r.name.as_str());
        let link = rule.and_then(|r| crate::engine::docs::page_url(r));
        let _ = writeln!(
            page,
            "<section class=\"rule\" data-rule=\"{}\">\n<h3><span class=\"sev sev-{severity}\">{severity}</span> {} <code>{}</code> · {}</h3>",
            escape(id),
            match link {
                Some(url) => format!("<a href=\"{}\">{}</a>", escape(&url), escape(id)),
                None => escape(id),
            },
            escape(name),
            if *count > indexes.len() {
                format!("{} listed of {count}", indexes.len())
            } else {
                plural(*count, "finding", "findings")
            }
        );
        page.push_str("<ol class=\"findings\">\n");
        for &i in indexes {
            let f = &findings[i];
            let r = ctx.resource(f);
            let resource = match (r.name.is_empty(), r.id.is_empty()) {
                (false, false) if r.name != r.id => format!("{} ({})", super::text(&r.name), super::text(&r.id)),
                (false, _) => super::text(&r.name),
                _ => super::text(&r.id),
            };
            // The share of requests from impacted clients, beside the finding (`--traffic`).
            let impact = ctx.outcome.impact(f).map_or(String::new(), |i| {
                let share = i.share.map_or("no request".to_string(), crate::traffic::impact::percent);
                format!(
                    " <span class=\"impact\" data-impacted=\"{}\" title=\"{}\">{}</span>",
                    i.impacted,
                    escape(&crate::traffic::impact::words(&i)),
                    escape(&share)
                )
            });
            let _ = writeln!(
                page,
                "<li class=\"finding sev-{severity}\" data-severity=\"{severity}\" data-kind=\"{}\"><span class=\"sev sev-{severity}\">{severity}</span> <strong>{}</strong> {resource}{impact} <span class=\"where\"><code>{}:{}:{}</code> <code>{}</code></span><p>{}</p></li>",
                f.subject.kind.as_str(),
                f.subject.kind.as_str().replace('_', " "),
                escape(ctx.file(f)),
                f.location.line,
                f.location.column,
                escape(&f.location.pointer),
                escape(messages.get(&i).map_or("", String::as_str)),
            );
        }
        page.push_str("</ol>\n</section>\n");
        // Written a rule at a time: the page is never held whole.
        out.write_all(page.as_bytes())?;
        page.clear();
    }
    out.write_all(b"</section>\n")
}

#[cfg(test)]
mod tests {
    use super::shares;

    #[test]
    fn the_listing_is_shared_fairly_and_fills_the_budget() {
        assert_eq!(shares(&[5, 100, 100], 105), [5, 50, 50]);
        assert_eq!(shares(&[5, 100, 3], 1000), [5, 100, 3]);
        assert_eq!(shares(&[9_000, 1_000, 40], 10_000), [8_960, 1_000, 40]);
        assert_eq!(shares(&[3, 3, 3], 2), [1, 1, 0]);
        assert_eq!(shares(&[], 10), Vec::<usize>::new());
        let big = shares(&[1_000_000, 300_000, 7], 10_000);
        assert_eq!(big.iter().sum::<usize>(), 10_000);
        assert_eq!(big[2], 7);
    }
}
