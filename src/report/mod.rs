//! Stage 6: every format renders the same sorted list of findings.

mod actions;
pub mod concise;
pub mod github;
pub mod gitlab;
pub mod html;
pub mod human;
pub mod json;
pub mod junit;
pub mod limits;
pub mod markdown;
mod pretty;
pub mod sarif;
pub mod skipped;
pub mod snippet;
pub mod summary;
pub mod terminal;
pub mod views;

use crate::check::Outcome;
use crate::engine::RuleSet;
use crate::facts::Analysis;
use crate::findings::{Finding, Resource};
use crate::triage::Suppression;
use crate::triage::waiver::Waiver;
use actions::ActionsJson;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Human,
    /// One line per finding: `file:line:col: ID message`.
    Concise,
    Json,
    Sarif,
    Github,
    /// GitLab's Code Quality report, for a merge request's widget.
    Gitlab,
    Markdown,
    Junit,
    /// A self-contained page to open in a browser: summary, certificate
    /// timeline, coverage matrix, filterable findings.
    Html,
}

impl Format {
    /// `human, concise, … or html`: every format, as `--format` takes them.
    pub fn names() -> String {
        let names: Vec<String> = <Format as clap::ValueEnum>::value_variants()
            .iter()
            .filter_map(clap::ValueEnum::to_possible_value)
            .map(|v| v.get_name().to_string())
            .collect();
        crate::words::alternatives(&names.iter().map(String::as_str).collect::<Vec<_>>())
    }
}

/// What keeps a format's text safe for its reader once written, beyond the
/// escaping of each value in it (`text::escape`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shield {
    /// Terminal and log text: every line through `terminal::lines`, and on
    /// standard output under GitHub Actions inside a stop-commands stretch.
    Log,
    /// JSON: no `##[` or `##vso[` (`terminal::WorkflowSafe`), the same values decoded.
    Json,
    /// The format's own escaping is all (workflow commands by design, XML, HTML).
    Own,
}

impl Format {
    pub fn shield(self) -> Shield {
        match self {
            Format::Human | Format::Concise | Format::Markdown => Shield::Log,
            Format::Json | Format::Sarif | Format::Gitlab => Shield::Json,
            Format::Github | Format::Junit | Format::Html => Shield::Own,
        }
    }
}

/// Writes what `render` writes through `format`'s [`Shield`] to `out`, the
/// destination itself (a file, standard output): the shield sits next to it
/// and a buffer above the shield, so a large report is copied no more than
/// once on its way. `to_stdout` when `out` is standard output, `color` when
/// the text carries colour.
pub fn shielded(
    format: Format,
    to_stdout: bool,
    color: bool,
    out: &mut dyn std::io::Write,
    render: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    shielded_by(format.shield(), to_stdout, color, out, render)
}

/// As [`shielded`], for any command's output of a known [`Shield`].
pub fn shielded_by(
    shield: Shield,
    to_stdout: bool,
    color: bool,
    out: &mut dyn std::io::Write,
    render: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    use crate::text::escape::terminal::{LineGuard, StopCommands, WorkflowSafe};
    use std::io::{BufWriter, Write};
    const BUFFER: usize = 1 << 16;
    match shield {
        Shield::Own => {
            let mut buffered = BufWriter::with_capacity(BUFFER, out);
            render(&mut buffered)?;
            buffered.flush()
        }
        Shield::Json => {
            let mut buffered = BufWriter::with_capacity(BUFFER, WorkflowSafe::new(out));
            render(&mut buffered)?;
            buffered.flush()
        }
        Shield::Log => {
            let stop = to_stdout
                .then(|| StopCommands::under_github_actions(|name| std::env::var(name).ok()))
                .flatten();
            if let Some(stop) = &stop {
                out.write_all(stop.open().as_bytes())?;
            }
            {
                let guard = if color {
                    LineGuard::coloured(&mut *out)
                } else {
                    LineGuard::new(&mut *out)
                };
                let mut buffered = BufWriter::with_capacity(BUFFER, guard);
                render(&mut buffered)?;
                buffered.flush()?;
            }
            if let Some(stop) = &stop {
                out.write_all(stop.close().as_bytes())?;
            }
            out.flush()
        }
    }
}

