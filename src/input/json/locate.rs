//! Finds the value a JSON pointer names inside JSON text, starting at a known
//! value (a record's first byte), without building a tree: it skips every
//! value off the path. Used only for findings, and only over one record.

use super::split::skip_whitespace;
use super::structural::string_end;
use crate::model::origin::RecordOrigin;
use crate::text::pointer;

/// Where a pointer led: the byte range of the deepest value that exists on its
/// path, and how many of its tokens were matched (fewer than asked when a
/// field is absent — the finding then points at the nearest existing parent).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    pub start: usize,
    pub end: usize,
    pub matched: usize,
}

pub fn find<T: AsRef<str>>(text: &str, start: usize, tokens: &[T]) -> Found {
    let bytes = text.as_bytes();
    let mut pos = skip_whitespace(bytes, start);
    for (depth, token) in tokens.iter().enumerate() {
        let next = match bytes.get(pos) {
            Some(b'{') => member(bytes, pos, token.as_ref()),
            Some(b'[') => token.as_ref().parse::<usize>().ok().and_then(|i| element(bytes, pos, i)),
            _ => None,
        };
        match next {
            Some(p) => pos = p,
            None => {
                return Found {
                    start: pos,
                    end: label_end(bytes, pos),
                    matched: depth,
                };
            }
        }
    }
    Found {
        start: pos,
        end: label_end(bytes, pos),
        matched: tokens.len(),
    }
}

/// The end of a scalar; for a container only its opening bracket: finding
/// the end of a list of a million records just to underline it would cost a
/// scan of the file.
fn label_end(bytes: &[u8], pos: usize) -> usize {
    match bytes.get(pos) {
        Some(b'{' | b'[') => pos + 1,
        _ => value_end(bytes, pos),
    }
}

/// Start of the value of member `key` of the object at `pos`.
fn member(bytes: &[u8], pos: usize, key: &str) -> Option<usize> {
    let mut p = skip_whitespace(bytes, pos + 1);
    loop {
        if bytes.get(p) != Some(&b'"') {
            return None;
        }
        let key_end = string_end(bytes, p)?;
        let raw = &bytes[p + 1..key_end - 1];
        let matches = if raw.contains(&b'\\') {
            decode_string(raw).as_deref() == Some(key)
        } else {
            raw == key.as_bytes()
        };
        p = skip_whitespace(bytes, key_end);
        if bytes.get(p) != Some(&b':') {
            return None;
        }
        p = skip_whitespace(bytes, p + 1);
        if matches {
            return Some(p);
        }
        p = skip_whitespace(bytes, value_end(bytes, p));
        match bytes.get(p) {
            Some(b',') => p = skip_whitespace(bytes, p + 1),
            _ => return None,
        }
    }
}

/// Start of element `index` of the array at `pos`.
fn element(bytes: &[u8], pos: usize, index: usize) -> Option<usize> {
    let mut p = skip_whitespace(bytes, pos + 1);
    if bytes.get(p) == Some(&b']') {
        return None;
    }
    for _ in 0..index {
        p = skip_whitespace(bytes, value_end(bytes, p));
        match bytes.get(p) {
            Some(b',') => p = skip_whitespace(bytes, p + 1),
            _ => return None,
        }
    }
    Some(p)
}

/// The start of every element of the array at `pos`, in one pass (empty when
/// `pos` holds no array).
pub fn element_starts(text: &str, pos: usize) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut starts = Vec::new();
    if bytes.get(pos) != Some(&b'[') {
        return starts;
    }
    let mut p = skip_whitespace(bytes, pos + 1);
    while p < bytes.len() && bytes[p] != b']' {
        starts.push(p);
        p = skip_whitespace(bytes, value_end(bytes, p));
        match bytes.get(p) {
            Some(b',') => p = skip_whitespace(bytes, p + 1),
            _ => break,
        }
    }
    starts
}

/// One past the end of the value starting at `pos` (iterative: no recursion,
/// whatever the nesting).
pub fn value_end(bytes: &[u8], pos: usize) -> usize {
    match bytes.get(pos) {
        Some(b'"') => string_end(bytes, pos).unwrap_or(bytes.len()),
        // Unclosed: to the end, as for a string.
        Some(b'{' | b'[') => crate::input::json::structural::container_end(bytes, pos, usize::MAX, usize::MAX).unwrap_or(bytes.len()),
        Some(_) => {
            let mut p = pos;
            while p < bytes.len() && !matches!(bytes[p], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                p += 1;
            }
            p
        }
        None => pos,
    }
}

