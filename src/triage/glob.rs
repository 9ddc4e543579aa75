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

impl std::fmt::Display for Glob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.pattern)
    }
}

/// A pattern compiled for matching many texts: without `?`, the literal
/// pieces between stars are found with a substring search instead of by
/// backtracking (a million hostnames against a hundred `*.customer.example`
/// waivers must stay fast).
#[derive(Debug, Clone)]
pub struct Glob {
    pattern: String,
    /// Lower-cased pieces between the stars, the inner ones with a searcher
    /// built once; `None` when the pattern has a `?` (then the general
    /// matcher runs).
    pieces: Option<Pieces>,
}

#[derive(Debug, Clone)]
struct Pieces {
    first: Vec<u8>,
    /// `None` when the pattern has no star (the whole text must be `first`).
    last: Option<Vec<u8>>,
    middle: Vec<memchr::memmem::Finder<'static>>,
}

impl PartialEq for Glob {
    fn eq(&self, other: &Glob) -> bool {
        self.pattern == other.pattern
    }
}

impl Eq for Glob {}

impl Glob {
    pub fn new(pattern: &str) -> Glob {
        let pieces = (!pattern.contains('?')).then(|| {
            let mut split: Vec<Vec<u8>> = pattern.split('*').map(|p| p.to_ascii_lowercase().into_bytes()).collect();
            let first = split.remove(0);
            let last = split.pop();
            Pieces {
                first,
                last,
                middle: split.iter().map(|p| memchr::memmem::Finder::new(p).into_owned()).collect(),
            }
        });
        Glob {
            pattern: pattern.to_string(),
            pieces,
        }
    }

    pub fn as_str(&self) -> &str {
        &self.pattern
    }

    /// Whether `lower`, already ASCII-lower-cased, matches.
    pub fn matches_lowercase(&self, lower: &str) -> bool {
        let Some(Pieces { first, last, middle }) = &self.pieces else {
            return matches(&self.pattern, lower);
        };
        let text = lower.as_bytes();
        let Some(last) = last else {
            // No star: the whole text.
            return text == first.as_slice();
        };
        // (Empty pieces are skipped: a call to compare nothing, millions of
        // times, showed in profiles.)
        if text.len() < first.len() + last.len()
            || (!first.is_empty() && !text.starts_with(first))
            || (!last.is_empty() && !text.ends_with(last))
        {
            return false;
        }
        // Leftmost matches, in order, between the prefix and the suffix.
        let mut at = first.len();
        let end = text.len() - last.len();
        for finder in middle {
            match finder.find(&text[at..end]) {
                Some(i) => at += i + finder.needle().len(),
                None => return false,
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::{Glob, matches};

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
    fn compiled_globs_agree_with_the_matcher() {
        let patterns = [
            "pool/abc",
            "pool/*",
            "*",
            "",
            "*.example.com",
            "custom_hostname/*.example.com",
            "*a*b*c",
            "a*",
            "*a",
            "**",
            "pool/ABC*",
            "a*a",
            "*/0001*",
            "caf?.example",
            "x*y*z",
        ];
        let texts = [
            "pool/abc",
            "pool/abcd",
            "pool/",
            "",
            "a",
            "aa",
            "xaybzc",
            "xaybz",
            "custom_hostname/app.example.com",
            "custom_hostname/example.com",
            "custom_hostname/0001abc",
            "café.example",
            "cafe.example",
            "xyz",
            "xzy",
        ];
        for p in patterns {
            let glob = Glob::new(p);
            for t in texts {
                assert_eq!(glob.matches_lowercase(&t.to_ascii_lowercase()), matches(p, t), "{p:?} on {t:?}");
            }
        }
    }

    #[test]
    fn many_stars_stay_fast() {
        let pattern = "*a".repeat(40);
        let text = "a".repeat(39) + "b";
        assert!(!matches(&pattern, &text));
    }
}
