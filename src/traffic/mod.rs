//! Traffic impact (docs/src/traffic.md): who is actually hurt. Requests from logs or
//! aggregates are classified by their client (`classes`, from the table in
//! `rules/user-agents.yaml`) and counted per host — only the hosts some
//! resource serves (`hosts`), so memory follows the resources, not the logs —
//! and each certificate finding on a resource that serves hosts gets the
//! requests from impacted clients among them (`impact`).
//!
//! Three shapes are read (`logpush`, `graphql`, `aggregate`), each file
//! streamed once, gzip'd or not, the files on every core.

pub mod aggregate;
pub mod classes;
pub mod graphql;
pub mod hosts;
pub mod impact;
pub mod logpush;
pub mod page;
pub mod shape;

use std::collections::HashMap;
use std::io::Read;

use chrono::{DateTime, Utc};

use crate::text::error::InputError;
use classes::{Class, Request, Table};
use hosts::HostIndex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Requests of one client at one host, as a reader met them.
pub struct Seen<'a> {
    pub request: Request<'a>,
    pub host: &'a str,
    /// How many (1 for a log line; a group's or a row's count).
    pub count: f64,
    pub at: Option<DateTime<Utc>>,
}

/// What a reader hands each request (or group of requests) to.
pub type Sink<'s> = dyn FnMut(Seen<'_>) + 's;

/// Requests counted by class.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Counters {
    pub requests: f64,
    pub impacted: f64,
    pub unknown: f64,
    pub already_broken: f64,
}

impl Counters {
    pub fn add(&mut self, class: Class, n: f64) {
        match class {
            Class::Excluded | Class::Crawler => return,
            Class::Impacted => self.impacted += n,
            Class::Unknown => self.unknown += n,
            Class::AlreadyBroken => self.already_broken += n,
            Class::NotImpacted => {}
        }
        self.requests += n;
    }

    pub fn merge(&mut self, other: &Counters) {
        self.requests += other.requests;
        self.impacted += other.impacted;
        self.unknown += other.unknown;
        self.already_broken += other.already_broken;
    }
}

/// The time the requests span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
}

impl Window {
    fn widen(window: &mut Option<Window>, at: DateTime<Utc>) {
        match window {
            Some(w) => {
                w.from = w.from.min(at);
                w.to = w.to.max(at);
            }
            None => *window = Some(Window { from: at, to: at }),
        }
    }

    fn merge(window: &mut Option<Window>, other: Option<Window>) {
        if let Some(o) = other {
            Window::widen(window, o.from);
            Window::widen(window, o.to);
        }
    }
}

/// What was read: requests by host (the hosts resources serve), and in all.
#[derive(Debug, Default)]
pub struct Traffic {
    pub by_host: HashMap<String, Counters, foldhash::fast::RandomState>,
    /// Every request read, served by a resource of the exports or not.
    pub total: Counters,
    pub excluded: f64,
    /// Crawlers' requests: left out of the shares, counted.
    pub crawlers: f64,
    pub window: Option<Window>,
    /// Logpush's sample rate, as given (1 when not).
    pub sample_rate: f64,
    pub files: usize,
    /// Files met in a folder that hold no traffic (an ownership challenge), with why.
    pub skipped: Vec<InputError>,
}

/// Requests as the files count them, before Logpush's sample rate: lines and
/// CSV rows (`sampled`), GraphQL's groups (`whole`, already scaled by the
/// service). Both are sums of whole numbers, the same in whatever order the
/// threads add them, so the files a thread happens to read change no figure.
#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    sampled: Counters,
    whole: Counters,
}

impl Tally {
    fn add(&mut self, class: Class, n: f64, sampled: bool) {
        if sampled { &mut self.sampled } else { &mut self.whole }.add(class, n);
    }

    fn merge(&mut self, other: &Tally) {
        self.sampled.merge(&other.sampled);
        self.whole.merge(&other.whole);
    }

    /// The requests they stand for: sampled counts divided by the rate.
    fn weighed(&self, sample_rate: f64) -> Counters {
        let mut counters = self.whole;
        counters.requests += self.sampled.requests / sample_rate;
        counters.impacted += self.sampled.impacted / sample_rate;
        counters.unknown += self.sampled.unknown / sample_rate;
        counters.already_broken += self.sampled.already_broken / sample_rate;
        counters
    }
}

