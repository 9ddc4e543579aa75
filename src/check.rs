//! The main job, stage by stage: load → model → facts → rules → findings,
//! then locations for what was found, then triage (what waivers and the
//! baseline accept) before the reports.

use std::collections::BTreeMap;

use chrono::NaiveDate;

use crate::adapt::Builder;
use crate::engine::RuleSet;
use crate::facts::Analysis;
use crate::findings::Finding;
use crate::findings::evaluate::evaluate;
use crate::findings::unjudged::{NotJudged, not_judged};
use crate::input::locate::{Located, Locator, fill_positions};
use crate::input::source::SourceFile;
use crate::load::{LoadOptions, load};
use crate::model::Kind;
use crate::model::origin::{FileId, RecordOrigin, ValueSpan};
use crate::text::error::{InputError, InputErrors};
use crate::text::mapped::Releaser;
use crate::text::position::Counted;
use crate::triage::{self, Triage, Triaged};

#[derive(Debug, Clone)]
pub struct CheckOptions {
    pub paths: Vec<String>,
    pub load: LoadOptions,
    pub as_of: NaiveDate,
    /// Traffic to measure who is hurt (`--traffic`), and how it was sampled.
    pub traffic: Option<TrafficOptions>,
}

#[derive(Debug, Clone)]
pub struct TrafficOptions {
    pub paths: Vec<String>,
    pub read: crate::traffic::Options,
}

#[derive(Debug)]
pub struct Outcome {
    pub files: Vec<SourceFile>,
    /// Sorted by file, line, column, rule.
    pub findings: Vec<Finding>,
    pub records: BTreeMap<Kind, usize>,
    /// Resources whose existence is not known before a run, not counted above.
    pub may_exist: BTreeMap<Kind, usize>,
    /// Identical later copies of resources, counted once.
    pub duplicates: usize,
    /// Blocks of `.tf` source joined with the state resource of their address.
    pub joined: usize,
    /// Files met in directories that are not exports, or not read.
    pub skipped: Vec<InputError>,
    /// How many files were analysed.
    pub analysed_files: usize,
    pub as_of: NaiveDate,
    /// What the waivers and the baseline accepted, and what they say about themselves.
    pub triage: Triaged,
    /// Rules that could not judge some subjects for want of a known value.
    pub not_judged: Vec<NotJudged>,
    /// The requests the resources' hosts received, when traffic was given.
    pub traffic: Option<crate::traffic::impact::TrafficImpact>,
}

impl Outcome {
    /// The traffic a certificate finding's resource received, when traffic was given.
    pub fn impact(&self, f: &Finding) -> Option<crate::traffic::impact::Impact> {
        self.traffic.as_ref()?.of_finding(f)
    }
}

impl Outcome {
    /// The findings that count: those no waiver or baseline accepted.
    pub fn active(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|f| !f.is_suppressed())
    }
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
            let field = |key: &str| {
                status
                    .lines()
                    .find(|l| l.starts_with(key))
                    .map(|l| l[key.len()..].trim().to_string())
                    .unwrap_or_default()
            };
            // utime and stime, in clock ticks (fields 14 and 15, after the
            // command's closing parenthesis).
            let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
            let cpu: Vec<&str> = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("").split_whitespace().collect();
            let ticks = |i: usize| cpu.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
            crate::say!(
                "timing: {name:<10} {:>8.3}s  cpu {:>5} ticks (user+sys, total)  rss {}  peak {}",
                t.elapsed().as_secs_f64(),
                ticks(11) + ticks(12),
                field("VmRSS:"),
                field("VmHWM:")
            );
            self.0 = Some(std::time::Instant::now());
        }
    }
}

