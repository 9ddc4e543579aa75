//! The service's BIND zone export, read for its CAA records (`;; CAA
//! Records`): tab- or space-separated `owner [ttl] [class] type data` lines,
//! `$ORIGIN` and `$TTL` directives, `;` comments, owners inherited by lines
//! that start with blanks, parenthesised multi-line records.
//!
//! As the service writes it today: no `$ORIGIN` (the origin is the
//! `;; Domain: example.com.` header), every owner fully qualified but the
//! SOA's, which has no trailing dot. A line of a type edgeaudit does not read
//! never fails the file; a CAA line that cannot be read does, at its place.
//!
//! A general zone-file crate was not used: edgeaudit needs only CAA records
//! but exact line and column for every error, which this small reader gives.

use std::borrow::Cow;

use crate::input::shape::{Shape, Text};
use crate::input::walk::Walker;
use crate::model::Kind;
use crate::model::dns::absolute_name;
use crate::text::error::InputError;

/// The line without its comment (`;` outside quotes), and how much it opens
/// or closes parentheses outside quotes.
fn without_comment(line: &str) -> (&str, i32) {
    let mut quoted = false;
    let mut escaped = false;
    let mut depth = 0;
    for (i, c) in line.char_indices() {
        match c {
            '\\' if quoted => escaped = !escaped,
            '"' if !escaped => quoted = !quoted,
            ';' if !quoted => return (&line[..i], depth),
            '(' if !quoted => depth += 1,
            ')' if !quoted => depth -= 1,
            _ => escaped = false,
        }
        if c != '\\' {
            escaped = false;
        }
    }
    (line, depth)
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

/// Lines with their byte offsets, ended by LF, CRLF or a lone CR.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let bytes = text.as_bytes();
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= bytes.len() {
            return None;
        }
        let from = start;
        let mut end = from;
        while end < bytes.len() && bytes[end] != b'\n' && bytes[end] != b'\r' {
            end += 1;
        }
        start = match (bytes.get(end), bytes.get(end + 1)) {
            (Some(b'\r'), Some(b'\n')) => end + 2,
            (Some(_), _) => end + 1,
            (None, _) => end,
        };
        Some((from, &text[from..end]))
    })
}

const CLASSES: [&str; 4] = ["IN", "CH", "HS", "CS"];

/// A TTL: seconds (`3600`), or BIND's units (`1h`, `1h30m`, `2W`).
fn is_ttl(field: &str) -> bool {
    field.starts_with(|c: char| c.is_ascii_digit()) && field.chars().all(|c| c.is_ascii_digit() || "smhdwSMHDW".contains(c))
}

/// The origin named by the service's header: `;; Domain:     example.com.`
fn domain_header(line: &str) -> Option<String> {
    let rest = line.strip_prefix(";;")?.trim_start().strip_prefix("Domain:")?;
    let name = rest.trim().trim_end_matches('.').to_ascii_lowercase();
    (!name.is_empty()).then_some(name)
}

