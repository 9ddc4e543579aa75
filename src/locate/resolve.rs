use std::collections::{HashMap, HashSet};

use super::{hcl, json, yaml};
use crate::load::source::{FileId, Format, SourceFile};
use crate::model::origin::RecordOrigin;
use crate::text::pointer;
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

/// Finds where fields are: the value's pointer and byte range now, line and
/// column later for all of them at once ([`fill_positions`]). A YAML file's
/// node map is built at most once.
pub struct Locator<'f> {
    files: &'f [SourceFile],
    /// YAML's and HCL's pointer → byte range maps, built once per file.
    node_maps: HashMap<FileId, HashMap<String, (usize, usize)>>,
    /// The pointers a YAML file's map was [prepared](Self::prepare) for.
    prepared: HashMap<FileId, HashSet<String>>,
    /// YAML files one of whose records could not be read alone: their
    /// findings are located by the file's pass, so a style of record that
    /// never stands alone costs one failed try per file, not per finding.
    whole_pass: HashSet<FileId>,
}

impl<'f> Locator<'f> {
    pub fn new(files: &'f [SourceFile]) -> Self {
        Locator {
            files,
            node_maps: HashMap::new(),
            prepared: HashMap::new(),
            whole_pass: HashSet::new(),
        }
    }

    /// Notes the fields of the YAML files among `fields`: a file's map, when
    /// a record cannot be read alone, is built for exactly those fields (and
    /// their parents), rather than for every node. A later
    /// [`locate`](Self::locate) of another field of such a file builds its
    /// whole map then (never answers with a parent's place).
    pub fn prepare<'o>(&mut self, fields: impl IntoIterator<Item = (&'o RecordOrigin, &'o str)>) {
        let mut wanted: HashMap<FileId, Vec<String>> = HashMap::new();
        for (origin, path) in fields {
            let id = origin.file();
            if self.files[id.0 as usize].format == Format::Yaml {
                wanted.entry(id).or_default().push(origin.field(path));
            }
        }
        // Built when a field is not found in its record's own stretch.
        for (file, fields) in wanted {
            self.node_maps.remove(&file);
            self.prepared.insert(file, fields.into_iter().collect());
        }
    }

    /// The field `path` of the record at `origin`; line and column are left
    /// at zero for [`fill_positions`].
    pub fn locate(&mut self, origin: &RecordOrigin, path: &str) -> Located {
        let id = origin.file();
        let file = &self.files[id.0 as usize];
        let (pointer, start, end) = match file.format {
            Format::Json => return json_field(file, origin, path),
            // Zone-file records are located by their anchor: the record's data.
            Format::Bind => {
                let start = origin.anchor().map_or(0, |a| a.offset);
                let end = file.text[start..].find('\n').map_or(file.text.len(), |i| start + i);
                (origin.pointer().into_owned(), start, end)
            }
            // A record whose first key is known: its own stretch is parsed.
            Format::Yaml
                if !self.whole_pass.contains(&id)
                    && let Some(anchor) = origin.anchor()
                    && let Some((pointer, start, end)) = yaml::record_field(&file.text, anchor.offset, path) =>
            {
                (origin.field(&pointer), start, end)
            }
            Format::Yaml => {
                if origin.anchor().is_some() {
                    self.whole_pass.insert(id);
                }
                let full = origin.field(path);
                if self.prepared.get(&id).is_some_and(|fields| !fields.contains(&full)) {
                    self.prepared.remove(&id);
                    self.node_maps.remove(&id);
                }
                let prepared = self.prepared.get(&id);
                let map = self.node_maps.entry(id).or_insert_with(|| match prepared {
                    Some(fields) => yaml::node_ranges_of(&file.text, Some(&yaml::with_parents(fields.iter().map(String::as_str)))),
                    None => yaml::node_ranges(&file.text),
                });
                locate_in_map(map, &full)
            }
            Format::Hcl => {
                let map = self.node_maps.entry(id).or_insert_with(|| hcl::node_ranges(&file.text));
                locate_in_map(map, &origin.field(path))
            }
        };
        located(origin, (pointer, start, end))
    }
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
        let threads = crate::load::parallel::Settings::get().threads_for(file.text.len());
        let resolved = positions_of_offsets_on(&file.text, &offsets, threads, |from| {
            let mut releaser = crate::load::text::Releaser::new(&file.text, from);
            move |at| releaser.reached(at)
        });
        for (l, pair) in group.iter_mut().zip(resolved.chunks_exact(2)) {
            (l.line, l.column) = pair[0];
            (l.end_line, l.end_column) = pair[1];
        }
    }
}

/// The field `path` of a JSON record (a scan of the record alone when its
/// start is known): needs no map, so findings can be located on any thread.
pub fn json_field(file: &SourceFile, origin: &RecordOrigin, path: &str) -> Located {
    located(origin, locate_json(&file.text, origin, path))
}

fn locate_json(text: &str, origin: &RecordOrigin, path: &str) -> (String, usize, usize) {
    match origin.anchor() {
        // The anchor is the record's own first byte: walk the field's path from there.
        Some(anchor) => {
            let hit = json::find(text, anchor.offset, &pointer::tokens(path));
            (origin.field(pointer::prefix(path, hit.matched)), hit.start, hit.end)
        }
        None => {
            let full = origin.field(path);
            let hit = json::find(text, 0, &pointer::tokens(&full));
            (pointer::prefix(&full, hit.matched).to_string(), hit.start, hit.end)
        }
    }
}

pub(super) fn locate_in_map(map: &HashMap<String, (usize, usize)>, full: &str) -> (String, usize, usize) {
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
    use crate::load::source::Format;

    fn yaml_file(name: &str, text: &str) -> [SourceFile; 1] {
        [SourceFile {
            name: name.into(),
            text: Arc::new(text.to_string().into()),
            format: Format::Yaml,
            discovered: false,
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
        assert!(locator.node_maps.is_empty(), "found in its record's stretch: no pass over the file");
        // Anchored (`&b` on the line above): the whole file's pass, same answer.
        let b = locator.locate(&second, "/ssl/method");
        assert_eq!((b.pointer.as_str(), &text[b.start..b.end]), ("/result/1/ssl/method", "txt"));
        assert!(!locator.node_maps.is_empty());
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
        assert!(locator.whole_pass.contains(&crate::model::origin::FileId(0)));
        // No stretch tried again for this file: the pass answers, the same.
        let b = locator.locate(&plain, "/ssl/method");
        assert_eq!((b.pointer.as_str(), &text[b.start..b.end]), ("/result/1/ssl/method", "txt"));
    }
}