/// Runs the job and hands the outcome, with the analysis that renders its
/// messages, to `report`: load, traffic, rules, locate, triage, report, each
/// a stage below.
pub fn check<R>(
    options: &CheckOptions,
    rules: &RuleSet,
    triage: Triage,
    report: impl FnOnce(&Outcome, &Analysis) -> R,
) -> Result<R, InputErrors> {
    let mut timings = Timings::start();
    let mut builder = Builder::default();
    let loaded = load(&options.paths, &options.load, &mut builder)?;
    let inventory = builder.finish();
    timings.stage("load");
    let traffic = read_traffic(options, &inventory)?;
    timings.stage("traffic");

    let analysis = Analysis::new(&inventory, loaded.files.iter().map(|f| f.name.clone()).collect());
    let threads = crate::threads::count();
    let Judged {
        mut findings,
        not_judged,
        run_notes,
    } = judge(options, rules, &analysis, &inventory, threads);
    timings.stage("rules");

    let files = loaded.files.as_slice();
    let mut locator = locate(&mut findings, files, &analysis, threads);
    sort_for_reports(&mut findings, files);
    let run_notes = place_notes(run_notes, &mut locator, files);
    // Locating read the mapped files again (the pages given back come from
    // the files); past here only snippets read a few lines.
    loaded.unchanged()?;
    timings.stage("locate");

    let mut triaged = triage::apply(&mut findings, |f| f.resource(&analysis), options.as_of, triage);
    triaged.notices.extend(run_notes);
    triaged
        .notices
        .extend(crate::notices::outside_named_files(&loaded.files, &mut findings, |f| {
            // An account is of no one file (its origin is whichever pools list
            // loaded first): its findings go by where they are located.
            (f.subject.kind != Kind::Account)
                .then(|| analysis.subject(f.subject).map(|s| s.origin.file()))
                .flatten()
        }));
    if let Some(traffic) = &traffic {
        triaged
            .notices
            .extend(crate::notices::impact_lower_bound(traffic, &findings, &loaded.files));
    }
    timings.stage("triage");
    let outcome = Outcome {
        files: loaded.files,
        findings,
        records: inventory.records.clone(),
        may_exist: inventory.may_exist.clone(),
        duplicates: inventory.duplicates,
        joined: inventory.joined,
        skipped: {
            let mut skipped = loaded.skipped;
            skipped.extend(inventory.not_analysed.iter().cloned());
            skipped.extend(traffic.iter().flat_map(|t| t.skipped.iter().cloned()));
            skipped
        },
        analysed_files: loaded.analysed,
        as_of: options.as_of,
        triage: triaged,
        not_judged,
        traffic,
    };
    let result = report(&outcome, &analysis);
    timings.stage("report");
    // The model and the findings (a million records' worth take tens of
    // milliseconds to free) are freed beside the caller, which need not wait.
    drop(analysis);
    if threads > 1 {
        crate::threads::drop_beside((outcome, inventory));
    }
    Ok(result)
}

/// Traffic, counted for the hosts the exports' resources serve (so read
/// after them).
fn read_traffic(
    options: &CheckOptions,
    inventory: &crate::model::Inventory,
) -> Result<Option<crate::traffic::impact::TrafficImpact>, InputErrors> {
    let Some(t) = &options.traffic else {
        return Ok(None);
    };
    let index = crate::traffic::hosts::HostIndex::of(inventory);
    let read = crate::traffic::load(&t.paths, &index, &t.read).map_err(InputErrors)?;
    Ok(Some(crate::traffic::impact::TrafficImpact::of(read, &index)))
}

/// What the rules found, what they could not judge, and the run's notes.
struct Judged {
    findings: Vec<Finding>,
    not_judged: Vec<NotJudged>,
    run_notes: Vec<crate::notices::RunNote>,
}

