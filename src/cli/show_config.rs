//! `--show-config` of `check`, `plan` and `inventory`: the config file in
//! force and the values a run uses, one setting a line, in the same words
//! for every command. A command shows only the settings it uses.

use std::fmt::Write as _;

use chrono::NaiveDate;

use crate::engine::RuleSet;
use crate::report::AsOfSource;
use crate::triage::waiver::Waiver;

/// What a command runs with; `None` for a setting it does not use.
#[derive(Default)]
pub struct Shown<'a> {
    pub config_file: Option<&'a str>,
    pub as_of: Option<(NaiveDate, AsOfSource)>,
    pub fail_on: Option<super::args::FailOn>,
    pub rules: Option<&'a RuleSet>,
    /// The config's patterns and those of `--exclude`.
    pub exclude: Vec<&'a str>,
    pub waivers: Option<&'a [Waiver]>,
    /// `Some(None)`: the command takes a baseline and none was given.
    pub baseline: Option<Option<&'a str>>,
}

impl Shown<'_> {
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "config: {}", self.config_file.unwrap_or("none"));
        if let Some((as_of, source)) = self.as_of {
            let _ = writeln!(out, "as_of: {as_of} ({})", source.describe(self.config_file));
        }
        if let Some(fail_on) = self.fail_on {
            let name = clap::ValueEnum::to_possible_value(&fail_on)
                .map(|v| v.get_name().to_string())
                .unwrap_or_default();
            let _ = writeln!(out, "fail_on: {name}");
        }
        if let Some(rules) = self.rules {
            let ids: Vec<&str> = rules.rules.iter().map(|r| r.id.as_str()).collect();
            let _ = writeln!(out, "rules: {} ({})", ids.len(), ids.join(", "));
        }
        let _ = writeln!(
            out,
            "exclude: {}{}by default: {}",
            self.exclude.join(", "),
            if self.exclude.is_empty() { "" } else { "; " },
            crate::load::exclude::DEFAULT_EXCLUDES.join(", ")
        );
        if let Some(waivers) = self.waivers {
            let _ = writeln!(out, "waivers: {}", waivers.len());
            for w in waivers {
                let until = w.expires.map(|d| format!(", until {d}")).unwrap_or_default();
                let _ = writeln!(
                    out,
                    "  {}:{}:{}: {}{until}: {}",
                    w.place.file, w.place.line, w.place.column, w.rule, w.reason
                );
            }
        }
        if let Some(baseline) = self.baseline {
            let _ = writeln!(out, "baseline: {}", baseline.unwrap_or("none"));
        }
        out
    }
}

/// Where a command's as-of date comes from.
pub fn as_of_source(option: Option<&str>, config: &crate::config::Config) -> AsOfSource {
    match (option, config.as_of) {
        (Some(_), _) => AsOfSource::Option,
        (None, Some(_)) => AsOfSource::Config,
        (None, None) => AsOfSource::Today,
    }
}

/// The config file's name as reports give it; `None` when there is none.
pub fn config_file(config: &crate::config::Config) -> Option<&str> {
    Some(config.file.as_str()).filter(|f| !f.is_empty())
}
