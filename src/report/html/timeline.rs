//! The certificates as bars on a time axis (upload → expiry), coloured by CA,
//! hatched and labelled when the chain goes through the cross-signed ISRG
//! Root X1, faded when expired by the as-of date; the change's three dates as
//! solid lines and the as-of date as a dashed one, each labelled. Inline SVG:
//! a `<title>` per bar for its details, text labels so that colour is never
//! the only signal.

use std::fmt::Write as _;

use chrono::{Datelike, NaiveDate};

use super::super::Context;
use crate::html::escape;
use crate::report::views::timeline::{Bar, ca_words, cross_signed, timeline};
use crate::words::plural;

/// Bars drawn at most.
pub const MAX_BARS: usize = 200;

const WIDTH: f64 = 1000.0;
/// The labels' column, left of the axis.
const LABELS: f64 = 300.0;
const ROW: f64 = 20.0;
/// Above the first bar: the dates' labels and the axis.
const TOP: f64 = 70.0;

fn x_of(day: NaiveDate, from: NaiveDate, until: NaiveDate) -> f64 {
    let span = (until - from).num_days().max(1) as f64;
    LABELS + (WIDTH - LABELS - 10.0) * ((day - from).num_days() as f64 / span)
}

fn first_of_month(d: NaiveDate) -> NaiveDate {
    NaiveDate::from_ymd_opt(d.year(), d.month(), 1).unwrap_or(d)
}

fn next_month(d: NaiveDate) -> NaiveDate {
    let (y, m) = if d.month() == 12 {
        (d.year() + 1, 1)
    } else {
        (d.year(), d.month() + 1)
    };
    NaiveDate::from_ymd_opt(y, m, 1).unwrap_or(d)
}

/// The CA's class name: one of a few, never export text.
fn ca_class(ca: &str) -> &'static str {
    match ca {
        "lets_encrypt" => "lets_encrypt",
        "google" => "google",
        "ssl_com" => "ssl_com",
        "digicert" => "digicert",
        "default" => "default",
        "unknown" => "unknown",
        _ => "other",
    }
}

fn label(bar: &Bar) -> String {
    let mut hosts = bar.row.hosts.split_whitespace();
    let first = hosts.next().unwrap_or(bar.row.id.as_str());
    let more = hosts.count();
    let first: String = first.chars().take(32).collect();
    // (escaped where it is written)
    let more = if more > 0 { format!(" +{more}") } else { String::new() };
    format!("{first}{more}")
}

