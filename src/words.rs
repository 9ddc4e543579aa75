//! Words shared by every stage that writes to people. A leaf: it imports
//! nothing of the pipeline.

use std::borrow::Cow;

/// A character that must not reach a terminal as itself: C0/C1 controls
/// (escape sequences, carriage returns, line breaks that would forge lines)
/// and the invisible format characters that reorder or hide text (bidi
/// overrides and isolates, zero-width characters, the BOM).
pub fn acts_on_terminal(c: char) -> bool {
    c.is_control() || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}')
}

/// `s` with every character that acts on a terminal written as a JSON escape
/// (`\u001b`; they are all in the BMP), so that a request body in a message
/// stays valid JSON that decodes to the true value.
pub fn escaped(s: &str) -> Cow<'_, str> {
    if !s.chars().any(acts_on_terminal) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if acts_on_terminal(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A count with its noun: `1 pool`, `3 pools`, `0 files`.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        ["1 ", one].concat()
    } else {
        [&n.to_string(), " ", many].concat()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_take_the_right_noun() {
        assert_eq!(super::plural(1, "entry", "entries"), "1 entry");
        assert_eq!(super::plural(0, "entry", "entries"), "0 entries");
        assert_eq!(super::plural(3, "copy", "copies"), "3 copies");
    }
}

/// `a`, `a and b`, `a, b and c`.
pub fn list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod list_tests {
    #[test]
    fn lists_read_as_words() {
        assert_eq!(super::list(&[]), "");
        assert_eq!(super::list(&["LB001"]), "LB001");
        assert_eq!(super::list(&["LB001", "LB002", "LB003"]), "LB001, LB002 and LB003");
    }
}
