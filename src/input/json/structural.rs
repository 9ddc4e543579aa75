//! Where a JSON object or array ends, found 64 bytes at a time: the
//! structural scan (`split.rs`) runs on one thread ahead of the parsing
//! threads, so its speed bounds theirs.
//!
//! Each block is classified into bitmasks (quotes, backslashes, opening and
//! closing brackets; on x86_64 with AVX2 where the CPU has it, else SSE2).
//! Without a backslash in the block, which bytes are inside strings follows
//! from the quotes alone (a running XOR of the quote bits, one carry-less
//! multiply with AVX2), and the brackets outside strings are counted; only a
//! block that may close the container or pass a limit has its brackets
//! followed one bit at a time. A block with a backslash, or after one that
//! ended in an escape, is read a byte at a time, as is the tail shorter than
//! a block. Every way gives the same answer: tests compare them on arbitrary
//! bytes.
//!
//! Where a string ends ([`string_end`]) is found here too, for the
//! splitter's member keys and the locator.

// One of the few modules allowed `unsafe` (Cargo.toml denies it elsewhere):
// SSE2 intrinsics (x86_64 only). Each block says why it is sound.
#![allow(unsafe_code)]

/// The structure is not plainly sound here: parse the document in one pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unsound;

const BLOCK: usize = 64;

/// The offset past the object or array whose opening bracket is at `start`,
/// or [`Unsound`] when it is not closed, nests deeper than `max_depth`, or
/// has an opening bracket more than `limit` bytes after `start`. Strings are
/// skipped (escapes respected); nothing is validated.
pub fn container_end(bytes: &[u8], start: usize, limit: usize, max_depth: usize) -> Result<usize, Unsound> {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("popcnt") && std::is_x86_feature_detected!("pclmulqdq") {
        // SAFETY: the CPU has AVX2, POPCNT and PCLMULQDQ (detected just now,
        // and cached by std after the first call).
        return unsafe { container_end_avx2(bytes, start, limit, max_depth) };
    }
    scan_blocks(bytes, start, limit, max_depth, classify, prefix_xor)
}

/// [`container_end`] with 32-byte lanes, a popcount instruction and a
/// carry-less multiply for the running XOR: the scan runs ahead of every
/// parsing thread, so its speed bounds theirs.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt,pclmulqdq")]
fn container_end_avx2(bytes: &[u8], start: usize, limit: usize, max_depth: usize) -> Result<usize, Unsound> {
    scan_blocks(
        bytes,
        start,
        limit,
        max_depth,
        |block| classify_avx2(block),
        |quotes| prefix_xor_clmul(quotes),
    )
}

/// The scan, with the classification of its blocks; inlined into each
/// caller so that the classification is compiled with the caller's
/// instructions.
#[inline(always)]
fn scan_blocks(
    bytes: &[u8],
    start: usize,
    limit: usize,
    max_depth: usize,
    classify: impl Fn(&[u8; BLOCK]) -> Masks,
    prefix_xor: impl Fn(u64) -> u64,
) -> Result<usize, Unsound> {
    let mut scan = Scan::new(start, limit, max_depth);
    let rest = bytes.get(start..).ok_or(Unsound)?;
    let (blocks, tail) = rest.as_chunks::<BLOCK>();
    let mut at = start;
    for block in blocks {
        let masks = classify(block);
        let found = if masks.backslash == 0 && !scan.escaped {
            scan.block(&masks, prefix_xor(masks.quote), at)?
        } else {
            scan.bytes(block, at)?
        };
        if let Some(end) = found {
            return Ok(end);
        }
        at += BLOCK;
    }
    scan.bytes(tail, at)?.ok_or(Unsound)
}

/// One past the closing quote of the string starting at `pos`, `None` when
/// it is not closed. It jumps from quote or backslash to the next (memchr):
/// byte by byte, skipping the strings before a finding's field was the
/// largest single cost of locating. The splitter (member keys)
/// and the locator share it.
pub fn string_end(bytes: &[u8], pos: usize) -> Option<usize> {
    let mut p = pos + 1;
    loop {
        let rest = bytes.get(p..)?;
        let j = memchr::memchr2(b'"', b'\\', rest)?;
        match rest[j] {
            b'"' => return Some(p + j + 1),
            // An escape: the byte after the backslash is never the end.
            _ => p += j + 2,
        }
    }
}