/// What one thread read, from the files it took in turn.
#[derive(Debug, Default)]
struct Partial {
    by_host: HashMap<String, Tally, foldhash::fast::RandomState>,
    total: Tally,
    /// Excluded requests: sampled, whole.
    excluded: (f64, f64),
    /// Crawlers' requests: sampled, whole.
    crawlers: (f64, f64),
    window: Option<Window>,
    files: usize,
}

impl Partial {
    fn merge(&mut self, other: Partial) {
        for (host, t) in other.by_host {
            self.by_host.entry(host).or_default().merge(&t);
        }
        self.total.merge(&other.total);
        self.excluded.0 += other.excluded.0;
        self.excluded.1 += other.excluded.1;
        self.crawlers.0 += other.crawlers.0;
        self.crawlers.1 += other.crawlers.1;
        Window::merge(&mut self.window, other.window);
        self.files += other.files;
    }

    /// Counts `n` requests of this client at this host.
    fn count(&mut self, index: &HostIndex, host: &str, class: Class, n: f64, sampled: bool) {
        let left_out = match class {
            Class::Excluded => &mut self.excluded,
            Class::Crawler => &mut self.crawlers,
            _ => {
                self.total.add(class, n, sampled);
                let host = hosts::normalise(host);
                if let Some(tally) = self.by_host.get_mut(host.as_ref()) {
                    tally.add(class, n, sampled);
                } else if index.serves(&host) {
                    self.by_host.entry(host.into_owned()).or_default().add(class, n, sampled);
                }
                return;
            }
        };
        *if sampled { &mut left_out.0 } else { &mut left_out.1 } += n;
    }

    fn weighed(self, sample_rate: f64, skipped: Vec<InputError>) -> Traffic {
        Traffic {
            by_host: self.by_host.into_iter().map(|(host, t)| (host, t.weighed(sample_rate))).collect(),
            total: self.total.weighed(sample_rate),
            excluded: self.excluded.0 / sample_rate + self.excluded.1,
            crawlers: self.crawlers.0 / sample_rate + self.crawlers.1,
            window: self.window,
            sample_rate,
            files: self.files,
            skipped,
        }
    }
}

/// How traffic is read.
#[derive(Debug, Clone)]
pub struct Options {
    /// Logpush's `sample_rate` (0 < R ≤ 1): its lines' counts are divided by it.
    pub sample_rate: f64,
}

/// A distinct user agent recurs millions of times: each (agent, TLS) is
/// classified once, and looked up without a copy of the agent.
struct Classifier<'t> {
    table: &'t Table,
    seen: HashMap<String, Vec<(String, Class)>, foldhash::fast::RandomState>,
    entries: usize,
}

/// Past this many distinct agents a file's cache stops growing (memory stays bounded).
const CACHE: usize = 100_000;

impl<'t> Classifier<'t> {
    fn new(table: &'t Table) -> Self {
        Classifier {
            table,
            seen: HashMap::default(),
            entries: 0,
        }
    }

    fn classify(&mut self, request: &Request<'_>) -> Class {
        // What the request's own fields decide is not the agent's: not cached.
        if request.not_eyeball || request.worker_subrequest || request.verified_bot || request.bot_score == Some(1) {
            return self.table.classify(request);
        }
        if let Some(&(_, class)) = self
            .seen
            .get(request.user_agent)
            .and_then(|by_tls| by_tls.iter().find(|(tls, _)| tls == request.tls))
        {
            return class;
        }
        let class = self.table.classify(request);
        if self.entries < CACHE {
            self.entries += 1;
            self.seen
                .entry(request.user_agent.to_string())
                .or_default()
                .push((request.tls.to_string(), class));
        }
        class
    }
}

use shape::Shape;

