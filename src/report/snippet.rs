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
    pub text: Arc<crate::text::mapped::Text>,
    /// The finding's byte offset, and its 0-based line and column.
    pub anchor: usize,
    pub anchor_line: usize,
    pub anchor_column: usize,
    /// Where the anchor's line is cut short (a PEM value is shown as its
    /// first line, not a wall of base64).
    pub cut: Option<usize>,
}

/// Where to cut the line of a PEM value that starts at `start`: after its
/// first line (`-----BEGIN CERTIFICATE-----`), whether it is a JSON string
/// with `\n` escapes, a YAML scalar or a YAML block (`|`) whose first line
/// comes next. `None` when the value is no PEM.
pub fn pem_first_line(text: &str, start: usize) -> Option<usize> {
    let rest = text.get(start..)?;
    let head = rest.get(..rest.len().min(200))?;
    let (pem, at) = if let Some(block) = head.strip_prefix(['|', '>']) {
        let newline = block.find('\n')?;
        let line = &block[newline + 1..];
        let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
        (&line[indent..], start + 1 + newline + 1 + indent)
    } else {
        let unquoted = head.trim_start_matches(['"', '\'']);
        (unquoted, start + (head.len() - unquoted.len()))
    };
    if !pem.starts_with("-----BEGIN ") {
        return None;
    }
    let end = pem.find(['\n', '\r', '\\']).unwrap_or(pem.len());
    Some(at + end)
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

    /// End of the line holding `i` (before its `\n` or `\r\n`), or `LINE_CAP` on.
    fn line_end(&self, i: usize) -> usize {
        let bytes = self.text.as_bytes();
        let mut limit = (i + LINE_CAP).min(bytes.len());
        if let Some(cut) = self.cut.filter(|&cut| cut >= i) {
            limit = limit.min(cut);
        }
        let mut j = i;
        while j < limit && bytes[j] != b'\n' {
            j += 1;
        }
        // A CRLF line's CR is its line end, not a character of the line: a
        // window ending on it would be counted as one line more.
        if j > i && bytes.get(j) == Some(&b'\n') && bytes[j - 1] == b'\r' {
            j -= 1;
        }
        self.floor(j)
    }

    /// The start of the line after the line end at `end`, if there is one.
    fn next_line(&self, end: usize) -> Option<usize> {
        match self.text.as_bytes().get(end..end + 2) {
            Some([b'\r', b'\n']) => Some(end + 2),
            Some([b'\n', _]) => Some(end + 1),
            None if self.text.as_bytes().get(end) == Some(&b'\n') => Some(end + 1),
            _ => None,
        }
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
            match self.next_line(end) {
                Some(next) if next < len => end = self.line_end(next),
                _ => break,
            }
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

#[cfg(test)]
mod tests {
    use super::pem_first_line;

    #[test]
    fn a_pem_is_cut_after_its_first_line_in_every_shape() {
        let json = r#"{"certificate": "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"}"#;
        let start = json.find("\"-----").unwrap();
        let cut = pem_first_line(json, start).unwrap();
        assert_eq!(&json[start..cut], "\"-----BEGIN CERTIFICATE-----");
        let yaml = "certificate: |\n  -----BEGIN CERTIFICATE-----\n  MIIB\n";
        let start = yaml.find('|').unwrap();
        let cut = pem_first_line(yaml, start).unwrap();
        assert_eq!(&yaml[start..cut], "|\n  -----BEGIN CERTIFICATE-----");
        let plain = "certificate: -----BEGIN CERTIFICATE-----\r\n";
        let start = plain.find('-').unwrap();
        assert_eq!(&plain[start..pem_first_line(plain, start).unwrap()], "-----BEGIN CERTIFICATE-----");
        assert_eq!(pem_first_line(r#""web-primary""#, 0), None);
        assert_eq!(pem_first_line("|\n  not a pem\n", 0), None);
        assert_eq!(pem_first_line("|", 0), None);
    }
}
