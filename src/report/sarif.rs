//! SARIF 2.1.0 for code scanning.

use std::borrow::Cow;
use std::cell::RefCell;
use std::io::Write;

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::{Context, limits};
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
    properties: Option<RunProperties<'a>>,
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
    help_uri: Option<Cow<'a, str>>,
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

/// Results serialised one at a time, each message and its actions as they
/// arrive (made from one making of the subject's facts).
struct Results<'a> {
    ctx: &'a Context<'a>,
    /// Which findings are written, when not all fit in a run.
    kept: Option<&'a [bool]>,
    rendered: RefCell<&'a mut dyn Iterator<Item = (String, Option<super::actions::ActionsJson>)>>,
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
    /// Absent for a file that could not be read at all.
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<StartRegion>,
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
            region: (place.line > 0).then_some(StartRegion {
                start_line: place.line,
                start_column: place.column,
            }),
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
    #[serde(serialize_with = "super::pretty::escaped")]
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
    // Only keys independent of file names and record order: a consumer that
    // matches on every partial fingerprint must not see new alerts after a
    // re-export. The location-based key is in `properties`.
}

#[derive(Serialize)]
struct ResultProperties<'a> {
    pointer: &'a str,
    /// A location-based key (rule, file, pointer and resource): it changes
    /// when records move, so it is no partial fingerprint.
    #[serde(rename = "edgeaudit/location/v1")]
    location: String,
    /// The remedy as typed actions (as in the JSON report).
    #[serde(skip_serializing_if = "Option::is_none")]
    actions: Option<super::actions::ActionsJson>,
    /// The requests from impacted clients (`--traffic`), as in the JSON report.
    #[serde(skip_serializing_if = "Option::is_none")]
    impact: Option<crate::traffic::impact::Impact>,
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
struct RunProperties<'a> {
    as_of: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    as_of_source: Option<super::AsOfSource>,
    #[serde(skip_serializing_if = "Option::is_none")]
    config: Option<&'a str>,
    /// Findings left out to stay within code scanning's results limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    omitted_results: Option<usize>,
}

impl Serialize for Results<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let ctx = self.ctx;
        let mut rendered = self.rendered.borrow_mut();
        let kept = self.kept;
        let findings = ctx.outcome.findings.iter().enumerate();
        s.collect_seq(findings.filter(|(i, _)| kept.is_none_or(|k| k[*i])).map(|(_, f)| {
            // Identity from the resource as exported, display from it as shown.
            let exported = f.resource(ctx.analysis);
            let resource_fingerprint = triage::finding_fingerprint(f, &exported);
            let location_fingerprint = fingerprint(f, ctx.file(f), &exported.id);
            let resource = exported.shown();
            let (message, actions) = rendered.next().unwrap_or_default();
            SarifResult {
                rule_id: &f.rule.id,
                rule_index: ctx.rules.rules.iter().position(|r| r.id == f.rule.id),
                level: level(f.severity),
                message: OwnedText { text: message },
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
                        // A Terraform resource is named by its address, as the configuration names it.
                        fully_qualified_name: match &resource.address {
                            Some(address) => address.to_string(),
                            // A record exported without an id is named by its name.
                            None if resource.id.is_empty() && !resource.name.is_empty() => {
                                format!("{}/name={}", resource.kind, resource.name)
                            }
                            None => format!("{}/{}", resource.kind, resource.id),
                        },
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
                    location: location_fingerprint,
                    actions,
                    impact: ctx.outcome.impact(f),
                },
            }
        }))
    }
}

/// The longest prefix of `text` of at most `max` characters.
fn at_most(text: &str, max: usize) -> &str {
    text.char_indices().nth(max).map_or(text, |(end, _)| &text[..end])
}

/// The rules' full metadata: the same text as `explain`.
fn rule_metadata(rules: &crate::engine::RuleSet) -> Vec<RuleMetadata<'_>> {
    rules
        .rules
        .iter()
        .map(|r| RuleMetadata {
            id: &r.id,
            name: &r.name,
            // Code scanning takes at most 1,024 characters of each description.
            short_description: Text {
                text: at_most(&r.summary, limits::SARIF_MAX_DESCRIPTION),
            },
            full_description: Text {
                text: at_most(r.rationale.trim(), limits::SARIF_MAX_DESCRIPTION),
            },
            help: Help {
                text: docs::text(r),
                markdown: docs::markdown(r),
            },
            // The rule's page in the published book, else its first reference.
            help_uri: docs::page_url(r)
                .map(Cow::Owned)
                .or_else(|| r.references.first().map(|u| Cow::Borrowed(u.as_str()))),
            default_configuration: Configuration { level: level(r.severity) },
            properties: RuleProperties {
                tags: &r.tags[..r.tags.len().min(limits::SARIF_MAX_TAGS)],
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

/// An input error (or a skipped file) as a notification, at its place when
/// it is about a file.
fn error_notification<'a>(e: &'a crate::text::error::InputError, id: &'a str, level: &'static str) -> Notification<'a> {
    let place = || {
        plain_location(&Place {
            file: e.file.clone(),
            line: e.line,
            column: e.column,
        })
    };
    Notification {
        descriptor: Descriptor { id },
        level,
        message: Text { text: &e.message },
        locations: if e.file.is_empty() { Vec::new() } else { vec![place()] },
    }
}

/// The log of one run of edgeaudit.
fn log<'a, R: Serialize>(
    rules: &'a crate::engine::RuleSet,
    results: R,
    invocation: Invocation<'a>,
    properties: Option<RunProperties<'a>>,
) -> Log<'a, R> {
    Log {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        version: "2.1.0",
        runs: [Run {
            tool: tool(rules),
            automation_details: AutomationDetails { id: "edgeaudit/".into() },
            column_kind: "unicodeCodePoints",
            results,
            invocations: [invocation],
            properties,
        }],
    }
}

