//! Pretty JSON, as `serde_json::to_writer_pretty` writes it, for documents
//! whose large arrays are written an element at a time: each element is
//! made on a rendering thread at the depth it will have in the document
//! ([`PrettyAt`]), and the document around it is written by [`Frame`].
//! Nothing is parsed again or re-indented on the way.
//!
//! serde_json escapes a string a byte at a time, which was the largest single
//! cost of a report (a finding's message and actions are most of its bytes).
//! A field marked `#[serde(serialize_with = "escaped")]` is handed to
//! [`PrettyAt`] as bytes, and it writes them as a JSON string looking at a
//! block of bytes at a time: the same text serde_json writes, faster. Such a
//! field is only for values written through [`PrettyAt`] ([`write_at`],
//! [`Frame`], [`to_writer`]); any other serializer would see a byte array.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::Formatter;

/// serde_json's `PrettyFormatter` (two-space indent), starting `depth`
/// levels deep: what the pretty writer writes for a value at that depth.
#[derive(Debug, Clone)]
pub struct PrettyAt {
    depth: usize,
    has_value: bool,
    last: LastEscaped,
}

impl PrettyAt {
    pub fn new(depth: usize) -> PrettyAt {
        PrettyAt {
            depth,
            has_value: false,
            last: LastEscaped::default(),
        }
    }
}

/// The last long text a writer escaped, and its escaped form: a later text
/// that ends with it (a finding's manual action gives as its reason the
/// finding's message after a few words) is written with those bytes copied,
/// not escaped again. A byte's escape does not depend on its neighbours, so
/// the copy is what escaping them again would write. (A million hostnames:
/// half a kilobyte a finding, a quarter of a million findings.)
#[derive(Debug, Clone, Default)]
struct LastEscaped {
    raw: Vec<u8>,
    escaped: Vec<u8>,
}

/// Texts shorter than this are escaped each time (names, ids, pointers).
const LAST_FROM: usize = 128;

impl LastEscaped {
    /// Writes `text`'s escaped contents, from what it kept where it can.
    fn write<W: ?Sized + Write>(&mut self, writer: &mut W, text: &[u8]) -> io::Result<()> {
        if text.len() < LAST_FROM {
            return write_escaped(writer, text);
        }
        if !self.raw.is_empty()
            && let Some(before) = text.strip_suffix(self.raw.as_slice())
        {
            write_escaped(writer, before)?;
            return writer.write_all(&self.escaped);
        }
        self.raw.clear();
        self.raw.extend_from_slice(text);
        self.escaped.clear();
        write_escaped(&mut self.escaped, text)?;
        writer.write_all(&self.escaped)
    }
}

/// A comma, a line end and 24 levels of indent (a finding's lines are about
/// ten deep), from which a line's start is written in one piece: a write a
/// piece was most of the writes a finding's text takes (bench/RESULTS.md).
/// Deeper lines take the rest two spaces at a time.
const LINE_START: &[u8; 2 + 2 * 24] = b",\n                                                ";

/// Line end and indent for `depth`, after a comma when `comma`.
fn line_start<W: ?Sized + Write>(writer: &mut W, comma: bool, depth: usize) -> io::Result<()> {
    let from = usize::from(!comma);
    match LINE_START.get(from..2 + 2 * depth) {
        Some(piece) => writer.write_all(piece),
        None => {
            writer.write_all(&LINE_START[from..])?;
            (24..depth).try_for_each(|_| writer.write_all(b"  "))
        }
    }
}

impl PrettyAt {
    /// An array or object opens: what it holds is a level deeper.
    fn open<W: ?Sized + Write>(&mut self, writer: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        writer.write_all(bracket)
    }

    /// It closes: on a line of its own, unless it is empty.
    fn close<W: ?Sized + Write>(&mut self, writer: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            line_start(writer, false, self.depth)?;
        }
        writer.write_all(bracket)
    }

    /// An element or a member starts on a line of its own.
    fn line<W: ?Sized + Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        line_start(writer, !first, self.depth)
    }
}

/// Serialises a string for [`PrettyAt`] to escape (see the module's docs).
pub fn escaped<S: serde::Serializer>(text: &str, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_bytes(text.as_bytes())
}

