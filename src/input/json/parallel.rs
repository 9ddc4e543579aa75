//! A large JSON record list parsed on every available core (docs/src/performance.md), with
//! the walk — and so the model, the findings and every report — exactly as
//! a one-pass parse makes it.
//!
//! The document is read through a [`Skeleton`]: serde sees the top-level
//! object's members as usual, except that a record list (the document's own
//! array, or a top-level `result`, `pools`, … : `split::is_list_key`) arrives
//! empty, and the walker takes its elements from [`parse_list`] instead.
//! There, a structural scan (`split.rs`) cuts the list into parts of whole
//! elements as it goes; the parts are parsed
//! by worker threads into the events a one-pass walk would have received
//! (`Event`), and the walker replays them part after part, in order. At
//! most a few parts are ahead of the replay, so memory stays bounded.
//!
//! Anything unexpected — a part that does not parse, structure the scan
//! does not accept — makes the whole document be parsed again in one pass,
//! which then gives exactly the error a one-thread run gives. A document
//! whose walk stopped on a record (an input error the walker located) keeps
//! that error: the events before it were those of a one-pass parse.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::{Condvar, Mutex};

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::split::{ArraySplitter, MemberScanner, Part, Splitter, Unsound, is_list_key, skip_value_within, skip_whitespace};
use crate::input::shape::Shape;
use crate::input::stream::{Expect, ObjectInto, Stopped, Walk};
use crate::text::pointer;

/// How large files are split among the threads (the threads module keeps it: locating and reading mapped text use it too).
pub use crate::threads::Settings;

/// Until a list this long was parsed in parallel, a member longer than this
/// (a bundle's `zones` after a few `pools`) sends the document to the
/// one-pass parse rather than be scanned, then parsed on one thread.
const WHOLE_MEMBER_BYTES: usize = 1 << 20;

/// What the walk receives, recorded by a worker to be replayed in order.
pub enum Event<'a> {
    ListStart,
    /// An element of the part's own list, by its index there: its pointer is
    /// written when it is replayed (not made, sent and freed a record each).
    Indexed(Shape<'a>, usize, Expect),
    Element(Shape<'a>, String, Expect),
    Object(Shape<'a>, String, Expect),
}

#[derive(Default)]
struct Recorder<'a> {
    events: Vec<Event<'a>>,
}

impl<'a> Walk<'a> for Recorder<'a> {
    fn element(&mut self, shape: &mut Shape<'a>, pointer: &str, expect: Expect) -> Result<(), Stopped> {
        self.events.push(Event::Element(std::mem::take(shape), pointer.to_string(), expect));
        Ok(())
    }

    fn object(&mut self, shape: &mut Shape<'a>, pointer: &str, expect: Expect) -> Result<(), Stopped> {
        self.events.push(Event::Object(std::mem::take(shape), pointer.to_string(), expect));
        Ok(())
    }

    fn list_start(&mut self) {
        self.events.push(Event::ListStart);
    }
}

/// One part's events, in the order a one-pass parse meets them.
pub struct PartEvents<'a> {
    events: Vec<Event<'a>>,
    /// The pointer of the list whose elements `Event::Indexed` are.
    list: String,
    /// For the list's first part: about how many elements the whole list
    /// holds, from this part's elements per byte (an upper estimate).
    list_estimate: Option<usize>,
}

impl PartEvents<'_> {
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }
}

/// Hands recorded events to the walk, stopping where it stops; the part's
/// list of events is left empty, for the next part to fill.
pub fn replay<'a, W: Walk<'a>>(walk: &mut W, part: &mut PartEvents<'a>) -> Result<(), Stopped> {
    let replayed = replay_events(walk, part);
    part.events.clear();
    replayed
}

