//! CSV for spreadsheets. A cell that starts with `=`, `+`, `-`, `@`, a tab
//! or a carriage return is taken for a formula by Excel, LibreOffice and
//! Google Sheets (which can run commands or send data away); such a cell is
//! prefixed with `'` (OWASP's advice), which they show as text. Then
//! RFC 4180: a cell with a comma, quote or line break is quoted.

use std::borrow::Cow;

/// One cell of text from outside, ready to join with `,`.
pub fn cell(s: &str) -> Cow<'_, str> {
    let formula = s.starts_with(['=', '+', '-', '@', '\t', '\r']);
    let neutral: Cow<'_, str> = if formula { Cow::Owned(format!("'{s}")) } else { Cow::Borrowed(s) };
    if neutral.contains([',', '"', '\n', '\r']) {
        Cow::Owned(format!("\"{}\"", neutral.replace('"', "\"\"")))
    } else {
        neutral
    }
}

#[cfg(test)]
mod tests {
    use super::cell;

    #[test]
    fn formulas_become_text_and_separators_are_quoted() {
        assert_eq!(cell("web"), "web");
        assert_eq!(
            cell("=HYPERLINK(\"http://x\",\"y\")"),
            "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\""
        );
        assert_eq!(cell("+1"), "'+1");
        assert_eq!(cell("-2+3"), "'-2+3");
        assert_eq!(cell("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(cell("\tx"), "'\tx");
        assert_eq!(cell("\rx"), "\"'\rx\"");
        assert_eq!(cell("a,b"), "\"a,b\"");
        assert_eq!(cell("2024-09-30"), "2024-09-30", "a date is no formula");
    }
}
