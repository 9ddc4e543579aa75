//! Where a finding points: the value's pointer and byte range, asked of
//! the record's format, then line and column for all of them at once
//! ([`fill_positions`]). Computed after the rules ran, only for what they
//! found.

use std::collections::{HashMap, HashSet};

use super::source::{FileId, SourceFile};
use crate::model::origin::{RecordOrigin, ValueSpan};
use crate::text::position::positions_of_offsets_on;

/// A resolved location. `pointer` is the value actually found: the one asked
/// for, or its nearest existing parent when the field is absent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Located {
    pub file: FileId,
    pub pointer: String,
    pub line: usize,
    pub column: usize,
    /// Where the value ends (exclusive), as line and column.
    pub end_line: usize,
    pub end_column: usize,
    pub start: usize,
    pub end: usize,
}

/// What a format keeps of one file while its records are located or read
/// back, so that a whole-file pass is made at most once.
#[derive(Default)]
pub struct FileCache {
    /// Pointer → byte range of the file's values (YAML, `.tf`).
    pub node_map: Option<HashMap<String, (usize, usize)>>,
    /// The fields the map is built for, when they were
    /// [prepared](Locator::prepare) (and their parents); else every node.
    pub prepared: Option<HashSet<String>>,
    /// One of the file's records could not be read alone: its findings are
    /// located by the file's pass, so a style of record that never stands
    /// alone costs one failed try per file, not per finding.
    pub whole_pass: bool,
    /// The file's document, read whole once to read records back.
    pub document: Option<Option<serde_json::Value>>,
}

/// Finds where fields are, asking each file's format, with what it keeps
/// of each file.
pub struct Locator<'f> {
    files: &'f [SourceFile],
    caches: HashMap<FileId, FileCache>,
}

impl<'f> Locator<'f> {
    pub fn new(files: &'f [SourceFile]) -> Self {
        Locator {
            files,
            caches: HashMap::new(),
        }
    }

    /// Notes the fields that will be asked for, of the files whose format
    /// locates better for knowing them (a YAML file's map, when a record
    /// cannot be read alone, is built for exactly those fields and their
    /// parents rather than for every node). A later
    /// [`locate`](Self::locate) of another field builds the whole map then
    /// (never answers with a parent's place).
    pub fn prepare<'o>(&mut self, fields: impl IntoIterator<Item = (&'o RecordOrigin, &'o str)>) {
        let mut wanted: HashMap<FileId, HashSet<String>> = HashMap::new();
        for (origin, path) in fields {
            let id = origin.file();
            if self.files[id.0 as usize].format.prepares() {
                wanted.entry(id).or_default().insert(origin.field(path));
            }
        }
        for (id, fields) in wanted {
            let format = self.files[id.0 as usize].format;
            format.prepare(self.caches.entry(id).or_default(), fields);
        }
    }

    /// The field `path` of the record at `origin`; line and column are left
    /// at zero for [`fill_positions`].
    pub fn locate(&mut self, origin: &RecordOrigin, path: &str) -> Located {
        let id = origin.file();
        let file = &self.files[id.0 as usize];
        located(origin, file.format.locate(file, self.caches.entry(id).or_default(), origin, path))
    }

    /// The record at `origin` read back whole, when its format holds API records.
    pub fn read_record(&mut self, origin: &RecordOrigin) -> Option<serde_json::Value> {
        let id = origin.file();
        let file = self.files.get(id.0 as usize)?;
        file.format.read_record(file, self.caches.entry(id).or_default(), origin)
    }
}

/// The field `path` of the record at `origin`, when its format locates it
/// from the record alone: needs no cache, so findings can be located on any
/// thread.
pub fn alone(file: &SourceFile, origin: &RecordOrigin, path: &str) -> Option<Located> {
    file.format
        .locates_alone()
        .then(|| located(origin, file.format.locate(file, &mut FileCache::default(), origin, path)))
}

/// The field `path` of the record at `origin`, from where the parse saw its
/// value (`span`, from the record's start): nothing is read.
pub fn spanned(origin: &RecordOrigin, path: &str, span: ValueSpan) -> Option<Located> {
    let range = span.range(origin.anchor()?.offset)?;
    Some(located(origin, (origin.field(path), range.start, range.end)))
}

/// A value found at `pointer`, bytes `start..end`; line and column later.
fn located(origin: &RecordOrigin, (pointer, start, end): (String, usize, usize)) -> Located {
    Located {
        file: origin.file(),
        pointer,
        start,
        end,
        ..Located::default()
    }
}

