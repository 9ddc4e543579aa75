//! Terminal and log text. A CI log is a terminal that obeys more than escape
//! sequences: GitHub's runner reads a line whose first non-blank characters
//! are `::` as a workflow command, and `##[` anywhere in a line as a legacy
//! one (`##[add-mask]`, `##[stop-commands]`, `##[error]`); Azure Pipelines
//! reads `##vso[` anywhere. Text from outside is shown so that none of it
//! acts on the terminal or the runner, and stays readable: each offending
//! character is written as the JSON escape `\u….` of itself, so a request
//! body in a message stays valid JSON that decodes to the true value.

use std::borrow::Cow;

/// A character that must not reach a terminal as itself: C0/C1 controls
/// (escape sequences, carriage returns, line breaks that would forge lines)
/// and the invisible format characters that reorder or hide text (bidi
/// marks, overrides and isolates, zero-width characters, the BOM).
pub fn acts_on_terminal(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}'
        )
}

/// `s` with every character that acts on a terminal written `\u….` and
/// nothing else changed: the part of [`value`] that other outputs (a
/// Markdown code span, an HCL comment) need too.
pub fn controls(s: &str) -> Cow<'_, str> {
    if !s.chars().any(acts_on_terminal) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if acts_on_terminal(c) {
            push_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Whether the `#` at `at` is the second of a `##[` or `##vso[` that a CI
/// runner would read as a command.
fn starts_legacy_command(bytes: &[u8], at: usize) -> bool {
    at > 0 && bytes[at - 1] == b'#' && bytes[at] == b'#' && (bytes.get(at + 1) == Some(&b'[') || bytes[at + 1..].starts_with(b"vso["))
}

/// The offset of the first byte of `s` that [`value`] writes otherwise, if any.
fn first_unsafe(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let leading = s.len() - s.trim_start().len();
    if s[leading..].starts_with("::") {
        return Some(leading);
    }
    s.char_indices()
        .find_map(|(i, c)| (acts_on_terminal(c) || (c == '#' && starts_legacy_command(bytes, i))).then_some(i))
}

/// A value from outside as terminal and log text: on one line, nothing that
/// acts on a terminal, no workflow command. Borrowed when nothing changes.
pub fn value(s: &str) -> Cow<'_, str> {
    let Some(first) = first_unsafe(s) else {
        return Cow::Borrowed(s);
    };
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len() + 16);
    out.push_str(&s[..first]);
    let leading = s.len() - s.trim_start().len();
    for (i, c) in s[first..].char_indices().map(|(i, c)| (i + first, c)) {
        let command_start = i == leading && s[i..].starts_with("::");
        if acts_on_terminal(c) || command_start || (c == '#' && starts_legacy_command(bytes, i)) {
            push_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn push_escape(out: &mut String, c: char) {
    use std::fmt::Write as _;
    // Every character escaped is in the BMP: one `\u` escape each.
    let _ = write!(out, "\\u{:04x}", c as u32);
}

/// Text of many lines, ours with values from outside already shown through
/// [`value`], made safe once more as a whole before it is written to a
/// terminal or a log: every line break stays, no line starts a workflow
/// command, no `##[`/`##vso[` is left, and no character that acts on a
/// terminal passes but tabs and, when `keep_escape_sequences` (colour is on
/// and the text's own ESC sequences colour it), ESC.
pub fn lines(text: &str, keep_escape_sequences: bool) -> Cow<'_, str> {
    let passes = |c: char| c == '\n' || c == '\t' || (keep_escape_sequences && c == '\u{1b}');
    // A CR that ends a line (CRLF, as CSV writes) is a line end; any other moves the cursor.
    let last = text.rsplit('\n').next().unwrap_or(text);
    let clean = |line: &str| {
        let line = line
            .strip_suffix('\r')
            .filter(|_| !std::ptr::eq(line.as_ptr(), last.as_ptr()))
            .unwrap_or(line);
        !line.trim_start().starts_with("::") && !line.contains("##") && !line.chars().any(|c| acts_on_terminal(c) && !passes(c))
    };
    if text.split('\n').all(clean) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for (n, line) in text.split('\n').enumerate() {
        if n > 0 {
            out.push('\n');
        }
        let (line, crlf) = match line.strip_suffix('\r') {
            Some(body) if !std::ptr::eq(line.as_ptr(), last.as_ptr()) => (body, true),
            _ => (line, false),
        };
        let bytes = line.as_bytes();
        let leading = line.len() - line.trim_start().len();
        for (i, c) in line.char_indices() {
            let command_start = i == leading && line[i..].starts_with("::");
            if (acts_on_terminal(c) && !passes(c)) || command_start || (c == '#' && starts_legacy_command(bytes, i)) {
                push_escape(&mut out, c);
            } else {
                out.push(c);
            }
        }
        if crlf {
            out.push('\r');
        }
    }
    Cow::Owned(out)
}

/// GitHub's documented way to print untrusted text in a job's log: the
/// runner reads no workflow command between `::stop-commands::TOKEN` and
/// `::TOKEN::`. The token is random for each run, so the text cannot end the
/// stretch itself.
pub struct StopCommands {
    token: String,
}

impl StopCommands {
    /// Under GitHub Actions (`GITHUB_ACTIONS=true`), a fresh token; `None` elsewhere.
    pub fn under_github_actions(env: impl Fn(&str) -> Option<String>) -> Option<StopCommands> {
        (env("GITHUB_ACTIONS").as_deref() == Some("true")).then(StopCommands::new)
    }

    pub fn new() -> StopCommands {
        // A token no text written before it can guess.
        StopCommands {
            token: format!("edgeaudit-{}", crate::files::random_name()),
        }
    }

    pub fn open(&self) -> String {
        format!("::stop-commands::{}\n", self.token)
    }

    pub fn close(&self) -> String {
        format!("::{}::\n", self.token)
    }
}

impl Default for StopCommands {
    fn default() -> Self {
        StopCommands::new()
    }
}

/// A writer for machine-readable text (JSON, SARIF) that a CI log may show:
/// in every `##[` and `##vso[`, the second `#` is written `\u0023`, which in
/// a JSON string is the same character, so no legacy workflow command
/// reaches the log and the document decodes to the same values. (`#` occurs
/// only inside strings in JSON, and a line of JSON never starts with `::`.)
pub struct WorkflowSafe<W: std::io::Write> {
    inner: W,
    /// The end of the last write that may begin a command (`#`, `##`, `##v`…).
    held: Vec<u8>,
}

impl<W: std::io::Write> WorkflowSafe<W> {
    pub fn new(inner: W) -> WorkflowSafe<W> {
        WorkflowSafe { inner, held: Vec::new() }
    }

    fn write_safe(&mut self, data: &[u8]) -> std::io::Result<()> {
        let mut start = 0;
        let mut from = 0;
        while let Some(found) = memchr::memmem::find(&data[from..], b"##") {
            let at = from + found;
            let after = &data[at + 2..];
            if after.starts_with(b"[") || after.starts_with(b"vso[") {
                self.inner.write_all(&data[start..=at])?;
                self.inner.write_all(b"\\u0023")?;
                start = at + 2;
                from = at + 2;
            } else if b"vso[".starts_with(after) {
                // The rest may still become a command: keep it for the next write.
                self.inner.write_all(&data[start..at])?;
                self.held.extend_from_slice(&data[at..]);
                return Ok(());
            } else {
                from = at + 1;
            }
        }
        if data.len() > start && data[data.len() - 1] == b'#' {
            self.inner.write_all(&data[start..data.len() - 1])?;
            self.held.push(b'#');
            return Ok(());
        }
        self.inner.write_all(&data[start..])
    }
}

impl<W: std::io::Write> std::io::Write for WorkflowSafe<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        if self.held.is_empty() {
            return self.write_safe(buf);
        }
        let mut data = std::mem::take(&mut self.held);
        data.extend_from_slice(buf);
        self.write_safe(&data)
    }

    /// What is held is written as it is: the text ends there.
    fn flush(&mut self) -> std::io::Result<()> {
        let held = std::mem::take(&mut self.held);
        self.inner.write_all(&held)?;
        self.inner.flush()
    }
}

