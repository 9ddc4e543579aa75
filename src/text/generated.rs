//! A generated section of a hand-written page: the text between a begin and
//! an end marker, which `cargo run --example docs` writes again and a test
//! compares.

/// `page` with the text between `begin` and `end` replaced by `content`;
/// `None` when the page lacks either marker.
pub fn between(page: &str, begin: &str, end: &str, content: &str) -> Option<String> {
    let (before, rest) = page.split_once(begin)?;
    let (_, after) = rest.split_once(end)?;
    Some(format!("{before}{begin}{content}{end}{after}"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn replaces_only_the_section() {
        let page = "intro\n<!-- b -->\nold\n<!-- e -->\nrest\n";
        assert_eq!(
            super::between(page, "<!-- b -->\n", "<!-- e -->\n", "new\n").as_deref(),
            Some("intro\n<!-- b -->\nnew\n<!-- e -->\nrest\n")
        );
        assert_eq!(super::between("no markers", "<!-- b -->\n", "<!-- e -->\n", "x"), None);
    }
}
