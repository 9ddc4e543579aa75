//! What reaches a terminal: export strings escaped so that none of their
//! characters acts on the terminal, messages wrapped to its width with JSON
//! bodies kept whole, and colour decided as other command-line tools do.

use crate::text::escape::terminal::acts_on_terminal;
pub use crate::text::escape::terminal::value as escaped;

/// A source file's text as a snippet may show it, when it holds characters
/// that act on a terminal (a YAML comment or a BIND line may): each replaced
/// by a visible character of the same UTF-8 length, so that byte offsets,
/// lines and columns stay those of the file. A CR before an LF stays (a
/// CRLF line end); a lone CR does not. `None` when nothing needs replacing.
pub fn shown_source(text: &str) -> Option<String> {
    let suspect = |b: u8| (b < 0x20 && b != b'\t' && b != b'\n') || b == 0x7f || matches!(b, 0xc2 | 0xe2 | 0xef);
    if !text.bytes().any(suspect) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let keep = match c {
            '\t' | '\n' => true,
            '\r' => chars.peek() == Some(&'\n'),
            c => !acts_on_terminal(c),
        };
        if keep {
            out.push(c);
        } else {
            changed = true;
            out.push(match c.len_utf8() {
                1 => '?',
                2 => '\u{BF}',
                _ => '\u{FFFD}',
            });
        }
    }
    changed.then_some(out)
}

/// The words of a message: runs between ASCII spaces, except that a JSON
/// object or array (a request body) is one word however many spaces its
/// strings hold, so it is never broken and stays copyable.
fn words(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut words = Vec::new();
    let mut start = None;
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escape = false;
    for (i, &b) in bytes.iter().enumerate() {
        if depth > 0 {
            match (in_string, escape, b) {
                (true, true, _) => escape = false,
                (true, false, b'\\') => escape = true,
                (true, false, b'"') => in_string = false,
                (false, _, b'"') => in_string = true,
                (false, _, b'{' | b'[') => depth += 1,
                (false, _, b'}' | b']') => depth -= 1,
                _ => {}
            }
            continue;
        }
        match b {
            b' ' => {
                if let Some(s) = start.take() {
                    words.push(&text[s..i]);
                }
            }
            _ => {
                start.get_or_insert(i);
                // `{"` or `["` opens a body; `{account_id}` in a path does not.
                if matches!(b, b'{' | b'[') && bytes.get(i + 1) == Some(&b'"') {
                    depth = 1;
                    in_string = false;
                    escape = false;
                }
            }
        }
    }
    if let Some(s) = start {
        words.push(&text[s..]);
    }
    words
}

/// `text` wrapped at `width` columns: lines break between words only, and a
/// word longer than the width (a JSON body, a URL) has a line of its own.
pub fn wrap(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / width.max(1) + 1);
    let mut column = 0;
    for word in words(text) {
        let len = word.chars().count();
        if column > 0 && column + 1 + len > width {
            out.push('\n');
            column = 0;
        } else if column > 0 {
            out.push(' ');
            column += 1;
        }
        out.push_str(word);
        column += len;
    }
    out
}

/// The width human reports are laid out for: `COLUMNS` when set (as shells
/// export it), else the terminal's, else 100.
pub fn width(stdout_is_terminal: bool, env: impl Fn(&str) -> Option<String>) -> usize {
    if let Some(columns) = env("COLUMNS").and_then(|c| c.trim().parse::<usize>().ok()).filter(|&c| c > 0) {
        return columns.clamp(40, 1000);
    }
    if stdout_is_terminal && let Some((terminal_size::Width(w), _)) = terminal_size::terminal_size() {
        return usize::from(w).clamp(40, 1000);
    }
    100
}