struct Scan {
    depth: usize,
    in_string: bool,
    /// The byte before was a backslash inside a string.
    escaped: bool,
    start: usize,
    limit: usize,
    max_depth: usize,
}

impl Scan {
    fn new(start: usize, limit: usize, max_depth: usize) -> Scan {
        Scan {
            depth: 0,
            in_string: false,
            escaped: false,
            start,
            limit,
            max_depth,
        }
    }

    fn open(&mut self, at: usize) -> Result<(), Unsound> {
        self.depth += 1;
        if self.depth > self.max_depth || at - self.start > self.limit {
            return Err(Unsound);
        }
        Ok(())
    }

    /// Whether the container ends with the closing bracket at `at`.
    fn close(&mut self) -> Result<bool, Unsound> {
        self.depth = self.depth.checked_sub(1).ok_or(Unsound)?;
        Ok(self.depth == 0)
    }

    /// A block without backslashes, whose first byte is at `at`.
    /// `quoted` is the running XOR of the block's quotes ([`prefix_xor`]).
    fn block(&mut self, masks: &Masks, quoted: u64, at: usize) -> Result<Option<usize>, Unsound> {
        // Bit i set: byte i is inside a string (its opening quote included).
        let mut inside = quoted;
        if self.in_string {
            inside = !inside;
        }
        self.in_string = inside >> (BLOCK - 1) & 1 == 1;
        let (open, close) = (masks.open & !inside, masks.close & !inside);
        // Most blocks of a record neither close it nor come near a limit:
        // their brackets are counted, not followed one by one. (Every
        // opening bracket here is less than a block past `at`.)
        let (opens, closes) = (open.count_ones() as usize, close.count_ones() as usize);
        if closes < self.depth && self.depth + opens <= self.max_depth && at + BLOCK - self.start <= self.limit {
            self.depth = self.depth + opens - closes;
            return Ok(None);
        }
        let mut brackets = open | close;
        while brackets != 0 {
            let bit = brackets.trailing_zeros();
            brackets &= brackets - 1;
            let here = at + bit as usize;
            if masks.open >> bit & 1 == 1 {
                self.open(here)?;
            } else if self.close()? {
                return Ok(Some(here + 1));
            }
        }
        Ok(None)
    }

    /// Any bytes, one at a time, the first at `at`.
    fn bytes(&mut self, bytes: &[u8], at: usize) -> Result<Option<usize>, Unsound> {
        for (k, &b) in bytes.iter().enumerate() {
            if self.escaped {
                self.escaped = false;
            } else if self.in_string {
                match b {
                    b'"' => self.in_string = false,
                    b'\\' => self.escaped = true,
                    _ => {}
                }
            } else {
                match b {
                    b'"' => self.in_string = true,
                    b'{' | b'[' => self.open(at + k)?,
                    b'}' | b']' if self.close()? => return Ok(Some(at + k + 1)),
                    _ => {}
                }
            }
        }
        Ok(None)
    }
}

/// Bit i of each mask is byte i of a block.
#[derive(Debug, Default, PartialEq, Eq)]
struct Masks {
    quote: u64,
    backslash: u64,
    open: u64,
    close: u64,
}

impl Masks {
    /// One lane's quote, backslash, opening and closing bits, for the bytes
    /// from `shift` on: the SSE2 and AVX2 classifiers differ only in their
    /// lanes' width.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn add_lane(&mut self, shift: usize, [quote, backslash, open, close]: [u64; 4]) {
        self.quote |= quote << shift;
        self.backslash |= backslash << shift;
        self.open |= open << shift;
        self.close |= close << shift;
    }

    #[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
    fn one_at_a_time(block: &[u8; BLOCK]) -> Masks {
        let mut masks = Masks::default();
        for (i, &b) in block.iter().enumerate() {
            let bit = 1u64 << i;
            match b {
                b'"' => masks.quote |= bit,
                b'\\' => masks.backslash |= bit,
                b'{' | b'[' => masks.open |= bit,
                b'}' | b']' => masks.close |= bit,
                _ => {}
            }
        }
        masks
    }
}