/// Which findings a report writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    All,
    /// Those that count: no waiver or baseline accepted them.
    Active,
    Suppressed,
}

impl Which {
    pub fn selects(self, f: &Finding) -> bool {
        match self {
            Which::All => true,
            Which::Active => !f.is_suppressed(),
            Which::Suppressed => f.is_suppressed(),
        }
    }
}

#[derive(Clone, Copy)]
pub struct Context<'a> {
    pub outcome: &'a Outcome,
    /// Rebuilds a finding's facts to render its message.
    pub analysis: &'a Analysis<'a>,
    pub rules: &'a RuleSet,
    pub color: bool,
    pub statistics: bool,
    pub quiet: bool,
    /// The code the run exits with (reported in SARIF's invocation).
    pub exit_code: u8,
    /// The severity from which an active finding fails the run (JUnit's failures).
    pub fail_on: crate::findings::FailOn,
    /// Where the as-of date came from, and the config file in force: a
    /// verdict that depends on both says by which it was judged.
    pub settings: Settings<'a>,
    /// How a terminal report is laid out.
    pub layout: Layout,
    /// How many findings per rule the Markdown report lists (`--max-findings`).
    pub max_listed: Option<usize>,
    /// Every skipped file on a line of its own (`--show-files`), not a
    /// count per reason.
    pub show_files: bool,
}

/// Where the as-of date of the run came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AsOfSource {
    /// `--as-of` on the command line.
    Option,
    /// The config's `as_of`.
    Config,
    /// Today's date (UTC), as nothing named one.
    Today,
}

impl AsOfSource {
    /// `--as-of`, `as_of in .edgeaudit.yaml`, `today (UTC)`.
    pub fn describe(self, config: Option<&str>) -> String {
        match self {
            AsOfSource::Option => "--as-of".to_string(),
            AsOfSource::Config => format!("as_of in {}", config.unwrap_or("the config")),
            AsOfSource::Today => "today, UTC".to_string(),
        }
    }
}

/// The run's settings that reports state.
#[derive(Debug, Clone, Copy)]
pub struct Settings<'a> {
    pub as_of_source: AsOfSource,
    /// The config file used, as found or named; `None` when there was none.
    pub config: Option<&'a str>,
}

/// The terminal a human report is written for.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// Columns to wrap messages at.
    pub width: usize,
    /// Box-drawing characters (off for `TERM=dumb`).
    pub unicode: bool,
}

/// A run that could not analyse its input (a broken file, a bad config or
/// rule pack): what each format says instead of findings, so that every
/// requested report exists and names every error (CI uploads it anyway).
pub struct Failure<'a> {
    pub errors: &'a [crate::text::error::InputError],
    /// The rules the run would have applied (for SARIF's metadata).
    pub rules: &'a RuleSet,
    /// The as-of date, when it was read before the failure.
    pub as_of: Option<chrono::NaiveDate>,
}

/// Writes the report of a failed run (exit 2) in `format`.
pub fn render_failure(format: Format, failure: &Failure, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    match format {
        Format::Human => human::failure(failure, out),
        Format::Concise => concise::failure(failure, out),
        Format::Json => json::failure(failure, out),
        Format::Sarif => sarif::failure(failure, out),
        Format::Github => github::failure(failure, out),
        Format::Gitlab => gitlab::failure(failure, out),
        Format::Markdown => markdown::failure(failure, out),
        Format::Junit => junit::failure(failure, out),
        Format::Html => html::failure(failure, out),
    }
}

/// Writes the report: streamed, so a report on a million findings is never
/// held in memory as one string.
pub fn render(format: Format, ctx: &Context, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    match format {
        Format::Human => human::render(ctx, out),
        Format::Concise => concise::render(ctx, out),
        Format::Json => json::render(ctx, out),
        Format::Sarif => sarif::render(ctx, out),
        Format::Github => github::render(ctx, out),
        Format::Gitlab => gitlab::render(ctx, out),
        Format::Markdown => markdown::render(ctx, out),
        Format::Junit => junit::render(ctx, out),
        Format::Html => html::render(ctx, out),
    }
}

