//! A structural scan of a JSON document that finds the top-level object's
//! members and splits a record list into parts at element boundaries, so the
//! parts can be parsed on their own (`parallel.rs`). It goes as far as it is
//! asked, a part at a time, so the scan runs alongside the parse.
//!
//! The scan only counts brackets and skips strings (escapes respected); it
//! does not validate. It need not: every element is then parsed strictly by
//! serde_json and must be exactly one JSON value, and elements are joined
//! only where this scan saw commas. A document this scan or a part's parse
//! does not accept is parsed again in one pass from the start, which gives
//! the error a one-thread run gives.

use std::ops::Range;

/// Whether a top-level key's array holds records (`stream.rs` streams
/// such lists): an envelope's `result` or a bundle's list; any other member
/// is parsed as a whole.
pub fn is_list_key(key: &str) -> bool {
    key == "result" || crate::input::stream::BUNDLE_LISTS.contains(&key)
}

/// Deeper nesting than this inside an element falls back to the one-pass
/// parse, which then decides: serde_json's limit of 128 levels counts from
/// the document, a part's parse from the element, and values edgeaudit does
/// not read are skipped without a limit.
const MAX_ELEMENT_DEPTH: usize = 100;

/// A larger element (an envelope of a multi-page export holding a huge page)
/// falls back to the one-pass parse, which streams its records one at a
/// time: a part holds every event of its elements until it is replayed.
pub const MAX_ELEMENT_BYTES: usize = 4 << 20;

pub use super::structural::Unsound;

/// Consecutive elements of one array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// The index of its first element in the array.
    pub first: usize,
    /// Each element's bytes.
    pub elements: Vec<Range<usize>>,
}

/// What cuts a list of records into parts a part at a time, as the parse
/// asks for them: an array's elements ([`ArraySplitter`]) or a JSON Lines
/// text's lines (`input::jsonl::split`).
pub trait Splitter: Send {
    /// The next elements, about `size` bytes of them; `None` past the last.
    fn next_part(&mut self, bytes: &[u8], size: usize) -> Option<Result<Part, Unsound>>;
    /// The offset past the list, once every part was taken.
    fn end(&self) -> Option<usize>;
}

impl Splitter for ArraySplitter {
    fn next_part(&mut self, bytes: &[u8], size: usize) -> Option<Result<Part, Unsound>> {
        ArraySplitter::next_part(self, bytes, size)
    }

    fn end(&self) -> Option<usize> {
        ArraySplitter::end(self)
    }
}

/// An array split a part at a time.
#[derive(Debug)]
pub struct ArraySplitter {
    /// Where the next element starts, or past the `]` once done.
    at: usize,
    index: usize,
    done: bool,
}

impl ArraySplitter {
    /// The array whose `[` is at `open`.
    pub fn new(bytes: &[u8], open: usize) -> Result<Self, Unsound> {
        if bytes.get(open) != Some(&b'[') {
            return Err(Unsound);
        }
        let at = skip_whitespace(bytes, open + 1);
        let done = bytes.get(at) == Some(&b']');
        Ok(ArraySplitter {
            at: if done { at + 1 } else { at },
            index: 0,
            done,
        })
    }

    /// The next elements, about `size` bytes of them; `None` past the last.
    pub fn next_part(&mut self, bytes: &[u8], size: usize) -> Option<Result<Part, Unsound>> {
        if self.done {
            return None;
        }
        let mut part = Part {
            first: self.index,
            elements: Vec::new(),
        };
        let start = self.at;
        loop {
            let end = match skip_value_within(bytes, self.at, MAX_ELEMENT_BYTES) {
                Ok(end) => end,
                Err(e) => return Some(Err(e)),
            };
            part.elements.push(self.at..end);
            self.index += 1;
            let i = skip_whitespace(bytes, end);
            match bytes.get(i) {
                Some(b',') => self.at = skip_whitespace(bytes, i + 1),
                Some(b']') => {
                    self.at = i + 1;
                    self.done = true;
                    return Some(Ok(part));
                }
                _ => return Some(Err(Unsound)),
            }
            if end - start >= size {
                return Some(Ok(part));
            }
        }
    }

