//! The main job, stage by stage: load → model → facts → rules → findings,
//! then locations for what was found.

use chrono::NaiveDate;

use crate::engine::RuleSet;
use crate::engine::evaluate::evaluate;
use crate::facts::Analysis;
use crate::findings::LocatedFinding;
use crate::load::error::InputError;
use crate::load::source::SourceFile;
use crate::load::{LoadOptions, load};
use crate::locate::resolve_locations;
use crate::model::Inventory;
use crate::model::build::Builder;

#[derive(Debug, Clone)]
pub struct CheckOptions {
    pub paths: Vec<String>,
    pub load: LoadOptions,
    pub as_of: NaiveDate,
}

#[derive(Debug)]
pub struct Outcome {
    pub files: Vec<SourceFile>,
    /// Sorted by file, line, column, rule.
    pub findings: Vec<LocatedFinding>,
    /// The resources, for rendering messages and counting records.
    pub inventory: Inventory,
    /// Files met in directories that are not exports.
    pub skipped: Vec<InputError>,
    pub as_of: NaiveDate,
}

/// With `EDGEAUDIT_TIMINGS` set, prints how long each stage took to stderr
/// (for the benchmark; never part of a report).
struct Timings(Option<std::time::Instant>);

impl Timings {
    fn start() -> Self {
        Timings(std::env::var_os("EDGEAUDIT_TIMINGS").map(|_| std::time::Instant::now()))
    }
    fn stage(&mut self, name: &str) {
        if let Some(t) = self.0 {
            let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
            let field = |key: &str| status.lines().find(|l| l.starts_with(key)).map(|l| l[key.len()..].trim().to_string()).unwrap_or_default();
            eprintln!("timing: {name:<10} {:>8.3}s  rss {}  peak {}", t.elapsed().as_secs_f64(), field("VmRSS:"), field("VmHWM:"));
            self.0 = Some(std::time::Instant::now());
        }
    }
}

pub fn check(options: &CheckOptions, rules: &RuleSet) -> Result<Outcome, InputError> {
    let mut timings = Timings::start();
    let mut builder = Builder::default();
    let loaded = load(&options.paths, &options.load, &mut builder)?;
    let inventory = builder.finish();
    timings.stage("load");

    let mut findings = Vec::new();
    Analysis::new(&inventory).for_each_subject(|subject, facts| evaluate(rules, subject, facts, options.as_of, &mut findings));
    timings.stage("rules");

    let requests: Vec<_> = findings.iter().map(|f| (&f.origin, f.path.as_str())).collect();
    let locations = resolve_locations(&loaded.files, &requests);
    timings.stage("locate");
    let mut located: Vec<LocatedFinding> = findings
        .into_iter()
        .zip(locations)
        .map(|(finding, location)| {
            let name = loaded.files[location.file.0 as usize].name.clone();
            LocatedFinding::from_parts(finding, location, &name)
        })
        .collect();
    located.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    timings.stage("sort");
    Ok(Outcome {
        files: loaded.files,
        findings: located,
        inventory,
        skipped: loaded.skipped,
        as_of: options.as_of,
    })
}
