use std::io::{IsTerminal, Write};

use chrono::NaiveDate;

use super::args::{CheckArgs, Color, FailOn};
use super::{EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, fail, load_options, rule_set, warn_skipped};
use crate::check::{CheckOptions, Outcome, check};
use crate::config::Config;
use crate::engine::RuleSet;
use crate::facts::Analysis;
use crate::report::{self, Format, terminal};
use crate::text::error::InputError;
use crate::triage::Triage;
use crate::triage::baseline::Baseline;

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
        let format = <Format as clap::ValueEnum>::from_str(name, false)
            .ok()
            .ok_or_else(|| format!("unknown format `{name}`: expected {}", Format::names()))?;
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

fn as_of(args: &CheckArgs, config: &Config) -> Result<NaiveDate, InputError> {
    super::as_of(args.as_of.as_deref(), config).map_err(InputError::usage)
}

/// The config in force: `--config`, else `.edgeaudit.yaml` found upward
/// from the checked paths, else none (an empty config).
fn config(args: &CheckArgs) -> Result<Config, InputError> {
    super::config_in_force(args.config.as_deref(), args.no_config, &args.paths)
}

/// The rules of the run: built-in, `--rules` and the config's packs; the
/// config's severities; the config's and the command line's selection.
fn rules(args: &CheckArgs, config: &Config) -> Result<RuleSet, InputError> {
    super::configured_rules(&args.rules, &args.select, &args.ignore, config)
}

fn triage(args: &CheckArgs, config: &Config, max_input: u64) -> Result<Triage, InputError> {
    // Standard input and output carry exports and reports; a baseline is a file.
    for (flag, value) in [("--baseline", &args.baseline), ("--write-baseline", &args.write_baseline)] {
        if value.as_deref() == Some("-") {
            return Err(InputError::usage(format!(
                "{flag} needs a file name (`-` is for exports and reports)"
            )));
        }
    }
    let baseline = args.baseline.as_deref().map(|file| Baseline::read(file, max_input)).transpose()?;
    Ok(Triage {
        waivers: config.waivers.clone(),
        baseline,
        write_baseline: args.write_baseline.clone(),
    })
}

/// Everything a run needs, from the command line and the config; any
/// mistake in either is exit 2 before a file is read.
struct Plan {
    as_of: NaiveDate,
    load: crate::load::LoadOptions,
    rules: RuleSet,
    triage: Triage,
    fail_on: FailOn,
    as_of_source: report::AsOfSource,
    /// The config file in force, if any.
    config_file: Option<String>,
    /// The config's `exclude` patterns as written.
    exclude: Vec<String>,
    traffic: Option<crate::check::TrafficOptions>,
}

/// What a plan that failed knows, for the reports of the failure.
struct Partial {
    as_of: Option<NaiveDate>,
    rules: Option<RuleSet>,
}

fn plan(args: &CheckArgs) -> Result<Plan, (InputError, Partial)> {
    let as_of_alone = || as_of(args, &Config::default()).ok();
    let config = config(args).map_err(|e| {
        let rules = rule_set(&args.rules).ok();
        (
            e,
            Partial {
                as_of: as_of_alone(),
                rules,
            },
        )
    })?;
    let partial = |e: InputError| {
        let rules = rules(args, &config).ok().or_else(|| rule_set(&args.rules).ok());
        (
            e,
            Partial {
                as_of: as_of(args, &config).ok(),
                rules,
            },
        )
    };
    let load =
        load_options(args.kind.as_deref(), args.input_format.as_deref(), &args.walk, &config).map_err(|e| partial(InputError::usage(e)))?;
    Ok(Plan {
        as_of: as_of(args, &config).map_err(partial)?,
        rules: rules(args, &config).map_err(partial)?,
        triage: triage(args, &config, load.max_input).map_err(partial)?,
        load,
        fail_on: args.fail_on.or(config.fail_on).unwrap_or(FailOn::Warning),
        as_of_source: super::show_config::as_of_source(args.as_of.as_deref(), &config),
        config_file: super::show_config::config_file(&config).map(str::to_string),
        exclude: config.exclude_strings(),
        traffic: super::traffic_options(&args.traffic, &config),
    })
}