/// The shapes are lent where they lie: moved out (864 bytes each, written by
/// another thread) they were the replay thread's largest copy.
fn replay_events<'a, W: Walk<'a>>(walk: &mut W, part: &mut PartEvents<'a>) -> Result<(), Stopped> {
    if let Some(elements) = part.list_estimate {
        walk.expect_elements(elements);
    }
    let mut pointer = String::new();
    for event in &mut part.events {
        match event {
            Event::ListStart => walk.list_start(),
            Event::Indexed(shape, index, expect) => {
                pointer::write_index(&mut pointer, &part.list, *index);
                walk.element(shape, &pointer, *expect)?
            }
            Event::Element(shape, pointer, expect) => walk.element(shape, pointer, *expect)?,
            Event::Object(shape, pointer, expect) => walk.object(shape, pointer, *expect)?,
        }
    }
    Ok(())
}

/// How a split list's parse ended.
#[derive(Debug, PartialEq, Eq)]
pub enum ListOutcome {
    /// Every element was replayed; the list ends before this offset.
    Done(usize),
    /// The walk stopped (it keeps why).
    Stopped,
    /// The list must be parsed in one pass.
    Unsound,
}

/// Parses the list whose `[` is at `open` (at `list` in the document, of
/// `expect`) on `settings.threads` threads, handing each part's events to
/// `replay` in order on this thread.
pub fn parse_list<'a>(
    text: &'a str,
    open: usize,
    list: &str,
    expect: Expect,
    settings: Settings,
    replay: impl FnMut(&mut PartEvents<'a>) -> Result<(), Stopped>,
) -> ListOutcome {
    let Ok(splitter) = ArraySplitter::new(text.as_bytes(), open) else {
        return ListOutcome::Unsound;
    };
    parse_parts(text, splitter, list, expect, settings, replay)
}

/// Parses the list `splitter` cuts out of `text` (at `list` in the
/// document, of `expect`) on `settings.threads` threads, handing each
/// part's events to `replay` in order on this thread.
pub fn parse_parts<'a, S: Splitter>(
    text: &'a str,
    splitter: S,
    list: &str,
    expect: Expect,
    settings: Settings,
    mut replay: impl FnMut(&mut PartEvents<'a>) -> Result<(), Stopped>,
) -> ListOutcome {
    let bytes = text.as_bytes();
    let threads = settings.threads.clamp(1, MAX_THREADS);
    let pipeline = Pipeline {
        state: Mutex::new(State {
            splitter,
            claimed: 0,
            replayed: 0,
            parsed: BTreeMap::new(),
            total: None,
            closed: false,
        }),
        changed: Condvar::new(),
        spare: Mutex::new(Vec::new()),
        bytes,
        ahead: 2 * threads,
        part_bytes: settings.part_bytes,
    };
    let parse = |part: Result<Part, Unsound>, events| part.and_then(|part| parse_part(text, &part, list, expect, events));
    crate::threads::spread(threads, &|| pipeline.help(&parse), || {
        // Closed however this thread leaves (a panic in the walk included),
        // or the workers would wait for it forever.
        let _close = CloseOnDrop(&pipeline);
        pipeline.replay_in_order(&parse, &mut replay)
    })
}

/// Parse threads at most: past this, a list's parts wait on the one thread
/// that replays them.
const MAX_THREADS: usize = 8;

struct CloseOnDrop<'p, 'a, S: Splitter>(&'p Pipeline<'a, S>);

impl<S: Splitter> Drop for CloseOnDrop<'_, '_, S> {
    fn drop(&mut self) {
        self.0.close();
    }
}

struct Pipeline<'a, S> {
    state: Mutex<State<'a, S>>,
    changed: Condvar,
    /// Lists of events replayed and emptied, for parts still to parse: a
    /// part's list (about a megabyte) is filled again, not allocated anew on
    /// one thread and freed on another, each time on fresh pages.
    spare: Mutex<Vec<Vec<Event<'a>>>>,
    bytes: &'a [u8],
    /// Parts parsed ahead of the replay at most.
    ahead: usize,
    part_bytes: usize,
}

/// A part's events, or why the document goes back to the one-pass parse.
type Parsed<'a> = Result<PartEvents<'a>, Unsound>;

