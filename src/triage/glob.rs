//! Waiver patterns: `*` matches any run of characters (`/` included), `?` one
//! character; everything else matches itself, ASCII case-insensitively (ids
//! are hex, names are host names, and neither is case-sensitive to people).

pub fn matches(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // Iterative matching with one backtrack point: linear in practice and
    // never exponential, whatever a config holds.
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi].eq_ignore_ascii_case(&t[ti])) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
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
    }

    #[test]
    fn many_stars_stay_fast() {
        let pattern = "*a".repeat(40);
        let text = "a".repeat(39) + "b";
        assert!(!matches(&pattern, &text));
    }
}
