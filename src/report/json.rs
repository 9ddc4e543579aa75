use std::cell::RefCell;

use serde::Serialize;

use super::Context;
use super::summary::Summary;
use crate::findings::{Resource, Severity};

#[derive(Serialize)]
struct Document<'a> {
    version: u32,
    as_of: String,
    findings: Findings<'a, 'a>,
    summary: Summary,
}

/// The findings, serialised one at a time as their messages arrive.
struct Findings<'a, 'm> {
    ctx: &'a Context<'a>,
    messages: RefCell<&'m mut dyn Iterator<Item = String>>,
}

impl Serialize for Findings<'_, '_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let ctx = self.ctx;
        let mut messages = self.messages.borrow_mut();
        s.collect_seq(ctx.outcome.findings.iter().map(|f| Finding {
            rule: &f.rule.id,
            name: &f.rule.name,
            severity: f.severity,
            message: messages.next().unwrap_or_default(),
            resource: ctx.resource(f),
            location: Location {
                file: ctx.file(f),
                pointer: &f.location.pointer,
                line: f.location.line,
                column: f.location.column,
            },
        }))
    }
}

#[derive(Serialize)]
struct Finding<'a> {
    rule: &'a str,
    name: &'a str,
    severity: Severity,
    message: String,
    resource: Resource<'a>,
    location: Location<'a>,
}

#[derive(Serialize)]
struct Location<'a> {
    file: &'a str,
    pointer: &'a str,
    line: usize,
    column: usize,
}

pub fn render(ctx: &Context, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    ctx.with_messages(|messages| {
        let findings = Findings {
            ctx,
            messages: RefCell::new(messages),
        };
        let doc = Document {
            version: 1,
            as_of: ctx.outcome.as_of.to_string(),
            findings,
            summary: Summary::of(ctx.outcome),
        };
        serde_json::to_writer_pretty(&mut *out, &doc)?;
        out.write_all(b"\n")
    })
}
