//! SARIF 2.1.0 for code scanning.

use std::cell::RefCell;

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::{Context, Which};
use crate::engine::docs;
use crate::findings::{Finding, Severity};
use crate::triage::{self, Place, Suppression};

pub fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// Content-based: stable when lines move, changes when the finding's rule,
/// file, pointer or resource does.
pub fn fingerprint(f: &Finding, file: &str, resource_id: &str) -> String {
    let mut hasher = Sha256::new();
    for part in [f.rule.id.as_str(), file, &f.location.pointer, resource_id] {
        hasher.update(part.as_bytes());
        hasher.update([0]);
    }
    hasher.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

fn artifact(file: &str) -> ArtifactLocation {
    let relative = !file.starts_with('/') && file != "-";
    ArtifactLocation {
        uri: uri(file),
        uri_base_id: relative.then_some("%SRCROOT%"),
    }
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

#[derive(Serialize)]
struct Log<'a, R: Serialize> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run<'a, R>; 1],
}

/// One run; `R` is its results: the findings, or none for a failed run.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run<'a, R: Serialize> {
    tool: Tool<'a>,
    automation_details: AutomationDetails,
    column_kind: &'static str,
    results: R,
    invocations: [Invocation<'a>; 1],
    #[serde(skip_serializing_if = "Option::is_none")]
    properties: Option<RunProperties>,
}

#[derive(Serialize)]
struct Tool<'a> {
    driver: Driver<'a>,
}

#[derive(Serialize)]
struct Driver<'a> {
    name: &'static str,
    version: &'static str,
    rules: Vec<RuleMetadata<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RuleMetadata<'a> {
    id: &'a str,
    name: &'a str,
    short_description: Text<'a>,
    full_description: Text<'a>,
    help: Help,
    #[serde(skip_serializing_if = "Option::is_none")]
    help_uri: Option<&'a str>,
    default_configuration: Configuration,
    properties: RuleProperties<'a>,
}

#[derive(Serialize)]
struct Text<'a> {
    text: &'a str,
}

#[derive(Serialize)]
struct Help {
    text: String,
    markdown: String,
}

#[derive(Serialize)]
struct Configuration {
    level: &'static str,
}

#[derive(Serialize)]
struct RuleProperties<'a> {
    tags: &'a [String],
    precision: &'static str,
    #[serde(rename = "problem.severity")]
    problem_severity: &'static str,
}

/// Results serialised one at a time, each message as it arrives.
struct Results<'a> {
    ctx: &'a Context<'a>,
    messages: RefCell<&'a mut dyn Iterator<Item = String>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule_index: Option<usize>,
    level: &'static str,
    message: OwnedText,
    locations: [Location; 1],
    partial_fingerprints: Fingerprints,
    /// Present, possibly empty, for a result a waiver or the baseline accepted.
    #[serde(skip_serializing_if = "Option::is_none")]
    suppressions: Option<[SarifSuppression; 1]>,
    /// `new` or `unchanged` when the run compared with a baseline.
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline_state: Option<&'static str>,
    properties: ResultProperties<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifSuppression {
    kind: &'static str,
    status: &'static str,
    justification: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    location: Option<PlainLocation>,
}