/// Where the traffic files are: each path a file, `-` (standard input) or a
/// folder (walked, sorted: the names of [`shape::SHAPES`] are read, and any
/// other file whose content is traffic; anything else is listed as skipped
/// with why).
fn discover(paths: &[String]) -> (Vec<String>, Vec<InputError>, Vec<InputError>) {
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    let mut errors = Vec::new();
    for path in paths {
        let p = std::path::Path::new(path);
        match std::fs::metadata(p) {
            Ok(m) if m.is_dir() => {
                let walker = ignore::WalkBuilder::new(p).hidden(true).sort_by_file_name(|a, b| a.cmp(b)).build();
                let before = files.len();
                for entry in walker.flatten() {
                    if !entry.file_type().is_some_and(|t| t.is_file()) {
                        continue;
                    }
                    let name = entry.path().to_string_lossy().replace('\\', "/");
                    match shape::by_name(&name).map_or_else(|| sniff(&name), |_| Ok(true)) {
                        Ok(true) => files.push(name),
                        Ok(false) => skipped.push(
                            InputError::unreadable(&name, "").not_analysed(format!("not traffic (neither {}): skipped", shape::whats())),
                        ),
                        // A file that cannot be read is an error, not "not traffic".
                        Err(e) => errors.push(e),
                    }
                }
                if files.len() == before {
                    errors.push(InputError::unreadable(
                        path,
                        format!("no traffic files in this folder ({})", shape::names()),
                    ));
                }
            }
            Ok(_) => files.push(path.clone()),
            Err(_) if path == "-" => files.push(path.clone()),
            Err(e) => errors.push(InputError::unreadable(path, format!("cannot read traffic: {e}"))),
        }
    }
    (files, skipped, errors)
}

/// Whether a file met in a walk holds traffic by its content; a file that
/// cannot be read (or a gzip stream that is broken) is an error at it.
fn sniff(name: &str) -> Result<bool, InputError> {
    let mut reader = open(name)?;
    let head = reader
        .fill_buf()
        .map_err(|e| InputError::unreadable(name, format!("cannot read: {e}")))?;
    Ok(shape::SHAPES.iter().any(|d| (d.holds)(head)))
}

/// A file's bytes (standard input's for `-`), gunzipped when they are gzip
/// (every member).
fn open(name: &str) -> Result<Box<dyn std::io::BufRead + Send>, InputError> {
    let source: Box<dyn std::io::Read + Send> = if name == "-" {
        Box::new(std::io::stdin())
    } else {
        Box::new(std::fs::File::open(name).map_err(|e| InputError::unreadable(name, format!("cannot read: {e}")))?)
    };
    let mut reader = std::io::BufReader::with_capacity(1 << 20, source);
    let head = std::io::BufRead::fill_buf(&mut reader).map_err(|e| InputError::unreadable(name, format!("cannot read: {e}")))?;
    if head.starts_with(&[0x1f, 0x8b]) {
        let decoded = flate2::bufread::MultiGzDecoder::new(reader);
        Ok(Box::new(std::io::BufReader::with_capacity(1 << 20, decoded)))
    } else {
        Ok(Box::new(reader))
    }
}

/// Reads every traffic file, each once, on every core; the hosts counted
/// are those `index` serves.
pub fn load(paths: &[String], index: &HostIndex, options: &Options) -> Result<Traffic, Vec<InputError>> {
    if !(options.sample_rate > 0.0 && options.sample_rate <= 1.0) {
        return Err(vec![InputError::unreadable(
            "--traffic-sample-rate",
            format!(
                "{} is not a sample rate: expected a number above 0 and at most 1",
                options.sample_rate
            ),
        )]);
    }
    let table = Table::builtin().map_err(|e| vec![e])?;
    let (files, skipped, mut errors) = discover(paths);
    // Each thread takes the next file and adds it to its own counts: one
    // table of hosts a thread, not one a file (a day of Logpush is hundreds
    // of files that name the same hosts).
    let next = AtomicUsize::new(0);
    let threads = crate::threads::count().clamp(1, files.len().max(1));
    let parts = crate::threads::ordered_map(&vec![(); threads], threads, |_| {
        let mut partial = Partial::default();
        let mut classifier = Classifier::new(&table);
        let mut failed = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(name) = files.get(i) else { break };
            if let Err(e) = read_file(name, &mut partial, &mut classifier, index) {
                failed.push((i, e));
            }
        }
        (partial, failed)
    });
    let mut read = Partial::default();
    let mut failed = Vec::new();
    for (partial, f) in parts {
        read.merge(partial);
        failed.extend(f);
    }
    // In the order the files were named, whichever thread met them.
    failed.sort_by_key(|(i, _)| *i);
    errors.extend(failed.into_iter().map(|(_, e)| e));
    let traffic = read.weighed(options.sample_rate, skipped);
    if errors.is_empty() { Ok(traffic) } else { Err(errors) }
}

