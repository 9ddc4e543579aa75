//! SARIF 2.1.0 for code scanning.

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::Context;
use crate::engine::docs;
use crate::findings::{LocatedFinding, Severity};

pub fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// Content-based: stable when lines move, changes when the finding's rule,
/// file, pointer or resource does.
pub fn fingerprint(f: &LocatedFinding) -> String {
    let mut hasher = Sha256::new();
    for part in [
        f.finding.rule.id.as_str(),
        &f.location.file,
        &f.location.pointer,
        &f.finding.resource.id,
    ] {
        hasher.update(part.as_bytes());
        hasher.update([0]);
    }
    hasher.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// A relative URI reference for a file name as given (`/`-separated).
pub fn uri(file: &str) -> String {
    let mut out = String::with_capacity(file.len());
    for b in file.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

pub fn render(ctx: &Context, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let rules: Vec<Value> = ctx
        .rules
        .rules
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "name": r.name,
                "shortDescription": { "text": r.summary },
                "fullDescription": { "text": r.rationale.trim() },
                "help": { "text": docs::text(r), "markdown": docs::markdown(r) },
                "helpUri": r.references.first(),
                "defaultConfiguration": { "level": level(r.severity) },
                "properties": {
                    "tags": r.tags,
                    "precision": "very-high",
                    "problem.severity": match r.severity { Severity::Error => "error", Severity::Warning => "warning", Severity::Note => "recommendation" },
                },
            })
        })
        .map(|mut v| {
            if let (true, Some(o)) = (v["helpUri"].is_null(), v.as_object_mut()) {
                o.remove("helpUri");
            }
            v
        })
        .collect();
    let results: Vec<Value> = ctx
        .outcome
        .findings
        .iter()
        .map(|f| {
            let rule_index = ctx.rules.rules.iter().position(|r| r.id == f.finding.rule.id);
            let resource = &f.finding.resource;
            let mut result = json!({
                "ruleId": f.finding.rule.id,
                "level": level(f.finding.severity),
                "message": { "text": f.finding.message },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": { "uri": uri(&f.location.file) },
                        "region": { "startLine": f.location.line, "startColumn": f.location.column },
                    },
                    "logicalLocations": [{
                        "fullyQualifiedName": format!("{}/{}", resource.kind, resource.id),
                        "name": if resource.name.is_empty() { &resource.id } else { &resource.name },
                        "kind": "resource",
                    }],
                }],
                "partialFingerprints": { "edgeaudit/v1": fingerprint(f) },
                "properties": { "pointer": f.location.pointer },
            });
            if let (Some(i), Some(o)) = (rule_index, result.as_object_mut()) {
                o.insert("ruleIndex".into(), json!(i));
            }
            result
        })
        .collect();
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "edgeaudit",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
            "invocations": [{ "executionSuccessful": true }],
            "properties": { "asOf": ctx.outcome.as_of.to_string() },
        }],
    });
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    out.write_all(b"\n")
}