impl Context<'_> {
    /// The finding's file, as given on the command line.
    pub fn file(&self, f: &Finding) -> &str {
        self.outcome
            .files
            .get(f.location.file.0 as usize)
            .map_or("", |file| file.name.as_str())
    }

    /// The messages of the findings `which` selects, in order, rendered on
    /// other threads (`EDGEAUDIT_THREADS`, at most 4) while `consume` writes
    /// them: rendering and writing each take a good part of a large report.
    pub fn with_messages<R>(&self, which: Which, consume: impl FnOnce(&mut dyn Iterator<Item = String>) -> R) -> R {
        self.with_messages_where(|_, f| which.selects(f), consume)
    }

    /// As `with_messages`, for the findings (by index and value) `keep` selects.
    pub fn with_messages_where<R>(
        &self,
        keep: impl Fn(usize, &Finding) -> bool + Sync,
        consume: impl FnOnce(&mut dyn Iterator<Item = String>) -> R,
    ) -> R {
        self.with_rendered(keep, |f| self.message(f), consume)
    }

    /// As `with_messages_where`, with whatever `render` makes of each finding
    /// (a report that also needs each fingerprint renders it there too).
    pub fn with_rendered<T: Send, R>(
        &self,
        keep: impl Fn(usize, &Finding) -> bool + Sync,
        render: impl Fn(&Finding) -> T + Sync,
        consume: impl FnOnce(&mut dyn Iterator<Item = T>) -> R,
    ) -> R {
        let kept = || self.kept(&keep);
        crate::threads::rendered_in_order(&kept, renderers(), crate::threads::BATCH, &render, consume)
    }

    /// As `with_rendered`, a run of up to `run` findings at a time: `render`
    /// is given the run and how many kept findings come before it (a report
    /// that writes each run as one text, into a buffer it keeps).
    pub fn with_rendered_runs<T: Send, R>(
        &self,
        keep: impl Fn(usize, &Finding) -> bool + Sync,
        run: usize,
        render: impl Fn(usize, &[&Finding]) -> T + Sync,
        consume: impl FnOnce(&mut dyn Iterator<Item = T>) -> R,
    ) -> R {
        let run = run.max(1);
        let runs = || {
            let mut kept = self.kept(&keep);
            let mut before = 0;
            std::iter::from_fn(move || {
                let findings: Vec<&Finding> = kept.by_ref().take(run).collect();
                let at = before;
                before += findings.len();
                (!findings.is_empty()).then_some((at, findings))
            })
        };
        let render = |(before, findings): (usize, Vec<&Finding>)| render(before, &findings);
        // Windows of about as many findings as `with_rendered`'s.
        let batch = crate::threads::BATCH.div_ceil(run);
        crate::threads::rendered_in_order(&runs, renderers(), batch, &render, consume)
    }

    /// The findings `keep` selects (by index and value), in order.
    fn kept<'s>(&'s self, keep: &'s (impl Fn(usize, &Finding) -> bool + Sync)) -> impl Iterator<Item = &'s Finding> + 's {
        self.outcome
            .findings
            .iter()
            .enumerate()
            .filter(move |(i, f)| keep(*i, f))
            .map(|(_, f)| f)
    }

    /// `Traffic: 12 of 1,234 requests from impacted clients (0.97 %)`, for a
    /// certificate finding when traffic was given.
    pub fn impact_line(&self, f: &Finding) -> Option<String> {
        self.outcome
            .impact(f)
            .map(|i| format!("Traffic: {}.", crate::traffic::impact::words(&i)))
    }

    /// The positions, among `findings`, in the order a report lists them:
    /// as they are, but with the certificate findings that carry traffic
    /// ranked by impacted requests, then share, in their own places.
    pub fn listing_order(&self, findings: &[&Finding]) -> Vec<usize> {
        let mut order: Vec<usize> = (0..findings.len()).collect();
        if self.outcome.traffic.is_some() {
            let impacts: Vec<Option<crate::traffic::impact::Impact>> = findings.iter().map(|f| self.outcome.impact(f)).collect();
            crate::traffic::impact::order_by_impact(&mut order, &impacts);
        }
        order
    }

    /// A finding's message, rendered from its subject's facts now: findings
    /// do not carry their messages, so a million of them stay small.
    pub fn message(&self, f: &Finding) -> String {
        self.analysis
            .with_facts(f.subject, |facts| crate::plan::remedy::render_message(f, facts))
            .unwrap_or_default()
    }

    /// The message for Markdown: each value from outside in a code span
    /// (`text::escape::markdown::code`), our own words as Markdown.
    /// A rule pack's own words are from outside too: its message is one span.
    pub fn markdown_message(&self, f: &Finding) -> String {
        use crate::text::escape::markdown::code;
        self.analysis
            .with_facts(f.subject, |facts| match f.rule.builtin {
                true => crate::plan::remedy::render_message_escaped(f, facts, code),
                false => code(&crate::plan::remedy::render_message(f, facts)),
            })
            .unwrap_or_default()
    }

    /// The finding's identity (rule, resource, field, element): the same in
    /// every format and in the baseline, whatever the file, line or order.
    pub fn fingerprint(&self, f: &Finding) -> String {
        crate::triage::finding_fingerprint(f, &f.resource(self.analysis))
    }

    /// The message and the actions of a finding, from one making of its
    /// subject's facts (the actions' manual steps repeat the message).
    /// Crate-private: the actions' text is escaped by `pretty` (see there),
    /// so they are only for the reports written through it.
    pub(crate) fn message_and_actions(&self, f: &Finding) -> (String, Option<ActionsJson>) {
        self.analysis
            .with_facts(f.subject, |facts| {
                let message = crate::plan::remedy::render_message(f, facts);
                let actions = crate::plan::remedy::actions_from(f, self.analysis, facts, Some(&message));
                let actions = self.actions_json(f, actions);
                (message, actions)
            })
            .unwrap_or_default()
    }

    fn actions_json(&self, f: &Finding, actions: Vec<crate::plan::remedy::Action>) -> Option<ActionsJson> {
        let account = self
            .analysis
            .inventory()
            .accounts
            .get(f.subject.account as usize)
            .and_then(|a| a.id.as_deref())
            .map_or_else(|| "{account_id}".to_string(), crate::plan::request::segment);
        ActionsJson::new(actions, account)
    }

    /// The waiver that accepted a finding, if one did.
    pub fn waiver(&self, f: &Finding) -> Option<&Waiver> {
        match f.suppression {
            Some(Suppression::Waiver(i)) => self.outcome.triage.waivers.get(i as usize),
            _ => None,
        }
    }

    /// Why a finding is accepted, in words, when it is:
    /// `waived until 2024-12-31 (.edgeaudit.yaml:10:5): the reason`.
    pub fn justification(&self, f: &Finding) -> Option<String> {
        match f.suppression? {
            Suppression::Waiver(_) => {
                let w = self.waiver(f)?;
                let until = w.expires.map_or(String::new(), |d| format!(" until {d}"));
                Some(format!(
                    "waived{until} ({}:{}:{}): {}",
                    w.place.file, w.place.line, w.place.column, w.reason
                ))
            }
            Suppression::Baseline => Some(format!(
                "known: recorded in the baseline {}",
                self.outcome.triage.baseline.as_ref().map_or("", |b| b.file.as_str())
            )),
        }
    }

    /// The resource a finding is about.
    /// The finding's resource, its export strings capped for showing.
    pub fn resource(&self, f: &Finding) -> Resource<'_> {
        f.resource(self.analysis).shown()
    }
}

/// Threads that render a report's findings (`EDGEAUDIT_THREADS`, at most 4):
/// the writing thread is one more.
fn renderers() -> usize {
    crate::threads::count().clamp(1, 4)
}
