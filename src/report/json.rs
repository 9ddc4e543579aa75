use serde::Serialize;

use super::pretty::{ELEMENT_DEPTH, Elements, Frame, element_separator, escaped, write_at};
use super::summary::Summary;
use super::{Context, Which};
use crate::findings::{Resource, Severity};
use crate::triage::{Notice, Suppression};

/// The document, a member at a time (as `to_writer_pretty` writes it):
/// `version`; `as_of`; `as_of_source` (`option` for `--as-of`, `config` or
/// `today`); `config`, the config file in force or null; `findings`, those
/// that count (no waiver or baseline accepted them); `suppressed`, the
/// accepted ones, each with why; `notices`; `summary`.
pub fn render(ctx: &Context, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut doc = Frame::new(out)?;
    doc.member("version", &1)?;
    doc.member("as_of", &ctx.outcome.as_of.to_string())?;
    doc.member("as_of_source", &ctx.settings.as_of_source)?;
    doc.member("config", &ctx.settings.config)?;
    doc.array("findings", |elements| findings(ctx, Which::Active, elements))?;
    doc.array("suppressed", |elements| findings(ctx, Which::Suppressed, elements))?;
    let notices: Vec<NoticeOut> = ctx.outcome.triage.notices.iter().map(notice).collect();
    doc.member("notices", &notices)?;
    doc.member("summary", &Summary::of(ctx.outcome))?;
    doc.end()
}

/// The findings `which` selects, written one at a time as they are made:
/// the accepted ones are made in a second pass rather than being held
/// while the others are written (a baseline can accept them all).
fn findings(ctx: &Context, which: Which, elements: &mut Elements) -> std::io::Result<()> {
    if crate::threads::count() <= 1 {
        // One core: written in place, without the text in between.
        for f in ctx.outcome.findings.iter().filter(|f| which.selects(f)) {
            elements.value(&finding(ctx, f, suppression(ctx, f)))?;
        }
        return Ok(());
    }
    // Each finding is made and written out as text on the rendering
    // threads, at its depth in the document, while this one writes the
    // texts out in order: escaping half a gigabyte of messages was the
    // writing thread's own bottleneck. What is made on a thread is freed
    // there too (a tree of small allocations freed on another thread costs
    // more in the allocator's locks than it saves: 200 000 pools, report
    // 0.95 s -> 2.3 s when the actions were a JSON tree that crossed).
    // A run of findings is written into one buffer, which comes back to be
    // filled again once written: a text a finding, made on one thread and
    // freed on this one, kept the allocator taking fresh pages and giving
    // them back (bench/RESULTS.md).
    let spare: std::sync::Mutex<Vec<Vec<u8>>> = std::sync::Mutex::new(Vec::new());
    let take_spare = || spare.lock().ok().and_then(|mut s| s.pop()).unwrap_or_default();
    ctx.with_rendered_runs(
        |_, f| which.selects(f),
        RUN,
        |before, run| {
            let mut text = take_spare();
            text.clear();
            for (k, f) in run.iter().enumerate() {
                element_separator(&mut text, before + k == 0)?;
                write_at(&mut text, &finding(ctx, f, suppression(ctx, f)), ELEMENT_DEPTH)?;
            }
            Ok::<_, std::io::Error>((text, run.len()))
        },
        |rendered| {
            for written in rendered {
                let (text, count) = written?;
                elements.written_run(&text, count)?;
                if let Ok(mut spare) = spare.lock() {
                    spare.push(text);
                }
            }
            Ok(())
        },
    )
}

/// Findings a rendering thread writes into one buffer.
const RUN: usize = 16;

fn finding<'a>(ctx: &'a Context, f: &'a crate::findings::Finding, suppression: Option<SuppressionOut<'a>>) -> Finding<'a> {
    let (message, actions) = ctx.message_and_actions(f);
    Finding {
        rule: &f.rule.id,
        name: &f.rule.name,
        severity: f.severity,
        message,
        resource: ctx.resource(f),
        location: Location {
            file: ctx.file(f),
            pointer: &f.location.pointer,
            line: f.location.line,
            column: f.location.column,
        },
        fingerprint: ctx.fingerprint(f),
        actions,
        impact: ctx.outcome.impact(f),
        suppression,
    }
}

