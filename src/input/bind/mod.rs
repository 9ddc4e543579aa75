//! The service's BIND zone export, read for its CAA records ([`walk`]).
//! A record is located at its line: its anchor is the record's data.

pub mod walk;

use super::locate::FileCache;
use super::source::{FileId, SourceFile};
use super::walk::{RecordSink, Walker};
use super::{InputFormat, Shared};
use crate::model::Kind;
use crate::model::origin::RecordOrigin;
use crate::text::error::InputError;

pub struct Bind;

/// The BIND zone export's entry in the registry.
pub static BIND: Bind = Bind;

impl InputFormat for Bind {
    fn name(&self) -> &'static str {
        "bind"
    }

    fn description(&self) -> &'static str {
        "BIND zone files: the CAA records that decide which CA a custom hostname may fall back to"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["zone", "bind"]
    }

    /// A BIND zone file starts with `;` comments or a `$` directive; YAML comments use `#`.
    fn sniffs(&self, first: Option<u8>) -> bool {
        matches!(first, Some(b';' | b'$'))
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

    fn locates_alone(&self) -> bool {
        true
    }

    /// The rest of the record's line, from its data.
    fn locate(&self, file: &SourceFile, _: &mut FileCache, origin: &RecordOrigin, _path: &str) -> (String, usize, usize) {
        let start = origin.anchor().map_or(0, |a| a.offset);
        let end = file.text[start..].find('\n').map_or(file.text.len(), |i| start + i);
        (origin.pointer().into_owned(), start, end)
    }
}
