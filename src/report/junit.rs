//! JUnit XML for CI systems that show test reports: one test suite per rule,
//! one failing test case per finding, a passing case for a rule without any;
//! an accepted (waived or baseline) finding is a skipped case saying why.

use super::{Context, Which};

use crate::text::escape::xml::text as xml;

pub fn render(ctx: &Context, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let messages: Vec<String> = ctx.with_messages(Which::All, |m| m.collect());
    let findings = &ctx.outcome.findings;
    writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    let cases = ctx
        .rules
        .rules
        .iter()
        .map(|r| findings.iter().filter(|f| f.rule.id == r.id).count().max(1))
        .sum::<usize>();
    // A finding below `--fail-on` is reported, as a passing case: JUnit's
    // failures are what fails the run.
    let fails = |f: &crate::findings::Finding| !f.is_suppressed() && ctx.fail_on.fails(f.severity);
    let skipped = findings.iter().filter(|f| f.is_suppressed()).count();
    writeln!(
        out,
        r#"<testsuites name="edgeaudit" tests="{cases}" failures="{}" skipped="{skipped}">"#,
        findings.iter().filter(|f| fails(f)).count()
    )?;
    for rule in &ctx.rules.rules {
        let mine: Vec<usize> = (0..findings.len()).filter(|&i| findings[i].rule.id == rule.id).collect();
        let skipped = mine.iter().filter(|&&i| findings[i].is_suppressed()).count();
        writeln!(
            out,
            r#"  <testsuite name="{} {}" tests="{}" failures="{}" skipped="{skipped}">"#,
            xml(&rule.id),
            xml(&rule.name),
            mine.len().max(1),
            mine.iter().filter(|&&i| fails(&findings[i])).count()
        )?;
        if mine.is_empty() {
            writeln!(out, r#"    <testcase classname="{}" name="no findings"/>"#, xml(&rule.id))?;
        }
        for i in mine {
            let f = &findings[i];
            let r = ctx.resource(f);
            let name = if r.name.is_empty() { r.id } else { r.name };
            let case = format!("{} {}", r.kind, name);
            writeln!(
                out,
                r#"    <testcase classname="{}" name="{}" file="{}" line="{}">"#,
                xml(&rule.id),
                xml(case.trim_end()),
                xml(ctx.file(f)),
                f.location.line
            )?;
            if let Some(why) = ctx.justification(f) {
                writeln!(out, r#"      <skipped message="{}"/>"#, xml(&why))?;
            }
            let place = format!(
                "{}:{}:{} {}",
                xml(ctx.file(f)),
                f.location.line,
                f.location.column,
                xml(&f.location.pointer)
            );
            if fails(f) {
                writeln!(
                    out,
                    r#"      <failure type="{}" message="{}">{place}</failure>"#,
                    f.severity,
                    xml(&messages[i])
                )?;
            } else if f.is_suppressed() {
                writeln!(out, "      <system-out>{place}</system-out>")?;
            } else {
                // Below --fail-on: said, not failed.
                let said = xml(&format!("{}: {}", f.severity, messages[i]));
                writeln!(out, "      <system-out>{place} {said}</system-out>")?;
            }
            writeln!(out, "    </testcase>")?;
        }
        writeln!(out, "  </testsuite>")?;
    }
    let skipped_files = &ctx.outcome.skipped;
    if !skipped_files.is_empty() {
        writeln!(
            out,
            r#"  <testsuite name="skipped files" tests="{0}" failures="0" skipped="{0}">"#,
            skipped_files.len()
        )?;
        for e in skipped_files {
            writeln!(
                out,
                r#"    <testcase classname="edgeaudit" name="{}" file="{}" line="{}">"#,
                xml(&e.file),
                xml(&e.file),
                e.line
            )?;
            writeln!(
                out,
                r#"      <skipped message="{}"/>"#,
                xml(&format!("skipped, not analysed: {}", e.skip_reason()))
            )?;
            writeln!(out, "    </testcase>")?;
        }
        writeln!(out, "  </testsuite>")?;
    }
    // Waiver, baseline and run notes: said, never a failure.
    let notices = &ctx.outcome.triage.notices;
    if !notices.is_empty() {
        writeln!(out, r#"  <testsuite name="notes" tests="0" failures="0">"#)?;
        // One notice a line: each escaped (its own line breaks too), joined by ours.
        let lines: Vec<String> = notices.iter().map(|n| xml(&n.line())).collect();
        writeln!(out, "    <system-out>{}</system-out>", lines.join("\n"))?;
        writeln!(out, "  </testsuite>")?;
    }
    writeln!(out, "</testsuites>")
}

/// A failed run: one suite of input errors, one erroring case per error.
pub fn failure(failure: &super::Failure, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let n = failure.errors.len();
    writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    writeln!(out, r#"<testsuites name="edgeaudit" tests="{n}" failures="0" errors="{n}">"#)?;
    writeln!(out, r#"  <testsuite name="input" tests="{n}" failures="0" errors="{n}">"#)?;
    for e in failure.errors {
        let name = if e.file.is_empty() { "edgeaudit" } else { e.file.as_str() };
        writeln!(
            out,
            r#"    <testcase classname="edgeaudit" name="{}" file="{}" line="{}">"#,
            xml(name),
            xml(&e.file),
            e.line
        )?;
        writeln!(
            out,
            r#"      <error type="input" message="{}">{}</error>"#,
            xml(&e.message),
            xml(&e.to_string())
        )?;
        writeln!(out, "    </testcase>")?;
    }
    writeln!(out, "  </testsuite>")?;
    writeln!(out, "</testsuites>")
}
