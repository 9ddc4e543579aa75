//! RFC 6901 JSON pointers: building them while loading and splitting them
//! when locating.

use std::borrow::Cow;

/// Appends one reference token, escaped (`~` → `~0`, `/` → `~1`).
pub fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    for c in token.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

pub fn join(base: &str, token: &str) -> String {
    let mut p = String::with_capacity(base.len() + token.len() + 1);
    p.push_str(base);
    push_token(&mut p, token);
    p
}

/// `base` joined with an array index, written into `p` (cleared first),
/// whose room is kept from record to record: a pointer is made for every
/// record loaded.
pub fn write_index(p: &mut String, base: &str, index: usize) {
    // `format!` cost a tenth of the parse.
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    let mut rest = index;
    loop {
        start -= 1;
        digits[start] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    p.clear();
    p.reserve(base.len() + 1 + digits.len() - start);
    p.push_str(base);
    p.push('/');
    p.extend(digits[start..].iter().map(|&d| char::from(d)));
}

/// A pointer short enough for a message: absurdly deep ones (hostile input)
/// keep their start and end.
pub fn abbreviate(pointer: &str) -> String {
    const KEEP: usize = 60;
    if pointer.len() <= 2 * KEEP + 20 {
        return pointer.to_string();
    }
    let mut head = KEEP;
    while !pointer.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = pointer.len() - KEEP;
    while !pointer.is_char_boundary(tail) {
        tail += 1;
    }
    format!("{}…({} bytes)…{}", &pointer[..head], tail - head, &pointer[tail..])
}

/// The unescaped reference tokens of a pointer (`""` has none).
pub fn tokens(pointer: &str) -> Vec<Cow<'_, str>> {
    if pointer.is_empty() {
        return Vec::new();
    }
    pointer
        .split('/')
        .skip(1)
        .map(|t| {
            if t.contains('~') {
                Cow::Owned(t.replace("~1", "/").replace("~0", "~"))
            } else {
                Cow::Borrowed(t)
            }
        })
        .collect()
}

/// The pointer made of the first `count` tokens of `pointer`.
pub fn prefix(pointer: &str, count: usize) -> &str {
    if count == 0 {
        return "";
    }
    let mut seen = 0;
    for (i, b) in pointer.bytes().enumerate() {
        if b == b'/' && i > 0 {
            seen += 1;
            if seen == count {
                return &pointer[..i];
            }
        }
    }
    pointer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexes_are_written_in_decimal() {
        // One string, reused as the walks reuse it: a longer pointer before
        // a shorter one leaves nothing of itself behind.
        let mut p = String::from("/left/over/from/before");
        for n in [0, 7, 10, 99, 100, 4_294_967_296, usize::MAX, 5] {
            write_index(&mut p, "/result", n);
            assert_eq!(p, format!("/result/{n}"));
        }
        write_index(&mut p, "", 3);
        assert_eq!(p, "/3");
    }

    #[test]
    fn tokens_are_escaped_and_unescaped() {
        let p = join("/result", "a/b~c");
        assert_eq!(p, "/result/a~1b~0c");
        assert_eq!(tokens(&p), vec!["result", "a/b~c"]);
        assert!(tokens("").is_empty());
    }

    #[test]
    fn deep_pointers_are_abbreviated_for_messages() {
        assert_eq!(abbreviate("/result/0/id"), "/result/0/id");
        let deep = "/0".repeat(1000);
        let short = abbreviate(&deep);
        assert!(short.len() < 200 && short.starts_with("/0/0") && short.ends_with("0/0"), "{short}");
    }

    #[test]
    fn prefixes_cut_at_token_boundaries() {
        assert_eq!(prefix("/result/0/filters/pool_id", 2), "/result/0");
        assert_eq!(prefix("/result/0", 0), "");
        assert_eq!(prefix("/result/0", 5), "/result/0");
    }
}
