//! Reads a JSON Lines text: each non-blank line one JSON object, parsed
//! into a typed [`Shape`](crate::input::shape::Shape) borrowed from the text (so its record is anchored
//! at its own `{`) and handed to the walker as the next element of the
//! document's one list.

use serde::de::DeserializeSeed;

use crate::input::json::locate::pointer_at;
use crate::input::json::walk::{error_detail, error_offset};
use crate::input::source::SourceFile;
use crate::input::stream::{ObjectSeed, Walk};
use crate::input::walk::Walker;
use crate::text::error::InputError;

pub fn walk(file: &SourceFile, walker: Walker<'_>) -> Result<(), Vec<InputError>> {
    walker.run_lines(|w| {
        let text = w.file().text.clone();
        let mut index = 0usize;
        let mut start = 0usize;
        for line in text.split_inclusive('\n') {
            let at = start;
            start += line.len();
            let record = line.trim_end_matches(['\n', '\r']);
            if record.trim().is_empty() {
                continue;
            }
            let (pointer, expect) = (format!("/{index}"), w.expect());
            if index == 0 {
                w.list_start();
            }
            // Record-holding values inside the line (an envelope's `result`)
            // are streamed to the walker as in any JSON document.
            let mut parser = serde_json::Deserializer::from_str(record);
            let parsed = ObjectSeed::element(&mut *w, &pointer, expect)
                .deserialize(&mut parser)
                .and_then(|shape| parser.end().map(|()| shape));
            let handed = match parsed {
                Ok(shape) => w.element(shape, &pointer, expect),
                Err(_) if w.stopped() => return Ok(()),
                Err(e) => return Err(error_at(file, record, at, &pointer, &e)),
            };
            if handed.is_err() {
                // The walker keeps the located error.
                return Ok(());
            }
            index += 1;
        }
        Ok(())
    })
}

/// A line that is not one JSON object, located in the file as in a JSON
/// document (`json::walk::error_offset`), its pointer from the line's own.
fn error_at(file: &SourceFile, record: &str, at: usize, pointer: &str, e: &serde_json::Error) -> InputError {
    // Kept on its line, whatever serde_json's place says.
    let offset = error_offset(file, record, at, e).clamp(at, at + record.len());
    let full = e.to_string();
    let detail = error_detail(&full);
    let message = match e.classify() {
        serde_json::error::Category::Eof => format!("truncated JSON on this line: {detail}"),
        serde_json::error::Category::Syntax => {
            format!("invalid JSON on this line: {detail} (JSON Lines hold one JSON object per line)")
        }
        _ => format!("{pointer}{}: {detail}", pointer_at(record, 0, offset - at)),
    };
    InputError::at_offset(&file.name, &file.text, offset, message)
}