    /// The offset past the `]`, once every part was taken.
    pub fn end(&self) -> Option<usize> {
        self.done.then_some(self.at)
    }
}

/// The members of the object whose `{` is at `open`, one at a time.
#[derive(Debug)]
pub struct MemberScanner {
    at: usize,
    first: bool,
}

/// A member's key (with its quotes) and where its value starts.
#[derive(Debug, PartialEq, Eq)]
pub struct MemberStart {
    pub key: Range<usize>,
    pub value: usize,
}

impl MemberScanner {
    pub fn new(bytes: &[u8], open: usize) -> Result<Self, Unsound> {
        if bytes.get(open) != Some(&b'{') {
            return Err(Unsound);
        }
        Ok(MemberScanner { at: open + 1, first: true })
    }

    /// The next member, or `None` past the closing `}` (then [`Self::end`]).
    pub fn next_member(&mut self, bytes: &[u8]) -> Result<Option<MemberStart>, Unsound> {
        let mut i = skip_whitespace(bytes, self.at);
        match (bytes.get(i), self.first) {
            (Some(b'}'), _) => {
                self.at = i + 1;
                return Ok(None);
            }
            (Some(b','), false) => i = skip_whitespace(bytes, i + 1),
            (Some(b'"'), true) => {}
            _ => return Err(Unsound),
        }
        self.first = false;
        if bytes.get(i) != Some(&b'"') {
            return Err(Unsound);
        }
        let key_end = skip_string(bytes, i)?;
        let colon = skip_whitespace(bytes, key_end);
        if bytes.get(colon) != Some(&b':') {
            return Err(Unsound);
        }
        let value = skip_whitespace(bytes, colon + 1);
        self.at = value;
        Ok(Some(MemberStart { key: i..key_end, value }))
    }

    /// The current member's value ended at `end`.
    pub fn value_ended(&mut self, end: usize) {
        self.at = end;
    }

    /// Past the `}`, once [`Self::next_member`] said `None`.
    pub fn end(&self) -> usize {
        self.at
    }
}

/// The offset past the value starting at `i` (not validated: see the module
/// documentation).
#[cfg(test)]
fn skip_value(bytes: &[u8], i: usize) -> Result<usize, Unsound> {
    skip_value_within(bytes, i, usize::MAX)
}

/// The offset past the value starting at `start` (not validated: see the
/// module documentation), or [`Unsound`] when it is longer than `limit`
/// (a nested value's scan stops as soon as it is).
pub fn skip_value_within(bytes: &[u8], start: usize, limit: usize) -> Result<usize, Unsound> {
    let end = skip_value_bounded(bytes, start, limit)?;
    if end - start > limit { Err(Unsound) } else { Ok(end) }
}

