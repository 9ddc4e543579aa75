//! YAML exports, typed like JSON through serde-saphyr ([`walk`]). A
//! finding's field is found in its record's own stretch when the record's
//! first key is known, else in a map of the file's nodes built once
//! ([`locate`]), for the fields the findings ask for when they were told.

pub mod locate;
pub mod walk;

use std::collections::HashSet;

use serde_json::Value;

use super::locate::{FileCache, locate_in_map};
use super::shape::Shape;
use super::source::{FileId, SourceFile};
use super::walk::{RecordSink, Walker};
use super::{InputFormat, Shared};
use crate::model::Kind;
use crate::model::origin::RecordOrigin;
use crate::text::error::InputError;
pub use walk::{options, parse_small};

pub struct Yaml;

/// The YAML format's entry in the registry.
pub static YAML: Yaml = Yaml;

impl InputFormat for Yaml {
    fn name(&self) -> &'static str {
        "yaml"
    }

    fn description(&self) -> &'static str {
        "the API shapes in YAML 1.2 (and whatever text nothing else claims)"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["yaml", "yml"]
    }

    /// What is neither JSON nor BIND is read as YAML.
    fn sniffs(&self, _: Option<u8>) -> bool {
        true
    }

    fn walk(
        &self,
        files: &[SourceFile],
        id: FileId,
        kind: Option<Kind>,
        sink: &mut dyn RecordSink,
        _: &mut Shared,
    ) -> Result<(), Vec<InputError>> {
        walk::walk(&files[id.0 as usize], Walker::new(files, id, sink, kind))
    }

    /// A block mapping has no opening token: its first key.
    fn anchor(&self, shape: &Shape<'_>, text: &str) -> Option<usize> {
        shape.key_offset(text)
    }

    fn prepares(&self) -> bool {
        true
    }

    fn prepare(&self, cache: &mut FileCache, fields: HashSet<String>) {
        // Built when a field is not found in its record's own stretch.
        cache.node_map = None;
        cache.prepared = Some(fields);
    }

    fn locate(&self, file: &SourceFile, cache: &mut FileCache, origin: &RecordOrigin, path: &str) -> (String, usize, usize) {
        // A record whose first key is known: its own stretch is parsed.
        if !cache.whole_pass
            && let Some(anchor) = origin.anchor()
            && let Some((pointer, start, end)) = locate::record_field(&file.text, anchor.offset, path)
        {
            return (origin.field(&pointer), start, end);
        }
        if origin.anchor().is_some() {
            cache.whole_pass = true;
        }
        let full = origin.field(path);
        if cache.prepared.as_ref().is_some_and(|fields| !fields.contains(&full)) {
            cache.prepared = None;
            cache.node_map = None;
        }
        let prepared = cache.prepared.as_ref();
        let map = cache.node_map.get_or_insert_with(|| match prepared {
            Some(fields) => locate::node_ranges_of(&file.text, Some(&locate::with_parents(fields.iter().map(String::as_str)))),
            None => locate::node_ranges(&file.text),
        });
        locate_in_map(map, &full)
    }

    fn read_record(&self, file: &SourceFile, cache: &mut FileCache, origin: &RecordOrigin) -> Option<Value> {
        cache
            .document
            .get_or_insert_with(|| parse_small::<Value>(&file.name, &file.text, "export").ok())
            .as_ref()?
            .pointer(&origin.pointer())
            .cloned()
    }
}
