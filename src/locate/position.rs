//! Byte offsets to 1-based line and column (columns count Unicode code points).
//!
//! Exports are often minified: a 1 GB file can be one line, so counting the
//! column of each finding from its line start would rescan the file per
//! finding. `positions_of_offsets` resolves all offsets of a file in a single
//! forward pass instead.

/// Line and column of one offset (a single pass up to the offset; for errors).
pub fn position_of_offset(text: &str, offset: usize) -> (usize, usize) {
    positions_of_offsets(text, &[offset], |_| {})[0]
}

/// Line and column of every offset, in one forward pass over the text.
/// The offsets may come in any order; the result is in the same order.
/// `passed` is told how far the pass has read, as it goes.
pub fn positions_of_offsets(text: &str, offsets: &[usize], mut passed: impl FnMut(usize)) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut order: Vec<usize> = (0..offsets.len()).collect();
    order.sort_unstable_by_key(|&i| offsets[i]);
    let mut out = vec![(1, 1); offsets.len()];
    let (mut line, mut cursor) = (1usize, 0usize);
    // Code points between line_start and cursor.
    let mut column_chars = 0usize;
    for i in order {
        let target = offsets[i].min(bytes.len());
        let segment = &bytes[cursor..target];
        // Line ends are LF, CRLF and a lone CR (old Mac files): a CR is one
        // unless an LF follows it, which then ends the line instead.
        let mut line_start = None;
        for j in memchr::memchr2_iter(b'\n', b'\r', segment) {
            let at = cursor + j;
            if bytes[at] == b'\r' && bytes.get(at + 1) == Some(&b'\n') {
                continue;
            }
            line += 1;
            line_start = Some(at + 1);
        }
        match line_start {
            Some(start) => column_chars = count_chars(&bytes[start.min(target)..target]),
            None => column_chars += count_chars(segment),
        }
        cursor = target;
        passed(cursor);
        out[i] = (line, column_chars + 1);
    }
    out
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

fn count_chars(bytes: &[u8]) -> usize {
    // A UTF-8 continuation byte is 0b10xx_xxxx; every other byte starts a
    // char. Eight bytes at a time: bit 7 set and bit 6 clear, per byte.
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut chunks = bytes.chunks_exact(8);
    let mut continuation = 0usize;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        continuation += (w & HIGH & !(w << 1)).count_ones() as usize;
    }
    continuation += chunks.remainder().iter().filter(|&&b| b & 0xC0 == 0x80).count();
    bytes.len() - continuation
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
        assert_eq!(
            positions_of_offsets(text, &offsets, |_| {}),
            vec![(4, 3), (1, 1), (2, 2), (3, 1), (4, 1)]
        );
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
        assert_eq!(
            positions_of_offsets(text, &offsets, |_| {}),
            vec![(1, 1), (2, 1), (2, 2), (3, 1), (4, 1)]
        );
        // An offset between CR and LF is still on the CR's line.
        assert_eq!(position_of_offset(text, 5), (2, 4));
    }

    #[test]
    fn line_starts_with_every_kind_of_line_end() {
        let text = "a\rbc\r\nd\ne";
        assert_eq!([1, 2, 3, 4, 5].map(|l| offset_of_line(text, l)), [0, 2, 6, 8, text.len()]);
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