fn skip_value_bounded(bytes: &[u8], start: usize, limit: usize) -> Result<usize, Unsound> {
    match bytes.get(start).ok_or(Unsound)? {
        b'"' => skip_string(bytes, start),
        b'{' | b'[' => super::structural::container_end(bytes, start, limit, MAX_ELEMENT_DEPTH),
        // A scalar: up to the next separator.
        _ => {
            let rest = &bytes[start..];
            let len = rest
                .iter()
                .position(|b| matches!(b, b',' | b']' | b'}' | b':' | b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(rest.len());
            if len == 0 { Err(Unsound) } else { Ok(start + len) }
        }
    }
}

/// The offset past the string whose opening quote is at `open`.
fn skip_string(bytes: &[u8], open: usize) -> Result<usize, Unsound> {
    super::structural::string_end(bytes, open).ok_or(Unsound)
}

pub fn skip_whitespace(bytes: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(i) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(text: &str, size: usize) -> Result<Vec<Vec<&str>>, Unsound> {
        let bytes = text.as_bytes();
        let open = skip_whitespace(bytes, 0);
        let mut splitter = ArraySplitter::new(bytes, open)?;
        let mut parts = Vec::new();
        while let Some(part) = splitter.next_part(bytes, size) {
            parts.push(part?.elements.into_iter().map(|r| &text[r]).collect());
        }
        assert_eq!(skip_whitespace(bytes, splitter.end().unwrap()), text.len());
        Ok(parts)
    }

    #[test]
    fn splits_between_elements_and_respects_strings() {
        let text = r#"[ {"a": "x], {\"y"}, {"b": [1, {"c": "}"}]} ,"s\\", 3 ]"#;
        assert_eq!(
            parts(text, 0).unwrap(),
            vec![
                vec![r#"{"a": "x], {\"y"}"#],
                vec![r#"{"b": [1, {"c": "}"}]}"#],
                vec![r#""s\\""#],
                vec!["3"]
            ]
        );
        assert_eq!(
            parts(text, 20).unwrap(),
            vec![vec![r#"{"a": "x], {\"y"}"#, r#"{"b": [1, {"c": "}"}]}"#], vec![r#""s\\""#, "3"]]
        );
        assert_eq!(parts("[ ]", 0).unwrap(), Vec::<Vec<&str>>::new());
    }

    #[test]
    fn parts_count_their_elements() {
        let text = "[1, 2, 3, 4, 5]";
        let bytes = text.as_bytes();
        let mut splitter = ArraySplitter::new(bytes, 0).unwrap();
        let mut firsts = Vec::new();
        while let Some(part) = splitter.next_part(bytes, 3) {
            firsts.push(part.unwrap().first);
        }
        assert_eq!(firsts, vec![0, 2, 4]);
    }

    #[test]
    fn unsound_structure_is_said() {
        for broken in [
            r#"[{"a": 1}"#,
            r#"[{"a": 1} {"b": 2}]"#,
            r#"[{"a": "unterminated}]"#,
            r#"[{"a": 1},]"#,
            "[",
        ] {
            let bytes = broken.as_bytes();
            let mut splitter = ArraySplitter::new(bytes, 0).unwrap();
            let mut unsound = false;
            while let Some(part) = splitter.next_part(bytes, 0) {
                if part.is_err() {
                    unsound = true;
                    break;
                }
            }
            assert!(unsound, "{broken}");
        }
        let deep = format!("[{}{}]", "[".repeat(MAX_ELEMENT_DEPTH + 1), "]".repeat(MAX_ELEMENT_DEPTH + 1));
        let mut splitter = ArraySplitter::new(deep.as_bytes(), 0).unwrap();
        assert_eq!(
            splitter.next_part(deep.as_bytes(), 0),
            Some(Err(Unsound)),
            "too deep: the one-pass parse decides"
        );
        assert!(ArraySplitter::new(b"{}", 0).is_err());
        let large = format!(r#"[{{"a": "{}"}}]"#, "x".repeat(MAX_ELEMENT_BYTES));
        let mut splitter = ArraySplitter::new(large.as_bytes(), 0).unwrap();
        assert_eq!(
            splitter.next_part(large.as_bytes(), 1),
            Some(Err(Unsound)),
            "too large: streamed by the one-pass parse"
        );
    }

    #[test]
    fn members_come_one_at_a_time() {
        let text = r#"{ "success": true, "result" : [1, "]"], "x\"": {"a": [{}, "}"]} }"#;
        let bytes = text.as_bytes();
        let mut members = MemberScanner::new(bytes, 0).unwrap();
        let mut seen = Vec::new();
        while let Some(m) = members.next_member(bytes).unwrap() {
            let end = skip_value(bytes, m.value).unwrap();
            seen.push((&text[m.key], &text[m.value..end]));
            members.value_ended(end);
        }
        assert_eq!(
            seen,
            vec![
                (r#""success""#, "true"),
                (r#""result""#, r#"[1, "]"]"#),
                (r#""x\"""#, r#"{"a": [{}, "}"]}"#)
            ]
        );
        assert_eq!(members.end(), text.len());
        for broken in [r#"{"a" 1}"#, r#"{"a": 1 "b": 2}"#, r#"{, "a": 1}"#, "{"] {
            let bytes = broken.as_bytes();
            let mut members = MemberScanner::new(bytes, 0).unwrap();
            let mut result = Ok(None);
            for _ in 0..3 {
                result = members.next_member(bytes);
                match &result {
                    Ok(Some(m)) => members.value_ended(skip_value(bytes, m.value).unwrap_or(bytes.len())),
                    _ => break,
                }
            }
            assert!(result.is_err(), "{broken}");
        }
    }
}
