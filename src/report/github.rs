//! GitHub Actions workflow commands: one annotation per finding, shown on the
//! pull request's diff.

use super::Context;

/// Workflow-command data: `%`, CR and LF are escaped as the runner expects,
/// and every other character that would act on the log's terminal as text.
fn escape_data(s: &str) -> String {
    super::terminal::escaped(&s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")).into_owned()
}

/// Workflow-command properties: also `:` and `,`.
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Annotations GitHub shows per step and level (actions/toolkit's
/// documentation: 10 errors, 10 warnings and 10 notices per step, 50 per job);
/// more are parsed and dropped, so they are not written.
pub const ANNOTATIONS_PER_LEVEL: usize = 10;

/// The annotations of one level, in priority order: the first are written,
/// the rest counted.
struct Level {
    name: &'static str,
    lines: Vec<String>,
    more: usize,
}

impl Level {
    fn new(name: &'static str) -> Self {
        Level {
            name,
            lines: Vec::new(),
            more: 0,
        }
    }
    fn push(&mut self, line: impl FnOnce() -> String) {
        if self.lines.len() < ANNOTATIONS_PER_LEVEL {
            self.lines.push(line());
        } else {
            self.more += 1;
        }
    }
}

pub fn render(ctx: &Context, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    // One level per severity, in `Severity::rank` order.
    let mut levels = [Level::new("error"), Level::new("warning"), Level::new("notice")];
    // Files left out come first among the warnings: nothing is left out silently.
    for e in &ctx.outcome.skipped {
        levels[1].push(|| {
            let place = position(e);
            format!(
                "::warning file={}{place},title={}::{}",
                escape_property(&e.file),
                escape_property("edgeaudit skipped file"),
                escape_data(&format!("skipped, not analysed: {}", e.skip_reason()))
            )
        });
    }
    // Only the annotations GitHub shows have their messages rendered: a large
    // account's other findings are counted, not written.
    let mut room = levels.each_ref().map(|l| ANNOTATIONS_PER_LEVEL - l.lines.len());
    let shown: Vec<bool> = ctx
        .outcome
        .findings
        .iter()
        .map(|f| {
            let left = &mut room[f.severity.rank()];
            let show = !f.is_suppressed() && *left > 0;
            *left -= usize::from(show);
            show
        })
        .collect();
    ctx.with_messages_where(
        |i, _| shown[i],
        |messages| {
            for (i, f) in ctx.outcome.findings.iter().enumerate().filter(|(_, f)| !f.is_suppressed()) {
                let level = &mut levels[f.severity.rank()];
                let name = level.name;
                match shown[i].then(|| messages.next()).flatten() {
                    Some(message) => level.push(|| {
                        format!(
                            "::{name} file={},line={},col={},title={}::{}",
                            escape_property(ctx.file(f)),
                            f.location.line,
                            f.location.column,
                            escape_property(&format!("{} {}", f.rule.id, f.rule.name)),
                            escape_data(&message)
                        )
                    }),
                    None => level.more += 1,
                }
            }
        },
    );
    for n in &ctx.outcome.triage.notices {
        levels[2].push(|| {
            format!(
                "::notice file={},line={},col={},title={}::{}",
                escape_property(&n.place.file),
                n.place.line,
                n.place.column,
                escape_property(&format!("edgeaudit {}", n.code)),
                escape_data(&n.message)
            )
        });
    }
    let left_out: usize = levels.iter().map(|l| l.more).sum();
    // The summary takes the last notice's place, so that it is shown.
    if left_out > 0 && levels[2].lines.len() == ANNOTATIONS_PER_LEVEL {
        levels[2].lines.pop();
        levels[2].more += 1;
    }
    for line in levels.iter().flat_map(|l| &l.lines) {
        writeln!(out, "{line}")?;
    }
    if left_out > 0 {
        let [errors, warnings, notices] = levels.each_ref().map(|l| l.more);
        writeln!(
            out,
            "::notice title=edgeaudit: more findings::{}",
            escape_data(&format!(
                "{}, {} and {} more are not annotated: GitHub shows {ANNOTATIONS_PER_LEVEL} of each level per step. Every finding is in the SARIF upload (code scanning) and in --format json.",
                crate::words::plural(errors, "error", "errors"),
                crate::words::plural(warnings, "warning", "warnings"),
                crate::words::plural(notices, "notice", "notices")
            ))
        )?;
    }
    Ok(())
}

/// A failed run: an `::error` annotation per error, at its file and line.
pub fn failure(failure: &super::Failure, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    for e in failure.errors {
        if e.file.is_empty() {
            writeln!(out, "::error title=edgeaudit::{}", escape_data(&e.message))?;
        } else {
            let place = position(e);
            writeln!(
                out,
                "::error file={}{place},title=edgeaudit input error::{}",
                escape_property(&e.file),
                escape_data(&e.message)
            )?;
        }
    }
    Ok(())
}

/// `,line=L,col=C` for an error at a place in its file; nothing for a file
/// that could not be read at all.
fn position(e: &crate::text::error::InputError) -> String {
    if e.has_place() {
        format!(",line={},col={}", e.line, e.column)
    } else {
        String::new()
    }
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
