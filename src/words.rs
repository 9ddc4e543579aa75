//! Words shared by every stage that writes to people. A leaf: it imports
//! nothing of the pipeline.

use std::borrow::Cow;

/// The longest string a report shows whole, in bytes; a longer one (a name of
/// 500 MB) is shown as its beginning and its length. Large enough for a
/// policy body with hundreds of recipients, which must stay copyable.
pub const SHOWN_WHOLE: usize = 16 * 1024;
const SHOWN_PREFIX: usize = 120;

/// An export string as reports show it.
pub fn shown(s: &str) -> Cow<'_, str> {
    if s.len() <= SHOWN_WHOLE {
        return Cow::Borrowed(s);
    }
    let prefix: String = s.chars().take(SHOWN_PREFIX).collect();
    Cow::Owned(format!("{prefix}… ({} characters in all)", s.chars().count()))
}

/// A count with its noun: `1 pool`, `3 pools`, `0 files`.
/// `12345` as `12,345`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

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

/// `a`, `a or b`, `a, b or c`: the values a user may choose from.
pub fn alternatives(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
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
        assert_eq!(super::alternatives(&["json", "yaml"]), "json or yaml");
        assert_eq!(super::alternatives(&["json", "jsonl", "yaml"]), "json, jsonl or yaml");
    }
}

#[cfg(test)]
mod shown_tests {
    use super::*;

    #[test]
    fn long_strings_are_shown_as_their_beginning_and_length() {
        assert_eq!(shown("web"), "web");
        let whole = "é".repeat(SHOWN_WHOLE / 2);
        assert!(matches!(shown(&whole), Cow::Borrowed(_)), "at the bound: whole");
        let long = "é".repeat(SHOWN_WHOLE);
        let s = shown(&long);
        assert_eq!(
            s.chars().count(),
            SHOWN_PREFIX + format!("… ({} characters in all)", SHOWN_WHOLE).chars().count()
        );
        assert!(s.ends_with(&format!("… ({} characters in all)", SHOWN_WHOLE)), "{s}");
    }
}
