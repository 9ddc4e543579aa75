//! Byte offsets to 1-based line and column (columns count Unicode code points).
//!
//! Exports are often minified: a 1 GB file can be one line, so counting the
//! column of each finding from its line start would rescan the file per
//! finding. `positions_of_offsets` resolves all offsets of a file in a single
//! forward pass instead; `positions_of_offsets_on` in one pass a stretch, the
//! stretches on separate threads, their counts joined in order afterwards.

/// Line and column of one offset (a single pass up to the offset; for errors).
pub fn position_of_offset(text: &str, offset: usize) -> (usize, usize) {
    positions_of_offsets(text, &[offset])[0]
}

/// Line and column of every offset, in one forward pass over the text.
/// The offsets may come in any order; the result is in the same order.
pub fn positions_of_offsets(text: &str, offsets: &[usize]) -> Vec<(usize, usize)> {
    positions_of_offsets_on(text, offsets, 1, |_| |_| {})
}

/// [`positions_of_offsets`] on up to `threads` threads, each passing over
/// its own stretch of the text (`passed` is made once a stretch and told
/// how far that stretch's pass has read). The result is the one pass's.
pub fn positions_of_offsets_on<P: FnMut(usize)>(
    text: &str,
    offsets: &[usize],
    threads: usize,
    passed: impl Fn(usize) -> P + Sync,
) -> Vec<(usize, usize)> {
    let order = sorted_order(text, offsets);
    let bytes = text.as_bytes();
    // Stretches of about equally many offsets; a stretch starts where the
    // one before it ended, and its pass knows nothing of what came before.
    let per = order.len().div_ceil(threads.max(1)).max(1);
    let stretches: Vec<(usize, &[(usize, usize)])> = order
        .chunks(per)
        .scan(0, |from, chunk| {
            let stretch = (*from, chunk);
            *from = chunk.last().map_or(*from, |&(_, at)| at);
            Some(stretch)
        })
        .collect();
    let scanned = crate::threads::ordered_map(&stretches, threads, |&(from, chunk)| {
        let mut partials = Vec::with_capacity(chunk.len());
        let to_end = scan(bytes, from, chunk, passed(from), |p| partials.push(p));
        (partials, to_end)
    });
    let mut out = vec![(1, 1); offsets.len()];
    let mut before = Partial::START;
    for ((_, chunk), (partials, to_end)) in stretches.iter().zip(scanned) {
        for (&(i, _), p) in chunk.iter().zip(partials) {
            out[i] = before.then(p).position();
        }
        before = before.then(to_end);
    }
    out
}

/// The offsets' indexes with the offsets (clamped to the text), by offset.
fn sorted_order(text: &str, offsets: &[usize]) -> Vec<(usize, usize)> {
    let mut order: Vec<(usize, usize)> = offsets.iter().map(|&at| at.min(text.len())).enumerate().collect();
    order.sort_unstable_by_key(|&(_, at)| at);
    order
}

/// What a pass over a stretch of text learns: how many lines ended in it,
/// and the code points after the last line end (or, when none ended, the
/// stretch's own code points, to be added to the column it started in).
/// Passes over consecutive stretches compose with [`Partial::then`], so
/// stretches can be passed over on separate threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Partial {
    lines_ended: usize,
    chars: usize,
    line_ended: bool,
}

impl Partial {
    /// Before the first byte: line 1, nothing before it on its line.
    const START: Partial = Partial {
        lines_ended: 0,
        chars: 0,
        line_ended: true,
    };

    /// This stretch followed by `next`.
    fn then(self, next: Partial) -> Partial {
        Partial {
            lines_ended: self.lines_ended + next.lines_ended,
            chars: if next.line_ended { next.chars } else { self.chars + next.chars },
            line_ended: self.line_ended || next.line_ended,
        }
    }

    /// 1-based line and column, for a pass from the text's start.
    fn position(self) -> (usize, usize) {
        (self.lines_ended + 1, self.chars + 1)
    }
}

/// What a pass over a stretch of text learnt of its lines and code points,
/// for a caller that passes over a file in its own steps (the JSON locating
/// threads, record by record: `check.rs`); stretches join in order with
/// [`Counted::then`], from [`Counted::FILE_START`] for a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counted(Partial);

impl Counted {
    /// Before the text's first byte.
    pub const FILE_START: Counted = Counted(Partial::START);
    /// An empty stretch.
    pub const NOTHING: Counted = Counted(Partial {
        lines_ended: 0,
        chars: 0,
        line_ended: false,
    });

    /// What `bytes[from..to]` holds (`bytes` the whole text, so that a CR
    /// at the stretch's end is judged by the byte after it).
    pub fn of(bytes: &[u8], from: usize, to: usize) -> Counted {
        let to = to.min(bytes.len());
        Counted(segment(bytes, from.min(to), to))
    }

    /// This stretch followed by `next`.
    pub fn then(self, next: Counted) -> Counted {
        Counted(self.0.then(next.0))
    }