pub fn run(args: &CheckArgs) -> u8 {
    let outputs = match outputs(args) {
        Ok(o) => o,
        Err(e) => return fail(e),
    };
    let Plan {
        as_of,
        load,
        rules,
        triage,
        fail_on,
        as_of_source,
        config_file,
        exclude,
        traffic,
    } = match plan(args) {
        Ok(p) => p,
        Err((error, partial)) => {
            let builtin;
            let rules = match &partial.rules {
                Some(rules) => rules,
                None => {
                    builtin = RuleSet::builtin().unwrap_or(RuleSet { rules: Vec::new() });
                    &builtin
                }
            };
            return failed(
                &outputs,
                &report::Failure {
                    errors: &[error],
                    rules,
                    as_of: partial.as_of,
                },
            );
        }
    };
    if args.show_config {
        let shown = super::show_config::Shown {
            config_file: config_file.as_deref(),
            as_of: Some((as_of, as_of_source)),
            fail_on: Some(fail_on),
            rules: Some(&rules),
            exclude: exclude.iter().chain(&args.walk.exclude).map(String::as_str).collect(),
            waivers: Some(&triage.waivers),
            baseline: Some(args.baseline.as_deref()),
        };
        return super::print(crate::report::Shield::Log, shown.render().as_bytes());
    }
    let options = CheckOptions {
        paths: args.paths.clone(),
        load,
        as_of,
        traffic,
    };
    let reported = check(
        &options,
        &rules,
        triage,
        |outcome: &Outcome, analysis: &Analysis| -> Result<bool, String> {
            // Said on stderr too unless the human report on stdout says it:
            // whatever the formats, nothing is left out silently.
            let human_on_stdout = outputs.iter().any(|o| o.format == Format::Human && o.path.is_none());
            if !human_on_stdout {
                warn_skipped(&outcome.skipped, args.walk.show_files);
            }
            if let Some(baseline) = outcome.triage.baseline.as_ref().filter(|_| outcome.triage.baseline_is_new) {
                baseline.write_to(&baseline.file)?;
                if !args.quiet {
                    crate::say!(
                        "edgeaudit: wrote {} with {} (accepted as known)",
                        baseline.file,
                        crate::words::plural(baseline.entries.len(), "finding", "findings")
                    );
                }
            }
            // `--fail-on-impact`: a certificate finding whose share of impacted requests reaches it.
            let impact_fails = |f: &crate::findings::Finding| {
                args.fail_on_impact
                    .is_some_and(|at| outcome.impact(f).and_then(|i| i.share).is_some_and(|share| share >= at))
            };
            let failing = outcome.active().any(|f| fail_on.fails(f.severity) || impact_fails(f));
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
                        fail_on,
                        settings: report::Settings {
                            as_of_source,
                            config: config_file.as_deref(),
                        },
                        layout: report::Layout { width: 100, unicode: true },
                        max_listed: args.max_findings,
                        show_files: args.walk.show_files,
                    },
                )?;
            }
            Ok(failing)
        },
    );
    match reported {
        Err(errors) => failed(
            &outputs,
            &report::Failure {
                errors: &errors.0,
                rules: &rules,
                as_of: Some(as_of),
            },
        ),
        Ok(Err(e)) => fail(e),
        Ok(Ok(true)) => EXIT_FINDINGS,
        Ok(Ok(false)) => EXIT_CLEAN,
    }
}

/// A run that stopped on an error (exit 2): every error on stderr, and every
/// requested report still written, saying so (CI uploads them anyway).
fn failed(outputs: &[Output], failure: &report::Failure) -> u8 {
    for e in failure.errors {
        crate::say!("edgeaudit: error: {}", crate::text::escape::terminal::value(&e.to_string()));
    }
    for output in outputs {
        // Standard error already has it in the terminal's words.
        if output.format == Format::Human && output.path.is_none() {
            continue;
        }
        let written = write_to(output, |w, to_stdout| {
            report::shielded(output.format, to_stdout, false, w, |w| {
                report::render_failure(output.format, failure, w)
            })
        });
        if let Err(e) = written {
            crate::say!("edgeaudit: error: {e}");
        }
    }
    EXIT_ERROR
}

/// Writes one output, to its file or to standard output.
/// `render` is told whether it writes to standard output.
fn write_to(output: &Output, render: impl FnOnce(&mut dyn Write, bool) -> std::io::Result<()>) -> Result<(), String> {
    match &output.path {
        // The destination itself: the render's shield buffers above it.
        Some(path) => crate::files::Output::create(std::path::Path::new(path))
            .and_then(|mut f| {
                render(&mut f, false)?;
                f.commit()
            })
            .map_err(|e| format!("cannot write {path}: {e}")),
        None => {
            let mut w = std::io::stdout().lock();
            match render(&mut w, true).and_then(|()| w.flush()) {
                // The reader went away (`| head`): nothing more to say to it.
                Err(e) if crate::say::reader_left(&e) => Ok(()),
                result => result.map_err(|e| format!("cannot write to stdout: {e}")),
            }
        }
    }
}

/// Colour and layout follow the terminal for the output on standard output;
/// a file gets no colour and the default width.
fn write_output(args: &CheckArgs, output: &Output, ctx: &report::Context) -> Result<(), String> {
    let env = |name: &str| std::env::var(name).ok();
    let terminal = output.path.is_none() && std::io::stdout().is_terminal();
    let color = output.path.is_none()
        && match args.color {
            Color::Always => true,
            Color::Never => false,
            Color::Auto => terminal::auto_color(terminal, env),
        };
    let layout = report::Layout {
        width: if output.path.is_none() {
            terminal::width(terminal, env)
        } else {
            100
        },
        unicode: !(output.path.is_none() && terminal::is_dumb(&env)),
    };
    let ctx = report::Context { color, layout, ..*ctx };
    write_to(output, |w, to_stdout| {
        report::shielded(output.format, to_stdout, color, w, |w| report::render(output.format, &ctx, w))
    })
}