#[cfg(target_arch = "x86_64")]
fn classify(block: &[u8; BLOCK]) -> Masks {
    // SAFETY: SSE2 is part of every x86_64 target, so its instructions are
    // always there.
    unsafe { classify_sse2(block) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn classify_sse2(block: &[u8; BLOCK]) -> Masks {
    use std::arch::x86_64::{__m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8};
    let mut masks = Masks::default();
    for (k, lane) in block.chunks_exact(16).enumerate() {
        // SAFETY: `lane` is 16 readable bytes, and an unaligned load may
        // read from any address.
        let v = unsafe { _mm_loadu_si128(lane.as_ptr().cast::<__m128i>()) };
        // `[` and `{` differ in bit 5 only, as do `]` and `}`: one compare each.
        let folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
        let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        let open = _mm_cmpeq_epi8(folded, _mm_set1_epi8(b'{' as i8));
        let close = _mm_cmpeq_epi8(folded, _mm_set1_epi8(b'}' as i8));
        let lane = |m: __m128i| u64::from(_mm_movemask_epi8(m) as u16);
        masks.add_lane(16 * k, [lane(quote), lane(backslash), lane(open), lane(close)]);
    }
    masks
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn classify_avx2(block: &[u8; BLOCK]) -> Masks {
    use std::arch::x86_64::{__m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8};
    let mut masks = Masks::default();
    for (k, lane) in block.chunks_exact(32).enumerate() {
        // SAFETY: `lane` is 32 readable bytes, and an unaligned load may
        // read from any address.
        let v = unsafe { _mm256_loadu_si256(lane.as_ptr().cast::<__m256i>()) };
        let folded = _mm256_or_si256(v, _mm256_set1_epi8(0x20));
        let quote = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'"' as i8));
        let backslash = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\\' as i8));
        let open = _mm256_cmpeq_epi8(folded, _mm256_set1_epi8(b'{' as i8));
        let close = _mm256_cmpeq_epi8(folded, _mm256_set1_epi8(b'}' as i8));
        let lane = |m: __m256i| u64::from(_mm256_movemask_epi8(m) as u32);
        masks.add_lane(32 * k, [lane(quote), lane(backslash), lane(open), lane(close)]);
    }
    masks
}

#[cfg(not(target_arch = "x86_64"))]
fn classify(block: &[u8; BLOCK]) -> Masks {
    Masks::one_at_a_time(block)
}

/// [`prefix_xor`] in one instruction: `x` times all ones, carry-less.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "pclmulqdq")]
fn prefix_xor_clmul(x: u64) -> u64 {
    use std::arch::x86_64::{_mm_clmulepi64_si128, _mm_cvtsi128_si64, _mm_set_epi64x, _mm_set1_epi8};
    let product = _mm_clmulepi64_si128(_mm_set_epi64x(0, x as i64), _mm_set1_epi8(-1), 0);
    _mm_cvtsi128_si64(product) as u64
}

/// Bit i of the result is the XOR of bits 0..=i of `x`.
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_string_ends_at_its_first_unescaped_quote() {
        let cases: [(&str, Option<usize>); 7] = [
            (r#""""#, Some(2)),
            (r#""abc" , "d""#, Some(5)),
            (r#""a\"b""#, Some(6)),
            (r#""a\\" "#, Some(5)),
            (r#""\\\"" x"#, Some(6)),
            (r#""unclosed"#, None),
            // A backslash as the last byte escapes nothing that is there.
            (r#""ab\"#, None),
        ];
        for (text, end) in cases {
            assert_eq!(string_end(text.as_bytes(), 0), end, "{text}");
        }
        // From a string further in, as the locator calls it.
        let text = r#"{"k": "v\"w", "n": 1}"#;
        assert_eq!(string_end(text.as_bytes(), 6), Some(12));
    }

    /// The same scan, a byte at a time all the way.
    fn one_byte_at_a_time(bytes: &[u8], start: usize, limit: usize, max_depth: usize) -> Result<usize, Unsound> {
        let mut scan = Scan::new(start, limit, max_depth);
        scan.bytes(bytes.get(start..).ok_or(Unsound)?, start)?.ok_or(Unsound)
    }

    /// Bytes that matter to the scan, and some that do not; with escapes or
    /// without (a block holding a backslash is read a byte at a time, so
    /// only texts without one take the block path throughout).
    fn json_ish() -> impl Strategy<Value = Vec<u8>> {
        // Mostly balanced pieces, so that containers often run past a block.
        let plain = vec![
            "{",
            "}",
            "[",
            "]",
            "\"",
            ",",
            ":",
            "a",
            "é",
            "  ",
            "\"k\": ",
            "{\"a\": [1, {}]}",
            "\"x{[y\"",
            "[1, \"]}\", 2]",
            "\"a string of some length, ] } [ {\"",
            "{\"k\": \"v\"}",
            "[[], {}]",
        ];
        let mut escaped = plain.clone();
        escaped.extend(["\\", "\\\"", "\\\\"]);
        prop_oneof![Just(plain), Just(escaped)]
            .prop_flat_map(|pieces| prop::collection::vec(prop::sample::select(pieces), 0..200).prop_map(|p| p.concat().into_bytes()))
    }

    proptest! {
        #[test]
        fn blocks_end_where_bytes_one_at_a_time_end(
            body in json_ish(),
            padding in 0usize..70,
            limit in prop::sample::select(vec![usize::MAX, 40, 150]),
            max_depth in prop::sample::select(vec![100usize, 3]),
        ) {
            // Blocks are counted from the opening bracket: blanks after it
            // move the body to every offset within a block. Some are closed.
            let mut bytes = b"  {".to_vec();
            bytes.extend(std::iter::repeat_n(b' ', padding));
            bytes.extend_from_slice(&body);
            bytes.extend_from_slice(b"}]} tail");
            prop_assert_eq!(
                container_end(&bytes, 2, limit, max_depth),
                one_byte_at_a_time(&bytes, 2, limit, max_depth)
            );
        }

        #[test]
        fn the_portable_blocks_end_where_bytes_one_at_a_time_end(
            body in json_ish(),
            padding in 0usize..70,
            limit in prop::sample::select(vec![usize::MAX, 40, 150]),
            max_depth in prop::sample::select(vec![100usize, 3]),
        ) {
            // `container_end` takes the AVX2 scan where the CPU has it: the
            // SSE2 one is held to the same answers here.
            let mut bytes = b"  {".to_vec();
            bytes.extend(std::iter::repeat_n(b' ', padding));
            bytes.extend_from_slice(&body);
            bytes.extend_from_slice(b"}]} tail");
            prop_assert_eq!(
                scan_blocks(&bytes, 2, limit, max_depth, classify, prefix_xor),
                one_byte_at_a_time(&bytes, 2, limit, max_depth)
            );
        }

        #[test]
        fn a_block_is_classified_as_byte_by_byte(
            block in prop::collection::vec(
                prop_oneof![prop::sample::select(b"\"\\{}[]a \xff".to_vec()), any::<u8>()],
                BLOCK,
            )
        ) {
            let block: [u8; BLOCK] = block.try_into().unwrap();
            prop_assert_eq!(classify(&block), Masks::one_at_a_time(&block));
            #[cfg(target_arch = "x86_64")]
            if std::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2 (detected just now).
                prop_assert_eq!(unsafe { classify_avx2(&block) }, Masks::one_at_a_time(&block));
            }
        }
    }

    #[test]
    fn brackets_in_strings_and_after_escaped_quotes_are_not_counted() {
        let long = "x".repeat(100);
        let text = format!(r#"{{"a": "}}]{long}", "b\"}}": [{{"c": "\\"}}], "d": "{long}"}} rest"#);
        let end = text.find(" rest").unwrap();
        assert_eq!(container_end(text.as_bytes(), 0, usize::MAX, 100), Ok(end));
        assert_eq!(container_end(b"{\"unclosed\": [", 0, usize::MAX, 100), Err(Unsound));
        assert_eq!(container_end(text.as_bytes(), 0, usize::MAX, 1), Err(Unsound));
    }

    proptest! {
        #[test]
        fn the_carry_less_running_xor_is_the_running_xor(x in any::<u64>()) {
            #[cfg(target_arch = "x86_64")]
            if std::is_x86_feature_detected!("pclmulqdq") {
                // SAFETY: the CPU has PCLMULQDQ (detected just now).
                prop_assert_eq!(unsafe { prefix_xor_clmul(x) }, prefix_xor(x));
            }
        }
    }

    #[test]
    fn running_xor_marks_the_inside_of_strings() {
        // Quotes at bits 1, 4 and 7: inside from 1 to 3, and from 7 on.
        assert_eq!(prefix_xor(0b1001_0010), (u64::MAX << 7) | 0b1110);
    }
}
