//! Where a resource came from, kept per record so that any field a rule points
//! at can be located later without keeping a tree of the file.
//!
//! A million records of one list share that list's pointer: a record keeps
//! the list (shared) and its index, not a pointer string of its own (issue
//! 13: 24 bytes per record instead of 72 and a heap string).

use std::borrow::Cow;
use std::sync::Arc;

/// Which input file, by its index in the run's list of files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u32);

/// Where a string value lies in a JSON record, from the record's `{`: its
/// opening quote and its length with both quotes, as the parse saw it (a
/// string written without escapes is handed over as a piece of the file).
/// A finding at that value is then located without reading the record
/// again. Four bytes: up to 16 MiB into the record, 255 bytes long; other
/// values are not kept ([`ValueSpan::NONE`]) and are found by a scan.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ValueSpan(u32);

impl ValueSpan {
    pub const NONE: ValueSpan = ValueSpan(0);

    /// The string `value` of the record whose `{` is at byte `record` of
    /// `text`, when `value` is a piece of `text` (not an unescaped copy).
    pub fn of_json_string(value: &str, text: &str, record: usize) -> ValueSpan {
        let at = (value.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
        let (Some(quote), true) = (at.checked_sub(1), at.saturating_add(value.len()) <= text.len()) else {
            return ValueSpan::NONE;
        };
        match (quote.checked_sub(record), u32::try_from(value.len() + 2)) {
            // (0 is the `{` itself, never a string.)
            (Some(from @ 1..=0xFF_FFFF), Ok(len @ ..=0xFF)) => ValueSpan(((from as u32) << 8) | len),
            _ => ValueSpan::NONE,
        }
    }

    /// The value's bytes in the text, for the record whose `{` is at `record`.
    pub fn range(self, record: usize) -> Option<std::ops::Range<usize>> {
        (self != ValueSpan::NONE).then(|| {
            let start = record + (self.0 >> 8) as usize;
            start..start + (self.0 & 0xFF) as usize
        })
    }
}

/// A byte offset at which a value starts in a JSON file, and how many tokens of
/// the record's pointer lead to that value. Lets a finding be located by
/// scanning one record instead of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Anchor {
    pub offset: usize,
    pub tokens: usize,
}

/// What the records of one list share: the file, the list's pointer (or a
/// lone record's own) and, for a Terraform resource, its address.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Place {
    file: FileId,
    /// The records' offsets count from here: 32 bits each. A list that goes
    /// on past 4 GiB from here goes on in another place.
    base: usize,
    pointer: Box<str>,
    /// The Terraform address of the resource the record is
    /// (`module.lb.cloudflare_load_balancer_pool.web`), when it is one.
    address: Option<Arc<str>>,
}

/// `index` of a record that is no element of a list.
const ALONE: u32 = u32::MAX;
/// `anchor` of a record whose start is not known.
const NO_ANCHOR: u32 = u32::MAX;

/// 16 bytes: a million custom hostnames have one each.
#[derive(Debug, Clone)]
pub struct RecordOrigin {
    /// The record's index in the list `place` names, or [`ALONE`].
    index: u32,
    /// Bytes from the place's `base` to the record's first byte, or [`NO_ANCHOR`].
    anchor: u32,
    place: Arc<Place>,
}

/// `anchor` as a record whose place starts at `base` keeps it, if it can.
fn relative(base: usize, anchor: Option<usize>) -> Option<u32> {
    match anchor {
        None => Some(NO_ANCHOR),
        Some(offset) => offset
            .checked_sub(base)
            .and_then(|d| u32::try_from(d).ok())
            .filter(|&d| d != NO_ANCHOR),
    }
}

impl Default for RecordOrigin {
    fn default() -> Self {
        RecordOrigin::new(FileId::default(), "", None)
    }
}