/// A location in one of edgeaudit's own files (config, baseline).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PlainLocation {
    physical_location: PlainPhysicalLocation,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PlainPhysicalLocation {
    artifact_location: ArtifactLocation,
    region: StartRegion,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StartRegion {
    start_line: usize,
    start_column: usize,
}

fn plain_location(place: &Place) -> PlainLocation {
    PlainLocation {
        physical_location: PlainPhysicalLocation {
            artifact_location: artifact(&place.file),
            region: StartRegion {
                start_line: place.line,
                start_column: place.column,
            },
        },
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Notification<'a> {
    descriptor: Descriptor<'a>,
    level: &'static str,
    message: Text<'a>,
    /// None for an error that is about no file (a bad command line).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    locations: Vec<PlainLocation>,
}

#[derive(Serialize)]
struct Descriptor<'a> {
    id: &'a str,
}

#[derive(Serialize)]
struct OwnedText {
    text: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    physical_location: PhysicalLocation,
    logical_locations: [LogicalLocation; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    region: Region,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation {
    uri: String,
    /// Relative paths are relative to the checkout: `%SRCROOT%` for code scanning.
    #[serde(skip_serializing_if = "Option::is_none")]
    uri_base_id: Option<&'static str>,
}

#[derive(Serialize)]
struct AutomationDetails {
    id: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: usize,
    start_column: usize,
    end_line: usize,
    end_column: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LogicalLocation {
    fully_qualified_name: String,
    name: String,
    kind: &'static str,
}

#[derive(Serialize)]
struct Fingerprints {
    /// The finding's identity, as the key code scanning matches alerts by (it
    /// uses only `primaryLocationLineHash`, and computes one from the line's
    /// text when a tool gives none: that would change with the line).
    #[serde(rename = "primaryLocationLineHash")]
    primary: String,
    /// The same identity under our own name: the baseline's fingerprint,
    /// stable when exports are renamed, split, merged or reordered.
    #[serde(rename = "edgeaudit/resource/v1")]
    resource: String,
    /// A secondary, location-based key: rule, file, pointer and resource.
    #[serde(rename = "edgeaudit/location/v1")]
    location: String,
}

#[derive(Serialize)]
struct ResultProperties<'a> {
    pointer: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation<'a> {
    execution_successful: bool,
    exit_code: u8,
    /// Expired or unmatched waivers, stale baseline entries.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_configuration_notifications: Vec<Notification<'a>>,
    /// Files that were not analysed, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_execution_notifications: Vec<Notification<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RunProperties {
    as_of: String,
}

impl Serialize for Results<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let ctx = self.ctx;
        let mut messages = self.messages.borrow_mut();
        s.collect_seq(ctx.outcome.findings.iter().map(|f| {
            // Identity from the resource as exported, display from it as shown.
            let exported = f.resource(ctx.analysis);
            let resource_fingerprint = triage::finding_fingerprint(f, &exported);
            let location_fingerprint = fingerprint(f, ctx.file(f), &exported.id);
            let resource = exported.shown();
            SarifResult {
                rule_id: &f.rule.id,
                rule_index: ctx.rules.rules.iter().position(|r| r.id == f.rule.id),
                level: level(f.severity),
                message: OwnedText {
                    text: messages.next().unwrap_or_default(),
                },
                locations: [Location {
                    physical_location: PhysicalLocation {
                        artifact_location: artifact(ctx.file(f)),
                        region: Region {
                            start_line: f.location.line,
                            start_column: f.location.column,
                            end_line: f.location.end_line,
                            end_column: f.location.end_column,
                        },
                    },
                    logical_locations: [LogicalLocation {
                        fully_qualified_name: format!("{}/{}", resource.kind, resource.id),
                        name: if resource.name.is_empty() {
                            resource.id.into_owned()
                        } else {
                            resource.name.into_owned()
                        },
                        kind: "resource",
                    }],
                }],
                partial_fingerprints: Fingerprints {
                    primary: resource_fingerprint.clone(),
                    resource: resource_fingerprint.clone(),
                    location: location_fingerprint,
                },
                suppressions: f.suppression.map(|kind| {
                    [SarifSuppression {
                        kind: "external",
                        status: "accepted",
                        justification: ctx.justification(f).unwrap_or_default(),
                        location: match kind {
                            Suppression::Waiver(_) => ctx.waiver(f).map(|w| plain_location(&w.place)),
                            Suppression::Baseline => None,
                        },
                    }]
                }),
                baseline_state: ctx
                    .outcome
                    .triage
                    .baseline
                    .as_ref()
                    .map(|b| if b.contains(&resource_fingerprint) { "unchanged" } else { "new" }),
                properties: ResultProperties {
                    pointer: &f.location.pointer,
                },
            }
        }))
    }
}

/// The rules' full metadata: the same text as `explain`.
fn rule_metadata(rules: &crate::engine::RuleSet) -> Vec<RuleMetadata<'_>> {
    rules
        .rules
        .iter()
        .map(|r| RuleMetadata {
            id: &r.id,
            name: &r.name,
            short_description: Text { text: &r.summary },
            full_description: Text { text: r.rationale.trim() },
            help: Help {
                text: docs::text(r),
                markdown: docs::markdown(r),
            },
            help_uri: r.references.first().map(String::as_str),
            default_configuration: Configuration { level: level(r.severity) },
            properties: RuleProperties {
                tags: &r.tags,
                precision: "very-high",
                problem_severity: match r.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                    Severity::Note => "recommendation",
                },
            },
        })
        .collect()
}

