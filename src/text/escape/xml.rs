//! XML 1.0 text and attribute values (JUnit reports). Markup is escaped;
//! characters XML 1.0 forbids (C0 controls but tab, LF and CR; U+FFFE and
//! U+FFFF) would make a CI system reject the whole report, so each is
//! replaced by U+FFFD. Line breaks and tabs are written as character
//! references, so that an attribute keeps them and no line of the file
//! starts with text from outside; the second `#` of a `##[` or `##vso[` is
//! written `&#35;`, so that a log showing the file reads no `##[` command, and the
//! characters that act on a terminal (C1, bidi, zero-width) are written as
//! character references.

/// `s` as XML text or a quoted attribute value.
pub fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, c) in s.char_indices() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            '#' if i > 0 && s[..i].ends_with('#') && (s[i + 1..].starts_with('[') || s[i + 1..].starts_with("vso[")) => {
                out.push_str("&#35;")
            }
            c if forbidden(c) => out.push('\u{fffd}'),
            // Allowed in XML, but they act on a terminal that shows the file:
            // a character reference is the same character to an XML reader.
            c if super::terminal::acts_on_terminal(c) => out.push_str(&format!("&#x{:X};", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// A character XML 1.0 cannot carry at all (`Char` production, §2.2).
fn forbidden(c: char) -> bool {
    ((c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r')) || matches!(c, '\u{FFFE}' | '\u{FFFF}')
}

#[cfg(test)]
mod tests {
    use super::text;

    #[test]
    fn markup_is_escaped_and_forbidden_characters_replaced() {
        assert_eq!(text(r#"<a href="x">&'</a>"#), "&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;");
        assert_eq!(text("bell\u{7}"), "bell\u{fffd}");
        assert_eq!(text("x\u{FFFE}\u{FFFF}y"), "x\u{fffd}\u{fffd}y");
        assert_eq!(text("a\nb"), "a&#10;b");
        assert_eq!(text("##[error]x ### ##vso[y]"), "#&#35;[error]x ### #&#35;vso[y]");
        assert_eq!(text("a\u{202e}b\u{9b}"), "a&#x202E;b&#x9B;");
    }
}