struct State<'a, S> {
    splitter: S,
    /// Parts handed out so far: the next part's number.
    claimed: usize,
    /// Parts replayed so far: the number of the one the replay waits for.
    replayed: usize,
    parsed: BTreeMap<usize, Parsed<'a>>,
    /// How many parts there are, once the scan reached the end.
    total: Option<usize>,
    /// Nothing more is handed out: the scan ended or failed, or the replay ended.
    closed: bool,
}

/// Parses a part into a list of events it is given (empty).
trait ParsePart<'a>: Fn(Result<Part, Unsound>, Vec<Event<'a>>) -> Parsed<'a> {}
impl<'a, F: Fn(Result<Part, Unsound>, Vec<Event<'a>>) -> Parsed<'a>> ParsePart<'a> for F {}

impl<'a, S: Splitter> Pipeline<'a, S> {
    fn lock(&self) -> std::sync::MutexGuard<'_, State<'a, S>> {
        // No code that can panic runs under the lock, so it is never
        // poisoned; were it, the state is still consistent.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The next part to parse, scanned now, with its number; `None` when
    /// nothing is to be handed out now.
    fn claim(&self, state: &mut State<'a, S>) -> Option<(usize, Result<Part, Unsound>)> {
        if state.closed || state.claimed >= state.replayed + self.ahead {
            return None;
        }
        match state.splitter.next_part(self.bytes, self.part_bytes) {
            None => {
                state.total = Some(state.claimed);
                state.closed = true;
                None
            }
            Some(part) => {
                state.closed |= part.is_err();
                state.claimed += 1;
                Some((state.claimed - 1, part))
            }
        }
    }

    /// Parses the part claimed as `number` and files the result for the
    /// replay. A panic files a failure first, or the replay (when a worker
    /// panicked) would wait for this part forever; the panic then goes on
    /// to the thread scope.
    fn parse_claimed(&self, number: usize, part: Result<Part, Unsound>, parse: &impl ParsePart<'a>) {
        let events = self
            .spare
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .pop()
            .unwrap_or_default();
        let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| parse(part, events)));
        let (filed, panic) = match parsed {
            Ok(parsed) => (parsed, None),
            Err(panic) => (Err(Unsound), Some(panic)),
        };
        self.lock().parsed.insert(number, filed);
        self.changed.notify_all();
        if let Some(panic) = panic {
            self.close();
            std::panic::resume_unwind(panic);
        }
    }

    /// A worker: parses parts until none is left.
    fn help(&self, parse: &impl ParsePart<'a>) {
        let mut state = self.lock();
        loop {
            if let Some((number, part)) = self.claim(&mut state) {
                drop(state);
                self.parse_claimed(number, part, parse);
                state = self.lock();
            } else if state.closed {
                return;
            } else {
                state = self.changed.wait(state).unwrap_or_else(|poisoned| poisoned.into_inner());
            }
        }
    }

    /// The caller's thread: replays parts in order, parsing one itself
    /// whenever the next is not ready yet.
    fn replay_in_order(
        &self,
        parse: &impl ParsePart<'a>,
        replay: &mut impl FnMut(&mut PartEvents<'a>) -> Result<(), Stopped>,
    ) -> ListOutcome {
        let mut state = self.lock();
        loop {
            let next = state.replayed;
            if let Some(parsed) = state.parsed.remove(&next) {
                state.replayed += 1;
                drop(state);
                self.changed.notify_all();
                let Ok(mut part) = parsed else { return ListOutcome::Unsound };
                let replayed = replay(&mut part);
                part.events.clear();
                self.spare.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(part.events);
                if replayed.is_err() {
                    return ListOutcome::Stopped;
                }
                state = self.lock();
            } else if state.total == Some(next) {
                return match state.splitter.end() {
                    Some(end) => ListOutcome::Done(end),
                    None => ListOutcome::Unsound,
                };
            } else if let Some((number, part)) = self.claim(&mut state) {
                drop(state);
                self.parse_claimed(number, part, parse);
                state = self.lock();
            } else if state.total != Some(next) {
                // (`claim` may just have found the end: then look again, do not wait.)
                state = self.changed.wait(state).unwrap_or_else(|poisoned| poisoned.into_inner());
            }
        }
    }

    /// Ends the workers: no more parts are handed out.
    fn close(&self) {
        self.lock().closed = true;
        self.changed.notify_all();
    }
}