/// The rules stage: every subject's facts evaluated against the rules in
/// effect on `threads` threads.
fn judge(options: &CheckOptions, rules: &RuleSet, analysis: &Analysis, inventory: &crate::model::Inventory, threads: usize) -> Judged {
    // Subjects in consecutive ranges, a few ranges a thread so that the
    // threads finish together (one run a thread left one idle for a tenth of
    // a second); their findings joined in order, so they are those of one
    // thread, into one vector made at its size: never held twice over.
    let ranges = analysis.subject_ranges(16384);
    let in_effect = crate::findings::evaluate::InEffect::new(rules, options.as_of);
    let parts = crate::threads::ordered_map(&ranges, threads, |range| {
        let mut findings = Vec::new();
        analysis.for_each_subject_in(range, |subject, facts| evaluate(&in_effect, subject, facts, &mut findings));
        findings
    });
    // What the rules could not judge, and the run's notes, read only the
    // model: they are made on a thread of their own while this one joins the
    // findings (a copy of every finding, on one thread either way).
    let unjudged = || {
        let not_judged = not_judged(rules, analysis, options.as_of);
        let notes = crate::notices::of_run(inventory, options.as_of, &not_judged);
        (not_judged, notes)
    };
    let join = |parts: Vec<Vec<Finding>>| {
        let mut findings: Vec<Finding> = Vec::with_capacity(parts.iter().map(Vec::len).sum());
        for part in parts {
            findings.extend(part);
        }
        findings
    };
    let (findings, (not_judged, run_notes)) = std::thread::scope(|scope| {
        // (A thread that cannot be had leaves the work to this one.)
        let beside = (threads > 1)
            .then(|| std::thread::Builder::new().spawn_scoped(scope, unjudged).ok())
            .flatten();
        let findings = join(parts);
        let unjudged = match beside {
            Some(thread) => thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            None => unjudged(),
        };
        (findings, unjudged)
    });
    Judged {
        findings,
        not_judged,
        run_notes,
    }
}

/// The locate stage: each finding's file, pointer, line and column, where
/// the parse saw its value or by its format's locator. The locator is kept
/// for the run's notes.
fn locate<'f>(findings: &mut [Finding], files: &'f [SourceFile], analysis: &Analysis, threads: usize) -> Locator<'f> {
    // Findings whose subject has an origin are located in place: pointer and
    // range first, then line and column for all of them, a file at a time.
    // Records whose format locates a field from the record alone (a JSON
    // record's scan) on every thread, the others with the locator, which
    // keeps what their format builds of a file (a node map) once.
    let alone = |record: &RecordOrigin| file_of(files, record).is_some_and(|f| f.format.locates_alone());
    let located = crate::threads::map_chunks_mut(findings, threads, |chunk| {
        // A thread's findings are records of one part of a file, in order:
        // it releases the pages it has passed (from its first record on),
        // and counts their lines and columns as it goes (`InOrder`).
        let mut releaser: Option<(FileId, Releaser<'_>)> = None;
        let mut placements = Vec::with_capacity(chunk.len());
        let mut counted = InOrder::new();
        for f in chunk {
            let Some((record, span)) = record_and_span(analysis, f) else {
                placements.push(Placement::Nowhere);
                continue;
            };
            let mut placement = if alone(record) { Placement::Alone } else { Placement::Locator };
            // A value whose place the parse saw is not looked for again.
            let spanned = crate::input::locate::spanned(record, &f.path, span);
            let read = spanned.is_none();
            if let Some(file) = file_of(files, record)
                && let Some(mut location) = spanned.or_else(|| crate::input::locate::alone(file, record, &f.path))
            {
                let id = record.file();
                if let (Some(start), Some(end)) = (file.text.plain_position(location.start), file.text.plain_position(location.end)) {
                    // On the plain first line of a minified export: nothing to count.
                    ((location.line, location.column), (location.end_line, location.end_column)) = (start, end);
                    placement = Placement::Placed;
                    if !read {
                        // Nothing of the file was read, so nothing is given back.
                        f.location = location;
                        placements.push(placement);
                        continue;
                    }
                } else if counted.count(file.text.as_bytes(), id, record, &location) {
                    placement = Placement::Counted;
                }
                // (Counting reads from the record's start: released up to there.)
                let at = record.anchor().map_or(location.start, |a| a.offset);
                f.location = location;
                match &mut releaser {
                    Some((current, releaser)) if *current == id => releaser.reached(at),
                    _ => releaser = Some((id, Releaser::new(&file.text, at))),
                }
            }
            placements.push(placement);
        }
        (placements, counted)
    });
    // Lines and columns of the findings counted in order, each thread's
    // counts joined to those before it; the others' by a pass over their file.
    let mut placements: Vec<Placement> = Vec::with_capacity(findings.len());
    {
        let mut joined = Joined::default();
        let mut at = 0;
        for (chunk_placements, counted) in located {
            let n = chunk_placements.len();
            let chunk = &mut findings[at..at + n];
            placements.extend(joined.place(files, counted, chunk, chunk_placements));
            at += n;
        }
    }
    // Only the findings the locator places are looked at again (a million
    // findings' records asked for again on one thread cost a tenth of a second).
    let by_locator = || {
        findings
            .iter()
            .zip(&placements)
            .filter(|(_, p)| **p == Placement::Locator)
            .filter_map(|(f, _)| Some((record_of(analysis, f)?, f.path.as_ref())))
    };
    let mut locator = Locator::new(files);
    locator.prepare(by_locator());
    fill_positions(
        files,
        findings.iter_mut().zip(&placements).filter_map(|(f, placement)| match placement {
            Placement::Nowhere | Placement::Placed | Placement::Counted => None,
            Placement::Alone => Some(&mut f.location),
            Placement::Locator => {
                f.location = locator.locate(record_of(analysis, f)?, &f.path);
                Some(&mut f.location)
            }
        }),
    );
    locator
}

