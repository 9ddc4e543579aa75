//! Reads a JSON Lines text: each non-blank line one JSON object, parsed
//! into a typed [`Shape`](crate::input::shape::Shape) borrowed from the text (so its record is anchored
//! at its own `{`) and handed to the walker as the next element of the
//! document's one list.

use serde::de::DeserializeSeed;

use super::split::LineSplitter;
use crate::input::json::locate::pointer_at;
use crate::input::json::parallel;
use crate::input::json::walk::{error_detail, error_offset};
use crate::input::source::{FileId, SourceFile};
use crate::input::stream::{ObjectSeed, Stopped, Walk};
use crate::input::walk::{RecordSink, Walker};
use crate::model::Kind;
use crate::text::error::InputError;

/// Parses the file and walks it: on every core when it is large
/// (`input::json::parallel`, cut into lines by [`LineSplitter`]), in one
/// pass otherwise, or when the parts' parse did not accept it (the one-pass
/// walk then gives the error a one-thread run gives).
pub fn walk(files: &[SourceFile], id: FileId, sink: &mut dyn RecordSink, kind: Option<Kind>) -> Result<(), Vec<InputError>> {
    let file = &files[id.0 as usize];
    let settings = parallel::Settings::get();
    if settings.applies(file.text.len())
        && let Some(result) = Walker::new(files, id, sink, kind).run_parts(|w| on_every_core(&file.text, w, settings))
    {
        return result;
    }
    one_pass(file, Walker::new(files, id, sink, kind))
}

/// The lines parsed in parts on `settings.threads` threads, handed to the
/// walker in order: what the one-pass walk hands it.
fn on_every_core(text: &str, w: &mut Walker<'_>, settings: parallel::Settings) -> Result<(), Stopped> {
    let expect = w.expect();
    let mut started = false;
    let outcome = parallel::parse_parts(text, LineSplitter::default(), "", expect, settings, |part| {
        if !started && !part.is_empty() {
            // Before the first record, as the one-pass walk says it.
            started = true;
            w.list_start();
        }
        parallel::replay(&mut *w, part)
    });
    match outcome {
        parallel::ListOutcome::Done(_) => Ok(()),
        parallel::ListOutcome::Stopped | parallel::ListOutcome::Unsound => Err(Stopped),
    }
}

/// Parses each line and walks it in the same pass.
fn one_pass(file: &SourceFile, walker: Walker<'_>) -> Result<(), Vec<InputError>> {
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
                Ok(mut shape) => w.element(&mut shape, &pointer, expect),
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