/// Whether `--color auto` colours: as cargo, ripgrep and other tools decide.
/// `CLICOLOR_FORCE` or `FORCE_COLOR` (set, not `0`) colours even a pipe;
/// otherwise `NO_COLOR` (set, not empty), `CLICOLOR=0` or `TERM=dumb` turn
/// colour off, and a terminal is coloured.
pub fn auto_color(stdout_is_terminal: bool, env: impl Fn(&str) -> Option<String>) -> bool {
    let set = |name: &str| env(name).is_some_and(|v| !v.is_empty());
    let forced = |name: &str| env(name).is_some_and(|v| !v.is_empty() && v != "0");
    if forced("CLICOLOR_FORCE") || forced("FORCE_COLOR") {
        return true;
    }
    if set("NO_COLOR") || env("CLICOLOR").as_deref() == Some("0") || is_dumb(&env) {
        return false;
    }
    stdout_is_terminal
}

/// `TERM=dumb`: a terminal that cannot draw, so no colour and no box drawing.
pub fn is_dumb(env: &impl Fn(&str) -> Option<String>) -> bool {
    env("TERM").as_deref() == Some("dumb")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| vars.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
    }

    #[test]
    fn source_text_keeps_its_offsets_and_loses_what_acts_on_a_terminal() {
        assert_eq!(
            shown_source("a: 1\r\nb: \"\u{e9}\"\n\tc"),
            None,
            "CRLF, tabs and accents are shown as they are"
        );
        let text = "# \u{1b}[2J\u{9b}x\u{202e}y\rz\r\nok";
        let shown = shown_source(text).expect("replaced");
        assert_eq!(shown, "# ?[2J\u{BF}x\u{FFFD}y?z\r\nok");
        assert_eq!(shown.len(), text.len());
        assert_eq!(shown.chars().count(), text.chars().count());
    }

    #[test]
    fn json_bodies_are_one_word_whatever_spaces_their_strings_hold() {
        let text = r#"POST /accounts/{account_id}/x with the body {"name":"eu pool alerts","a":[1, 2]}; then clear it."#;
        assert_eq!(
            words(text),
            vec![
                "POST",
                "/accounts/{account_id}/x",
                "with",
                "the",
                "body",
                r#"{"name":"eu pool alerts","a":[1, 2]};"#,
                "then",
                "clear",
                "it."
            ]
        );
        // A brace inside a string does not close the body; an escaped quote does not end the string.
        assert_eq!(words(r#"{"a":"} \" }"} b"#), vec![r#"{"a":"} \" }"}"#, "b"]);
        // An unbalanced body runs to the end rather than being lost.
        assert_eq!(words(r#"x {"a": 1"#), vec!["x", r#"{"a": 1"#]);
    }

    #[test]
    fn wrapping_breaks_between_words_and_keeps_long_words_whole() {
        let text = "one two three four five six seven eight nine ten";
        let wrapped = wrap(text, 14);
        assert_eq!(wrapped, "one two three\nfour five six\nseven eight\nnine ten");
        assert!(wrapped.lines().all(|l| l.chars().count() <= 14));
        let body = r#"{"notification_email": "", "pad": "xxxxxxxxxxxxxxxxxxxxxxxx"}"#;
        let wrapped = wrap(&format!("send the body {body} now"), 20);
        assert_eq!(wrapped, format!("send the body\n{body}\nnow"));
        assert_eq!(wrap("", 10), "");
    }

    #[test]
    fn colour_follows_the_conventions_of_other_tools() {
        assert!(auto_color(true, env(&[])));
        assert!(!auto_color(false, env(&[])));
        assert!(!auto_color(true, env(&[("NO_COLOR", "1")])));
        assert!(auto_color(true, env(&[("NO_COLOR", "")])), "an empty NO_COLOR is unset");
        assert!(!auto_color(true, env(&[("TERM", "dumb")])));
        assert!(!auto_color(true, env(&[("CLICOLOR", "0")])));
        assert!(auto_color(false, env(&[("FORCE_COLOR", "1")])));
        assert!(auto_color(false, env(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")])));
        assert!(!auto_color(false, env(&[("FORCE_COLOR", "0")])));
    }

    #[test]
    fn the_width_is_columns_then_the_terminal_then_a_default() {
        assert_eq!(width(false, env(&[("COLUMNS", "80")])), 80);
        assert_eq!(width(false, env(&[("COLUMNS", "junk")])), 100);
        assert_eq!(width(false, env(&[("COLUMNS", "5")])), 40, "too narrow to lay out: clamped");
        assert_eq!(width(false, env(&[])), 100);
    }
}