/// `value` written pretty from the top, as `serde_json::to_writer_pretty`
/// writes it: for documents with [`escaped`] fields.
pub fn to_writer<W: Write>(out: W, value: &impl Serialize) -> io::Result<()> {
    write_at(out, value, 0)
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;
const LOWS: u64 = 0x7F7F_7F7F_7F7F_7F7F;

/// The high bit of each zero byte of `word`, and of no other (no carry
/// crosses a byte: the low seven bits are added apart from the high one).
fn zero_bytes(word: u64) -> u64 {
    !(((word & LOWS) + LOWS) | word) & HIGHS
}

/// The high bit of each byte of `word` that a JSON string escapes: `"`,
/// `\\`, and the control characters (the bytes whose top three bits are 0).
fn to_escape(word: u64) -> u64 {
    zero_bytes(word ^ (ONES * u64::from(b'"'))) | zero_bytes(word ^ (ONES * u64::from(b'\\'))) | zero_bytes(word & (ONES * 0xE0))
}

/// How serde_json escapes `byte` in a string, if it does: `"`, `\`, and
/// the control characters below 0x20 (short forms where JSON has them,
/// `\u00xx` in lower-case hex otherwise).
fn escape_of(byte: u8, buffer: &mut [u8; 6]) -> Option<&[u8]> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let short = match byte {
        b'"' => b'"',
        b'\\' => b'\\',
        0x08 => b'b',
        0x09 => b't',
        0x0A => b'n',
        0x0C => b'f',
        0x0D => b'r',
        0x00..=0x1F => {
            *buffer = [b'\\', b'u', b'0', b'0', HEX[usize::from(byte >> 4)], HEX[usize::from(byte & 0xF)]];
            return Some(&buffer[..]);
        }
        _ => return None,
    };
    buffer[0] = b'\\';
    buffer[1] = short;
    Some(&buffer[..2])
}

/// Bytes looked at together for any to escape (most blocks of a message have none).
const BLOCK: usize = 32;

/// Whether a byte of `block` is one a JSON string escapes: a plain loop over
/// a block of fixed size, which the compiler makes a few vector compares.
fn any_to_escape(block: &[u8; BLOCK]) -> bool {
    let mut any = 0u8;
    for &b in block {
        any |= u8::from(b < 0x20) | u8::from(b == b'"') | u8::from(b == b'\\');
    }
    any != 0
}

/// The contents of a JSON string for `text`, escaped as serde_json escapes
/// them: runs that need nothing are found a block at a time, the bytes to
/// escape in a block that has some eight at a time, and runs copied whole.
fn write_escaped<W: ?Sized + Write>(writer: &mut W, text: &[u8]) -> io::Result<()> {
    let mut buffer = [0u8; 6];
    let mut copied = 0;
    let mut escape_at = |at: usize, writer: &mut W| -> io::Result<()> {
        if let Some(escape) = text.get(at).and_then(|&b| escape_of(b, &mut buffer)) {
            writer.write_all(text.get(copied..at).unwrap_or_default())?;
            writer.write_all(escape)?;
            copied = at + 1;
        }
        Ok(())
    };
    // The bytes to escape in the eight from `start`.
    let mut escape_word = |start: usize, word: &[u8; 8], writer: &mut W| -> io::Result<()> {
        // Little-endian: byte k of the word is bits 8k..8k+8.
        let mut marks = to_escape(u64::from_le_bytes(*word));
        while marks != 0 {
            escape_at(start + marks.trailing_zeros() as usize / 8, writer)?;
            marks &= marks - 1;
        }
        Ok(())
    };
    let (blocks, rest) = text.as_chunks::<BLOCK>();
    for (n, block) in blocks.iter().enumerate() {
        if any_to_escape(block) {
            for (k, word) in block.as_chunks::<8>().0.iter().enumerate() {
                escape_word(n * BLOCK + k * 8, word, writer)?;
            }
        }
    }
    let rest_from = text.len() - rest.len();
    let (words, tail) = rest.as_chunks::<8>();
    for (k, word) in words.iter().enumerate() {
        escape_word(rest_from + k * 8, word, writer)?;
    }
    for at in text.len() - tail.len()..text.len() {
        escape_at(at, writer)?;
    }
    writer.write_all(text.get(copied..).unwrap_or_default())
}

impl Formatter for PrettyAt {
    /// Bytes are [`escaped`] text, written as a JSON string.
    fn write_byte_array<W: ?Sized + Write>(&mut self, writer: &mut W, value: &[u8]) -> io::Result<()> {
        writer.write_all(b"\"")?;
        self.last.write(writer, value)?;
        writer.write_all(b"\"")
    }