/// The deterministic report order: file, line, column, rule, pointer.
fn sort_for_reports(findings: &mut [Finding], files: &[SourceFile]) {
    fn key<'f>(files: &'f [SourceFile], f: &'f Finding) -> (&'f str, usize, usize, &'f str, &'f str) {
        let file = files.get(f.location.file.0 as usize).map_or("", |file| file.name.as_str());
        (
            file,
            f.location.line,
            f.location.column,
            f.rule.id.as_str(),
            f.location.pointer.as_str(),
        )
    }
    findings.sort_by(|a, b| key(files, a).cmp(&key(files, b)));
}

/// What the run says about its inputs beside the findings, each at its place.
fn place_notes(run_notes: Vec<crate::notices::RunNote>, locator: &mut Locator, files: &[SourceFile]) -> Vec<crate::triage::Notice> {
    run_notes
        .into_iter()
        .map(|note| {
            let mut at = locator.locate(&note.origin, &note.path);
            fill_positions(files, std::iter::once(&mut at));
            crate::triage::Notice {
                code: note.code,
                message: note.message,
                place: crate::triage::Place {
                    file: files.get(at.file.0 as usize).map_or_else(String::new, |f| f.name.clone()),
                    line: at.line,
                    column: at.column,
                },
            }
        })
        .collect()
}

/// The file a record is in.
fn file_of<'f>(files: &'f [SourceFile], record: &RecordOrigin) -> Option<&'f SourceFile> {
    files.get(record.file().0 as usize)
}

/// How a finding is located: not at all (no record), from its record alone
/// (on the thread that met it; its line and column known there from the
/// plain start of its file, counted there, or later by a pass over its
/// file), or by the locator of its file's format.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Placement {
    Nowhere,
    Alone,
    Placed,
    Counted,
    Locator,
}

/// Lines and columns counted by a locating thread as it passes over a file
/// record by record: from the record where its first counted finding is,
/// each record's start after the one before, and each finding from its
/// record's start (a record's fields need not be found in order). A
/// million findings' file is then read once after the parse, not once to
/// locate and again to count (each pass faulting its pages in again).
/// Findings of another file, or whose record comes before the last one
/// counted (the other copy of a duplicate), are left to the pass.
struct InOrder {
    /// The file, and the record where the counting starts.
    from: Option<(FileId, usize)>,
    /// The last record's start, and what lies between `from` and it.
    at: usize,
    learnt: Counted,
    /// Each counted finding's start and end, from `from`, in order.
    each: Vec<(Counted, Counted)>,
}

