//! One line per finding, `file:line:col: ID message`: the shape editors'
//! quickfix lists and `grep` read.

use super::terminal::escaped;
use super::{Context, Which};

pub fn render(ctx: &Context, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    ctx.with_messages(Which::Active, |messages| {
        for (f, message) in ctx.outcome.active().zip(messages) {
            writeln!(
                out,
                "{}:{}:{}: {} {}",
                escaped(ctx.file(f)),
                f.location.line,
                f.location.column,
                f.rule.id,
                escaped(&message)
            )?;
        }
        for e in &ctx.outcome.skipped {
            let place = if e.has_place() {
                format!("{}:{}:{}", e.file, e.line, e.column)
            } else {
                e.file.clone()
            };
            writeln!(out, "{}: skipped, not analysed: {}", escaped(&place), escaped(e.skip_reason()))?;
        }
        // Waiver, baseline and run notes, in the same shape.
        for n in &ctx.outcome.triage.notices {
            writeln!(out, "{}", escaped(&n.line()))?;
        }
        Ok(())
    })
}

/// A failed run: one line per error, in the same shape.
pub fn failure(failure: &super::Failure, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    for e in failure.errors {
        writeln!(out, "error: {}", escaped(&e.to_string()))?;
    }
    Ok(())
}