/// A failed run: no results, `executionSuccessful: false`, and every error
/// as a tool execution notification at its place, so the upload step of a
/// CI workflow finds a valid file that says why.
pub fn failure(failure: &super::Failure, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let log = log(
        failure.rules,
        [(); 0],
        Invocation {
            execution_successful: false,
            exit_code: crate::exit::EXIT_ERROR,
            tool_configuration_notifications: Vec::new(),
            tool_execution_notifications: failure
                .errors
                .iter()
                .map(|e| error_notification(e, "input-error", "error"))
                .collect(),
        },
        failure.as_of.map(|d| RunProperties {
            as_of: d.to_string(),
            as_of_source: None,
            config: None,
            omitted_results: None,
        }),
    );
    super::pretty::to_writer(&mut *out, &log)?;
    out.write_all(b"\n")
}

pub fn render(ctx: &Context, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    // Code scanning refuses a run of more results than it takes: keep the
    // most severe, and say in the run how many were left out.
    let kept = limits::most_severe(&ctx.outcome.findings, |f| f.severity, limits::SARIF_MAX_RESULTS);
    let omitted = kept.as_ref().map(|k| k.iter().filter(|keep| !**keep).count());
    let limit_notice = omitted.map(|n| {
        format!(
            "{n} of {} findings are not in this SARIF file: code scanning refuses a run of more than {} results (and shows {}), so the most severe were kept, every error first; `--format json` lists them all",
            ctx.outcome.findings.len(),
            limits::SARIF_MAX_RESULTS,
            limits::SARIF_SHOWN_RESULTS
        )
    });
    if let Some(notice) = &limit_notice {
        crate::say!("edgeaudit: warning: {notice}");
    }
    let mut out = GzipMeasured::new(out);
    ctx.with_rendered(
        |i, _| kept.as_ref().is_none_or(|k| k[i]),
        |f| ctx.message_and_actions(f),
        |rendered| -> std::io::Result<()> {
            let invocation = Invocation {
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
                    .map(|e| error_notification(e, "skipped-file", "warning"))
                    .chain(limit_notice.as_deref().map(|text| Notification {
                        descriptor: Descriptor { id: "results-limit" },
                        level: "warning",
                        message: Text { text },
                        locations: Vec::new(),
                    }))
                    .collect(),
            };
            let results = Results {
                ctx,
                kept: kept.as_deref(),
                rendered: RefCell::new(rendered),
            };
            let properties = RunProperties {
                as_of: ctx.outcome.as_of.to_string(),
                as_of_source: Some(ctx.settings.as_of_source),
                config: ctx.settings.config,
                omitted_results: omitted,
            };
            let log = log(ctx.rules, results, invocation, Some(properties));
            super::pretty::to_writer(&mut out, &log)?;
            out.write_all(b"\n")
        },
    )?;
    // Only strings of many kilobytes in every result can make 25,000 results
    // too large; said, never written silently.
    let compressed = out.compressed_size()?;
    if compressed > limits::SARIF_MAX_GZIP_BYTES {
        crate::say!(
            "edgeaudit: warning: this SARIF is {compressed} bytes gzip-compressed, over code scanning's limit of {} bytes: an upload would be refused; narrow the run with --select or the paths checked",
            limits::SARIF_MAX_GZIP_BYTES
        );
    }
    Ok(())
}

/// Writes through to `out` while measuring what the output would weigh
/// gzip-compressed (code scanning's size limit is on the compressed file).
/// Output no larger than the limit cannot weigh more than it compressed, so
/// it is only held; compression starts once the output passes the limit.
struct GzipMeasured<'a> {
    out: &'a mut dyn std::io::Write,
    /// What was written before the limit was passed.
    held: Vec<u8>,
    /// Fed in large pieces (the encoder costs per call, and serde writes many
    /// small ones) once the output is over the limit.
    gzip: Option<std::io::BufWriter<flate2::write::GzEncoder<Counter>>>,
}

/// Counts the bytes written to it, and keeps none.
struct Counter(u64);

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> GzipMeasured<'a> {
    fn new(out: &'a mut dyn std::io::Write) -> Self {
        GzipMeasured {
            out,
            held: Vec::new(),
            gzip: None,
        }
    }

    /// The compressed size, or the plain size when that is within the limit.
    fn compressed_size(self) -> std::io::Result<u64> {
        match self.gzip {
            None => Ok(self.held.len() as u64),
            Some(gzip) => {
                let gzip = gzip.into_inner().map_err(|e| e.into_error())?;
                Ok(gzip.finish()?.0)
            }
        }
    }
}

impl std::io::Write for GzipMeasured<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.out.write(buf)?;
        match &mut self.gzip {
            Some(gzip) => gzip.write_all(&buf[..n])?,
            None => {
                self.held.extend_from_slice(&buf[..n]);
                if self.held.len() as u64 > limits::SARIF_MAX_GZIP_BYTES {
                    // The fastest level: an upper bound on what upload tools produce.
                    let encoder = flate2::write::GzEncoder::new(Counter(0), flate2::Compression::fast());
                    let mut gzip = std::io::BufWriter::with_capacity(1 << 18, encoder);
                    gzip.write_all(&std::mem::take(&mut self.held))?;
                    self.gzip = Some(gzip);
                }
            }
        }
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}