impl InOrder {
    fn new() -> InOrder {
        InOrder {
            from: None,
            at: 0,
            learnt: Counted::NOTHING,
            each: Vec::new(),
        }
    }

    /// Counts the line and column of `location` (a field of `record`, in the
    /// file `id` whose text is `bytes`) when it comes in order; whether it did.
    fn count(&mut self, bytes: &[u8], id: FileId, record: &RecordOrigin, location: &Located) -> bool {
        let Some(record_start) = record.anchor().map(|a| a.offset) else {
            return false;
        };
        if location.start < record_start || location.end < location.start {
            return false;
        }
        match self.from {
            None => {
                self.from = Some((id, record_start));
                self.at = record_start;
            }
            Some((file, _)) if file != id || record_start < self.at => return false,
            Some(_) => {}
        }
        if record_start > self.at {
            self.learnt = self.learnt.then(Counted::of(bytes, self.at, record_start));
            self.at = record_start;
        }
        let start = self.learnt.then(Counted::of(bytes, record_start, location.start));
        let end = start.then(Counted::of(bytes, location.start, location.end));
        self.each.push((start, end));
        true
    }
}

/// The locating threads' counts joined in order: each thread's from where
/// the one before it (in the same file) stopped, or from its file's start.
#[derive(Default)]
struct Joined {
    /// The file counted last, its last record's start, and what lies before it.
    last: Option<(FileId, usize, Counted)>,
    /// The files whose counting began: one met again after another is left
    /// to the pass (its counts would not join).
    started: Vec<FileId>,
}

impl Joined {
    /// Writes the lines and columns of a thread's counted findings (`chunk`,
    /// placed as `placements`), and gives back their placements: a finding
    /// whose counts cannot be joined is left to the pass over its file.
    fn place(&mut self, files: &[SourceFile], counted: InOrder, chunk: &mut [Finding], placements: Vec<Placement>) -> Vec<Placement> {
        let joined = counted.from.and_then(|(id, from)| {
            let bytes = files.get(id.0 as usize)?.text.as_bytes();
            let before = match self.last {
                Some((file, at, before)) if file == id && from >= at => before.then(Counted::of(bytes, at, from)),
                _ if !self.started.contains(&id) => Counted::FILE_START.then(Counted::of(bytes, 0, from)),
                _ => return None,
            };
            Some((id, before))
        });
        let Some((id, before)) = joined else {
            let to_pass = |p: Placement| if p == Placement::Counted { Placement::Alone } else { p };
            return placements.into_iter().map(to_pass).collect();
        };
        if !self.started.contains(&id) {
            self.started.push(id);
        }
        let mut each = counted.each.iter();
        for (f, _) in chunk.iter_mut().zip(&placements).filter(|(_, p)| **p == Placement::Counted) {
            if let Some((start, end)) = each.next() {
                (f.location.line, f.location.column) = before.then(*start).position();
                (f.location.end_line, f.location.end_column) = before.then(*end).position();
            }
        }
        self.last = Some((id, counted.at, before.then(counted.learnt)));
        placements
    }
}

/// The record a finding's field is in: the other copy's for a finding about
/// one (EX002), else its subject's.
fn record_of<'r>(analysis: &Analysis<'r>, f: &'r Finding) -> Option<&'r RecordOrigin> {
    record_and_span(analysis, f).map(|(record, _)| record)
}

/// [`record_of`], and where the parse saw the finding's value in it: only
/// in its subject's own record (none in the other copy of a duplicate).
fn record_and_span<'r>(analysis: &Analysis<'r>, f: &'r Finding) -> Option<(&'r RecordOrigin, ValueSpan)> {
    let subject = analysis.subject(f.subject)?;
    Some(match f.elsewhere.as_deref() {
        Some(other) => (other, ValueSpan::NONE),
        None => (subject.origin, subject.spans.of(&f.path)),
    })
}