impl PartialEq for RecordOrigin {
    fn eq(&self, other: &Self) -> bool {
        let same_place = (Arc::ptr_eq(&self.place, &other.place) && self.index == other.index)
            || (self.place.address == other.place.address && self.pointer() == other.pointer());
        self.file() == other.file() && self.offset() == other.offset() && same_place
    }
}

impl Eq for RecordOrigin {}

impl RecordOrigin {
    /// A record at `pointer` in `file`, starting at byte `anchor` when known
    /// (JSON). Records of one list should come from [`Places::origin`], which
    /// shares the list's pointer.
    pub fn new(file: FileId, pointer: &str, anchor: Option<usize>) -> RecordOrigin {
        RecordOrigin::opening(file, pointer, ALONE, anchor)
    }

    /// A record in a place of its own, whose offsets count from this record's.
    fn opening(file: FileId, pointer: &str, index: u32, anchor: Option<usize>) -> RecordOrigin {
        RecordOrigin {
            index,
            anchor: anchor.map_or(NO_ANCHOR, |_| 0),
            place: Arc::new(Place {
                file,
                base: anchor.unwrap_or(0),
                pointer: pointer.into(),
                address: None,
            }),
        }
    }

    /// Which input file it is in.
    pub fn file(&self) -> FileId {
        self.place.file
    }

    /// Byte offset of the record's first byte, when known.
    fn offset(&self) -> Option<usize> {
        (self.anchor != NO_ANCHOR).then(|| self.place.base + self.anchor as usize)
    }

    /// The same record, named by a Terraform address.
    pub fn with_address(self, address: Arc<str>) -> RecordOrigin {
        let pointer = self.pointer().into_owned();
        RecordOrigin {
            index: ALONE,
            place: Arc::new(Place {
                file: self.place.file,
                base: self.place.base,
                pointer: pointer.into(),
                address: Some(address),
            }),
            ..self
        }
    }

    /// JSON pointer of the record in its document.
    pub fn pointer(&self) -> Cow<'_, str> {
        match self.index {
            ALONE => Cow::Borrowed(&self.place.pointer),
            index => Cow::Owned(format!("{}/{index}", self.place.pointer)),
        }
    }

    /// Whether the record's pointer is `prefix` followed by more tokens
    /// (`/resource/…` under `/resource`), asked without making the pointer:
    /// every record of a million is asked.
    pub fn is_under(&self, prefix: &str) -> bool {
        let list = &*self.place.pointer;
        match list.strip_prefix(prefix) {
            Some("") => self.index != ALONE,
            Some(rest) => rest.starts_with('/'),
            None => false,
        }
    }

    /// The record's list and its index there, when it is an element of one.
    pub fn list_and_index(&self) -> Option<(&str, u32)> {
        (self.index != ALONE).then_some((&self.place.pointer, self.index))
    }

    /// The pointer of a field of this record (`path` is itself a pointer,
    /// relative to the record, e.g. `/filters/pool_id/0`).
    pub fn field(&self, path: &str) -> String {
        match self.index {
            ALONE => format!("{}{path}", self.place.pointer),
            index => format!("{}/{index}{path}", self.place.pointer),
        }
    }

    pub fn anchor(&self) -> Option<Anchor> {
        self.offset().map(|offset| Anchor {
            offset,
            tokens: self.place.pointer.matches('/').count() + usize::from(self.index != ALONE),
        })
    }

    pub fn address(&self) -> Option<&Arc<str>> {
        self.place.address.as_ref()
    }
}

/// Makes the origins of a document's records, each list's pointer shared by
/// its records (one walk of a document asks in order, list by list).
#[derive(Debug, Default)]
pub struct Places {
    last: Option<Arc<Place>>,
}

impl Places {
    pub fn origin(&mut self, file: FileId, pointer: &str, anchor: Option<usize>) -> RecordOrigin {
        let Some((list, index)) = split_index(pointer) else {
            return RecordOrigin::new(file, pointer, anchor);
        };
        let shared = (self.last.as_ref())
            .filter(|place| *place.pointer == *list && place.file == file)
            .and_then(|place| Some((place.clone(), relative(place.base, anchor)?)));
        if let Some((place, anchor)) = shared {
            return RecordOrigin { index, anchor, place };
        }
        let origin = RecordOrigin::opening(file, list, index, anchor);
        self.last = Some(origin.place.clone());
        origin
    }
}

