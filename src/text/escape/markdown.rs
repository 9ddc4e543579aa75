//! Markdown (pull-request comments, job summaries, the plan a person
//! reviews). Text from outside is only ever inside a code span: there
//! CommonMark and GitHub read no link, autolink, HTML, emphasis, `@mention`
//! or `#reference`, and no line can start a heading, list or quote. The span's
//! fence is longer than any run of backticks in the text, so no backtick in
//! it closes the span; line breaks and characters that act on a terminal are
//! written as `\u….` (the Markdown is also read raw, in a terminal or a log).

/// `s` as one inline code span.
pub fn code(s: &str) -> String {
    let shown = super::terminal::controls(s);
    if shown.is_empty() {
        // An empty span is no span: say what it is.
        return "(empty)".to_string();
    }
    let longest_run = shown.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest_run + 1);
    // A span that starts or ends with a backtick or a space is padded with a
    // space each side, which CommonMark strips again.
    let pad = if shown.starts_with(['`', ' ']) || shown.ends_with(['`', ' ']) {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{shown}{pad}{fence}")
}

/// Markdown text of ours (or with values already in [`code`] spans) as one
/// cell of a GitHub table: on one line, and a `|` written `\|` so that it
/// does not end the cell (in a code span too: GitHub reads the table first).
pub fn cell(markdown: &str) -> String {
    markdown.replace(['\n', '\r'], " ").replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_one_code_span_that_nothing_in_it_closes() {
        assert_eq!(code("web"), "`web`");
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("``x"), "``` ``x ```");
        assert_eq!(code("team alerts\n<!--"), "`team alerts\\u000a<!--`");
        assert_eq!(code(" "), "`   `");
        assert_eq!(code(""), "(empty)");
        assert_eq!(
            code("[x](javascript:alert(1)) @org/team #123"),
            "`[x](javascript:alert(1)) @org/team #123`"
        );
    }

    #[test]
    fn cells_stay_whole() {
        assert_eq!(cell("`a|b`\nc"), "`a\\|b` c");
    }
}
