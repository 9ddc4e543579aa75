//! The command line: parses arguments, runs a command, maps outcomes to exit
//! codes (0 clean, 1 findings at or above `--fail-on`, 2 usage or input error).

mod apply;
pub mod args;
mod check;
mod export;
mod generated;
mod init;
mod inventory;
mod plan;
mod rules;
mod show_config;

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;

use crate::engine::RuleSet;
use crate::live::client::{Client, Settings, base_from_env};
use crate::live::credentials::Credentials;
use crate::live::pace::RealClock;
use crate::load::LoadOptions;
use crate::load::exclude::{Exclude, Patterns};
use crate::model::Kind;
use crate::text::error::InputError;

pub use crate::exit::{EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS};

pub fn main() -> ExitCode {
    let cli = match args::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { EXIT_ERROR } else { EXIT_CLEAN });
        }
    };
    let code = match cli.command {
        args::Command::Check(a) => check::run(&a),
        args::Command::Inventory(a) => inventory::run(&a),
        args::Command::Plan(a) => plan::run(&a),
        args::Command::Export(a) => export::run(&a),
        args::Command::Apply(a) => apply::run(&a),
        args::Command::Rules(a) => rules::list(&a),
        args::Command::Init { path, force } => init::run(&path, force),
        args::Command::Explain { id, rules } => rules::explain(&id, &rules),
        args::Command::Completions { shell } => generated::completions(shell),
        args::Command::Man { command } => generated::man(command.as_deref()),
        args::Command::ConfigSchema => generated::config_schema(),
    };
    ExitCode::from(code)
}

/// Prints an error (one line per error when it holds several) and gives exit code 2.
pub(crate) fn fail(message: impl std::fmt::Display) -> u8 {
    for line in message.to_string().lines() {
        crate::say!("edgeaudit: error: {line}");
    }
    EXIT_ERROR
}

/// The live commands' client, from the environment and the flags; errors
/// are usage errors.
pub(crate) fn live_client(live: &args::LiveArgs) -> Result<Client, String> {
    let credentials = Credentials::from_env()?;
    let mut settings = Settings::new(base_from_env()?);
    if !(live.timeout.is_finite() && live.timeout > 0.0) {
        return Err(format!("--timeout {} is not a number of seconds above 0", live.timeout));
    }
    settings.timeout = std::time::Duration::from_secs_f64(live.timeout.min(86_400.0));
    settings.connect_timeout = settings.connect_timeout.min(settings.timeout);
    settings.rate = live.rate;
    settings.retries = live.retries;
    let mut client = Client::new(settings, credentials, Arc::new(RealClock::default()));
    if std::io::stderr().is_terminal() {
        client.show_progress("edgeaudit");
    }
    Ok(client)
}

/// The traffic a command reads: `--traffic`, else the config's `traffic`; none when neither.
pub(crate) fn traffic_options(args: &args::TrafficArgs, config: &crate::config::Config) -> Option<crate::check::TrafficOptions> {
    let paths: Vec<String> = if args.traffic.is_empty() {
        config.traffic.iter().map(|t| t.value.clone()).collect()
    } else {
        args.traffic.clone()
    };
    (!paths.is_empty()).then_some(crate::check::TrafficOptions {
        paths,
        read: crate::traffic::Options {
            sample_rate: args.traffic_sample_rate,
        },
    })
}

/// Text on standard output through `shield` (a closed pipe ends it
/// quietly); exit 0, or 2 when standard output cannot be written.
pub(crate) fn print(shield: crate::report::Shield, bytes: &[u8]) -> u8 {
    let mut shown = Vec::with_capacity(bytes.len());
    let _ = crate::report::shielded_by(shield, true, false, &mut shown, |w| w.write_all(bytes));
    match crate::say::stdout(&shown) {
        Ok(()) => EXIT_CLEAN,
        Err(e) => fail(format!("cannot write to stdout: {e}")),
    }
}

