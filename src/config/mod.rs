//! `.edgeaudit.yaml`: a team's settings for `check` — the as-of date, what
//! fails the run, which rules run and how severe they are, extra rule packs,
//! and waivers. Found upward from the working directory, or named with
//! `--config`. Every mistake in it is an error with its line and column.

mod schema;
pub mod starter;

pub use schema::json_schema;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use serde::Deserialize;
use serde_saphyr::Spanned;

use crate::engine::RuleSet;
use crate::findings::{FailOn, Severity};
use crate::model::Kind;
use crate::text::error::InputError;
use crate::triage::Place;
use crate::triage::glob::Glob;
use crate::triage::waiver::Waiver;

pub const FILE_NAME: &str = ".edgeaudit.yaml";

/// A value and where the config says it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting<T> {
    pub value: T,
    pub place: Place,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Config {
    /// The file, as a path relative to the working directory when found upward.
    pub file: String,
    pub as_of: Option<NaiveDate>,
    pub fail_on: Option<FailOn>,
    pub select: Vec<Setting<String>>,
    pub ignore: Vec<Setting<String>>,
    /// Rule id or prefix → severity, in every phase of the rule.
    pub severity: Vec<(Setting<String>, Severity)>,
    /// Extra rule packs, resolved against the config's directory.
    pub packs: Vec<Setting<String>>,
    pub waivers: Vec<Waiver>,
    /// `exclude` patterns (gitignore-style), relative to the config's directory.
    pub exclude: Vec<Setting<String>>,
    /// Traffic files or folders, resolved against the config's directory.
    pub traffic: Vec<Setting<String>>,
    /// The config's directory, as a path relative to the working directory.
    pub dir: PathBuf,
}

/// `.edgeaudit.yaml` as written. Its JSON Schema (`edgeaudit config-schema`,
/// `docs/edgeaudit.schema.json`) is generated from these types, with the
/// doc comments as descriptions: the schema cannot drift from the parser.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    title = "edgeaudit configuration (.edgeaudit.yaml)",
    description = "Settings for `edgeaudit check`: the as-of date, what fails the run, which rules run and how severe they are, extra rule packs, waivers and excluded paths. Every key is optional; options on the command line win."
)]
pub(crate) struct ConfigSpec {
    /// Evaluate as of this date (YYYY-MM-DD, UTC) instead of today; `--as-of` wins.
    #[schemars(with = "Option<schema::Date>")]
    as_of: Option<Spanned<String>>,
    /// Exit 1 when a finding at or above this severity remains; `--fail-on` wins.
    #[schemars(with = "Option<schema::FailOn>")]
    fail_on: Option<Spanned<String>>,
    /// Only these rules: ids or prefixes (`LB`, `CA00`, `LB001`, `ALL`); `--select` replaces it.
    #[serde(default)]
    #[schemars(with = "Vec<schema::RuleSelector>")]
    select: Vec<Spanned<String>>,
    /// Skip these rules: ids or prefixes; `--ignore` adds to it.
    #[serde(default)]
    #[schemars(with = "Vec<schema::RuleSelector>")]
    ignore: Vec<Spanned<String>>,
    /// Rule id or prefix → severity, e.g. `LB004: warning`.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, schema::Severity>")]
    severity: BTreeMap<String, Spanned<String>>,
    /// Extra rule packs (YAML, the vocabulary of rules/*.yaml), relative to this file.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    packs: Vec<Spanned<String>>,
    /// Findings accepted on purpose, each with its reason and maybe an expiry.
    #[serde(default)]
    #[schemars(with = "Vec<WaiverSpec>")]
    waivers: Vec<Spanned<WaiverSpec>>,
    /// Files and directories the walk skips: gitignore-style patterns, relative to this file.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    exclude: Vec<Spanned<String>>,
    /// Traffic that ranks certificate findings by the requests from impacted clients: Logpush
    /// `http_requests` files, saved GraphQL answers or `host,user_agent,requests` CSV
    /// aggregates, files or folders relative to this file; `--traffic` replaces it.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    traffic: Vec<Spanned<String>>,
}