fn read_file(name: &str, traffic: &mut Partial, classifier: &mut Classifier<'_>, index: &HostIndex) -> Result<(), InputError> {
    let mut reader = open(name)?;
    traffic.files += 1;
    // Told by its content; the name only breaks ties.
    let head = reader
        .fill_buf()
        .map_err(|e| InputError::unreadable(name, format!("cannot read: {e}")))?;
    let Some(shape) = shape::of(name, head) else {
        return Err(InputError::at_line_column(
            name,
            1,
            1,
            format!("not traffic: expected {} (named {})", shape::whats(), shape::names()),
        ));
    };
    match shape {
        Shape::Logpush => logpush::read(name, &mut reader, &mut |seen: Seen<'_>| {
            let class = classifier.classify(&seen.request);
            traffic.count(index, seen.host, class, seen.count, true);
            if let Some(at) = seen.at
                && class.is_counted()
            {
                Window::widen(&mut traffic.window, at);
            }
        })?,
        Shape::GraphQl => {
            let mut text = String::new();
            reader
                .take(crate::text::bounded::DEFAULT_MAX_INPUT)
                .read_to_string(&mut text)
                .map_err(|e| InputError::unreadable(name, format!("cannot read: {e}")))?;
            graphql::read(name, &text, &mut |seen: Seen<'_>| {
                let class = classifier.classify(&seen.request);
                traffic.count(index, seen.host, class, seen.count, false);
                if let Some(at) = seen.at
                    && class.is_counted()
                {
                    Window::widen(&mut traffic.window, at);
                }
            })?
        }
        Shape::Aggregate => aggregate::read(name, reader, &mut |seen: Seen<'_>| {
            let class = classifier.classify(&seen.request);
            traffic.count(index, seen.host, class, seen.count, true);
        })?,
    }
    Ok(())
}

use std::io::BufRead as _;

/// A timestamp as Logpush writes it: unix seconds, milli-, micro- or
/// nanoseconds (a number or a numeric string), or RFC 3339.
pub fn timestamp(value: &serde_json::Value) -> Option<DateTime<Utc>> {
    let number = match value {
        serde_json::Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
        serde_json::Value::String(s) => match s.parse::<i64>() {
            Ok(n) => Some(n),
            // Some Logpush destinations and exports write `YYYY-MM-DD HH:MM:SS`, in UTC.
            Err(_) => {
                return crate::model::timestamp::parse_rfc3339(s).or_else(|| {
                    chrono::NaiveDateTime::parse_from_str(s.trim(), "%Y-%m-%d %H:%M:%S%.f")
                        .ok()
                        .map(|t| t.and_utc())
                });
            }
        },
        _ => None,
    }?;
    let nanos: i128 = match number.unsigned_abs() {
        n if n >= 100_000_000_000_000_000 => number as i128,
        n if n >= 100_000_000_000_000 => number as i128 * 1_000,
        n if n >= 100_000_000_000 => number as i128 * 1_000_000,
        _ => number as i128 * 1_000_000_000,
    };
    let seconds = i64::try_from(nanos.div_euclid(1_000_000_000)).ok()?;
    DateTime::from_timestamp(seconds, nanos.rem_euclid(1_000_000_000) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_in_every_unit_logpush_writes() {
        let at = "2024-09-10T08:00:00Z";
        let expected = DateTime::parse_from_rfc3339(at).unwrap().with_timezone(&Utc);
        for v in [
            serde_json::json!(1725955200),
            serde_json::json!(1725955200000000000i64),
            serde_json::json!("1725955200"),
            serde_json::json!("1725955200000000000"),
            serde_json::json!(at),
            serde_json::json!("2024-09-10 08:00:00"),
            serde_json::json!(1725955200000i64),
        ] {
            assert_eq!(timestamp(&v), Some(expected), "{v}");
        }
        for not_a_time in ["soon", "yesterday", "2024-09-10", "10/09/2024 08:00"] {
            assert_eq!(timestamp(&serde_json::json!(not_a_time)), None, "{not_a_time}");
        }
    }
}