/// The config every command that reads exports uses: `--config FILE`, else
/// `.edgeaudit.yaml` found upward from the checked paths, else none (also
/// with `--no-config`). A broken config is an error (exit 2).
pub(crate) fn config_in_force(file: Option<&str>, no_config: bool, paths: &[String]) -> Result<crate::config::Config, InputError> {
    if no_config {
        return Ok(crate::config::Config::default());
    }
    if let Some(file) = file {
        return crate::config::read(std::path::Path::new(file), file);
    }
    let cwd = std::env::current_dir().map_err(|e| InputError::usage(format!("cannot read the working directory: {e}")))?;
    match crate::config::discover(paths, &cwd).map_err(InputError::usage)? {
        Some((path, name)) => crate::config::read(&path, &name),
        None => Ok(crate::config::Config::default()),
    }
}

/// Files a walk skipped, on standard error: nothing is left out silently.
pub(crate) fn warn_skipped(skipped: &[InputError], show_files: bool) {
    for line in crate::report::skipped::lines(skipped, show_files) {
        crate::say!("edgeaudit: warning: {line}");
    }
}

/// `--kind`, `--input-format` and the walk's exclusions, as `check` and
/// `inventory` take them; `config_exclude` are the config's patterns with its directory.
pub(crate) fn load_options(
    kind: Option<&str>,
    input_format: Option<&str>,
    walk: &args::WalkArgs,
    config: &crate::config::Config,
) -> Result<LoadOptions, String> {
    let kind = match kind {
        None => None,
        Some(k) => Some(Kind::parse(k).filter(|k| Kind::RECORD_KINDS.contains(k)).ok_or_else(|| {
            let kinds: Vec<&str> = Kind::RECORD_KINDS.iter().map(|k| k.as_str()).collect();
            format!("unknown --kind `{k}`: expected one of {}", kinds.join(", "))
        })?),
    };
    // `--input-format` names a format of the registry (clap checked it).
    let input_format = input_format.and_then(crate::input::named);
    let cwd = std::env::current_dir().map_err(|e| format!("cannot read the working directory: {e}"))?;
    let config_patterns = config.exclude_strings();
    let mut exclude = Exclude {
        patterns: config.exclude_patterns()?.into_iter().collect(),
        force: walk.force_exclude,
        defaults: None,
    };
    if !walk.exclude.is_empty() {
        exclude
            .patterns
            .push(Patterns::new(&cwd, &walk.exclude).map_err(|e| format!("--exclude: {e}"))?);
    }
    let given = walk.exclude.iter().chain(&config_patterns).map(String::as_str);
    exclude.defaults = crate::load::exclude::defaults_kept(given)?;
    let max_input = match walk.max_input_size.as_deref() {
        None => 0,
        Some(size) => crate::text::bounded::parse_size(size)
            .filter(|n| *n > 0)
            .ok_or_else(|| format!("--max-input-size `{size}` is not a size: expected bytes, or a number with K, M or G"))?,
    };
    Ok(LoadOptions {
        kind,
        input_format,
        exclude,
        max_input,
        stdin_name: walk.stdin_filename.clone(),
    })
}

/// The as-of date of a run: the option's, else the config's `as_of`, else today (UTC).
pub(crate) fn as_of(option: Option<&str>, config: &crate::config::Config) -> Result<chrono::NaiveDate, String> {
    match option {
        None => Ok(config.as_of.unwrap_or_else(|| chrono::Utc::now().date_naive())),
        Some(s) => {
            chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").map_err(|_| format!("--as-of `{s}` is not a date: expected YYYY-MM-DD"))
        }
    }
}

/// The rules of a run: built-in and extra `packs`, then the config's packs
/// and severities, then the selection (`select` replaces the config's,
/// `ignore` adds to it).
pub(crate) fn configured_rules(
    packs: &[String],
    select: &[String],
    ignore: &[String],
    config: &crate::config::Config,
) -> Result<RuleSet, InputError> {
    let mut rules = rule_set(packs)?;
    config.configure(&mut rules)?;
    let select: Vec<String> = if select.is_empty() {
        config.select.iter().map(|s| s.value.clone()).collect()
    } else {
        select.to_vec()
    };
    let ignore: Vec<String> = config
        .ignore
        .iter()
        .map(|s| s.value.clone())
        .chain(ignore.iter().cloned())
        .collect();
    rules.select(&select, &ignore).map_err(InputError::usage)?;
    Ok(rules)
}

pub(crate) fn rule_set(extra: &[String]) -> Result<RuleSet, InputError> {
    let mut rules = RuleSet::builtin()?;
    for pack in extra {
        rules.add_pack_file(pack)?;
    }
    Ok(rules)
}