/// A log writer (standard error of the live commands): text is held until
/// its line ends, then written through [`lines`], so that a line written in
/// pieces is judged whole. What is left is written on flush.
pub struct LineGuard<W: std::io::Write> {
    inner: W,
    pending: Vec<u8>,
    keep_escape_sequences: bool,
}

impl<W: std::io::Write> LineGuard<W> {
    pub fn new(inner: W) -> LineGuard<W> {
        LineGuard {
            inner,
            pending: Vec::new(),
            keep_escape_sequences: false,
        }
    }

    /// A guard that lets ESC through: for a coloured report, whose values
    /// were shown through [`value`] and whose own sequences colour it.
    pub fn coloured(inner: W) -> LineGuard<W> {
        LineGuard {
            inner,
            pending: Vec::new(),
            keep_escape_sequences: true,
        }
    }

    fn emit(&mut self, upto: usize) -> std::io::Result<()> {
        let line: Vec<u8> = self.pending.drain(..upto).collect();
        let text = String::from_utf8_lossy(&line);
        self.inner.write_all(lines(&text, self.keep_escape_sequences).as_bytes())
    }
}

impl<W: std::io::Write> std::io::Write for LineGuard<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(buf);
        if let Some(last) = memchr::memrchr(b'\n', &self.pending) {
            self.emit(last + 1)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if !self.pending.is_empty() {
            self.emit(self.pending.len())?;
        }
        self.inner.flush()
    }
}

