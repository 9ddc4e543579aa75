//! JSON documents: one typed serde_json pass over the file.

use crate::text::error::InputError;
use serde::de::DeserializeSeed;

use std::rc::Rc;

use super::parallel;
use crate::input::source::{FileId, SourceFile};
use crate::input::walk::{RecordSink, Walker};
use crate::model::Kind;
use crate::text::position::offset_of_line_byte_column;

/// Parses the file and walks it: a large record list on every core
/// (`parallel.rs`), anything else in one pass.
pub fn walk(files: &[SourceFile], id: FileId, sink: &mut dyn RecordSink, kind: Option<Kind>) -> Result<(), Vec<InputError>> {
    let file = &files[id.0 as usize];
    let settings = parallel::Settings::get();
    if settings.applies(file.text.len()) {
        let cursor = Rc::new(parallel::Cursor::default());
        let walker = Walker::new(files, id, sink, kind).split(cursor.clone(), settings);
        if let Some(result) = walker.run_split(|seed| seed.deserialize(parallel::Skeleton::new(&file.text, cursor))) {
            return result;
        }
    }
    one_pass(file, Walker::new(files, id, sink, kind))
}

/// Parses the file and walks it in the same pass.
fn one_pass(file: &SourceFile, walker: Walker<'_>) -> Result<(), Vec<InputError>> {
    walker.run(
        |seed| {
            let mut de = serde_json::Deserializer::from_str(&file.text);
            seed.deserialize(&mut de)?;
            de.end()
        },
        |e| {
            let message = e.to_string();
            // Not records at all: a scalar, or an array of scalars or arrays (`["a", "b"]`).
            let top_level_type = e.is_data()
                && (message.contains("expected an array of records or an object")
                    || (message.contains("expected a record (an object)") && is_top_level_element(&file.text, &e)));
            let error = error_in(file, &file.text, 0, &e);
            if top_level_type {
                let reason = format!("it holds no records (objects): {}", error.message);
                error.not_analysed(reason)
            } else if let Some(offset) = error.offset.filter(|_| e.is_syntax())
                && starts_a_comment(&file.text, offset)
            {
                // `tsconfig.json` and other JSON-with-comments files: the API never writes comments.
                error.not_analysed("JSON with comments (like tsconfig.json), which no API export is")
            } else {
                error
            }
        },
    )
}

/// A serde_json error met while parsing `part` (a slice of the file starting
/// at byte `base`), located in the file.
pub fn error_in(file: &SourceFile, part: &str, base: usize, e: &serde_json::Error) -> InputError {
    let offset = error_offset(file, part, base, e);
    let full = e.to_string();
    let detail = error_detail(&full);
    // From the file start, so the pointer is the record's plus the field's;
    // at the end of the text for a truncated file (the innermost open value).
    let eof = e.classify() == serde_json::error::Category::Eof;
    let pointer = crate::text::pointer::abbreviate(&crate::input::json::locate::pointer_at(
        &file.text,
        0,
        if eof { file.text.len() } else { offset },
    ));
    let place = if pointer.is_empty() {
        String::new()
    } else {
        format!(" (at {pointer})")
    };
    let message = match e.classify() {
        serde_json::error::Category::Eof => format!("truncated JSON: {detail}{place}"),
        serde_json::error::Category::Syntax => format!("invalid JSON: {detail}{place}"),
        _ if pointer.is_empty() => detail.to_string(),
        _ => format!("{pointer}: {detail}"),
    };
    InputError::at_offset(&file.name, &file.text, offset, message)
}

/// Where in the file a serde_json error met while parsing `part` (a slice
/// of the file starting at byte `base`) is, as a person looks for it.
pub fn error_offset(file: &SourceFile, part: &str, base: usize, e: &serde_json::Error) -> usize {
    let offset = base + offset_of_line_byte_column(part, e.line(), e.column());
    let full = e.to_string();
    if e.is_data() {
        // serde_json reports a rejected array or object at the 0-based column
        // of its bracket, and a rejected scalar just after the scalar.
        if full.starts_with("invalid type: sequence") || full.starts_with("invalid type: map") {
            (offset + 1).min(file.text.len())
        } else {
            scalar_start(file.text.as_bytes(), offset)
        }
    } else if full.starts_with("number out of range") {
        // Reported at the number's last digit: a person wants its first.
        scalar_start(file.text.as_bytes(), offset)
    } else {
        offset
    }
}

/// serde_json's words for an error, without its own "at line L column C".
pub fn error_detail(full: &str) -> &str {
    full.rfind(" at line ").map_or(full, |i| &full[..i])
}

/// Whether the error is at an element of the document's own array (`/3`).
fn is_top_level_element(text: &str, e: &serde_json::Error) -> bool {
    let offset = offset_of_line_byte_column(text, e.line(), e.column());
    let pointer = crate::input::json::locate::pointer_at(text, 0, offset.min(text.len()));
    pointer.len() > 1 && pointer[1..].bytes().all(|b| b.is_ascii_digit())
}

/// Whether a comment (`//` or `/*`) starts at the offset where parsing failed.
fn starts_a_comment(text: &str, offset: usize) -> bool {
    text.get(offset..)
        .is_some_and(|rest| rest.starts_with("//") || rest.starts_with("/*"))
}

/// serde_json reports a type error after the value it rejected; a person
/// wants the value's first character. `end` is the value's last byte.
fn scalar_start(bytes: &[u8], end: usize) -> usize {
    let is_scalar = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'+');
    match bytes.get(end) {
        Some(b'"') => {
            let mut i = end;
            while i > 0 {
                i -= 1;
                if bytes[i] == b'"' {
                    let backslashes = bytes[..i].iter().rev().take_while(|&&b| b == b'\\').count();
                    if backslashes % 2 == 0 {
                        return i;
                    }
                }
            }
            end
        }
        Some(&b) if is_scalar(b) => {
            let mut i = end;
            while i > 0 && is_scalar(bytes[i - 1]) {
                i -= 1;
            }
            i
        }
        _ => end,
    }
}

#[cfg(test)]
mod tests {
    use super::scalar_start;

    #[test]
    fn type_errors_point_at_the_start_of_the_value() {
        let text = br#"{"a": 42, "b": "x\"y", "c": true}"#;
        let at = |needle: &str| text.windows(needle.len()).position(|w| w == needle.as_bytes()).unwrap();
        assert_eq!(scalar_start(text, at("42") + 1), at("42"));
        assert_eq!(scalar_start(text, at(r#"y""#) + 1), at(r#""x"#));
        assert_eq!(scalar_start(text, at("true") + 3), at("true"));
    }
}
