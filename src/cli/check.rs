use std::io::{IsTerminal, Write};

use chrono::NaiveDate;

use super::args::{CheckArgs, Color, FailOn};
use super::{EXIT_CLEAN, EXIT_FINDINGS, fail, load_options, rule_set};
use crate::check::{CheckOptions, check};
use crate::findings::Severity;
use crate::report::{self, Format};

/// Where one requested format goes: a file, or standard output.
struct Output {
    format: Format,
    path: Option<String>,
}

fn outputs(args: &CheckArgs) -> Result<Vec<Output>, String> {
    let mut outputs = Vec::new();
    let default = ["human".to_string()];
    let specs = if args.format.is_empty() { &default[..] } else { &args.format[..] };
    for spec in specs {
        let (name, path) = match spec.split_once('=') {
            Some((name, path)) if !path.is_empty() => (name, Some(path.to_string())),
            Some((name, _)) => return Err(format!("`--format {name}=` needs a file name after `=`")),
            None => (spec.as_str(), None),
        };
        let format = Format::parse(name)
            .ok_or_else(|| format!("unknown format `{name}`: expected human, json, sarif, github, markdown or junit"))?;
        outputs.push(Output {
            format,
            path: path.or_else(|| args.output.clone()),
        });
    }
    for (i, a) in outputs.iter().enumerate() {
        if outputs[..i].iter().any(|b| b.path == a.path) {
            return Err(match &a.path {
                None => "only one format can go to standard output: give the others a file (`--format sarif=out.sarif`)".into(),
                Some(p) => format!("two formats would be written to {p}: give each its own file (`--format sarif=out.sarif`)"),
            });
        }
    }
    Ok(outputs)
}

fn as_of(args: &CheckArgs) -> Result<NaiveDate, String> {
    match &args.as_of {
        None => Ok(chrono::Utc::now().date_naive()),
        Some(s) => NaiveDate::parse_from_str(s, "%Y-%m-%d").map_err(|_| format!("--as-of `{s}` is not a date: expected YYYY-MM-DD")),
    }
}

pub fn run(args: &CheckArgs) -> u8 {
    let outputs = match outputs(args) {
        Ok(o) => o,
        Err(e) => return fail(e),
    };
    let as_of = match as_of(args) {
        Ok(d) => d,
        Err(e) => return fail(e),
    };
    let load = match load_options(args.kind.as_deref(), args.input_format) {
        Ok(l) => l,
        Err(e) => return fail(e),
    };
    let mut rules = match rule_set(&args.rules) {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    if let Err(e) = rules.select(&args.select, &args.ignore) {
        return fail(e);
    }
    let options = CheckOptions {
        paths: args.paths.clone(),
        load,
        as_of,
    };
    let reported = check(&options, &rules, |outcome, analysis| -> Result<bool, String> {
        if !args.quiet {
            for skipped in &outcome.skipped {
                eprintln!(
                    "edgeaudit: skipping {}: {}",
                    skipped.file,
                    skipped.message.trim_start_matches("not an edge-service export: ")
                );
            }
        }
        let threshold = match args.fail_on {
            FailOn::Error => Some(Severity::Error),
            FailOn::Warning => Some(Severity::Warning),
            FailOn::Note => Some(Severity::Note),
            FailOn::Never => None,
        };
        let failing = threshold.is_some_and(|t| outcome.findings.iter().any(|f| f.severity >= t));
        for output in &outputs {
            write_output(
                args,
                output,
                &report::Context {
                    outcome,
                    analysis,
                    rules: &rules,
                    color: false,
                    statistics: args.statistics,
                    quiet: args.quiet,
                    exit_code: if failing { EXIT_FINDINGS } else { EXIT_CLEAN },
                },
            )?;
        }
        Ok(failing)
    });
    match reported {
        Err(e) => fail(e),
        Ok(Err(e)) => fail(e),
        Ok(Ok(true)) => EXIT_FINDINGS,
        Ok(Ok(false)) => EXIT_CLEAN,
    }
}

fn write_output(args: &CheckArgs, output: &Output, ctx: &report::Context) -> Result<(), String> {
    let color = output.path.is_none()
        && match args.color {
            Color::Always => true,
            Color::Never => false,
            Color::Auto => std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        };
    let ctx = report::Context { color, ..*ctx };
    match &output.path {
        Some(path) => std::fs::File::create(path)
            .and_then(|f| {
                let mut w = std::io::BufWriter::new(f);
                report::render(output.format, &ctx, &mut w)?;
                w.flush()
            })
            .map_err(|e| format!("cannot write {path}: {e}")),
        None => {
            let mut w = std::io::BufWriter::new(std::io::stdout().lock());
            match report::render(output.format, &ctx, &mut w).and_then(|()| w.flush()) {
                // The reader went away (`| head`): nothing more to say to it.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                result => result.map_err(|e| format!("cannot write to stdout: {e}")),
            }
        }
    }
}
