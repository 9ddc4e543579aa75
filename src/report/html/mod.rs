//! An audit report to open in a browser or attach to a ticket: one
//! self-contained HTML file (inline style, inline SVG, one small script; it
//! loads nothing — `crate::html` sets the policy). The summary by migration
//! and severity, who is hurt (with `--traffic`), the certificates on a
//! timeline against the change's dates, the pool × policy coverage matrix,
//! and the findings by rule, filterable
//! by severity and resource kind. Every string from an export is escaped
//! text. Bounded at any account size: the pictures and the listing keep
//! their first parts and say what they left out.

mod coverage;
mod findings;
mod hurt;
mod summary;
mod timeline;

use super::Context;
use crate::html::{escape, head, tail};

/// Text from an export on the page: escaped, and no longer than a report shows.
fn text(s: &str) -> String {
    escape(&crate::findings::shown(s))
}

pub fn render(ctx: &Context, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut page = String::new();
    let counts = super::summary::Summary::of(ctx.outcome);
    head(&format!("edgeaudit report · as of {}", ctx.outcome.as_of), &mut page);
    page.push_str("<header>\n<h1>edgeaudit report</h1>\n");
    summary::meta(ctx, &counts, &mut page);
    page.push_str("<nav aria-label=\"Sections\" class=\"no-print\"><a href=\"#summary\">Summary</a> · ");
    if ctx.outcome.traffic.is_some() {
        page.push_str("<a href=\"#hurt\">Who is hurt</a> · ");
    }
    page.push_str("<a href=\"#timeline\">Certificates</a> · <a href=\"#coverage\">Pools and policies</a> · <a href=\"#findings\">Findings</a></nav>\n</header>\n<main>\n");
    summary::write(ctx, &counts, &mut page);
    hurt::write(ctx, &mut page);
    timeline::write(ctx, &mut page);
    coverage::write(ctx, &mut page);
    // The listing streams: its messages are rendered on other threads while
    // the page so far is written.
    out.write_all(page.as_bytes())?;
    page.clear();
    findings::write(ctx, out)?;
    summary::skipped_and_notices(ctx, &mut page);
    page.push_str("</main>\n");
    tail(&mut page);
    out.write_all(page.as_bytes())
}

/// A run that stopped on its input: the errors, each at its place.
pub fn failure(failure: &super::Failure, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut page = String::new();
    head("edgeaudit: the input could not be analysed", &mut page);
    page.push_str("<header>\n<h1>edgeaudit: the input could not be analysed</h1>\n<p class=\"meta\">The run stopped with exit code 2 before any finding: fix these and run it again.</p>\n</header>\n<main>\n<div class=\"scroll\"><table>\n<thead><tr><th scope=\"col\">File</th><th scope=\"col\" class=\"num\">Line</th><th scope=\"col\" class=\"num\">Column</th><th scope=\"col\">Error</th></tr></thead>\n<tbody>\n");
    for e in failure.errors {
        let (line, column) = match e.line {
            0 => (String::new(), String::new()),
            line => (line.to_string(), e.column.to_string()),
        };
        page.push_str(&format!(
            "<tr><td><code>{}</code></td><td class=\"num\">{line}</td><td class=\"num\">{column}</td><td>{}</td></tr>\n",
            escape(&e.file),
            escape(&e.message)
        ));
    }
    page.push_str("</tbody>\n</table></div>\n</main>\n");
    tail(&mut page);
    out.write_all(page.as_bytes())
}