    /// 1-based line and column, for stretches joined from [`Counted::FILE_START`].
    pub fn position(self) -> (usize, usize) {
        self.0.position()
    }
}

/// Passes from `from` over each of the sorted `targets` in turn, giving
/// `each` what was learnt from `from` to that target; returns what was
/// learnt from `from` to the last target.
fn scan(bytes: &[u8], from: usize, targets: &[(usize, usize)], mut passed: impl FnMut(usize), mut each: impl FnMut(Partial)) -> Partial {
    let mut learnt = Partial {
        line_ended: false,
        ..Partial::START
    };
    let mut cursor = from;
    for &(_, target) in targets {
        learnt = learnt.then(segment(bytes, cursor, target));
        cursor = target;
        passed(cursor);
        each(learnt);
    }
    learnt
}

/// What `bytes[from..to]` holds of line ends and code points.
fn segment(bytes: &[u8], from: usize, to: usize) -> Partial {
    let segment = &bytes[from..to];
    // Line ends are LF, CRLF and a lone CR (old Mac files): a CR is one
    // unless an LF follows it, which then ends the line instead. Without a
    // CR, the line ends are counted in bulk.
    if memchr::memchr(b'\r', segment).is_none() {
        return match memchr::memrchr(b'\n', segment) {
            None => Partial {
                lines_ended: 0,
                chars: count_chars(segment),
                line_ended: false,
            },
            Some(last) => Partial {
                lines_ended: count_byte(segment, b'\n'),
                chars: count_chars(&segment[last + 1..]),
                line_ended: true,
            },
        };
    }
    let mut lines_ended = 0;
    let mut line_start = None;
    for j in memchr::memchr2_iter(b'\n', b'\r', segment) {
        let at = from + j;
        if bytes[at] == b'\r' && bytes.get(at + 1) == Some(&b'\n') {
            continue;
        }
        lines_ended += 1;
        line_start = Some(at + 1);
    }
    match line_start {
        Some(start) => Partial {
            lines_ended,
            chars: count_chars(&bytes[start.min(to)..to]),
            line_ended: true,
        },
        None => Partial {
            lines_ended: 0,
            chars: count_chars(segment),
            line_ended: false,
        },
    }
}

/// How many times `byte` occurs (with AVX2 where the CPU has it: on a
/// one-line export every byte before the last finding is counted).
fn count_byte(bytes: &[u8], byte: u8) -> usize {
    bytecount::count(bytes, byte)
}

/// Byte offset of a 1-based line and a 1-based byte column, as serde_json
/// reports them (it counts LF only); clamped to the text.
pub fn offset_of_line_byte_column(text: &str, line: usize, byte_column: usize) -> usize {
    let mut start = 0usize;
    if line > 1 {
        let mut seen = 1;
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                seen += 1;
                if seen == line {
                    start = i + 1;
                    break;
                }
            }
        }
        if seen < line {
            return text.len();
        }
    }
    let mut offset = (start + byte_column.saturating_sub(1)).min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// Byte offset where a 1-based line starts, with LF, CRLF and a lone CR all
/// ending lines, as YAML parsers count them; the text's end past the last.
pub fn offset_of_line(text: &str, line: usize) -> usize {
    let bytes = text.as_bytes();
    let mut seen = 1;
    for j in memchr::memchr2_iter(b'\n', b'\r', bytes) {
        if seen >= line {
            break;
        }
        if bytes[j] == b'\r' && bytes.get(j + 1) == Some(&b'\n') {
            continue;
        }
        seen += 1;
        if seen == line {
            return j + 1;
        }
    }
    if line <= 1 { 0 } else { text.len() }
}