fn decode_string(raw: &[u8]) -> Option<String> {
    if !raw.contains(&b'\\') {
        return std::str::from_utf8(raw).ok().map(str::to_string);
    }
    let quoted = [b"\"".as_slice(), raw, b"\""].concat();
    serde_json::from_slice::<String>(&quoted).ok()
}

/// The field `path` of the record at `origin`: its pointer (the nearest
/// existing parent when the field is absent) and byte range, found by a scan
/// of the record alone when its start is known, else from the document's root.
pub fn field(text: &str, origin: &RecordOrigin, path: &str) -> (String, usize, usize) {
    match origin.anchor() {
        // The anchor is the record's own first byte: walk the field's path from there.
        Some(anchor) => {
            let hit = find(text, anchor.offset, &pointer::tokens(path));
            (origin.field(pointer::prefix(path, hit.matched)), hit.start, hit.end)
        }
        None => {
            let full = origin.field(path);
            let hit = find(text, 0, &pointer::tokens(&full));
            (pointer::prefix(&full, hit.matched).to_string(), hit.start, hit.end)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::pointer::tokens;

    fn at<'t>(text: &'t str, pointer: &str) -> (&'t str, usize) {
        let f = find(text, 0, &tokens(pointer));
        (&text[f.start..f.end], f.matched)
    }

    #[test]
    fn finds_members_and_elements_past_nested_values() {
        let text = r#"{"a": {"x": "}]\"", "y": [1, {"z": 2}]}, "b": [ "p", "q" ], "c": 3}"#;
        assert_eq!(at(text, "/b/1"), ("\"q\"", 2));
        assert_eq!(at(text, "/a/y/1/z"), ("2", 4));
        assert_eq!(at(text, "/c"), ("3", 1));
        assert_eq!(at(text, ""), ("{", 0), "containers are labelled at their bracket");
    }

    #[test]
    fn an_absent_member_stops_at_the_nearest_existing_parent() {
        let text = r#"{"filters": {"pool_id": []}}"#;
        assert_eq!(at(text, "/filters/new_health"), ("{", 1));
        assert_eq!(at(text, "/filters/pool_id/0"), ("[", 2));
    }

    #[test]
    fn escaped_keys_are_compared_decoded() {
        let text = r#"{"a\/b": 1, "c\u0064": 2}"#;
        assert_eq!(at(text, "/a~1b"), ("1", 1));
        assert_eq!(at(text, "/cd"), ("2", 1));
    }
}

/// The JSON pointer of the innermost value at or around byte `target`: used
/// to name the field an input error is about. A forward scan from `start`
/// (error path only).
pub fn pointer_at(text: &str, start: usize, target: usize) -> String {
    enum Frame {
        Object { key: Option<String>, awaiting_key: bool },
        Array { index: usize },
    }
    let bytes = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut pos = start;
    while pos < bytes.len() && pos < target {
        match bytes[pos] {
            b'{' => stack.push(Frame::Object {
                key: None,
                awaiting_key: true,
            }),
            b'[' => stack.push(Frame::Array { index: 0 }),
            b'}' | b']' => {
                stack.pop();
            }
            b':' => {
                if let Some(Frame::Object { awaiting_key, .. }) = stack.last_mut() {
                    *awaiting_key = false;
                }
            }
            b',' => match stack.last_mut() {
                Some(Frame::Object { key, awaiting_key }) => {
                    *key = None;
                    *awaiting_key = true;
                }
                Some(Frame::Array { index }) => *index += 1,
                None => {}
            },
            b'"' => {
                let end = string_end(bytes, pos).unwrap_or(bytes.len());
                if end > target {
                    break;
                }
                if let Some(Frame::Object { key, awaiting_key: true }) = stack.last_mut() {
                    *key = decode_string(&bytes[pos + 1..end.saturating_sub(1).max(pos + 1)]);
                }
                pos = end;
                continue;
            }
            _ => {}
        }
        pos += 1;
    }
    let mut pointer = String::new();
    for frame in &stack {
        match frame {
            Frame::Object {
                key: Some(k),
                awaiting_key: false,
            } => crate::text::pointer::push_token(&mut pointer, k),
            Frame::Array { index } => pointer.push_str(&format!("/{index}")),
            _ => break,
        }
    }
    pointer
}

#[cfg(test)]
mod pointer_at_tests {
    use super::pointer_at;

    #[test]
    fn names_the_member_or_element_at_an_offset() {
        let text = r#"{"result": [{"id": "a"}, {"id": "b", "notification_email": 42}]}"#;
        let at = text.find("42").unwrap();
        assert_eq!(pointer_at(text, 0, at), "/result/1/notification_email");
        assert_eq!(pointer_at(text, 0, text.find("\"b\"").unwrap()), "/result/1/id");
        assert_eq!(pointer_at(text, 0, 0), "");
    }
}
