//! Source excerpts for miette without handing it the whole file: miette's own
//! `SourceCode for str` scans from the start of the text for every report,
//! and a minified export is one line of a gigabyte. This reads a small window
//! around the finding, positioned from the finding's known line and column.

use std::sync::Arc;

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

/// Bytes of one line shown on either side of the span, at most.
const LINE_CAP: usize = 160;
/// Bytes of the span itself that are underlined, at most.
pub const LABEL_CAP: usize = 120;

pub struct Snippet {
    pub name: String,
    pub text: Arc<String>,
    /// The finding's byte offset, and its 0-based line and column.
    pub anchor: usize,
    pub anchor_line: usize,
    pub anchor_column: usize,
}

impl Snippet {
    fn floor(&self, mut i: usize) -> usize {
        while i > 0 && !self.text.is_char_boundary(i) {
            i -= 1;
        }
        i
    }

    fn ceil(&self, mut i: usize) -> usize {
        let len = self.text.len();
        while i < len && !self.text.is_char_boundary(i) {
            i += 1;
        }
        i.min(len)
    }

    /// Start of the line holding `i`, or `LINE_CAP` bytes back on a long line.
    fn line_start(&self, i: usize) -> usize {
        let bytes = self.text.as_bytes();
        let limit = i.saturating_sub(LINE_CAP);
        let mut j = i;
        while j > limit && bytes[j - 1] != b'\n' {
            j -= 1;
        }
        self.ceil(j)
    }

    /// End of the line holding `i` (before its newline), or `LINE_CAP` on.
    fn line_end(&self, i: usize) -> usize {
        let bytes = self.text.as_bytes();
        let limit = (i + LINE_CAP).min(bytes.len());
        let mut j = i;
        while j < limit && bytes[j] != b'\n' {
            j += 1;
        }
        self.floor(j)
    }
}

impl SourceCode for Snippet {
    fn read_span<'a>(&'a self, span: &SourceSpan, before: usize, after: usize) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let len = self.text.len();
        let span_start = span.offset().min(len);
        let span_end = (span.offset() + span.len()).min(len);
        if span_start > self.anchor {
            return Err(MietteError::OutOfBounds);
        }
        let mut start = if before == 0 { span_start } else { self.line_start(span_start) };
        for _ in 0..before {
            if start == 0 || self.text.as_bytes()[start - 1] != b'\n' {
                break;
            }
            start = self.line_start(start - 1);
        }
        let mut end = self.line_end(span_end);
        for _ in 0..after {
            if end >= len || self.text.as_bytes()[end] != b'\n' {
                break;
            }
            end = self.line_end(end + 1);
        }
        let between = &self.text[start..self.anchor];
        let newlines = between.bytes().filter(|&b| b == b'\n').count();
        let line = self.anchor_line.saturating_sub(newlines);
        let column = if newlines == 0 {
            self.anchor_column.saturating_sub(between.chars().count())
        } else {
            0
        };
        let data = &self.text.as_bytes()[start..end];
        let line_count = data.iter().filter(|&&b| b == b'\n').count();
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            data,
            (start, end - start).into(),
            line,
            column,
            line_count,
        )))
    }
}