impl<W: std::io::Write> Drop for LineGuard<W> {
    fn drop(&mut self) {
        let _ = std::io::Write::flush(self);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_lose_what_acts_on_a_terminal_or_a_runner() {
        assert!(matches!(value("web-primary ## 1"), Cow::Borrowed(_)));
        assert_eq!(value("a\u{1b}[2Jb"), "a\\u001b[2Jb");
        assert_eq!(value("x\r\ny\u{7}"), "x\\u000d\\u000ay\\u0007");
        assert_eq!(value("\u{9b}31m"), "\\u009b31m", "C1 CSI");
        assert_eq!(value("abc\u{202E}fed\u{2066}"), "abc\\u202efed\\u2066", "bidi override and isolate");
        assert_eq!(value("web ##[stop-commands]x1"), "web #\\u0023[stop-commands]x1");
        assert_eq!(value("##vso[task.setvariable]"), "#\\u0023vso[task.setvariable]");
        assert_eq!(value("  ::error::x"), "  \\u003a:error::x");
        assert_eq!(value("a ::b"), "a ::b", "only a line's start");
        let body = value("{\"name\":\"evil\u{9b} ##[x]\"}");
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&body).unwrap()["name"],
            "evil\u{9b} ##[x]",
            "inside a JSON string the escape is JSON's own"
        );
        assert_eq!(value("é ü 日本"), "é ü 日本");
    }

    #[test]
    fn lines_keep_their_breaks_and_lose_commands() {
        assert!(matches!(lines("a\n  b\tc\n", false), Cow::Borrowed(_)));
        assert_eq!(lines("ok\n::error file=x::forged\n", false), "ok\n\\u003a:error file=x::forged\n");
        assert_eq!(lines("x ##[add-mask]y", false), "x #\\u0023[add-mask]y");
        assert_eq!(lines("\u{1b}[31mred\u{1b}[0m\r", true), "\u{1b}[31mred\u{1b}[0m\\u000d");
        assert_eq!(lines("\u{1b}[31m", false), "\\u001b[31m");
        assert!(matches!(lines("a,b\r\nc\r\n", false), Cow::Borrowed(_)), "CRLF line ends stay");
        assert_eq!(lines("a\rb\r\n", false), "a\\u000db\r\n");
    }

    #[test]
    fn machine_text_loses_every_legacy_command_across_writes() {
        use std::io::Write as _;
        let whole = "{\"a\":\"x ##[error]y ###vso[z] ## #\",\"b\":\"### Why\",\"c\":\"##v\"} ##";
        let expected = "{\"a\":\"x #\\u0023[error]y ##\\u0023vso[z] ## #\",\"b\":\"### Why\",\"c\":\"##v\"} ##";
        // One byte a write: every command spans writes.
        let mut out = WorkflowSafe::new(Vec::new());
        for b in whole.as_bytes() {
            out.write_all(std::slice::from_ref(b)).unwrap();
        }
        out.flush().unwrap();
        let written = String::from_utf8(out.inner).unwrap();
        assert_eq!(written, expected);
        assert!(!written.contains("##[") && !written.contains("##vso["));
        let decoded: serde_json::Value = serde_json::from_str(written.trim_end_matches(" ##")).unwrap();
        assert_eq!(decoded["a"], "x ##[error]y ###vso[z] ## #");
        for split in 0..whole.len() {
            let mut two = WorkflowSafe::new(Vec::new());
            two.write_all(&whole.as_bytes()[..split]).unwrap();
            two.write_all(&whole.as_bytes()[split..]).unwrap();
            two.flush().unwrap();
            assert_eq!(String::from_utf8(two.inner).unwrap(), expected, "split at {split}");
        }
    }

    #[test]
    fn a_line_written_in_pieces_is_judged_whole() {
        use std::io::Write as _;
        let mut out = Vec::new();
        {
            let mut guard = LineGuard::new(&mut out);
            let name = "x\n";
            write!(guard, "drift: policy {name}").unwrap();
            write!(guard, "::").unwrap();
            writeln!(guard, "error file=a::forged").unwrap();
            write!(guard, "\u{1b}]52;c;AAAA\u{7}").unwrap();
        }
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "drift: policy x\n\\u003a:error file=a::forged\n\\u001b]52;c;AAAA\\u0007"
        );
    }

    #[test]
    fn stop_tokens_differ_between_runs() {
        let (a, b) = (StopCommands::new(), StopCommands::new());
        assert_ne!(a.token, b.token);
        assert!(a.open().starts_with("::stop-commands::edgeaudit-"));
        assert_eq!(a.close(), format!("::{}::\n", a.token));
        assert!(StopCommands::under_github_actions(|_| None).is_none());
        assert!(StopCommands::under_github_actions(|k| (k == "GITHUB_ACTIONS").then(|| "true".into())).is_some());
    }
}
