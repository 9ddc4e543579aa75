use std::collections::HashMap;

use super::{json, pointer, position::positions_of_offsets, yaml};
use crate::load::source::{FileId, Format, SourceFile};
use crate::model::origin::RecordOrigin;

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

/// Locates every `(record, field path)` request; the locations come in
/// request order. Each file is walked at most once for line/column, and a YAML file's
/// node map is built at most once.
pub fn resolve_locations(files: &[SourceFile], requests: &[(&RecordOrigin, &str)]) -> impl Iterator<Item = Located> + use<> {
    let mut yaml_maps: HashMap<FileId, HashMap<String, (usize, usize)>> = HashMap::new();
    let mut found: Vec<(FileId, String, usize, usize)> = Vec::with_capacity(requests.len());
    for (origin, path) in requests {
        let file = &files[origin.file.0 as usize];
        let hit = match file.format {
            Format::Json => locate_json(&file.text, origin, path),
            // Zone-file records are located by their anchor: the record's data.
            Format::Bind => {
                let start = origin.anchor.map_or(0, |a| a.offset);
                let end = file.text[start..].find('\n').map_or(file.text.len(), |i| start + i);
                (origin.pointer.clone(), start, end)
            }
            Format::Yaml => {
                let map = yaml_maps.entry(origin.file).or_insert_with(|| yaml::node_ranges(&file.text));
                locate_yaml(map, &origin.field(path))
            }
        };
        found.push((origin.file, hit.0, hit.1, hit.2));
    }

    let mut by_file: HashMap<FileId, Vec<usize>> = HashMap::new();
    for (i, f) in found.iter().enumerate() {
        by_file.entry(f.0).or_default().push(i);
    }
    // Starts and ends of one file resolve together, in one pass over it.
    let mut positions = vec![((1, 1), (1, 1)); found.len()];
    for (file, indices) in by_file {
        let offsets: Vec<usize> = indices.iter().flat_map(|&i| [found[i].2, found[i].3]).collect();
        let resolved = positions_of_offsets(&files[file.0 as usize].text, &offsets);
        for (k, &i) in indices.iter().enumerate() {
            positions[i] = (resolved[2 * k], resolved[2 * k + 1]);
        }
    }
    // Handed over one by one, owning nothing of the requests: a second vector of
    // a million locations is memory a large export cannot spare.
    found
        .into_iter()
        .zip(positions)
        .map(|((file, pointer, start, end), ((line, column), (end_line, end_column)))| Located {
            file,
            pointer,
            line,
            column,
            end_line,
            end_column,
            start,
            end,
        })
}

/// One location (for input errors).
pub fn locate_one(files: &[SourceFile], origin: &RecordOrigin, path: &str) -> Located {
    resolve_locations(files, &[(origin, path)]).next().unwrap_or(Located {
        file: origin.file,
        pointer: String::new(),
        line: 1,
        column: 1,
        end_line: 1,
        end_column: 1,
        start: 0,
        end: 0,
    })
}

fn locate_json(text: &str, origin: &RecordOrigin, path: &str) -> (String, usize, usize) {
    match origin.anchor {
        // The anchor is the record's own first byte: walk the field's path from there.
        Some(anchor) => {
            let hit = json::find(text, anchor.offset, &pointer::tokens(path));
            (
                format!("{}{}", origin.pointer, pointer::prefix(path, hit.matched)),
                hit.start,
                hit.end,
            )
        }
        None => {
            let full = origin.field(path);
            let hit = json::find(text, 0, &pointer::tokens(&full));
            (pointer::prefix(&full, hit.matched).to_string(), hit.start, hit.end)
        }
    }
}

fn locate_yaml(map: &HashMap<String, (usize, usize)>, full: &str) -> (String, usize, usize) {
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
