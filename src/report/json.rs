use serde::Serialize;

use super::Context;
use super::summary::Summary;
use crate::findings::{Resource, Severity};

#[derive(Serialize)]
struct Document<'a> {
    version: u32,
    as_of: String,
    findings: Vec<Finding<'a>>,
    summary: Summary,
}

#[derive(Serialize)]
struct Finding<'a> {
    rule: &'a str,
    name: &'a str,
    severity: Severity,
    message: &'a str,
    resource: &'a Resource,
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
    let findings = ctx
        .outcome
        .findings
        .iter()
        .map(|f| Finding {
            rule: &f.finding.rule.id,
            name: &f.finding.rule.name,
            severity: f.finding.severity,
            message: &f.finding.message,
            resource: &f.finding.resource,
            location: Location {
                file: &f.location.file,
                pointer: &f.location.pointer,
                line: f.location.line,
                column: f.location.column,
            },
        })
        .collect();
    let doc = Document {
        version: 1,
        as_of: ctx.outcome.as_of.to_string(),
        findings,
        summary: Summary::of(ctx.outcome),
    };
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    out.write_all(b"\n")
}