fn tool(rules: &crate::engine::RuleSet) -> Tool<'_> {
    Tool {
        driver: Driver {
            name: "edgeaudit",
            version: env!("CARGO_PKG_VERSION"),
            rules: rule_metadata(rules),
        },
    }
}

/// An error's place, when it is about a file.
fn error_location(e: &crate::load::error::InputError) -> PlainLocation {
    plain_location(&Place {
        file: e.file.clone(),
        line: e.line,
        column: e.column,
    })
}

/// A failed run: no results, `executionSuccessful: false`, and every error
/// as a tool execution notification at its place, so the upload step of a
/// CI workflow finds a valid file that says why.
pub fn failure(failure: &super::Failure, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let log = Log {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        version: "2.1.0",
        runs: [Run {
            tool: tool(failure.rules),
            automation_details: AutomationDetails { id: "edgeaudit/".into() },
            column_kind: "unicodeCodePoints",
            results: [(); 0],
            invocations: [Invocation {
                execution_successful: false,
                exit_code: crate::cli::EXIT_ERROR,
                tool_configuration_notifications: Vec::new(),
                tool_execution_notifications: failure
                    .errors
                    .iter()
                    .map(|e| Notification {
                        descriptor: Descriptor { id: "input-error" },
                        level: "error",
                        message: Text { text: &e.message },
                        locations: if e.file.is_empty() { Vec::new() } else { vec![error_location(e)] },
                    })
                    .collect(),
            }],
            properties: failure.as_of.map(|d| RunProperties { as_of: d.to_string() }),
        }],
    };
    serde_json::to_writer_pretty(&mut *out, &log)?;
    out.write_all(b"\n")
}

pub fn render(ctx: &Context, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    ctx.with_messages(Which::All, |messages| {
        let log = Log {
            schema: "https://json.schemastore.org/sarif-2.1.0.json",
            version: "2.1.0",
            runs: [Run {
                tool: tool(ctx.rules),
                automation_details: AutomationDetails { id: "edgeaudit/".into() },
                column_kind: "unicodeCodePoints",
                results: Results {
                    ctx,
                    messages: RefCell::new(messages),
                },
                invocations: [Invocation {
                    execution_successful: true,
                    exit_code: ctx.exit_code,
                    tool_configuration_notifications: ctx
                        .outcome
                        .triage
                        .notices
                        .iter()
                        .map(|n| Notification {
                            descriptor: Descriptor { id: n.code },
                            level: "note",
                            message: Text { text: &n.message },
                            locations: vec![plain_location(&n.place)],
                        })
                        .collect(),
                    tool_execution_notifications: ctx
                        .outcome
                        .skipped
                        .iter()
                        .map(|e| Notification {
                            descriptor: Descriptor { id: "skipped-file" },
                            level: "warning",
                            message: Text { text: &e.message },
                            locations: vec![error_location(e)],
                        })
                        .collect(),
                }],
                properties: Some(RunProperties {
                    as_of: ctx.outcome.as_of.to_string(),
                }),
            }],
        };
        serde_json::to_writer_pretty(&mut *out, &log)?;
        out.write_all(b"\n")
    })
}