/// One waiver: a rule and a resource, and why the finding is accepted.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct WaiverSpec {
    /// A rule id or a glob over ids (`CA00*`).
    #[schemars(with = "String")]
    rule: Spanned<String>,
    /// `kind/id` or `kind/name`, globs allowed (`pool/17b5962d*`, `custom_hostname/*.example.com`), or `*`.
    #[schemars(with = "schema::Resource")]
    resource: Spanned<String>,
    /// Why the finding is accepted (required, not empty).
    #[schemars(with = "schema::Reason")]
    reason: Option<Spanned<String>>,
    /// The last day the waiver holds (YYYY-MM-DD); after it the finding counts again.
    #[schemars(with = "Option<schema::Date>")]
    expires: Option<Spanned<String>>,
}

/// The config that applies in `dir`: `.edgeaudit.yaml` there or in the nearest
/// parent, named relative to `dir` (`.edgeaudit.yaml`, `../.edgeaudit.yaml`).
pub fn find_upward(dir: &Path) -> Option<(PathBuf, String)> {
    let mut up = String::new();
    let mut candidate = Some(dir);
    while let Some(d) = candidate {
        let path = d.join(FILE_NAME);
        if path.is_file() {
            return Some((path, format!("{up}{FILE_NAME}")));
        }
        up.push_str("../");
        candidate = d.parent();
    }
    None
}

/// The config that applies to the checked `paths`, found upward from each
/// (a file's directory, a directory itself; standard input from `cwd`), as
/// ruff finds its settings from the files: the one file they share, named
/// relative to `cwd` when it is there or above, or an error naming the two
/// when they fall under different ones.
pub fn discover(paths: &[String], cwd: &Path) -> Result<Option<(PathBuf, String)>, String> {
    let cwd = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
    // The first path's config (or none), and that path.
    let mut first: Option<(Option<PathBuf>, &str)> = None;
    for path in paths {
        let given = cwd.join(path);
        let dir = if path == "-" {
            cwd.clone()
        } else if given.is_dir() {
            given
        } else {
            given.parent().map_or_else(|| cwd.clone(), Path::to_path_buf)
        };
        // A path that is not there is the walk's error, reported with its name.
        let Ok(dir) = dir.canonicalize() else { continue };
        let file = find_upward(&dir).map(|(file, _)| file);
        match &first {
            None => first = Some((file, path)),
            // A path under no config beside one under a config is refused
            // too: the config would silently apply to files it does not cover.
            Some((theirs, their_path)) if *theirs != file => {
                let shown = |f: &Option<PathBuf>| f.as_ref().map_or_else(|| "none".to_string(), |f| f.display().to_string());
                return Err(format!(
                    "`{their_path}` and `{path}` fall under different configs ({} and {}): check them in separate runs, or name one with --config",
                    shown(theirs),
                    shown(&file)
                ));
            }
            Some(_) => {}
        }
    }
    Ok(first.and_then(|(file, _)| file).map(|file| {
        let name = relative_name(&file, &cwd);
        (file, name)
    }))
}

/// A config's name as the user would type it from `cwd`: below it, its path
/// from there; above it, `../` for each level; elsewhere, the whole path.
fn relative_name(file: &Path, cwd: &Path) -> String {
    if let Ok(below) = file.strip_prefix(cwd) {
        return below.to_string_lossy().replace('\\', "/");
    }
    let dir = file.parent().unwrap_or(file);
    if let Ok(rest) = cwd.strip_prefix(dir) {
        return format!("{}{FILE_NAME}", "../".repeat(rest.components().count()));
    }
    file.to_string_lossy().into_owned()
}

pub fn read(path: &Path, name: &str) -> Result<Config, InputError> {
    let text = crate::text::bounded::read_small(path)
        .map_err(|e| InputError::unreadable(name, format!("cannot read the config: {}", e.trim_start_matches("cannot read: "))))?;
    parse(name, &text)
}

