use std::cell::RefCell;

use serde::Serialize;

use super::Context;
use super::summary::Summary;
use crate::findings::{Resource, Severity};
use crate::triage::{Notice, Suppression};

#[derive(Serialize)]
struct Document<'a> {
    version: u32,
    as_of: String,
    /// The findings that count (no waiver or baseline accepted them).
    findings: Active<'a>,
    /// The accepted ones, each with why.
    suppressed: Accepted<'a>,
    notices: Vec<NoticeOut<'a>>,
    summary: Summary,
}

/// Messages arrive in finding order; those of suppressed findings wait here
/// until the `suppressed` list is written.
struct Messages<'m> {
    all: &'m mut dyn Iterator<Item = String>,
    held: Vec<String>,
}

struct Active<'a> {
    ctx: &'a Context<'a>,
    messages: &'a RefCell<Messages<'a>>,
}

struct Accepted<'a> {
    ctx: &'a Context<'a>,
    messages: &'a RefCell<Messages<'a>>,
}

impl Serialize for Active<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let ctx = self.ctx;
        let mut messages = self.messages.borrow_mut();
        s.collect_seq(ctx.outcome.findings.iter().filter_map(|f| {
            let message = messages.all.next().unwrap_or_default();
            if f.is_suppressed() {
                messages.held.push(message);
                return None;
            }
            Some(finding(ctx, f, message, None))
        }))
    }
}

impl Serialize for Accepted<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let ctx = self.ctx;
        let held = std::mem::take(&mut self.messages.borrow_mut().held);
        s.collect_seq(
            ctx.outcome
                .findings
                .iter()
                .filter(|f| f.is_suppressed())
                .zip(held)
                .map(|(f, message)| finding(ctx, f, message, suppression(ctx, f))),
        )
    }
}

fn finding<'a>(ctx: &'a Context, f: &'a crate::findings::Finding, message: String, suppression: Option<SuppressionOut<'a>>) -> Finding<'a> {
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

#[derive(Serialize)]
struct Finding<'a> {
    rule: &'a str,
    name: &'a str,
    severity: Severity,
    message: String,
    resource: Resource<'a>,
    location: Location<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    suppression: Option<SuppressionOut<'a>>,
}

#[derive(Serialize)]
struct Location<'a> {
    file: &'a str,
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

pub fn render(ctx: &Context, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    ctx.with_messages(|all| {
        let messages = RefCell::new(Messages { all, held: Vec::new() });
        let doc = Document {
            version: 1,
            as_of: ctx.outcome.as_of.to_string(),
            findings: Active { ctx, messages: &messages },
            suppressed: Accepted { ctx, messages: &messages },
            notices: ctx.outcome.triage.notices.iter().map(notice).collect(),
            summary: Summary::of(ctx.outcome),
        };
        serde_json::to_writer_pretty(&mut *out, &doc)?;
        out.write_all(b"\n")
    })
}