/// Line and column of the start and end of every location, each file walked
/// once (in stretches, on every thread for a large file). The locations are
/// written in place: a second vector of a million locations is memory a
/// large export cannot spare.
pub fn fill_positions<'l>(files: &[SourceFile], locations: impl Iterator<Item = &'l mut Located>) {
    let mut all: Vec<&mut Located> = locations.collect();
    all.sort_by_key(|l| l.file);
    for group in all.chunk_by_mut(|a, b| a.file == b.file) {
        let Some(file) = files.get(group[0].file.0 as usize) else {
            continue;
        };
        let offsets: Vec<usize> = group.iter().flat_map(|l| [l.start, l.end]).collect();
        // Each thread passes over its own stretch of the file and gives back
        // the pages behind it.
        let threads = crate::threads::Settings::get().threads_for(file.text.len());
        let resolved = positions_of_offsets_on(&file.text, &offsets, threads, |from| {
            let mut releaser = crate::text::mapped::Releaser::new(&file.text, from);
            move |at| releaser.reached(at)
        });
        for (l, pair) in group.iter_mut().zip(resolved.chunks_exact(2)) {
            (l.line, l.column) = pair[0];
            (l.end_line, l.end_column) = pair[1];
        }
    }
}

/// The nearest of `full` and its parents that `map` holds.
pub fn locate_in_map(map: &HashMap<String, (usize, usize)>, full: &str) -> (String, usize, usize) {
    let mut candidate = full;
    loop {
        if let Some(&(s, e)) = map.get(candidate) {
            return (candidate.to_string(), s, e);
        }
        match candidate.rfind('/') {
            Some(i) => candidate = &candidate[..i],
            None => return (String::new(), 0, 0),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn yaml_file(name: &str, text: &str) -> [SourceFile; 1] {
        [SourceFile {
            name: name.into(),
            text: Arc::new(text.to_string().into()),
            format: &crate::input::yaml::YAML,
            discovered: false,
            context: false,
        }]
    }

    /// The records `/result/0`, `/result/1`, … of file 0, each starting where its key is.
    fn records_from<const N: usize>(text: &str, keys: [&str; N]) -> [RecordOrigin; N] {
        let mut places = crate::model::origin::Places::default();
        let mut i = 0;
        keys.map(|key| {
            let origin = places.origin(crate::model::origin::FileId(0), &format!("/result/{i}"), text.find(key));
            i += 1;
            origin
        })
    }

    #[test]
    fn a_yaml_field_it_was_not_prepared_for_is_found_where_it_is() {
        let text = "result:\n  - id: a\n    name: web\n";
        let files = yaml_file("pools.yaml", text);
        let record = RecordOrigin::new(crate::model::origin::FileId(0), "/result/0", None);
        let mut locator = Locator::new(&files);
        locator.prepare([(&record, "/id")]);
        let id = locator.locate(&record, "/id");
        assert_eq!((id.pointer.as_str(), &text[id.start..id.end]), ("/result/0/id", "a"));
        // Not among the prepared fields: its own place, not its record's.
        let name = locator.locate(&record, "/name");
        assert_eq!((name.pointer.as_str(), &text[name.start..name.end]), ("/result/0/name", "web"));
    }

    #[test]
    fn a_yaml_record_with_a_known_first_key_is_located_alone_and_else_by_the_whole_pass() {
        let text = "result:\n  - id: a\n    ssl: {method: http}\n  - &b\n    id: b\n    ssl: {method: txt}\n";
        let files = yaml_file("hostnames.yaml", text);
        let [first, second] = records_from(text, ["id: a", "id: b"]);
        let mut locator = Locator::new(&files);
        locator.prepare([(&first, "/ssl/method"), (&second, "/ssl/method")]);
        let a = locator.locate(&first, "/ssl/method");
        assert_eq!((a.pointer.as_str(), &text[a.start..a.end]), ("/result/0/ssl/method", "http"));
        assert!(
            locator.caches[&FileId(0)].node_map.is_none(),
            "found in its record's stretch: no pass over the file"
        );
        // Anchored (`&b` on the line above): the whole file's pass, same answer.
        let b = locator.locate(&second, "/ssl/method");
        assert_eq!((b.pointer.as_str(), &text[b.start..b.end]), ("/result/1/ssl/method", "txt"));
        assert!(locator.caches[&FileId(0)].node_map.is_some());
        let absent = locator.locate(&first, "/ssl/certificate_authority");
        assert_eq!(absent.pointer, "/result/0/ssl");
    }

    #[test]
    fn a_yaml_file_one_of_whose_records_cannot_stand_alone_is_located_by_its_pass_thereafter() {
        let text = "result:\n  - \"id\": a\n    ssl: {method: http}\n  - id: b\n    ssl: {method: txt}\n";
        let files = yaml_file("hostnames.yaml", text);
        let [quoted, plain] = records_from(text, ["id\"", "id: b"]);
        let mut locator = Locator::new(&files);
        locator.prepare([(&quoted, "/ssl/method"), (&plain, "/ssl/method")]);
        let a = locator.locate(&quoted, "/ssl/method");
        assert_eq!((a.pointer.as_str(), &text[a.start..a.end]), ("/result/0/ssl/method", "http"));
        assert!(locator.caches[&FileId(0)].whole_pass);
        // No stretch tried again for this file: the pass answers, the same.
        let b = locator.locate(&plain, "/ssl/method");
        assert_eq!((b.pointer.as_str(), &text[b.start..b.end]), ("/result/1/ssl/method", "txt"));
    }
}
