//! Terraform (HCL). Text from outside is only ever inside a quoted string,
//! whose escapes are JSON's and where `${` and `%{` (which would start a
//! template sequence) are doubled, or in a comment of one line with every
//! line break and character that acts on a terminal written `\u….`; a
//! resource address is written as code only when it is one.

/// `s` as an HCL string literal, quotes included: the escapes HCL knows
/// (`\n \r \t \" \\`, and `\uNNNN` for any other control character — not
/// JSON's `\b` and `\f`, which HCL refuses), `${` and `%{` doubled.
pub fn string(s: &str) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '$' | '%' if chars.peek() == Some(&'{') => {
                out.push(c);
                out.push(c);
            }
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `s` as the text of a `#` comment: one line, nothing that acts on a terminal.
pub fn comment(s: &str) -> String {
    super::terminal::controls(s).into_owned()
}

/// An identifier (HCL's `Identifier`, ASCII only): a letter or `_`, then
/// letters, digits, `_` and `-`.
pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Whether `s` is the id of a load-balancing pool resource:
/// `cloudflare_load_balancer_pool.NAME.id`, maybe with an index and inside
/// modules (`module.lb["eu"].cloudflare_load_balancer_pool.web[0].id`).
/// Nothing else (`var.…`, `data.…`, `local.…`) is written as a reference.
pub fn is_pool_address(s: &str) -> bool {
    let Some(resource) = s.strip_suffix(".id") else {
        return false;
    };
    let mut rest = resource;
    while let Some(after) = rest.strip_prefix("module.") {
        // The module's name and index, up to the next `.`.
        let Some(dot) = after.find('.') else { return false };
        rest = &after[dot + 1..];
    }
    rest.starts_with("cloudflare_load_balancer_pool.") && is_traversal(s)
}

/// Whether `s` is a plain resource traversal (`module.lb.cloudflare_load_balancer_pool.web["eu"].id`):
/// identifiers joined by `.`, each maybe followed by `[N]` or `["key"]` with a
/// key of letters, digits, `_`, `-` and `.`. Only such text is written as an
/// expression; anything else would be code from outside.
pub fn is_traversal(s: &str) -> bool {
    let mut rest = s;
    loop {
        let end = rest.find(['.', '[']).unwrap_or(rest.len());
        if !is_identifier(&rest[..end]) {
            return false;
        }
        rest = &rest[end..];
        while let Some(inner) = rest.strip_prefix('[') {
            let Some(close) = inner.find(']') else {
                return false;
            };
            let index = &inner[..close];
            let key_ok = match index.strip_prefix('"').and_then(|k| k.strip_suffix('"')) {
                Some(key) => !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')),
                None => !index.is_empty() && index.chars().all(|c| c.is_ascii_digit()),
            };
            if !key_ok {
                return false;
            }
            rest = &inner[close + 1..];
        }
        match rest.strip_prefix('.') {
            Some(next) => rest = next,
            None => return rest.is_empty(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_and_comments_hold_anything_as_data() {
        assert_eq!(string("a\"${b}%{c}\n"), r#""a\"$${b}%%{c}\n""#);
        assert_eq!(string("x\u{8}\u{c}\\b"), r#""x\u0008\u000c\\b""#);
        let parsed = hcl_edit::parser::parse_expr(&string("x\u{8}y\u{1b}")).expect("HCL reads it");
        assert_eq!(parsed.as_str(), Some("x\u{8}y\u{1b}"));
        assert_eq!(
            comment("existing\nresource \"terraform_data\" \"x\" {\n# "),
            "existing\\u000aresource \"terraform_data\" \"x\" {\\u000a# "
        );
    }

    #[test]
    fn only_traversals_are_expressions() {
        assert!(is_traversal("cloudflare_load_balancer_pool.web.id"));
        assert!(is_traversal("module.lb.cloudflare_load_balancer_pool.web[\"eu-1\"].id"));
        assert!(is_traversal("cloudflare_load_balancer_pool.web[0].id"));
        assert!(!is_traversal("file(\"/etc/passwd\")"));
        assert!(!is_traversal("x] } resource \"terraform_data\" \"y\" { input = [1"));
        assert!(!is_traversal("a.b[\"x\\\"]\"].id"));
        assert!(!is_traversal(""));
        assert!(!is_traversal("a..b"));
        assert!(!is_identifier("1a"));
        assert!(is_pool_address("cloudflare_load_balancer_pool.web.id"));
        assert!(is_pool_address("module.lb[\"eu\"].cloudflare_load_balancer_pool.web[0].id"));
        assert!(!is_pool_address("var.db_password"));
        assert!(!is_pool_address("data.x.y.id"));
        assert!(!is_pool_address("cloudflare_load_balancer_pool.web.name"));
    }
}
