//! GitHub Actions workflow commands: one annotation per finding, shown on the
//! pull request's diff.

use super::{Context, Which};
use crate::findings::Severity;

/// Workflow-command data: `%`, CR and LF are escaped.
fn escape_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// Workflow-command properties: also `:` and `,`.
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

pub fn render(ctx: &Context, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    ctx.with_messages(Which::Active, |messages| {
        for (f, message) in ctx.outcome.active().zip(messages) {
            let level = match f.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Note => "notice",
            };
            writeln!(
                out,
                "::{level} file={},line={},col={},title={}::{}",
                escape_property(ctx.file(f)),
                f.location.line,
                f.location.column,
                escape_property(&format!("{} {}", f.rule.id, f.rule.name)),
                escape_data(&message)
            )?;
        }
        for e in &ctx.outcome.skipped {
            writeln!(
                out,
                "::warning file={},line={},col={},title={}::{}",
                escape_property(&e.file),
                e.line,
                e.column,
                escape_property("edgeaudit skipped file"),
                escape_data(&format!("skipped, not analysed: {}", e.skip_reason()))
            )?;
        }
        for n in &ctx.outcome.triage.notices {
            writeln!(
                out,
                "::notice file={},line={},col={},title={}::{}",
                escape_property(&n.place.file),
                n.place.line,
                n.place.column,
                escape_property(&format!("edgeaudit {}", n.code)),
                escape_data(&n.message)
            )?;
        }
        Ok(())
    })
}

/// A failed run: an `::error` annotation per error, at its file and line.
pub fn failure(failure: &super::Failure, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    for e in failure.errors {
        if e.file.is_empty() {
            writeln!(out, "::error title=edgeaudit::{}", escape_data(&e.message))?;
        } else {
            writeln!(
                out,
                "::error file={},line={},col={},title=edgeaudit input error::{}",
                escape_property(&e.file),
                e.line,
                e.column,
                escape_data(&e.message)
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_escape_what_github_requires() {
        assert_eq!(escape_data("50% done\r\nnext"), "50%25 done%0D%0Anext");
        assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");
    }
}