/// One part's elements, parsed as a one-pass parse would parse them there.
fn parse_part<'a>(text: &'a str, part: &Part, list: &str, expect: Expect, mut events: Vec<Event<'a>>) -> Parsed<'a> {
    events.reserve(part.elements.len());
    let mut recorder = Recorder { events };
    // Records inside an element (an envelope's, in a list of envelopes),
    // which a one-pass walk meets before the element itself.
    let mut inside = Recorder::default();
    let mut pointer = String::new();
    for (i, bytes) in part.elements.iter().enumerate() {
        let index = part.first + i;
        pointer::write_index(&mut pointer, list, index);
        // The element's shape is filled where it lies in the list.
        let at = recorder.events.len();
        recorder.events.push(Event::Indexed(Shape::default(), index, expect));
        let Some(Event::Indexed(shape, ..)) = recorder.events.last_mut() else {
            return Err(Unsound);
        };
        parse_whole(text, bytes.clone(), ObjectInto::element(&mut inside, &pointer, expect, shape)).map_err(|_| Unsound)?;
        if !inside.events.is_empty() {
            recorder.events.splice(at..at, inside.events.drain(..));
        }
    }
    let list_estimate = match (part.first, part.elements.first(), part.elements.last()) {
        (0, Some(first), Some(last)) => Some(list_estimate(part.elements.len(), first.start..last.end, text.len())),
        _ => None,
    };
    Ok(PartEvents {
        events: recorder.events,
        list: list.to_string(),
        list_estimate,
    })
}

/// About how many elements a list holds whose first `elements` span `bytes`
/// of a text `text_len` long: as many per byte to the end of the text, and an
/// eighth more, so that a list of slightly longer records is not one short
/// of its room (room never used is address space, not memory).
fn list_estimate(elements: usize, bytes: std::ops::Range<usize>, text_len: usize) -> usize {
    let per_byte = elements as f64 / bytes.len().max(1) as f64;
    let rest = text_len.saturating_sub(bytes.start) as f64;
    (per_byte * rest * 1.125).ceil().min(usize::MAX as f64) as usize
}

/// Between the skeleton and the walker: where the list serde was just given
/// as empty starts (set by the skeleton), and where it ended (set by the
/// walker once it took the elements).
#[derive(Debug, Default)]
pub struct Cursor {
    list: Cell<Option<usize>>,
    end: Cell<Option<usize>>,
    /// Whether a large list (more than [`WHOLE_MEMBER_BYTES`]) was parsed
    /// in parallel yet in this document: from then on, sending it back to the
    /// one-pass parse would throw that work away.
    large_list_done: Cell<bool>,
}

impl Cursor {
    /// The list to take now, if the skeleton just handed one over.
    pub fn take_list(&self) -> Option<usize> {
        self.list.take()
    }

    pub fn list_ended(&self, end: usize) {
        self.end.set(Some(end));
    }

    fn hand_over<'de, T: DeserializeSeed<'de>>(&self, open: usize, seed: T) -> Result<(T::Value, usize), serde_json::Error> {
        self.list.set(Some(open));
        let value = seed.deserialize(Elided)?;
        // Not taken: no walker asked for it (cannot happen with `stream.rs`).
        self.list.set(None);
        let end = self.end.take().ok_or_else(unsound)?;
        if end - open > WHOLE_MEMBER_BYTES {
            self.large_list_done.set(true);
        }
        Ok((value, end))
    }
}

fn unsound() -> serde_json::Error {
    de::Error::custom("edgeaudit: the document is parsed again in one pass")
}

