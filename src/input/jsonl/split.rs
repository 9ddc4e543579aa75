//! A JSON Lines text cut into parts of whole lines, so that the parts are
//! parsed on every core (`input::json::parallel`) as the array of an
//! envelope is. Each line is one element; the index counts the lines that
//! hold something, as the one-pass walk does.
//!
//! The cut needs no structural scan: a line ends at its `\n` (a string in
//! JSON cannot hold a raw newline). Whatever a part's parse does not accept
//! sends the text to the one-pass walk, which gives the error a one-thread
//! run gives.

use crate::input::json::split::{MAX_ELEMENT_BYTES, Part, Splitter, Unsound};

/// A JSON Lines text split a part at a time.
#[derive(Debug, Default)]
pub struct LineSplitter {
    /// Where the next line starts.
    at: usize,
    /// The lines that hold something so far: the next one's index.
    index: usize,
}

impl Splitter for LineSplitter {
    fn next_part(&mut self, bytes: &[u8], size: usize) -> Option<Result<Part, Unsound>> {
        let start = self.at;
        if start >= bytes.len() {
            return None;
        }
        let mut part = Part {
            first: self.index,
            elements: Vec::new(),
        };
        while self.at < bytes.len() && self.at - start < size {
            let line = self.at;
            let end = memchr::memchr(b'\n', &bytes[line..]).map_or(bytes.len(), |i| line + i);
            self.at = end + 1;
            // As the one-pass walk cuts it: without its `\n` and any `\r` before it.
            let mut record_end = end;
            while record_end > line && bytes[record_end - 1] == b'\r' {
                record_end -= 1;
            }
            let record = &bytes[line..record_end];
            // A line of ASCII blanks holds nothing. One of other blanks is
            // handed over and fails to parse: the one-pass walk, which trims
            // every Unicode blank, then decides.
            if record.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            if record.len() > MAX_ELEMENT_BYTES {
                // A huge envelope on one line: the one-pass walk streams its records.
                return Some(Err(Unsound));
            }
            part.elements.push(line..record_end);
            self.index += 1;
        }
        self.at = self.at.min(bytes.len());
        Some(Ok(part))
    }

    fn end(&self) -> Option<usize> {
        Some(self.at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(text: &str, size: usize) -> Vec<Vec<&str>> {
        let mut splitter = LineSplitter::default();
        let mut parts = Vec::new();
        let mut index = 0;
        while let Some(part) = splitter.next_part(text.as_bytes(), size) {
            let part = part.expect("sound");
            assert_eq!(part.first, index, "a part's first index counts the records before it");
            index += part.elements.len();
            parts.push(part.elements.iter().map(|r| &text[r.clone()]).collect());
        }
        parts
    }

    #[test]
    fn lines_are_cut_as_the_one_pass_walk_cuts_them() {
        let text = "{\"a\":1}\r\n\n  \t\r\n{\"b\":2}\n{\"c\":3}";
        assert_eq!(
            parts(text, 1),
            vec![vec!["{\"a\":1}"], vec![], vec![], vec!["{\"b\":2}"], vec!["{\"c\":3}"]]
        );
        assert_eq!(parts(text, 1 << 20), vec![vec!["{\"a\":1}", "{\"b\":2}", "{\"c\":3}"]]);
        assert_eq!(parts("", 1), Vec::<Vec<&str>>::new());
        assert_eq!(parts("\n\n", 100), vec![Vec::<&str>::new()]);
    }

    #[test]
    fn a_huge_line_goes_to_the_one_pass_walk() {
        let text = format!("{{\"a\":\"{}\"}}\n", "x".repeat(MAX_ELEMENT_BYTES));
        let mut splitter = LineSplitter::default();
        assert_eq!(splitter.next_part(text.as_bytes(), 1), Some(Err(Unsound)));
    }
}