fn suppression<'a>(ctx: &'a Context, f: &crate::findings::Finding) -> Option<SuppressionOut<'a>> {
    Some(match f.suppression? {
        Suppression::Waiver(_) => {
            let w = ctx.waiver(f)?;
            SuppressionOut::Waiver {
                reason: &w.reason,
                expires: w.expires.map(|d| d.to_string()),
                config: Place {
                    file: &w.place.file,
                    line: w.place.line,
                    column: w.place.column,
                },
            }
        }
        Suppression::Baseline => SuppressionOut::Baseline {
            file: ctx.outcome.triage.baseline.as_ref().map_or("", |b| b.file.as_str()),
        },
    })
}

/// Its text members are [`escaped`]: a finding is only written by `write_at`.
#[derive(Serialize)]
struct Finding<'a> {
    #[serde(serialize_with = "escaped")]
    rule: &'a str,
    #[serde(serialize_with = "escaped")]
    name: &'a str,
    severity: Severity,
    #[serde(serialize_with = "escaped")]
    message: String,
    resource: Resource<'a>,
    location: Location<'a>,
    /// The finding's identity: rule, resource, field, element (as in the
    /// baseline and SARIF's `primaryLocationLineHash`).
    #[serde(serialize_with = "escaped")]
    fingerprint: String,
    /// The remedy as typed actions (requests or manual steps), from the
    /// same facts as the message; absent when the remedy is not an action.
    #[serde(skip_serializing_if = "Option::is_none")]
    actions: Option<super::actions::ActionsJson>,
    /// The requests from impacted clients its resource's hosts received
    /// (`--traffic`): a certificate finding on a resource that serves hosts.
    #[serde(skip_serializing_if = "Option::is_none")]
    impact: Option<crate::traffic::impact::Impact>,
    #[serde(skip_serializing_if = "Option::is_none")]
    suppression: Option<SuppressionOut<'a>>,
}

#[derive(Serialize)]
struct Location<'a> {
    #[serde(serialize_with = "escaped")]
    file: &'a str,
    #[serde(serialize_with = "escaped")]
    pointer: &'a str,
    line: usize,
    column: usize,
}

#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum SuppressionOut<'a> {
    Waiver {
        reason: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        expires: Option<String>,
        config: Place<'a>,
    },
    Baseline {
        file: &'a str,
    },
}

#[derive(Serialize)]
struct Place<'a> {
    file: &'a str,
    line: usize,
    column: usize,
}

#[derive(Serialize)]
struct NoticeOut<'a> {
    code: &'a str,
    message: &'a str,
    location: Place<'a>,
}

fn notice(n: &Notice) -> NoticeOut<'_> {
    NoticeOut {
        code: n.code,
        message: &n.message,
        location: Place {
            file: &n.place.file,
            line: n.place.line,
            column: n.place.column,
        },
    }
}

#[derive(Serialize)]
struct FailureDocument<'a> {
    version: u32,
    as_of: Option<String>,
    /// False: the input could not be analysed, and `findings` is empty for that reason.
    success: bool,
    errors: Vec<ErrorOut<'a>>,
    findings: [(); 0],
}

#[derive(Serialize)]
struct ErrorOut<'a> {
    file: &'a str,
    /// Absent for a file that could not be read at all.
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    column: Option<usize>,
    message: &'a str,
}

/// A failed run: `success: false` and every error with its place.
pub fn failure(failure: &super::Failure, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let doc = FailureDocument {
        version: 1,
        as_of: failure.as_of.map(|d| d.to_string()),
        success: false,
        errors: failure
            .errors
            .iter()
            .map(|e| ErrorOut {
                file: &e.file,
                line: e.has_place().then_some(e.line),
                column: e.has_place().then_some(e.column),
                message: &e.message,
            })
            .collect(),
        findings: [],
    };
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    out.write_all(b"\n")
}