/// The document, its split lists left out (see the module documentation).
pub struct Skeleton<'a> {
    text: &'a str,
    cursor: Rc<Cursor>,
}

impl<'a> Skeleton<'a> {
    pub fn new(text: &'a str, cursor: Rc<Cursor>) -> Self {
        Skeleton { text, cursor }
    }

    fn trailing(&self, end: usize) -> Result<(), serde_json::Error> {
        match skip_whitespace(self.text.as_bytes(), end) == self.text.len() {
            true => Ok(()),
            false => Err(unsound()),
        }
    }
}

impl<'de> Deserializer<'de> for Skeleton<'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        let bytes = self.text.as_bytes();
        let open = skip_whitespace(bytes, 0);
        match bytes.get(open) {
            Some(b'[') => {
                let (value, end) = self.cursor.hand_over(open, Whole(visitor))?;
                self.trailing(end)?;
                Ok(value)
            }
            Some(b'{') => {
                let mut members = Members {
                    text: self.text,
                    cursor: &self.cursor,
                    scanner: MemberScanner::new(bytes, open).map_err(|Unsound| unsound())?,
                    pending: None,
                };
                let value = visitor.visit_map(&mut members)?;
                self.trailing(members.scanner.end())?;
                Ok(value)
            }
            _ => Err(unsound()),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// Lets a visitor be handed over as a seed, for a list the document is.
struct Whole<V>(V);

impl<'de, V: Visitor<'de>> DeserializeSeed<'de> for Whole<V> {
    type Value = V::Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        d.deserialize_any(self.0)
    }
}

/// The top-level object's members: each parsed on its own from its bytes,
/// a record list handed to the walker through the cursor.
struct Members<'a, 'c> {
    text: &'a str,
    cursor: &'c Cursor,
    scanner: MemberScanner,
    /// The member whose key was read: its key and where its value starts.
    pending: Option<(std::ops::Range<usize>, usize)>,
}

impl<'de> MapAccess<'de> for Members<'de, '_> {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Self::Error> {
        let Some(member) = self.scanner.next_member(self.text.as_bytes()).map_err(|Unsound| unsound())? else {
            return Ok(None);
        };
        let key = parse_whole(self.text, member.key.clone(), seed)?;
        self.pending = Some((member.key, member.value));
        Ok(Some(key))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Self::Error> {
        let bytes = self.text.as_bytes();
        let (key, start) = self.pending.take().ok_or_else(unsound)?;
        // The key as written; an escaped one is parsed whole like any other member.
        let name = self.text.get(key.start + 1..key.end - 1).unwrap_or_default();
        if bytes.get(start) == Some(&b'[') && is_list_key(name) {
            let (value, end) = self.cursor.hand_over(start, seed)?;
            self.scanner.value_ended(end);
            return Ok(value);
        }
        let limit = if self.cursor.large_list_done.get() {
            usize::MAX
        } else {
            WHOLE_MEMBER_BYTES
        };
        let end = skip_value_within(bytes, start, limit).map_err(|Unsound| unsound())?;
        let value = parse_whole(self.text, start..end, seed)?;
        self.scanner.value_ended(end);
        Ok(value)
    }
}

fn parse_whole<'de, T: DeserializeSeed<'de>>(
    text: &'de str,
    bytes: std::ops::Range<usize>,
    seed: T,
) -> Result<T::Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text.get(bytes).ok_or_else(unsound)?);
    let value = seed.deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// A list whose elements the walker takes from the parts: serde sees it empty.
struct Elided;

impl<'de> Deserializer<'de> for Elided {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_seq(Empty)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

struct Empty;

impl<'de> SeqAccess<'de> for Empty {
    type Error = serde_json::Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, _: T) -> Result<Option<T::Value>, Self::Error> {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::stream::ContainerSeed;

    /// Records events, taking split lists from the parallel parse.
    struct SplitRecorder<'a> {
        recorder: Recorder<'a>,
        cursor: Rc<Cursor>,
        settings: Settings,
        text: &'a str,
    }