/// Code points: the bytes that are not UTF-8 continuation bytes
/// (`0b10xx_xxxx`), counted as [`count_byte`] counts.
fn count_chars(bytes: &[u8]) -> usize {
    bytecount::num_chars(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_character_is_line_one_column_one() {
        assert_eq!(position_of_offset("abc", 0), (1, 1));
    }

    #[test]
    fn columns_count_code_points_not_bytes() {
        let text = "é\"x\"";
        // 'é' is two bytes; the quote after it is the second character.
        assert_eq!(position_of_offset(text, 2), (1, 2));
    }

    #[test]
    fn offsets_in_any_order_resolve_in_one_pass() {
        let text = "a\nbc\n\ndé f";
        let offsets = [9, 0, 3, 5, 6];
        assert_eq!(positions_of_offsets(text, &offsets), vec![(4, 3), (1, 1), (2, 2), (3, 1), (4, 1)]);
    }

    #[test]
    fn code_points_are_counted_across_word_boundaries() {
        for text in [
            "",
            "abc",
            "héllo wörld, ✓ 🙂 and more text past eight bytes",
            "🙂🙂🙂🙂🙂",
            "aé✓🙂aé✓🙂aé✓🙂x",
        ] {
            assert_eq!(count_chars(text.as_bytes()), text.chars().count(), "{text}");
        }
    }

    #[test]
    fn lone_carriage_returns_end_lines_and_crlf_counts_once() {
        let text = "a\rbc\r\nd\ne";
        let offsets = [0, 2, 3, 6, 8];
        assert_eq!(positions_of_offsets(text, &offsets), vec![(1, 1), (2, 1), (2, 2), (3, 1), (4, 1)]);
        // An offset between CR and LF is still on the CR's line.
        assert_eq!(position_of_offset(text, 5), (2, 4));
    }

    #[test]
    fn line_starts_with_every_kind_of_line_end() {
        let text = "a\rbc\r\nd\ne";
        assert_eq!([1, 2, 3, 4, 5].map(|l| offset_of_line(text, l)), [0, 2, 6, 8, text.len()]);
    }

    /// Line and column the slow way: every char from the start.
    fn naive(text: &str, offset: usize) -> (usize, usize) {
        let (mut line, mut column) = (1, 1);
        let bytes = text.as_bytes();
        for (at, c) in text.char_indices() {
            if at >= offset {
                break;
            }
            let ends_line = c == '\n' || (c == '\r' && bytes.get(at + 1) != Some(&b'\n'));
            (line, column) = if ends_line { (line + 1, 1) } else { (line, column + 1) };
        }
        (line, column)
    }

    proptest::proptest! {
        #[test]
        fn stretches_on_threads_resolve_as_one_pass_and_as_counted_by_hand(
            pieces in proptest::collection::vec(proptest::sample::select(vec!["a", "é", "🙂", "\n", "\r", "\r\n", "\n\n", "{\"x\": 1}"]), 0..120),
            picks in proptest::collection::vec(0usize..1000, 0..40),
            threads in 1usize..6,
        ) {
            let text: String = pieces.concat();
            let boundaries: Vec<usize> = (0..=text.len()).filter(|&i| text.is_char_boundary(i)).collect();
            let mut offsets: Vec<usize> = picks.iter().map(|&p| boundaries[p % boundaries.len()]).collect();
            offsets.push(text.len() + 7);
            let expected: Vec<(usize, usize)> = offsets.iter().map(|&o| naive(&text, o)).collect();
            proptest::prop_assert_eq!(&positions_of_offsets(&text, &offsets), &expected);
            let passed = std::sync::Mutex::new(Vec::new());
            let on = positions_of_offsets_on(&text, &offsets, threads, |from| {
                let passed = &passed;
                move |at: usize| passed.lock().unwrap().push((from, at))
            });
            proptest::prop_assert_eq!(&on, &expected);
            // Every stretch's pass moved forward from where it started.
            proptest::prop_assert!(passed.lock().unwrap().iter().all(|&(from, at)| from <= at));
        }

        #[test]
        fn stretches_counted_apart_and_joined_give_the_one_pass_position(
            pieces in proptest::collection::vec(proptest::sample::select(vec!["a", "é", "🙂", "\n", "\r", "\r\n", "\n\n", "{\"x\": 1}"]), 0..120),
            picks in proptest::collection::vec(0usize..1000, 1..12),
        ) {
            // The text cut at arbitrary character boundaries (as the locating
            // threads cut it at records and fields), each stretch counted on
            // its own and joined in order from the start.
            let text: String = pieces.concat();
            let boundaries: Vec<usize> = (0..=text.len()).filter(|&i| text.is_char_boundary(i)).collect();
            let mut cuts: Vec<usize> = picks.iter().map(|&p| boundaries[p % boundaries.len()]).collect();
            cuts.sort_unstable();
            let mut joined = Counted::FILE_START;
            let mut from = 0;
            for &cut in &cuts {
                joined = joined.then(Counted::of(text.as_bytes(), from, cut)).then(Counted::NOTHING);
                from = cut;
                proptest::prop_assert_eq!(joined.position(), naive(&text, cut));
            }
        }
    }

    #[test]
    fn line_ends_are_counted_in_bulk_across_runs_of_255_bytes() {
        let text = "x\n".repeat(1000) + "tail";
        assert_eq!(count_byte(text.as_bytes(), b'\n'), 1000);
        assert_eq!(position_of_offset(&text, text.len()), (1001, 5));
        assert_eq!(
            positions_of_offsets_on(&text, &[text.len(), 1, 1001], 2, |_| |_| {}),
            [(1001, 5), (1, 2), (501, 2)]
        );
    }

    #[test]
    fn offset_past_the_end_is_clamped() {
        assert_eq!(position_of_offset("ab\n", 99), (2, 1));
    }

    #[test]
    fn line_and_byte_column_back_to_offset() {
        let text = "ab\ncdé\nx";
        assert_eq!(offset_of_line_byte_column(text, 2, 3), 5);
        assert_eq!(offset_of_line_byte_column(text, 3, 1), 8);
        assert_eq!(offset_of_line_byte_column(text, 9, 1), text.len());
        assert_eq!(offset_of_line_byte_column(text, 1, 0), 0);
    }
}
