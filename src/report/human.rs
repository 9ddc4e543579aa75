//! Reports for people: one miette report per finding, with the source line
//! and a label at the value, then a summary.

use std::fmt;
use std::fmt::Write;

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, SourceCode};

use std::sync::Arc;

use super::snippet::{LABEL_CAP, Snippet, pem_first_line};
use super::summary::Summary;
use super::terminal::{escaped, shown_source, wrap};
use super::{Context, Which};
use crate::findings::{Finding, Severity};
use crate::words::plural;

struct Report<'a> {
    finding: &'a Finding,
    message: String,
    help: String,
    snippet: Snippet,
    label_len: usize,
}

impl fmt::Debug for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Report<'_> {}

impl Diagnostic for Report<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(&self.finding.rule.id))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.finding.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Note => miette::Severity::Advice,
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(&self.help))
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.snippet)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let label = LabeledSpan::new_primary_with_span(Some(self.finding.rule.name.clone()), (self.finding.location.start, self.label_len));
        Some(Box::new(std::iter::once(label)))
    }
}

/// `pool web-primary · edgeaudit explain LB002`
fn help(ctx: &Context, f: &Finding) -> String {
    let r = ctx.resource(f);
    let name = match (r.name.is_empty(), r.id.is_empty()) {
        (false, _) => r.name.as_ref(),
        (true, false) => r.id.as_ref(),
        (true, true) => "(unnamed)",
    };
    let address = r.address.as_deref().map(|a| format!(" ({})", escaped(a))).unwrap_or_default();
    format!("{} {}{address} · `edgeaudit explain {}`", r.kind, escaped(name), f.rule.id)
}

/// The files' texts as snippets show them: the file itself, or a copy with
/// what would act on the terminal replaced (made once per file, when needed).
struct Sources<'a> {
    ctx: &'a Context<'a>,
    shown: std::collections::HashMap<u32, Arc<crate::text::mapped::Text>>,
}

impl Sources<'_> {
    fn text(&mut self, file: crate::model::origin::FileId) -> Arc<crate::text::mapped::Text> {
        let source = &self.ctx.outcome.files[file.0 as usize];
        self.shown
            .entry(file.0)
            .or_insert_with(|| shown_source(&source.text).map_or_else(|| source.text.clone(), |shown| Arc::new(shown.into())))
            .clone()
    }
}

/// Underline a scalar whole; a container only at its opening bracket.
fn label_len(text: &str, start: usize, end: usize) -> usize {
    match text.as_bytes().get(start) {
        Some(b'{' | b'[') => 1,
        _ => {
            let mut len = end.saturating_sub(start).clamp(1, LABEL_CAP);
            while start + len < text.len() && !text.is_char_boundary(start + len) {
                len += 1;
            }
            len
        }
    }
}

/// One report per active finding, with its snippet.
fn findings(ctx: &Context, handler: &GraphicalReportHandler, sink: &mut dyn std::io::Write) -> std::io::Result<()> {
    // The message follows the severity mark and a space, on every line.
    let width = ctx.layout.width.saturating_sub(4).max(20);
    let mut sources = Sources {
        ctx,
        shown: Default::default(),
    };
    ctx.with_messages(Which::Active, |messages| -> std::io::Result<()> {
        // With traffic, the certificate findings are ranked by the requests from impacted
        // clients (the messages are then held, to be listed in that order).
        let listed: Box<dyn Iterator<Item = (&Finding, String)>> = if ctx.outcome.traffic.is_some() {
            let pairs: Vec<(&Finding, String)> = ctx.outcome.active().zip(messages).collect();
            let findings: Vec<&Finding> = pairs.iter().map(|(f, _)| *f).collect();
            let order = ctx.listing_order(&findings);
            let mut slots: Vec<Option<(&Finding, String)>> = pairs.into_iter().map(Some).collect();
            Box::new(order.into_iter().filter_map(move |i| slots[i].take()))
        } else {
            Box::new(ctx.outcome.active().zip(messages))
        };
        for (finding, message) in listed {
            let mut message = wrap(&escaped(&message), width);
            if let Some(line) = ctx.impact_line(finding) {
                message.push('\n');
                message.push_str(&wrap(&escaped(&line), width));
            }
            let mut out = String::new();
            let text = sources.text(finding.location.file);
            let cut = pem_first_line(&text, finding.location.start);
            let end = cut.map_or(finding.location.end, |cut| cut.min(finding.location.end));
            let report = Report {
                finding,
                message,
                help: help(ctx, finding),
                label_len: label_len(&text, finding.location.start, end),
                snippet: Snippet {
                    name: escaped(ctx.file(finding)).into_owned(),
                    text,
                    anchor: finding.location.start,
                    anchor_line: finding.location.line - 1,
                    anchor_column: finding.location.column - 1,
                    cut,
                },
            };
            if handler.render_report(&mut out, &report).is_err() {
                let _ = writeln!(
                    out,
                    "{}:{}:{}: {} {}",
                    ctx.file(finding),
                    finding.location.line,
                    finding.location.column,
                    finding.rule.id,
                    report.message
                );
            }
            out.push('\n');
            sink.write_all(out.as_bytes())?;
        }
        Ok(())
    })
}