/// Parses a config named `name` (a path as the user would type it: pack paths
/// in it are relative to its directory).
pub fn parse(name: &str, text: &str) -> Result<Config, InputError> {
    let base_name = name.rsplit_once('/').map_or("", |(dir, _)| dir);
    // An empty file, or one of comments only, is a config that changes nothing.
    let has_content = text
        .lines()
        .any(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#') && l.trim() != "---");
    if !has_content {
        return Ok(Config {
            file: name.to_string(),
            ..Config::default()
        });
    }
    let spec: ConfigSpec = crate::input::yaml::parse_small(name, text, "config")?;
    let place = |line: usize, column: usize| Place {
        file: name.to_string(),
        line,
        column,
    };
    let at = |s: &Spanned<String>| place(s.referenced.line() as usize, s.referenced.column() as usize);
    let error = |s: &Spanned<String>, message: String| {
        let p = at(s);
        InputError::at_line_column(name, p.line, p.column, message)
    };
    let date = |s: &Spanned<String>, key: &str| {
        NaiveDate::parse_from_str(&s.value, "%Y-%m-%d")
            .map_err(|_| error(s, format!("{key} `{}` is not a date: expected YYYY-MM-DD", s.value)))
    };
    let setting = |s: &Spanned<String>| Setting {
        value: s.value.clone(),
        place: at(s),
    };

    let as_of = spec.as_of.as_ref().map(|s| date(s, "as_of")).transpose()?;
    let fail_on = spec
        .fail_on
        .as_ref()
        .map(|s| {
            <FailOn as clap::ValueEnum>::from_str(&s.value, false)
                .ok()
                .ok_or_else(|| error(s, format!("fail_on `{}`: expected error, warning, note or never", s.value)))
        })
        .transpose()?;
    let mut severity = Vec::new();
    for (id, level) in &spec.severity {
        let value = Severity::parse(&level.value).ok_or_else(|| {
            error(
                level,
                format!("severity of {id}: `{}`, expected error, warning or note", level.value),
            )
        })?;
        let place = at(level);
        severity.push((Setting { value: id.clone(), place }, value));
    }
    let relative = |s: &Spanned<String>| {
        let resolved = if Path::new(&s.value).is_absolute() || base_name.is_empty() {
            s.value.clone()
        } else {
            format!("{base_name}/{}", s.value)
        };
        Setting {
            value: resolved,
            place: at(s),
        }
    };
    let packs = spec.packs.iter().map(relative).collect();
    let traffic = spec.traffic.iter().map(relative).collect();
    let mut waivers = Vec::new();
    for (i, w) in spec.waivers.iter().enumerate() {
        let entry = place(w.referenced.line() as usize, w.referenced.column() as usize);
        let w = &w.value;
        let reason = match &w.reason {
            Some(r) if !r.value.trim().is_empty() => r.value.trim().to_string(),
            Some(r) => {
                return Err(error(
                    r,
                    format!("waivers[{i}]: the reason is empty: say why the finding is accepted"),
                ));
            }
            None => {
                return Err(InputError::at_line_column(
                    name,
                    entry.line,
                    entry.column,
                    format!("waivers[{i}]: a waiver needs a `reason`: say why the finding is accepted"),
                ));
            }
        };
        if !w.resource.value.contains('/') && w.resource.value != "*" {
            return Err(error(
                &w.resource,
                format!(
                    "waivers[{i}]: resource `{}` should be `kind/id` or `kind/name` (globs allowed), e.g. `pool/17b5962d*`",
                    w.resource.value
                ),
            ));
        }
        // A misspelt kind would only ever show up as an unmatched waiver.
        if let Some((kind, _)) = w.resource.value.trim().split_once('/')
            && !kind.contains(['*', '?'])
            && Kind::parse(kind).is_none()
        {
            let kinds: Vec<&str> = Kind::RECORD_KINDS
                .iter()
                .chain(&[Kind::Account, Kind::List])
                .map(|k| k.as_str())
                .collect();
            return Err(error(
                &w.resource,
                format!("waivers[{i}]: unknown resource kind `{kind}`: expected one of {}", kinds.join(", ")),
            ));
        }
        waivers.push(Waiver {
            rule: w.rule.value.trim().to_string(),
            resource: Glob::new(w.resource.value.trim()),
            reason,
            expires: w.expires.as_ref().map(|s| date(s, &format!("waivers[{i}].expires"))).transpose()?,
            place: entry,
        });
    }
    let dir = PathBuf::from(if base_name.is_empty() { "." } else { base_name });
    for pattern in &spec.exclude {
        crate::load::exclude::Patterns::new(&dir, std::slice::from_ref(&pattern.value))
            .map_err(|e| error(pattern, format!("exclude: {e}")))?;
    }
    Ok(Config {
        file: name.to_string(),
        exclude: spec.exclude.iter().map(setting).collect(),
        dir,
        as_of,
        fail_on,
        select: spec.select.iter().map(setting).collect(),
        ignore: spec.ignore.iter().map(setting).collect(),
        severity,
        packs,
        waivers,
        traffic,
    })
}

impl Config {
    fn error(&self, place: &Place, message: String) -> InputError {
        InputError::at_line_column(&self.file, place.line, place.column, message)
    }

    /// The `exclude` patterns as written.
    pub fn exclude_strings(&self) -> Vec<String> {
        self.exclude.iter().map(|s| s.value.clone()).collect()
    }

    /// Adds the config's packs to the rules, applies its severities, and
    /// checks that every rule id it names exists.
    pub fn configure(&self, rules: &mut RuleSet) -> Result<(), InputError> {
        for pack in &self.packs {
            // A pack that is not there is the config's mistake; one that is
            // there but wrong is reported in the pack itself.
            if let Err(e) = std::fs::metadata(&pack.value) {
                return Err(self.error(&pack.place, format!("packs: cannot read {}: {e}", pack.value)));
            }
            rules.add_pack_file(&pack.value)?;
        }
        for (selector, severity) in &self.severity {
            rules
                .override_severity(&selector.value, *severity)
                .map_err(|e| self.error(&selector.place, format!("severity: {e}")))?;
        }
        for (key, list) in [("select", &self.select), ("ignore", &self.ignore)] {
            for selector in list {
                if !rules.knows(&selector.value) {
                    return Err(self.error(&selector.place, format!("{key}: {}", rules.unknown_selector(&selector.value))));
                }
            }
        }
        for w in &self.waivers {
            if !rules.rules.iter().any(|r| crate::triage::glob::matches(&w.rule, &r.id)) {
                return Err(self.error(
                    &w.place,
                    format!("waiver: rule `{}` matches no rule id (see `edgeaudit rules`)", w.rule),
                ));
            }
        }
        Ok(())
    }
}

impl Config {
    /// The `exclude` patterns, compiled (they were checked when the config was read).
    pub fn exclude_patterns(&self) -> Result<Option<crate::load::exclude::Patterns>, String> {
        if self.exclude.is_empty() {
            return Ok(None);
        }
        crate::load::exclude::Patterns::new(&self.dir, &self.exclude_strings())
            .map(Some)
            .map_err(|e| format!("{}: exclude: {e}", self.file))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_text(text: &str) -> Result<Config, InputError> {
        parse(".edgeaudit.yaml", text)
    }

    #[test]
    fn reads_every_setting() {
        let config = parse_text(
            "as_of: 2024-10-01\nfail_on: error\nselect: [LB, CA00]\nignore:\n  - CA009\nseverity:\n  CA001: warning\npacks: [extra.yaml]\nwaivers:\n  - rule: LB002\n    resource: pool/17b5*\n    reason: Replacement policy is being rolled out\n    expires: 2024-12-31\n",
        )
        .unwrap();
        assert_eq!(config.as_of, NaiveDate::from_ymd_opt(2024, 10, 1));
        assert_eq!(config.fail_on, Some(FailOn::Error));
        assert_eq!(config.select.iter().map(|s| s.value.as_str()).collect::<Vec<_>>(), ["LB", "CA00"]);
        assert_eq!((config.ignore[0].value.as_str(), config.ignore[0].place.line), ("CA009", 5));
        assert_eq!(config.severity[0].0.value, "CA001");
        assert_eq!(config.severity[0].1, Severity::Warning);
        assert_eq!(config.packs[0].value, "extra.yaml");
        let w = &config.waivers[0];
        assert_eq!((w.rule.as_str(), w.resource.as_str()), ("LB002", "pool/17b5*"));
        assert_eq!(w.expires, NaiveDate::from_ymd_opt(2024, 12, 31));
        assert_eq!((w.place.line, w.place.column), (10, 5));
    }

    #[test]
    fn packs_are_relative_to_the_config() {
        let config = parse("../.edgeaudit.yaml", "packs: [rules/extra.yaml, /abs/pack.yaml]\n").unwrap();
        assert_eq!(config.packs[0].value, "../rules/extra.yaml");
        assert_eq!(config.packs[1].value, "/abs/pack.yaml");
    }

    #[test]
    fn an_empty_config_changes_nothing() {
        let config = parse_text("# nothing yet\n\n").unwrap();
        assert_eq!(config.waivers.len(), 0);
        assert_eq!(config.as_of, None);
    }

    #[test]
    fn mistakes_name_line_and_column() {
        let cases = [
            ("as_of: 2024-13-01\n", 1, 8, "as_of `2024-13-01` is not a date"),
            ("fail_on: sometimes\n", 1, 10, "fail_on `sometimes`"),
            ("severity:\n  CA001: critical\n", 2, 10, "severity of CA001: `critical`"),
            ("sellect: [LB]\n", 1, 1, "unknown field `sellect`"),
            (
                "waivers:\n  - rule: LB001\n    resource: pool/x\n",
                2,
                5,
                "a waiver needs a `reason`",
            ),
            (
                "waivers:\n  - rule: LB001\n    resource: pool/x\n    reason: \"  \"\n",
                4,
                13,
                "the reason is empty",
            ),
            (
                "waivers:\n  - rule: LB001\n    resource: abc\n    reason: r\n",
                3,
                15,
                "should be `kind/id`",
            ),
            (
                "waivers:\n  - rule: LB001\n    resource: pools/abc\n    reason: r\n",
                3,
                15,
                "unknown resource kind `pools`: expected one of pool, ",
            ),
            (
                "waivers:\n  - rule: LB001\n    resource: pool/x\n    reason: r\n    expires: soon\n",
                5,
                14,
                "waivers[0].expires `soon`",
            ),
            (
                "waivers:\n  - rule: LB001\n    resource: pool/x\n    reason: r\n    until: 2024-01-01\n",
                5,
                5,
                "unknown field `until`",
            ),
            ("as_of: [1\n", 1, 8, "invalid config"),
            ("select: LB\n", 1, 9, "invalid config"),
            ("a: &a [*a]\n", 1, 1, "invalid config"),
            ("fail_on: error\nfail_on: note\n", 2, 1, "the key `fail_on` appears twice"),
        ];
        for (text, line, column, message) in cases {
            let e = parse_text(text).expect_err(text);
            assert_eq!(e.file, ".edgeaudit.yaml");
            assert!(e.message.contains(message), "{text:?}: {e}");
            assert_eq!((e.line, e.column), (line, column), "{text:?}: {e}");
        }
    }

    #[test]
    fn rule_ids_it_names_must_exist() {
        let mut rules = RuleSet::builtin().unwrap();
        let config = parse_text("select: [LB]\nignore: [XX]\n").unwrap();
        let e = config.configure(&mut rules).unwrap_err();
        assert_eq!((e.line, e.column), (2, 10), "{e}");
        assert!(e.message.contains("ignore: `XX` matches no rule id"), "{e}");

        let mut rules = RuleSet::builtin().unwrap();
        let config = parse_text("severity:\n  ZZ9: error\n").unwrap();
        let e = config.configure(&mut rules).unwrap_err();
        assert_eq!(e.line, 2, "{e}");

        let mut rules = RuleSet::builtin().unwrap();
        let config = parse_text("waivers:\n  - rule: LB9*\n    resource: pool/*\n    reason: r\n").unwrap();
        let e = config.configure(&mut rules).unwrap_err();
        assert_eq!((e.line, e.column), (2, 5), "{e}");
    }

    #[test]
    fn every_truncation_of_the_starter_is_a_config_or_a_located_error() {
        let text = starter::STARTER.replace(
            "waivers: []",
            "waivers:\n  - {rule: LB002, resource: pool/x, reason: r, expires: 2024-12-31}",
        );
        for end in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
            if let Err(e) = parse_text(&text[..end]) {
                assert!(e.line >= 1 && e.line <= text[..end].matches('\n').count() + 1, "cut at {end}: {e}");
            }
        }
    }

    #[test]
    fn severity_overrides_every_phase() {
        let mut rules = RuleSet::builtin().unwrap();
        let config = parse_text("severity:\n  CA008: note\n").unwrap();
        config.configure(&mut rules).unwrap();
        let rule = rules.get("CA008").unwrap();
        assert_eq!(rule.severity, Severity::Note);
        assert!(!rule.phases.is_empty() && rule.phases.iter().all(|p| p.severity == Severity::Note));
    }

    #[test]
    fn found_upward() {
        let dir = tempfile::tempdir().unwrap();
        let nested = dir.path().join("a/b");
        std::fs::create_dir_all(&nested).unwrap();
        std::fs::write(dir.path().join(FILE_NAME), "fail_on: note\n").unwrap();
        let (path, name) = find_upward(&nested).unwrap();
        assert_eq!(name, "../../.edgeaudit.yaml");
        assert_eq!(path, dir.path().join(FILE_NAME));
        assert_eq!(find_upward(dir.path()).unwrap().1, FILE_NAME);
    }
}
