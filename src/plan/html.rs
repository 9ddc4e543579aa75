//! `plan --format html`: the plan's steps in order as a page to open in a
//! browser or attach to a change ticket, in the report's page shell
//! (`crate::html`): each request with its body and why, the proof's
//! headline and the plan's warnings. Every string is escaped text.

use std::fmt::Write as _;

use super::build::AccountPlan;
use super::render::{Tally, account_in_path, numbered};
use crate::html::{escape, head, tail};

pub fn html(plans: &[AccountPlan], as_of: chrono::NaiveDate, plan_id: &str) -> String {
    let tally = Tally::of(plans);
    let mut page = String::new();
    head(&format!("edgeaudit migration plan · as of {as_of}"), &mut page);
    let _ = writeln!(
        page,
        "<header>\n<h1>edgeaudit migration plan</h1>\n<p class=\"meta\">Plan <code>{}</code> · as of <strong>{as_of}</strong>. {}.</p>\n</header>\n<main>",
        escape(plan_id),
        escape(&tally.headline(plans))
    );
    page.push_str("<p class=\"note\">Order: existing policies are corrected and completed (PUT, the exported policy with only filter values and e-mail recipients changed) and missing ones created first; a pool's <code>notification_email</code> is cleared only once every (event, recipient) it e-mails is delivered by a policy; certificate changes come last. <code>edgeaudit apply</code> runs the JSON plan (<code>plan --format json</code>), checking the live account before every change.</p>\n");
    for plan in plans {
        let title = match &plan.account_id {
            Some(id) => format!("Account {}", escape(id)),
            None => "Account (unnamed in the export)".to_string(),
        };
        let _ = writeln!(page, "<section aria-label=\"{title}\">\n<h2>{title}</h2>");
        for warning in &plan.warnings {
            let _ = writeln!(page, "<p class=\"warning\"><strong>Warning:</strong> {}</p>", escape(warning));
        }
        page.push_str("<div class=\"scroll\"><table class=\"steps\">\n<thead><tr><th scope=\"col\" class=\"num\">#</th><th scope=\"col\">Request</th><th scope=\"col\">Why</th></tr></thead>\n<tbody>\n");
        for (n, p, step) in numbered(plans) {
            if !std::ptr::eq(p, plan) {
                continue;
            }
            let request = match (step.method(), step.path(&account_in_path(p, "{account_id}")), step.body()) {
                (Some(m), Some(path), Some(body)) => format!("<code>{} {}</code><pre>{}</pre>", escape(m), escape(&path), escape(&body)),
                _ => "<em>for a person</em>".to_string(),
            };
            let _ = writeln!(
                page,
                "<tr data-kind=\"{}\"><td class=\"num\">{n}</td><td>{request}</td><td>{}</td></tr>",
                step.kind(),
                escape(&step.reason())
            );
        }
        page.push_str("</tbody>\n</table></div>\n</section>\n");
    }
    page.push_str("</main>\n");
    tail(&mut page);
    page
}