    fn begin_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.open(writer, b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.close(writer, b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        self.line(writer, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _writer: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.open(writer, b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.close(writer, b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        self.line(writer, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _writer: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// `value` written pretty as it would be `depth` levels deep in a document.
pub fn write_at<W: Write>(out: W, value: &impl Serialize, depth: usize) -> io::Result<()> {
    let mut serializer = serde_json::Serializer::with_formatter(out, PrettyAt::new(depth));
    value.serialize(&mut serializer).map_err(io::Error::from)
}

/// How deep the elements of a [`Frame`]'s array member are (document →
/// member → element): what [`write_at`] is given for an element written ahead.
pub const ELEMENT_DEPTH: usize = 2;

/// A top-level JSON object written a member at a time, by the same
/// formatter the pretty writer uses; a member may be an array whose
/// elements come already written ([`Frame::array`]).
pub struct Frame<'w> {
    out: &'w mut dyn Write,
    format: PrettyAt,
    members: usize,
}

impl<'w> Frame<'w> {
    pub fn new(out: &'w mut dyn Write) -> io::Result<Frame<'w>> {
        let mut format = PrettyAt::new(0);
        format.begin_object(out)?;
        Ok(Frame { out, format, members: 0 })
    }

    fn key(&mut self, name: &str) -> io::Result<()> {
        self.format.begin_object_key(self.out, self.members == 0)?;
        self.members += 1;
        serde_json::to_writer(&mut *self.out, name)?;
        self.format.begin_object_value(self.out)
    }

    pub fn member(&mut self, name: &str, value: &impl Serialize) -> io::Result<()> {
        self.key(name)?;
        write_at(&mut *self.out, value, self.format.depth)?;
        self.format.end_object_value(self.out)
    }

    /// An array member whose elements `write` gives, in order, to the
    /// [`Elements`] it is handed.
    pub fn array(&mut self, name: &str, write: impl FnOnce(&mut Elements<'_>) -> io::Result<()>) -> io::Result<()> {
        self.key(name)?;
        self.format.begin_array(self.out)?;
        let mut elements = Elements {
            out: &mut *self.out,
            format: &mut self.format,
            first: true,
        };
        write(&mut elements)?;
        self.format.end_array(self.out)?;
        self.format.end_object_value(self.out)
    }

    /// Closes the object, and the line.
    pub fn end(mut self) -> io::Result<()> {
        self.format.end_object(self.out)?;
        self.out.write_all(b"\n")
    }
}

/// The elements of an array member being written.
pub struct Elements<'a> {
    out: &'a mut dyn Write,
    format: &'a mut PrettyAt,
    first: bool,
}

/// What comes before an element of a [`Frame`]'s array member: a line of
/// its own at [`ELEMENT_DEPTH`], after a comma unless it is the first.
pub fn element_separator<W: ?Sized + Write>(out: &mut W, first: bool) -> io::Result<()> {
    PrettyAt::new(ELEMENT_DEPTH).line(out, first)
}

impl Elements<'_> {
    /// `count` elements already written [`ELEMENT_DEPTH`] levels deep, each
    /// after its [`element_separator`] (the first of the array's after the
    /// one for the first).
    pub fn written_run(&mut self, run: &[u8], count: usize) -> io::Result<()> {
        if count == 0 {
            return Ok(());
        }
        self.first = false;
        self.out.write_all(run)?;
        self.format.end_array_value(self.out)
    }

    /// One element, written now.
    pub fn value(&mut self, value: &impl Serialize) -> io::Result<()> {
        self.open()?;
        write_at(&mut *self.out, value, self.format.depth)?;
        self.format.end_array_value(self.out)
    }

    fn open(&mut self) -> io::Result<()> {
        self.format.begin_array_value(self.out, std::mem::take(&mut self.first))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn framed(members: &[(&str, serde_json::Value)], arrays_written_ahead: bool) -> String {
        let mut out = Vec::new();
        let mut frame = Frame::new(&mut out).unwrap();
        for (name, value) in members {
            match value.as_array() {
                Some(items) => frame
                    .array(name, |elements| {
                        if !arrays_written_ahead {
                            return items.iter().try_for_each(|item| elements.value(item));
                        }
                        // In runs of two, each element after its separator.
                        for (run, pair) in items.chunks(2).enumerate() {
                            let mut ahead = Vec::new();
                            for (k, item) in pair.iter().enumerate() {
                                element_separator(&mut ahead, run == 0 && k == 0)?;
                                write_at(&mut ahead, item, ELEMENT_DEPTH)?;
                            }
                            elements.written_run(&ahead, pair.len())?;
                        }
                        // An empty run writes nothing (no comma, no line).
                        elements.written_run(b"", 0)
                    })
                    .unwrap(),
                None => frame.member(name, value).unwrap(),
            }
        }
        frame.end().unwrap();
        String::from_utf8(out).unwrap()
    }

    #[derive(Serialize)]
    struct Both<'a> {
        #[serde(serialize_with = "escaped")]
        fast: &'a str,
        plain: &'a str,
    }

    /// Two texts, the second `before` the first: the second is written from
    /// what the first's escaping kept.
    /// (Members named in order: `json!` writes its keys sorted.)
    #[derive(Serialize)]
    struct Message<'a> {
        #[serde(serialize_with = "escaped", rename = "a")]
        message: &'a str,
        #[serde(serialize_with = "escaped", rename = "b")]
        reason: &'a str,
        #[serde(serialize_with = "escaped", rename = "c")]
        other: &'a str,
    }

    proptest::proptest! {
        /// A text that ends with the one written before it is written as
        /// serde_json writes it, wherever the bytes to escape fall (across
        /// where the two meet too), and one that does not end with it too.
        #[test]
        fn a_text_ending_with_the_last_one_is_what_serde_json_writes(
            message in "(\\PC|[\"\\\\\u{0}-\u{1f}é😀]){0,300}",
            before in "(\\PC|[\"\\\\\u{0}-\u{1f}]){0,20}",
            other in "(\\PC|[\"\\\\\u{1f}]){120,200}",
        ) {
            let reason = format!("{before}{message}");
            let mut fast = Vec::new();
            write_at(&mut fast, &Message { message: &message, reason: &reason, other: &other }, 2).unwrap();
            let mut plain = Vec::new();
            let value = serde_json::json!({"a": message, "b": reason, "c": other});
            write_at(&mut plain, &value, 2).unwrap();
            proptest::prop_assert_eq!(String::from_utf8(fast).unwrap(), String::from_utf8(plain).unwrap());
        }

        /// Escaped text is what serde_json writes for the string, whatever
        /// it holds and wherever the bytes to escape fall in the words.
        #[test]
        fn escaped_text_is_what_serde_json_writes(
            text in "(\\PC|[\"\\\\\u{0}-\u{1f}\u{7f}\u{2028}é€😀]){0,40}",
            depth in 0usize..4,
        ) {
            let mut fast = Vec::new();
            write_at(&mut fast, &Both { fast: &text, plain: &text }, depth).unwrap();
            let fast = String::from_utf8(fast).unwrap();
            let mut plain = Vec::new();
            let value = serde_json::json!({"fast": text, "plain": text});
            write_at(&mut plain, &value, depth).unwrap();
            proptest::prop_assert_eq!(fast, String::from_utf8(plain).unwrap());
        }
    }

    #[test]
    fn every_byte_below_0x80_is_escaped_as_serde_json_escapes_it() {
        for byte in 0u8..0x80 {
            // In a block, in a word after the blocks, and in the bytes after those.
            for at in 0..71 {
                let mut text = "a".repeat(71);
                text.replace_range(at..at + 1, char::from(byte).encode_utf8(&mut [0; 4]));
                let mut fast = Vec::new();
                write_escaped(&mut fast, text.as_bytes()).unwrap();
                let expected = serde_json::to_string(&text).unwrap();
                assert_eq!(
                    format!("\"{}\"", String::from_utf8(fast).unwrap()),
                    expected,
                    "byte {byte:#x} at {at}"
                );
            }
        }
    }

    #[test]
    fn lines_deeper_than_one_piece_of_indent_are_indented_as_serde_json_indents_them() {
        let mut deep = json!([1, {"k": "v"}, []]);
        for depth in 0..30 {
            deep = if depth % 2 == 0 {
                json!({"a": deep, "b": [depth]})
            } else {
                json!([deep, {}])
            };
        }
        let mut ours = Vec::new();
        to_writer(&mut ours, &deep).unwrap();
        assert_eq!(String::from_utf8(ours).unwrap(), serde_json::to_string_pretty(&deep).unwrap());
    }

    #[test]
    fn a_framed_document_is_what_the_pretty_writer_writes_whole() {
        let finding =
            json!({"rule": "LB001", "message": "a \"quoted\" \\ line\u{2028}", "actions": [{"body": {}, "depends_on": []}], "n": 1.5});
        let other = json!({"rule": "CA004", "empty": [], "nested": {"a": [1, [2, {}]]}, "none": null});
        // In key order, as a `Value` writes its members.
        let members = [
            ("config", json!(null)),
            ("findings", json!([finding, other, {"third": [true]}])),
            ("notices", json!([{"code": "W1"}])),
            ("summary", json!({"by_rule": {}, "errors": 1})),
            ("suppressed", json!([])),
            ("version", json!(1)),
        ];
        let mut whole = serde_json::to_string_pretty(&serde_json::Value::Object(
            members.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
        ))
        .unwrap();
        whole.push('\n');
        assert!(whole.contains("\n      \"rule\": \"CA004\""), "{whole}");
        assert_eq!(framed(&members, true), whole);
        assert_eq!(framed(&members, false), whole);
        assert_eq!(framed(&[], true), "{}\n");
    }
}