pub fn write(ctx: &Context, page: &mut String) {
    let drawn = timeline(ctx, MAX_BARS);
    if drawn.certificates == 0 {
        return;
    }
    page.push_str(
        "<section id=\"timeline\" aria-labelledby=\"timeline-h\">\n<h2 id=\"timeline-h\">Certificates against the chain change</h2>\n",
    );
    let as_of = ctx.outcome.as_of;
    if drawn.bars.is_empty() {
        let _ = writeln!(
            page,
            "<p>{} without both an upload and an expiry date in the export: nothing to draw.</p>\n</section>",
            plural(drawn.certificates, "certificate", "certificates")
        );
        return;
    }
    let dates = crate::engine::dates::DATES;
    // The axis spans every bar, the change's dates and the as-of date.
    let mut from = drawn.bars.iter().map(|b| b.from).min().unwrap_or(as_of);
    let mut until = drawn.bars.iter().map(|b| b.until).max().unwrap_or(as_of);
    for d in dates.iter().map(|d| d.day).chain([as_of]) {
        from = from.min(d);
        until = until.max(d);
    }
    let from = first_of_month(from);
    let until = next_month(until);
    let height = TOP + ROW * drawn.bars.len() as f64 + 24.0;
    let _ = writeln!(
        page,
        "<figure>\n<div class=\"scroll\"><svg class=\"timeline\" viewBox=\"0 0 {WIDTH} {height}\" role=\"img\" aria-labelledby=\"timeline-title timeline-desc\" xmlns=\"http://www.w3.org/2000/svg\">"
    );
    let _ = writeln!(
        page,
        "<title id=\"timeline-title\">Certificates from upload to expiry, against June 2024, 2024-09-09, 2024-09-30 and the as-of date {as_of}</title>\n<desc id=\"timeline-desc\">{} bars; each bar's label names its hosts and says when its chain is cross-signed or it has expired, and its title gives its CA and dates.</desc>",
        drawn.bars.len()
    );
    page.push_str("<defs><pattern id=\"cross-hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><path d=\"M0 0 V6\"/></pattern></defs>\n");
    // Month ticks, labelled so that labels stay apart.
    let months = {
        let mut n = 0;
        let mut d = from;
        while d < until {
            n += 1;
            d = next_month(d);
        }
        n
    };
    let every = (months / 12).max(1);
    page.push_str("<g class=\"axis\">\n");
    let mut d = from;
    let mut i = 0;
    while d <= until {
        let x = x_of(d, from, until);
        let _ = writeln!(
            page,
            "<line class=\"grid\" x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\"/>",
            TOP - 6.0,
            height - 20.0
        );
        // Labelled where the label fits inside the chart.
        if i % every == 0 && x + 24.0 < WIDTH {
            let _ = writeln!(
                page,
                "<text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                height - 6.0,
                d.format("%Y-%m")
            );
        }
        d = next_month(d);
        i += 1;
    }
    page.push_str("</g>\n");
    // The change's dates and the as-of date, labelled at the top in two rows.
    let mut marks: Vec<(NaiveDate, String, &str)> = dates.iter().map(|d| (d.day, d.shown.to_string(), "date")).collect();
    marks.push((as_of, format!("as of {as_of}"), "date as-of"));
    for (k, (day, text, class)) in marks.iter().enumerate() {
        let x = x_of(*day, from, until);
        // A row of its own each: close dates' labels never overlap.
        let y = 12.0 + 13.0 * k as f64;
        let _ = writeln!(
            page,
            "<g class=\"{class}\" data-date=\"{day}\"><line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\"/><text x=\"{x:.1}\" y=\"{y}\" text-anchor=\"middle\">{}</text></g>",
            y + 4.0,
            height - 20.0,
            escape(text)
        );
    }
    for (row, bar) in drawn.bars.iter().enumerate() {
        let y = TOP + ROW * row as f64;
        let (x1, x2) = (x_of(bar.from, from, until), x_of(bar.until, from, until));
        let crossed = cross_signed(&bar.row);
        let expired = bar.until < as_of;
        let mut classes = vec!["cert"];
        if crossed {
            classes.push("cross-signed");
        }
        if expired {
            classes.push("expired");
        }
        let words = format!("{} ({})", label(bar), bar.row.kind.replace('_', " "));
        // What the bar's colour and hatching say, in words after it.
        let mut state = Vec::new();
        if crossed {
            state.push("cross-signed chain");
        }
        if expired {
            state.push("expired");
        }
        let state = if state.is_empty() {
            String::new()
        } else {
            format!(
                "<text class=\"state\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                (x2 + 4.0).min(WIDTH - 4.0),
                y + ROW * 0.7,
                state.join(" · ")
            )
        };
        let _ = writeln!(
            page,
            "<g class=\"{}\" data-ca=\"{}\" data-from=\"{}\" data-until=\"{}\"><title>{}: {}, {} to {}{}{}</title><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text><rect class=\"bar ca-{}{}\" x=\"{x1:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"2\"/>{state}</g>",
            classes.join(" "),
            ca_class(&bar.row.ca),
            bar.from,
            bar.until,
            super::text(&bar.row.hosts),
            escape(ca_words(&bar.row.ca)),
            bar.from,
            bar.until,
            if crossed {
                ", chain through the cross-signed ISRG Root X1"
            } else {
                ""
            },
            if expired { ", expired by the as-of date" } else { "" },
            LABELS - 8.0,
            y + ROW * 0.7,
            escape(&words),
            ca_class(&bar.row.ca),
            if crossed { " cross" } else { "" },
            y + 3.0,
            (x2 - x1).max(2.0),
            ROW - 6.0,
        );
    }
    // At 200 % zoom the chart keeps its size and scrolls sideways rather than shrink its text.
    page.push_str("</svg></div>\n");
    let mut left = Vec::new();
    if drawn.drawable > drawn.bars.len() {
        left.push(format!("{} more with both dates", drawn.drawable - drawn.bars.len()));
    }
    if drawn.undated > 0 {
        left.push(format!("{} without an upload and an expiry date in the export", drawn.undated));
    }
    let _ = writeln!(
        page,
        "<figcaption><p class=\"legend\"><span><span class=\"swatch le\"></span>Let's Encrypt</span><span><span class=\"swatch google\"></span>Google Trust Services</span><span><span class=\"swatch other\"></span>other CAs</span><span><span class=\"swatch unknown\"></span>default or not exported</span><span><span class=\"swatch cross\"></span>hatched, labelled: chain through the cross-signed ISRG Root X1</span><span>faded, labelled: expired by the as-of date</span></p><p class=\"note\">{} of {} drawn{}: the cross-signed first, then Let's Encrypt, soonest expiry first. <code>edgeaudit inventory</code> lists every certificate.</p></figcaption>\n</figure>\n</section>",
        drawn.bars.len(),
        plural(drawn.certificates, "certificate", "certificates"),
        if left.is_empty() {
            String::new()
        } else {
            format!(" (not drawn: {})", left.join(", "))
        }
    );
}
