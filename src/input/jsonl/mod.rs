//! JSON Lines (`.jsonl`, `.ndjson`): one record per line, as a pipeline
//! writes a large export (`jq -c '.result[]'`, a stream of custom
//! hostnames). The file is read as one list of records: the record on the
//! N-th non-blank line is at pointer `/N-1`, classified by its fields like
//! the elements of a bare array ([`walk`]), and located like any JSON
//! record, from its own `{`.

pub mod split;
pub mod walk;

use super::json::locate;
use super::locate::FileCache;
use super::shape::Shape;
use super::source::{FileId, SourceFile};
use super::walk::RecordSink;
use super::{InputFormat, Shared};
use crate::model::Kind;
use crate::model::origin::RecordOrigin;
use crate::text::error::InputError;

pub struct JsonLines;

/// The JSON Lines format's entry in the registry.
pub static JSONL: JsonLines = JsonLines;

impl InputFormat for JsonLines {
    fn name(&self) -> &'static str {
        "jsonl"
    }

    fn description(&self) -> &'static str {
        "JSON Lines: one record (or envelope) per line, as a pipeline writes a large export"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["jsonl", "ndjson"]
    }

    // Never sniffed: a text of one record per line starts like JSON; a
    // named file or `--input-format jsonl` says which it is.

    fn walk(
        &self,
        files: &[SourceFile],
        id: FileId,
        kind: Option<Kind>,
        sink: &mut dyn RecordSink,
        _: &mut Shared,
    ) -> Result<(), Vec<InputError>> {
        walk::walk(files, id, sink, kind)
    }

    fn anchor(&self, shape: &Shape<'_>, text: &str) -> Option<usize> {
        shape.json_offset(text)
    }

    fn value_spans(&self, shape: &Shape<'_>, text: &str, record: usize) -> crate::input::shape::RecordSpans {
        shape.json_spans(text, record)
    }

    fn locates_alone(&self) -> bool {
        true
    }

    fn locate(&self, file: &SourceFile, _: &mut FileCache, origin: &RecordOrigin, path: &str) -> (String, usize, usize) {
        locate::field(&file.text, origin, path)
    }

    /// A line holds the API's record as it was exported.
    fn read_record(&self, file: &SourceFile, cache: &mut FileCache, origin: &RecordOrigin) -> Option<serde_json::Value> {
        super::json::JSON.read_record(file, cache, origin)
    }
}