pub fn render(ctx: &Context, sink: &mut dyn std::io::Write) -> std::io::Result<()> {
    let theme = match (ctx.color, ctx.layout.unicode) {
        (true, true) => GraphicalTheme::unicode(),
        (false, true) => GraphicalTheme::unicode_nocolor(),
        (true, false) => GraphicalTheme::ascii(),
        (false, false) => GraphicalTheme::none(),
    };
    // Messages come wrapped (JSON bodies whole), so miette does not wrap.
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(ctx.layout.width)
        .with_wrap_lines(false)
        .with_links(false);
    // `--statistics` prints the counts instead of every finding (as ruff
    // does): no message is rendered at all.
    if !ctx.statistics {
        findings(ctx, &handler, sink)?;
    }
    let mut out = String::new();
    let summary = Summary::of(ctx.outcome);
    // Even with --quiet: a run that left files out must say so.
    out.push_str(&skipped(ctx));
    if !ctx.quiet {
        out.push_str(&notices(ctx));
    }
    if ctx.statistics {
        out.push_str(&statistics(ctx, &summary));
    }
    if !ctx.quiet {
        // Whole lines, not wrapped: scripts and people grep for them.
        out.push_str(&closing_line(&summary));
        out.push_str(&traffic_line(&summary));
        out.push_str(&judged_by(ctx));
    }
    sink.write_all(out.as_bytes())
}

/// `Judged as of 2024-10-01 (--as-of); config: .edgeaudit.yaml.`: the date
/// decides the certificate verdicts, and the config what was selected.
fn judged_by(ctx: &Context) -> String {
    let settings = ctx.settings;
    format!(
        "Judged as of {} ({}); {}.\n",
        ctx.outcome.as_of,
        settings.as_of_source.describe(settings.config),
        match settings.config {
            Some(file) => format!("config: {}", escaped(file)),
            None => "no config file".to_string(),
        }
    )
}

/// `Traffic: 1,234,567 requests …` after the findings, when traffic was given.
fn traffic_line(summary: &Summary) -> String {
    summary.traffic.as_ref().map_or(String::new(), |t| format!("{}\n", t.line()))
}

fn closing_line(summary: &Summary) -> String {
    let kinds: Vec<String> = summary
        .records
        .iter()
        .map(|(kind, n)| {
            let (one, many) = kind.nouns();
            plural(*n, one, many)
        })
        .collect();
    let checked = format!(
        "{} ({}{})",
        plural(summary.files, "file", "files"),
        plural(summary.records_total(), "record", "records"),
        if kinds.is_empty() {
            String::new()
        } else {
            format!(": {}", kinds.join(", "))
        }
    );
    let checked = match summary.may_exist_words().as_str() {
        "" => checked,
        may_exist => format!("{checked}; {may_exist}"),
    };
    let checked = match summary.duplicate_copies {
        0 => checked,
        n => format!("{checked}; {} counted once", plural(n, "identical copy", "identical copies")),
    };
    let checked = match summary.joined_with_source {
        0 => checked,
        n => format!(
            "{checked}; {} of a Terraform state joined with {} in the .tf source beside it",
            plural(n, "resource", "resources"),
            if n == 1 { "its block" } else { "their blocks" }
        ),
    };
    let checked = match summary.skipped_files {
        0 => checked,
        n => format!("{checked}; {} skipped, not analysed", plural(n, "file", "files")),
    };
    let checked = match summary.skipped_resources {
        0 => checked,
        n => format!("{checked}; {} not analysed", plural(n, "resource", "resources")),
    };
    let suppressed = match (summary.suppressed.waived, summary.suppressed.baseline) {
        (0, 0) => String::new(),
        (w, 0) => format!("; {} waived", plural(w, "finding", "findings")),
        (0, b) => format!("; {} known from the baseline", plural(b, "finding", "findings")),
        (w, b) => format!(
            "; {} waived, {} known from the baseline",
            plural(w, "finding", "findings"),
            plural(b, "finding", "findings")
        ),
    };
    if summary.findings == 0 {
        return format!("No findings in {checked}{suppressed}.\n");
    }
    format!(
        "Found {} ({}, {}, {}) in {checked}{suppressed}.\n",
        plural(summary.findings, "finding", "findings"),
        plural(summary.count(Severity::Error), "error", "errors"),
        plural(summary.count(Severity::Warning), "warning", "warnings"),
        plural(summary.count(Severity::Note), "note", "notes"),
    )
}

/// Files met in directories that were not analysed, with why.
fn skipped(ctx: &Context) -> String {
    let mut out = String::new();
    for line in super::skipped::lines(&ctx.outcome.skipped, ctx.show_files) {
        let _ = writeln!(out, "{}", escaped(&line));
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

fn notices(ctx: &Context) -> String {
    // `.edgeaudit.yaml:12:5: note[waiver-unmatched]: …`, one line each: they
    // are about the config, which the user is editing anyway.
    let mut out = String::new();
    for n in &ctx.outcome.triage.notices {
        let _ = writeln!(out, "{}", escaped(&n.line()));
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

fn statistics(ctx: &Context, summary: &Summary) -> String {
    let mut out = String::new();
    for (id, count) in &summary.by_rule {
        if let Some(rule) = ctx.rules.get(id) {
            let _ = writeln!(out, "{count:>6}  {id:<6}  {:<8} {}", rule.severity.as_str(), rule.name);
        }
    }
    // What the counts above do not include: subjects a rule could not judge.
    for n in &summary.not_judged {
        // With no selected rule of the kind, there is none to name.
        let by = if n.rules.is_empty() {
            String::new()
        } else {
            format!(" by {}", n.rules.join(", "))
        };
        let _ = writeln!(out, "{:>6}  {} not judged{by}: {}", n.subjects, n.kind.as_str(), n.why);
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

/// A failed run: every error, then why there are no findings.
pub fn failure(failure: &super::Failure, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    for e in failure.errors {
        writeln!(out, "error: {}", escaped(&crate::findings::shown(&e.to_string())))?;
    }
    writeln!(
        out,
        "\nNo findings: {} stopped the run before anything was analysed (exit 2).",
        plural(failure.errors.len(), "error", "errors")
    )
}
