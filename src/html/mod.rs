//! HTML pages that open from disk and can be attached to a ticket: text
//! escaping, and the page shell the HTML report and the HTML plan share —
//! inline style and script only, under a Content-Security-Policy that lets
//! the page load nothing and run no script but its own. A leaf: it knows
//! nothing of findings or plans (it shares the terminal reports' list of
//! characters that must be shown rather than obeyed, `words`).

use sha2::Digest as _;

/// The page's style: light and dark, readable at 200 % zoom, and printable.
pub const STYLE: &str = include_str!("page.css");
/// The page's one script: filtering the findings (and nothing else).
pub const SCRIPT: &str = include_str!("page.js");

/// `s` as HTML text or attribute value: `&`, `<`, `>`, `"` and `'` escaped,
/// and what acts on a terminal (control characters but tab and line feed,
/// invisible and bidirectional marks: `text::escape::terminal::acts_on_terminal`) written as
/// `\u001b`, as every other report writes them.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    push_escaped(&mut out, s);
    out
}

/// [`escape`] onto `out`.
pub fn push_escaped(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' => out.push(c),
            // The same to a browser, and no line of the page that a CI log
            // showing it reads as a workflow command (`::…` at a line start).
            '\n' => out.push_str("&#10;"),
            // `##[`: the second `#` as a reference, the same character to a browser.
            '#' if out.ends_with('#') => out.push_str("&#35;"),
            c if crate::text::escape::terminal::acts_on_terminal(c) => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
}

/// Text written with Markdown's code spans (`` `notification_email` ``), as
/// the rules' and reports' own words are: escaped, each span in `<code>`.
pub fn with_code_spans(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    for (i, part) in s.split('`').enumerate() {
        if i % 2 == 1 {
            out.push_str("<code>");
            push_escaped(&mut out, part);
            out.push_str("</code>");
        } else {
            push_escaped(&mut out, part);
        }
    }
    out
}

/// The policy: nothing from the network or the disk, no script but the
/// page's own (by its hash), no form, no base URL, no frame.
pub fn content_security_policy() -> String {
    use base64::Engine as _;
    let hash = sha2::Sha256::digest(SCRIPT.as_bytes());
    format!(
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-{}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        base64::engine::general_purpose::STANDARD.encode(hash)
    )
}

/// The page up to its `<body>`'s first child.
pub fn head(title: &str, out: &mut String) {
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str("<meta http-equiv=\"Content-Security-Policy\" content=\"");
    out.push_str(&content_security_policy());
    out.push_str("\">\n<meta name=\"generator\" content=\"edgeaudit ");
    out.push_str(env!("CARGO_PKG_VERSION"));
    out.push_str("\">\n<title>");
    push_escaped(out, title);
    out.push_str("</title>\n<style>\n");
    out.push_str(STYLE);
    out.push_str("</style>\n</head>\n<body>\n");
}

/// The page's end: its script, then `</html>`.
pub fn tail(out: &mut String) {
    out.push_str("<script>");
    out.push_str(SCRIPT);
    out.push_str("</script>\n</body>\n</html>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn export_text_cannot_become_markup() {
        assert_eq!(
            escape("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
        );
        assert_eq!(escape("a\u{1b}[31mb\u{7}"), "a\\u001b[31mb\\u0007");
        assert_eq!(
            escape("admin\u{202E}gpj.exe"),
            "admin\\u202egpj.exe",
            "a bidirectional override is shown, not obeyed"
        );
        assert_eq!(
            escape("line\nnext\ttab"),
            "line&#10;next\ttab",
            "no line of the page starts with a value"
        );
    }

    #[test]
    fn code_spans_become_code_and_stay_escaped() {
        assert_eq!(
            with_code_spans("clear `notification_email` <now>"),
            "clear <code>notification_email</code> &lt;now&gt;"
        );
        assert_eq!(with_code_spans("`<b>`"), "<code>&lt;b&gt;</code>");
    }

    #[test]
    fn the_policy_allows_the_pages_own_script_by_its_hash_and_loads_nothing() {
        let policy = content_security_policy();
        assert!(policy.starts_with("default-src 'none';"), "{policy}");
        assert!(
            !policy.contains("unsafe-eval") && !policy.contains("script-src 'unsafe-inline'"),
            "{policy}"
        );
        let hash = policy.split("'sha256-").nth(1).and_then(|r| r.split('\'').next()).unwrap_or("");
        assert_eq!(hash.len(), 44, "a base64 SHA-256: {policy}");
        let mut page = String::new();
        head("<t>", &mut page);
        tail(&mut page);
        assert!(page.contains("<title>&lt;t&gt;</title>"));
        assert!(
            page.contains(&format!("<script>{SCRIPT}</script>")),
            "the hashed text is the script's whole text"
        );
    }
}
