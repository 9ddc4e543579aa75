use serde::Serialize;
use serde_json::value::RawValue;

use super::summary::Summary;
use super::{Context, Which};
use crate::findings::{Resource, Severity};
use crate::triage::{Notice, Suppression};

#[derive(Serialize)]
struct Document<'a> {
    version: u32,
    as_of: String,
    /// `option` (`--as-of`), `config` or `today`.
    as_of_source: super::AsOfSource,
    /// The config file in force, or null.
    config: Option<&'a str>,
    /// The findings that count (no waiver or baseline accepted them).
    findings: Findings<'a>,
    /// The accepted ones, each with why.
    suppressed: Findings<'a>,
    notices: Vec<NoticeOut<'a>>,
    summary: Summary,
}

/// The findings `which` selects, serialised one at a time as their messages
/// arrive: the accepted ones get their messages in a second pass rather than
/// being held while the others are written (a baseline can accept them all).
struct Findings<'a> {
    ctx: &'a Context<'a>,
    which: Which,
}

impl Serialize for Findings<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let ctx = self.ctx;
        let which = self.which;
        // Each finding is made and written out as text on the rendering
        // threads, while this one copies the texts in order: escaping half a
        // gigabyte of messages was the writing thread's own bottleneck. What
        // is made on a thread is freed there too (a tree of small allocations
        // freed on another thread costs more in the allocator's locks than it
        // saves: 200 000 pools, report 0.95 s -> 2.3 s when the actions' tree
        // crossed).
        if crate::threads::count() <= 1 {
            // One core: written in place, without the text in between.
            let selected = ctx.outcome.findings.iter().filter(|f| which.selects(f));
            return s.collect_seq(selected.map(|f| finding(ctx, f, suppression(ctx, f))));
        }
        ctx.with_rendered(
            |_, f| which.selects(f),
            |f| pretty_at(&finding(ctx, f, suppression(ctx, f)), FINDING_DEPTH),
            |rendered| {
                use serde::ser::{Error, SerializeSeq};
                let mut seq = s.serialize_seq(None)?;
                for finding in rendered {
                    seq.serialize_element(&finding.map_err(S::Error::custom)?)?;
                }
                seq.end()
            },
        )
    }
}

/// How deep a finding is in the document (document → `findings` → finding):
/// its lines are indented by two spaces a level.
const FINDING_DEPTH: usize = 2;

/// `value` as `to_writer_pretty` writes it `depth` levels deep: JSON
/// strings hold no raw line breaks, so indenting every line after the first
/// is exact (a test compares with serde_json's own).
fn pretty_at(value: &impl Serialize, depth: usize) -> Result<Box<RawValue>, serde_json::Error> {
    let pretty = serde_json::to_string_pretty(value)?;
    let indent = format!("\n{}", "  ".repeat(depth));
    RawValue::from_string(pretty.replace('\n', &indent))
}

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
    /// The finding's identity: rule, resource, field, element (as in the
    /// baseline and SARIF's `primaryLocationLineHash`).
    fingerprint: String,
    /// The remedy as typed actions (requests or manual steps), from the
    /// same facts as the message; absent when the remedy is not an action.
    #[serde(skip_serializing_if = "Option::is_none")]
    actions: Option<serde_json::Value>,
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
    let doc = Document {
        version: 1,
        as_of: ctx.outcome.as_of.to_string(),
        as_of_source: ctx.settings.as_of_source,
        config: ctx.settings.config,
        findings: Findings { ctx, which: Which::Active },
        suppressed: Findings {
            ctx,
            which: Which::Suppressed,
        },
        notices: ctx.outcome.triage.notices.iter().map(notice).collect(),
        summary: Summary::of(ctx.outcome),
    };
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    out.write_all(b"\n")
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
    line: usize,
    column: usize,
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
                line: e.line,
                column: e.column,
                message: &e.message,
            })
            .collect(),
        findings: [],
    };
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    out.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::{FINDING_DEPTH, pretty_at};
    use serde_json::json;

    #[derive(serde::Serialize)]
    struct Doc<T> {
        version: u32,
        findings: Vec<T>,
        suppressed: Vec<T>,
        summary: serde_json::Value,
    }

    #[test]
    fn findings_written_ahead_are_what_the_pretty_writer_writes_in_place() {
        let findings = vec![
            json!({"rule": "LB001", "message": "a \"quoted\" \\ line\u{2028}", "actions": [{"body": {}, "depends_on": []}], "n": 1.5}),
            json!({"rule": "CA004", "empty": [], "nested": {"a": [1, [2, {}]]}}),
        ];
        let whole = serde_json::to_string_pretty(&Doc {
            version: 1,
            findings: findings.clone(),
            suppressed: findings.clone(),
            summary: json!({"errors": 1}),
        })
        .unwrap();
        let ahead = || findings.iter().map(|f| pretty_at(f, FINDING_DEPTH).unwrap()).collect::<Vec<_>>();
        let spliced = serde_json::to_string_pretty(&Doc {
            version: 1,
            findings: ahead(),
            suppressed: ahead(),
            summary: json!({"errors": 1}),
        })
        .unwrap();
        assert!(whole.contains("\n      \"rule\": \"CA004\""), "{whole}");
        assert_eq!(spliced, whole);
    }
}
