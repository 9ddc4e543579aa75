//! Waiver patterns: `*` matches any run of characters (`/` included), `?` one
//! character; everything else matches itself, ASCII case-insensitively (ids
//! are hex, names are host names, and neither is case-sensitive to people).

pub fn matches(pattern: &str, text: &str) -> bool {
    let (p, t) = (pattern.as_bytes(), text.as_bytes());
    // Iterative matching with one backtrack point: linear in practice and
    // never exponential, whatever a config holds. No allocation: it runs for
    // every finding and every waiver.
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] == b'?' {
            pi += 1;
            ti += char_len(t[ti]);
        } else if pi < p.len() && p[pi] != b'*' && p[pi].eq_ignore_ascii_case(&t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == b'*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            // Let the star take one more character of the text.
            let next = st + char_len(t[st]);
            pi = sp + 1;
            ti = next;
            star = Some((sp, next));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == b'*')
}

/// The length of the UTF-8 character starting with this byte.
fn char_len(first: u8) -> usize {
    match first {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn literal_star_and_question_mark() {
        assert!(matches("pool/abc", "pool/abc"));
        assert!(matches("pool/ABC", "pool/abc"));
        assert!(!matches("pool/abc", "pool/abcd"));
        assert!(matches("pool/*", "pool/abcd"));
        assert!(matches("*", "custom_hostname/x/y"));
        assert!(matches("custom_hostname/*.example.com", "custom_hostname/app.example.com"));
        assert!(!matches("custom_hostname/*.example.com", "custom_hostname/example.com"));
        assert!(matches("LB00?", "LB001"));
        assert!(!matches("LB00?", "LB0010"));
        assert!(matches("*a*b*c", "xaybzc"));
        assert!(!matches("*a*b*c", "xaybz"));
        assert!(!matches("pool/*", "notification_policy/abc"));
        assert!(matches("", ""));
        assert!(!matches("", "x"));
        assert!(
            matches("custom_hostname/caf?.example", "custom_hostname/café.example"),
            "? is one character"
        );
        assert!(matches("custom_hostname/*é*", "custom_hostname/café.example"));
        assert!(!matches("custom_hostname/caf??.example", "custom_hostname/café.example"));
    }

    #[test]
    fn many_stars_stay_fast() {
        let pattern = "*a".repeat(40);
        let text = "a".repeat(39) + "b";
        assert!(!matches(&pattern, &text));
    }
}
