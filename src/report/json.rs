use serde::Serialize;

use super::Context;
use super::summary::Summary;
use crate::findings::{Resource, Severity};

#[derive(Serialize)]
struct Document<'a> {
    version: u32,
    as_of: String,
    findings: Findings<'a>,
    summary: Summary,
}

/// The findings, serialised one at a time as their messages are rendered.
struct Findings<'a>(&'a Context<'a>);

impl Serialize for Findings<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let ctx = self.0;
        s.collect_seq(ctx.outcome.findings.iter().map(|f| Finding {
            rule: &f.rule.id,
            name: &f.rule.name,
            severity: f.severity,
            message: ctx.message(f),
            resource: ctx.resource(f),
            location: Location { file: ctx.file(f), pointer: &f.location.pointer, line: f.location.line, column: f.location.column },
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
    let doc = Document { version: 1, as_of: ctx.outcome.as_of.to_string(), findings: Findings(ctx), summary: Summary::of(ctx.outcome) };
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    out.write_all(b"\n")
}
