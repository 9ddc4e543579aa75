//! JSON exports: the API's envelopes, lists and bundles. A large file is
//! parsed on every core ([`parallel`], cut by [`split`] and the
//! [`structural`] scan), anything else in one typed pass ([`walk`]); a
//! finding's field is found by scanning its record alone ([`locate`]).

pub mod locate;
pub mod parallel;
pub mod split;
pub(crate) mod structural;
pub mod walk;

use serde_json::Value;

use super::locate::FileCache;
use super::shape::Shape;
use super::source::{FileId, SourceFile};
use super::walk::RecordSink;
use super::{InputFormat, Shared};
use crate::model::Kind;
use crate::model::origin::RecordOrigin;
use crate::text::error::InputError;

pub struct Json;

/// The JSON format's entry in the registry.
pub static JSON: Json = Json;

impl InputFormat for Json {
    fn name(&self) -> &'static str {
        "json"
    }

    fn description(&self) -> &'static str {
        "API answers as the API returns them (list and single-object envelopes, bare arrays, bundles); Terraform state and plan JSON are handed to `tfstate`"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["json"]
    }

    fn sniffs(&self, first: Option<u8>) -> bool {
        matches!(first, Some(b'{' | b'['))
    }

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

    fn read_record(&self, file: &SourceFile, _: &mut FileCache, origin: &RecordOrigin) -> Option<Value> {
        let (pointer, start, _) = locate::field(&file.text, origin, "");
        if pointer != origin.pointer() {
            return None;
        }
        // The located range of a container is its opening bracket only.
        let end = locate::value_end(file.text.as_bytes(), start);
        serde_json::from_str::<Value>(file.text.get(start..end)?).ok()
    }
}