/// `/result/17` → (`/result`, 17): a pointer whose last token is an array
/// index as RFC 6901 writes one (no leading zero).
fn split_index(pointer: &str) -> Option<(&str, u32)> {
    let slash = pointer.rfind('/')?;
    let token = &pointer[slash + 1..];
    let canonical = !token.is_empty() && token.bytes().all(|b| b.is_ascii_digit()) && (token == "0" || !token.starts_with('0'));
    let index: u32 = token.parse().ok().filter(|&i| canonical && i != ALONE)?;
    Some((&pointer[..slash], index))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pointer_is_under_a_prefix_only_past_a_whole_token() {
        let mut places = Places::default();
        let file = FileId(0);
        for (pointer, under) in [
            ("/resource/3", true),
            ("/resource/web/0", true),
            ("/resource", false),
            ("/resources/0", false),
            ("/result/0", false),
            ("/resource/web", true),
        ] {
            let indexed = places.origin(file, pointer, None);
            assert_eq!(indexed.is_under("/resource"), under, "{pointer}");
            let alone = RecordOrigin::new(file, pointer, None);
            assert_eq!(alone.is_under("/resource"), under, "{pointer} alone");
            let made = indexed.pointer();
            assert_eq!(
                made.strip_prefix("/resource").is_some_and(|rest| rest.starts_with('/')),
                under,
                "{pointer}: as made"
            );
        }
    }

    #[test]
    fn records_of_one_list_share_its_pointer_and_keep_their_own() {
        let mut places = Places::default();
        let first = places.origin(FileId(1), "/result/0", Some(10));
        let second = places.origin(FileId(1), "/result/17", Some(90));
        assert!(Arc::ptr_eq(&first.place, &second.place));
        assert_eq!(second.pointer(), "/result/17");
        assert_eq!(second.field("/ssl/issuer"), "/result/17/ssl/issuer");
        assert_eq!(second.list_and_index(), Some(("/result", 17)));
        assert_eq!(second.anchor(), Some(Anchor { offset: 90, tokens: 2 }));
        let other = places.origin(FileId(1), "/zones/0/pools/3", None);
        assert_eq!((other.pointer().as_ref(), other.anchor()), ("/zones/0/pools/3", None));
        assert!(!Arc::ptr_eq(&first.place, &other.place));
    }

    #[test]
    fn a_record_that_is_no_list_element_keeps_its_whole_pointer() {
        let mut places = Places::default();
        for pointer in [
            "",
            "/result",
            "/zones/0/total_tls",
            "/result/01",
            "/result/-",
            "/a/4294967295",
            "/a~1b/x~0y",
        ] {
            let origin = places.origin(FileId(0), pointer, Some(0));
            assert_eq!(origin.pointer(), pointer);
            assert_eq!(origin.list_and_index(), None, "{pointer}");
            assert_eq!(origin.anchor().map(|a| a.tokens), Some(crate::text::pointer::tokens(pointer).len()));
        }
        // Escaped tokens before an index: the list keeps them as they are.
        let listed = places.origin(FileId(0), "/a~1b/x~0y/7", Some(0));
        assert_eq!(listed.list_and_index(), Some(("/a~1b/x~0y", 7)));
        assert_eq!(listed.pointer(), "/a~1b/x~0y/7");
        assert_eq!(
            listed.anchor().map(|a| a.tokens),
            Some(crate::text::pointer::tokens("/a~1b/x~0y/7").len())
        );
    }

    #[test]
    fn origins_are_equal_when_they_name_the_same_place_however_made() {
        let mut places = Places::default();
        let listed = places.origin(FileId(0), "/result/3", Some(5));
        assert_eq!(listed, RecordOrigin::new(FileId(0), "/result/3", Some(5)));
        assert_ne!(listed, RecordOrigin::new(FileId(1), "/result/3", Some(5)));
        assert_ne!(listed, RecordOrigin::new(FileId(0), "/result/4", Some(5)));
        let named = listed.clone().with_address("cloudflare_load_balancer_pool.web".into());
        assert_eq!(named.pointer(), "/result/3");
        assert_eq!(named.address().map(|a| &**a), Some("cloudflare_load_balancer_pool.web"));
        assert_ne!(named, listed);
    }

    #[test]
    fn a_value_span_is_the_string_with_its_quotes_or_none() {
        let text = r#"[{"a": "xyz", "b": "", "c": "w\"v"}]"#;
        let piece = |s: &str| &text[text.find(s).unwrap()..][..s.len()];
        assert_eq!(ValueSpan::of_json_string(piece("xyz"), text, 1).range(1), Some(7..12));
        assert_eq!(&text[7..12], "\"xyz\"");
        let empty = &text[text.find("\"\"").unwrap() + 1..][..0];
        assert_eq!(ValueSpan::of_json_string(empty, text, 1).range(1).map(|r| &text[r]), Some("\"\""));
        // An unescaped copy is no piece of the text.
        assert_eq!(ValueSpan::of_json_string("w\"v", text, 1), ValueSpan::NONE);
        // Too far from the record's start, or too long.
        let far = format!("{{{}\"x\"", " ".repeat(1 << 24));
        assert_eq!(
            ValueSpan::of_json_string(&far[far.len() - 2..far.len() - 1], &far, 0),
            ValueSpan::NONE
        );
        let long = format!("{{\"{}\"", "x".repeat(300));
        assert_eq!(ValueSpan::of_json_string(&long[2..302], &long, 0), ValueSpan::NONE);
        assert_eq!(ValueSpan::NONE.range(5), None);
    }

    #[test]
    fn an_origin_is_small() {
        assert_eq!(std::mem::size_of::<RecordOrigin>(), 16);
    }

    #[test]
    fn a_list_past_4_gib_keeps_every_offset() {
        let mut places = Places::default();
        let gib = 1usize << 30;
        let offsets = [0, 3 * gib, 4 * gib - 2, 4 * gib - 1, 4 * gib, 9 * gib, 9 * gib + 5];
        let origins: Vec<RecordOrigin> = offsets
            .iter()
            .enumerate()
            .map(|(i, &offset)| places.origin(FileId(3), &format!("/result/{i}"), Some(offset)))
            .collect();
        for (i, (origin, &offset)) in origins.iter().zip(&offsets).enumerate() {
            assert_eq!(origin.anchor().map(|a| a.offset), Some(offset));
            assert_eq!(origin.list_and_index(), Some(("/result", i as u32)));
            assert_eq!(origin.file(), FileId(3));
            assert_eq!(*origin, RecordOrigin::new(FileId(3), &format!("/result/{i}"), Some(offset)));
        }
        assert!(
            Arc::ptr_eq(&origins[0].place, &origins[2].place),
            "within 4 GiB of the list's start"
        );
        assert!(!Arc::ptr_eq(&origins[0].place, &origins[3].place));
        assert!(Arc::ptr_eq(&origins[5].place, &origins[6].place));
        let lone = RecordOrigin::new(FileId(0), "/result/0", Some(9 * gib));
        assert_eq!(lone.anchor().map(|a| a.offset), Some(9 * gib));
        assert_eq!(lone.clone().with_address("a.b".into()).anchor().map(|a| a.offset), Some(9 * gib));
        // Another file's list of the same name is another place.
        let other = places.origin(FileId(4), "/result/7", Some(9 * gib + 6));
        assert_eq!(other.file(), FileId(4));
        assert!(!Arc::ptr_eq(&other.place, &origins[6].place));
    }
}
