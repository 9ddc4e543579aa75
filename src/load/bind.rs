//! The service's BIND zone export, read for its CAA records (`;; CAA
//! Records`): tab- or space-separated `owner [ttl] [class] type data` lines,
//! `$ORIGIN` and `$TTL` directives, `;` comments, owners inherited by lines
//! that start with blanks, parenthesised multi-line records (skipped: CAA
//! records are single lines). Other record types are ignored.
//!
//! A general zone-file crate was not used: edgeaudit needs only CAA records
//! but exact line and column for every error, which this small reader gives.

use std::borrow::Cow;

use super::error::InputError;
use super::shape::{Shape, Text};
use super::walk::{RecordSink, Walker};
use crate::model::Kind;

/// The line without its comment (`;` outside quotes).
fn without_comment(line: &str) -> &str {
    let mut quoted = false;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        match c {
            '\\' if quoted => escaped = !escaped,
            '"' if !escaped => quoted = !quoted,
            ';' if !quoted => return &line[..i],
            _ => escaped = false,
        }
        if c != '\\' {
            escaped = false;
        }
    }
    line
}

/// Whitespace-separated fields with their byte offsets in the line.
fn fields(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push((s, &line[s..i]));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, &line[s..]));
    }
    out
}

const CLASSES: [&str; 4] = ["IN", "CH", "HS", "CS"];

pub fn walk<S: RecordSink>(file: &super::source::SourceFile, walker: Walker<'_, S>) -> Result<(), Vec<InputError>> {
    walker.run_lines(|w| {
        let text = w.file().text.clone();
        let mut origin: Option<String> = None;
        let mut owner: Option<String> = None;
        let mut in_parens = false;
        let mut line_start = 0;
        for raw in text.split_inclusive('\n') {
            let start = line_start;
            line_start += raw.len();
            let line = without_comment(raw.trim_end_matches(['\n', '\r']));
            if in_parens {
                in_parens = !line.contains(')');
                continue;
            }
            if line.trim().is_empty() {
                continue;
            }
            let error = |offset: usize, message: &str| InputError::at_offset(&file.name, &file.text, start + offset, message);
            if let Some(rest) = line.strip_prefix("$ORIGIN") {
                origin = Some(rest.trim().trim_end_matches('.').to_ascii_lowercase());
                continue;
            }
            if line.starts_with('$') {
                continue; // $TTL, $INCLUDE (not followed: exports are single files)
            }
            let fs = fields(line);
            let inherits = line.starts_with([' ', '\t']);
            let mut rest = fs.iter().copied().peekable();
            let name = if inherits {
                owner
                    .clone()
                    .ok_or_else(|| error(0, "this record inherits its owner name, but no record precedes it"))?
            } else {
                let (at, raw_name) = rest.next().ok_or_else(|| error(0, "expected a record"))?;
                let absolute = match (raw_name, &origin) {
                    ("@", Some(o)) => o.clone(),
                    (n, _) if n.ends_with('.') => n.trim_end_matches('.').to_ascii_lowercase(),
                    (n, Some(o)) => format!("{}.{o}", n.to_ascii_lowercase()),
                    (_, None) => return Err(error(at, "a relative owner name needs a preceding $ORIGIN")),
                };
                owner = Some(absolute.clone());
                absolute
            };
            // [ttl] [class] in either order, then the type.
            while let Some(&(_, f)) = rest.peek() {
                if f.chars().all(|c| c.is_ascii_digit()) || CLASSES.contains(&f.to_ascii_uppercase().as_str()) {
                    rest.next();
                } else {
                    break;
                }
            }
            let Some((type_at, record_type)) = rest.next() else {
                return Err(error(
                    fs.last().map_or(0, |f| f.0),
                    "expected a record type after the owner, TTL and class",
                ));
            };
            if line.contains('(') && !line.contains(')') {
                in_parens = true;
                if record_type.eq_ignore_ascii_case("CAA") {
                    return Err(error(
                        type_at,
                        "multi-line CAA records are not supported: write the record on one line",
                    ));
                }
                continue;
            }
            if !record_type.eq_ignore_ascii_case("CAA") {
                continue;
            }
            let data_at = rest.next().map_or(line.len(), |(at, _)| at);
            let shape = Shape {
                record_type: Some(Text(Cow::Borrowed("CAA"))),
                name: Some(Text(Cow::Owned(name))),
                content: Some(Text(Cow::Borrowed(line[data_at..].trim()))),
                ..Shape::default()
            };
            if w.record_at(Kind::DnsRecord, &shape, start + data_at).is_err() {
                return Ok(()); // the walker keeps the error
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_end_at_semicolons_outside_quotes() {
        assert_eq!(without_comment("a CAA 0 issue \"x;y\" ; note"), "a CAA 0 issue \"x;y\" ");
        assert_eq!(without_comment(";; CAA Records"), "");
    }

    #[test]
    fn fields_keep_their_offsets() {
        assert_eq!(fields("a\t3600  IN CAA"), vec![(0, "a"), (2, "3600"), (8, "IN"), (11, "CAA")]);
    }
}
