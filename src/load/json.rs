//! JSON documents: one typed serde_json pass over the file; records are kept
//! as borrowed raw slices and parsed into their shape one by one.

use serde_json::value::RawValue;

use super::error::InputError;
use super::shape::Container;
use super::source::SourceFile;
use crate::locate::position::offset_of_line_byte_column;

pub fn parse(file: &SourceFile) -> Result<Container<'_, &RawValue>, InputError> {
    serde_json::from_str(&file.text).map_err(|e| {
        let not_an_export = e.is_data() && e.line() == 1 && e.column() <= 1;
        let error = error_in(file, &file.text, 0, &e);
        if not_an_export || is_top_level_type_error(&e) { error.not_an_export() } else { error }
    })
}

/// A serde_json error met while parsing `part` (a slice of the file starting
/// at byte `base`), located in the file.
pub fn error_in(file: &SourceFile, part: &str, base: usize, e: &serde_json::Error) -> InputError {
    let offset = base + offset_of_line_byte_column(part, e.line(), e.column());
    let full = e.to_string();
    let detail = full.rfind(" at line ").map_or(full.as_str(), |i| &full[..i]);
    // From the file start, so the pointer is the record's plus the field's;
    // at the end of the text for a truncated file (the innermost open value).
    let eof = e.classify() == serde_json::error::Category::Eof;
    let pointer = crate::locate::json::pointer_at(&file.text, 0, if eof { file.text.len() } else { offset });
    let place = if pointer.is_empty() { String::new() } else { format!(" (at {pointer})") };
    let message = match e.classify() {
        serde_json::error::Category::Eof => format!("truncated JSON: {detail}{place}"),
        serde_json::error::Category::Syntax => format!("invalid JSON: {detail}{place}"),
        _ if pointer.is_empty() => detail.to_string(),
        _ => format!("{pointer}: {detail}"),
    };
    InputError::at_offset(&file.name, &file.text, offset, message)
}

fn is_top_level_type_error(e: &serde_json::Error) -> bool {
    e.is_data() && e.to_string().contains("expected an array of records or an object")
}
