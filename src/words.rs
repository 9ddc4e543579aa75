//! Words shared by every stage that writes to people.

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