    impl<'a> Walk<'a> for SplitRecorder<'a> {
        fn element(&mut self, shape: &mut Shape<'a>, pointer: &str, expect: Expect) -> Result<(), Stopped> {
            self.recorder.element(shape, pointer, expect)
        }
        fn object(&mut self, shape: &mut Shape<'a>, pointer: &str, expect: Expect) -> Result<(), Stopped> {
            self.recorder.object(shape, pointer, expect)
        }
        fn list_start(&mut self) {
            self.recorder.list_start()
        }
        fn split_list(&mut self, pointer: &str, expect: Expect) -> Option<Result<(), Stopped>> {
            let open = self.cursor.take_list()?;
            let (text, settings) = (self.text, self.settings);
            match parse_list(text, open, pointer, expect, settings, |part| replay(&mut self.recorder, part)) {
                ListOutcome::Done(end) => {
                    self.cursor.list_ended(end);
                    Some(Ok(()))
                }
                _ => Some(Err(Stopped)),
            }
        }
    }

    fn describe(events: &[Event<'_>]) -> Vec<String> {
        events
            .iter()
            .map(|e| match e {
                Event::ListStart => "list".to_string(),
                Event::Indexed(shape, index, expect) => format!("element #{index} {expect:?} {shape:?}"),
                Event::Element(shape, pointer, expect) => format!("element {pointer} {expect:?} {shape:?}"),
                Event::Object(shape, pointer, expect) => format!("object {pointer} {expect:?} {shape:?}"),
            })
            .collect()
    }

    fn one_pass(text: &str) -> Option<Vec<String>> {
        let mut recorder = Recorder::default();
        let mut de = serde_json::Deserializer::from_str(text);
        let seed = ContainerSeed {
            walk: &mut recorder,
            pointer: String::new(),
            expect: Expect::ByShape,
        };
        seed.deserialize(&mut de).ok()?;
        de.end().ok()?;
        Some(describe(&recorder.events))
    }

    fn split(text: &str, threads: usize, part_bytes: usize) -> Option<Vec<String>> {
        let cursor = Rc::new(Cursor::default());
        let settings = Settings {
            threads,
            from_bytes: 0,
            part_bytes,
        };
        let mut walk = SplitRecorder {
            recorder: Recorder::default(),
            cursor: cursor.clone(),
            settings,
            text,
        };
        let seed = ContainerSeed {
            walk: &mut walk,
            pointer: String::new(),
            expect: Expect::ByShape,
        };
        seed.deserialize(Skeleton::new(text, cursor)).ok()?;
        Some(describe(&walk.recorder.events))
    }

    const ELEMENTS: [&str; 6] = [
        r#"{"id": "p", "name": "a \"b\" [c] {d}", "notification_email": "x@example.com"}"#,
        r#"{"id": "h", "hostname": "a.example", "ssl": {"certificate_authority": "", "method": "http"}}"#,
        r#"{"result": [{"id": "n1", "origins": []}, {"id": "n2", "origins": []}], "result_info": {"count": 2}}"#,
        "{}",
        r#"{"id": "\u00e9\\", "alert_type": "load_balancing_health_alert", "mechanisms": {"email": [{"id": "a"}]}}"#,
        r#"{"zones": [{"zone_id": "z", "custom_hostnames": [{"id": "zh", "hostname": "b.example"}]}]}"#,
    ];

    proptest::proptest! {
        #[test]
        fn the_split_parse_hands_over_what_the_one_pass_parse_does(
            picks in proptest::collection::vec(0..ELEMENTS.len(), 0..40),
            envelope in proptest::bool::ANY,
            threads in 2usize..5,
            part_bytes in 1usize..400,
        ) {
            let list = picks.iter().map(|&i| ELEMENTS[i]).collect::<Vec<_>>().join(",\n ");
            let text = if envelope {
                format!(r#"{{"success": true, "result": [{list}], "result_info": {{"total_count": 9}}}}"#)
            } else {
                format!("[{list}]")
            };
            let expected = one_pass(&text).expect("the one-pass parse accepts it");
            proptest::prop_assert_eq!(split(&text, threads, part_bytes), Some(expected));
        }
    }

    proptest::proptest! {
        /// Broken documents: whatever the split parse hands over is what the
        /// one-pass parse does, and what that one rejects, it sends back.
        #[test]
        fn a_broken_document_is_never_read_otherwise(
            picks in proptest::collection::vec(0..ELEMENTS.len(), 1..12),
            at in proptest::num::usize::ANY,
            edit in proptest::sample::select(vec!["", ",", "]", "}", "[", "{", "\"", "\\", " ", "1", ":"]),
            cut in 0usize..3,
            part_bytes in 1usize..200,
        ) {
            let list = picks.iter().map(|&i| ELEMENTS[i]).collect::<Vec<_>>().join(", ");
            let mut text = format!(r#"{{"result": [{list}], "result_info": {{"total_count": 9}}}}"#);
            let mut at = at % text.len();
            while !text.is_char_boundary(at) || !text.is_char_boundary(at + cut.min(text.len() - at)) {
                at -= 1;
            }
            text.replace_range(at..at + cut.min(text.len() - at), edit);
            let expected = one_pass(&text);
            match split(&text, 2, part_bytes) {
                None => {}
                Some(events) => proptest::prop_assert_eq!(Some(events), expected, "{}", text),
            }
        }
    }

    #[test]
    fn a_large_member_not_split_sends_the_document_back_unless_a_large_list_was_done() {
        let pool = r#"{"id": "p", "origins": []}"#;
        let hostname = r#"{"id": "h", "hostname": "a.example"}"#;
        let hostnames = vec![hostname; WHOLE_MEMBER_BYTES / hostname.len() + 1].join(",");
        let zones = format!(r#"[{{"zone_id": "z", "custom_hostnames": [{hostnames}]}}]"#);
        let few_pools = format!(r#"{{"pools": [{pool}], "zones": {zones}}}"#);
        assert!(one_pass(&few_pools).is_some());
        assert_eq!(
            split(&few_pools, 2, 1000),
            None,
            "scanning zones would cost more than the pool saves"
        );
        let pools = vec![pool; WHOLE_MEMBER_BYTES / pool.len() + 1].join(",");
        let many_pools = format!(r#"{{"pools": [{pools}], "zones": {zones}}}"#);
        assert_eq!(split(&many_pools, 2, 4096), one_pass(&many_pools), "the parallel work is kept");
    }

    #[test]
    fn the_first_part_estimates_the_list_and_no_other_does() {
        let element = r#"{"id": "h", "hostname": "a.example"}"#;
        let text = format!("[{}]", vec![element; 1000].join(","));
        let settings = Settings {
            threads: 2,
            from_bytes: 0,
            part_bytes: 4096,
        };
        let (mut estimates, mut recorder) = (Vec::new(), Recorder::default());
        let outcome = parse_list(&text, 0, "", Expect::ByShape, settings, |part| {
            estimates.push(part.list_estimate);
            replay(&mut recorder, part)
        });
        assert!(matches!(outcome, ListOutcome::Done(_)), "{outcome:?}");
        assert!(estimates.len() > 2, "{estimates:?}");
        let first = estimates[0].expect("the first part estimates the list");
        assert!((1000..=1150).contains(&first), "1000 elements, estimated {first}");
        assert!(estimates[1..].iter().all(Option::is_none), "{estimates:?}");
        assert_eq!(recorder.events.len(), 1000, "every element was replayed");
    }

    #[test]
    fn a_part_that_does_not_parse_sends_the_document_back() {
        let text = r#"{"result": [{"id": "a", "origins": []}, {"id": 1}, {"id": "c", "origins": []}]}"#;
        assert!(one_pass(text).is_none());
        assert_eq!(split(text, 2, 1), None);
        let unsound = r#"[{"id": "a"} {"id": "b"}]"#;
        assert_eq!(split(unsound, 2, 1), None);
    }
}