pub fn walk(file: &crate::input::source::SourceFile, walker: Walker<'_>) -> Result<(), Vec<InputError>> {
    walker.run_lines(|w| {
        let text = w.file().text.clone();
        let mut origin: Option<String> = None;
        let mut owner: Option<String> = None;
        // Open parentheses, and the line that opened them.
        let mut depth = 0;
        let mut opened_at = 0;
        for (start, raw) in lines(&text) {
            let error = |offset: usize, message: &str| InputError::at_offset(&file.name, &file.text, start + offset, message);
            if origin.is_none()
                && let Some(domain) = domain_header(raw)
            {
                origin = Some(domain);
            }
            let (line, opens) = without_comment(raw);
            if depth > 0 {
                // The rest of a multi-line record (not a CAA: those are one line).
                depth = (depth + opens).max(0);
                continue;
            }
            if line.trim().is_empty() {
                continue;
            }
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
            let named = if inherits { None } else { rest.next() };
            // [ttl] [class] in either order, then the type.
            while let Some(&(_, f)) = rest.peek() {
                if is_ttl(f) || CLASSES.contains(&f.to_ascii_uppercase().as_str()) {
                    rest.next();
                } else {
                    break;
                }
            }
            let record_type = rest.next();
            let is_caa = record_type.is_some_and(|(_, t)| t.eq_ignore_ascii_case("CAA"));
            // The owner of this record, whatever its type: later lines may inherit it.
            let owner_name = match named {
                None => owner.clone(),
                Some((_, name)) => {
                    let name = absolute_name(name, origin.as_deref());
                    owner = name.clone();
                    name
                }
            };
            if opens > 0 {
                depth = opens;
                opened_at = start;
                if is_caa {
                    return Err(error(
                        record_type.map_or(0, |(at, _)| at),
                        "multi-line CAA records are not supported: write the record on one line",
                    ));
                }
                continue;
            }
            if !is_caa {
                // A type edgeaudit does not read. A line whose leading fields name CAA but
                // that could not be read as one is never passed over.
                let after_owner = usize::from(named.is_some());
                let leading = fs.iter().skip(after_owner).take(3).find(|(_, f)| f.eq_ignore_ascii_case("CAA"));
                if let Some(&(at, _)) = leading {
                    return Err(error(
                        at,
                        "this CAA record could not be read: expected owner, TTL (e.g. 3600 or 1h), class, then CAA and its value",
                    ));
                }
                continue;
            }
            let Some(name) = owner_name else {
                return Err(match named {
                    None => error(0, "this CAA record inherits its owner name, but no record precedes it"),
                    Some((at, _)) => error(
                        at,
                        "a relative owner name needs an origin: a `$ORIGIN` line or the `;; Domain:` header",
                    ),
                });
            };
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
        if depth > 0 {
            return Err(InputError::at_offset(
                &file.name,
                &file.text,
                opened_at,
                "a `(` opened on this line is never closed: the rest of the file would be one record",
            ));
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_end_at_semicolons_outside_quotes() {
        assert_eq!(without_comment("a CAA 0 issue \"x;y\" ; note").0, "a CAA 0 issue \"x;y\" ");
        assert_eq!(without_comment(";; CAA Records").0, "");
    }

    #[test]
    fn parentheses_count_only_outside_quotes_and_comments() {
        assert_eq!(without_comment("a TXT \"(not one\"").1, 0);
        assert_eq!(without_comment("@ SOA ns. host. ( 1 2").1, 1);
        assert_eq!(without_comment(" 3 4 5 ) ; (comment").1, -1);
    }

    #[test]
    fn ttls_take_units() {
        for ttl in ["3600", "1", "1h", "1h30m", "2W"] {
            assert!(is_ttl(ttl), "{ttl}");
        }
        for not in ["IN", "CAA", "h1", ""] {
            assert!(!is_ttl(not), "{not}");
        }
    }

    #[test]
    fn lines_end_at_lf_crlf_or_cr() {
        let text = "a\nb\r\nc\rd";
        let got: Vec<(usize, &str)> = lines(text).collect();
        assert_eq!(got, vec![(0, "a"), (2, "b"), (5, "c"), (7, "d")]);
    }

    #[test]
    fn owners_are_made_absolute_as_the_service_writes_them() {
        assert_eq!(absolute_name("Example.com.", None).as_deref(), Some("example.com"));
        assert_eq!(absolute_name("example.com", Some("example.com")).as_deref(), Some("example.com"));
        assert_eq!(absolute_name("www", Some("example.com")).as_deref(), Some("www.example.com"));
        assert_eq!(absolute_name("@", Some("example.com")).as_deref(), Some("example.com"));
        assert_eq!(absolute_name("hypster.com", Some("")).as_deref(), Some("hypster.com"));
        assert_eq!(absolute_name("www", None), None);
        assert_eq!(domain_header(";; Domain:     Example.com.").as_deref(), Some("example.com"));
        assert_eq!(domain_header(";; Exported:   2025-03-25"), None);
    }

    #[test]
    fn fields_keep_their_offsets() {
        assert_eq!(fields("a\t3600  IN CAA"), vec![(0, "a"), (2, "3600"), (8, "IN"), (11, "CAA")]);
    }
}
