//! Which clients a request came from, as the versioned table in
//! `rules/user-agents.yaml` says (docs/src/traffic.md): first match wins, each row with its
//! citation. Compiled once; a user agent is classified once per run (a
//! distinct user agent recurs millions of times in a log).

use regex::Regex;
use serde::Deserialize;
use serde_saphyr::Spanned;

use crate::text::error::InputError;

/// The table, embedded so the binary needs no files at run time.
pub const TABLE: (&str, &str) = ("rules/user-agents.yaml", include_str!("../../rules/user-agents.yaml"));

crate::listed! {
    /// What a request's client makes of the change.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
    pub enum Class {
        /// Not an end user's request: not counted at all.
        Excluded = "excluded",
        NotImpacted = "not_impacted",
        /// Fails against the short chain.
        Impacted = "impacted",
        /// The request does not tell.
        Unknown = "unknown",
        /// Never trusted ISRG Root X1: broken since 2021, not by this change.
        AlreadyBroken = "already_broken",
    }
}

/// How a request came, where it decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// `ClientRequestSource` other than `eyeball`.
    NotEyeball,
    /// A Worker's subrequest.
    WorkerSubrequest,
}

/// One request, as the table reads it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Request<'a> {
    pub user_agent: &'a str,
    /// `TLSv1.2`, `TLSv1.3`, `none`; empty when not given.
    pub tls: &'a str,
    pub not_eyeball: bool,
    pub worker_subrequest: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TableSpec {
    version: u32,
    rows: Vec<RowSpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RowSpec {
    id: Spanned<String>,
    class: Class,
    request: Option<Origin>,
    #[serde(rename = "match")]
    pattern: Option<Spanned<String>>,
    from: Option<String>,
    below: Option<String>,
    tls: Option<String>,
    why: String,
    citation: String,
}

/// One row of the table, compiled.
#[derive(Debug)]
pub struct Row {
    pub id: String,
    pub class: Class,
    request: Option<Origin>,
    pattern: Option<Regex>,
    from: Option<Vec<u64>>,
    below: Option<Vec<u64>>,
    tls: Option<String>,
    pub why: String,
    pub citation: String,
}

#[derive(Debug)]
pub struct Table {
    pub version: u32,
    pub rows: Vec<Row>,
}

/// `7.0.1`, `10_12_1`, `141` as numbers to compare part by part (a missing part is 0).
pub fn version(text: &str) -> Option<Vec<u64>> {
    text.split(['.', '_']).map(|part| part.parse::<u64>().ok()).collect()
}

fn compare(a: &[u64], b: &[u64]) -> std::cmp::Ordering {
    let n = a.len().max(b.len());
    (0..n)
        .map(|i| a.get(i).copied().unwrap_or(0).cmp(&b.get(i).copied().unwrap_or(0)))
        .find(|o| o.is_ne())
        .unwrap_or(std::cmp::Ordering::Equal)
}

impl Table {
    /// The built-in table.
    pub fn builtin() -> Result<Table, InputError> {
        Table::parse(TABLE.0, TABLE.1)
    }

    /// A table from its YAML; an invalid row is an error at its line and column.
    pub fn parse(name: &str, text: &str) -> Result<Table, InputError> {
        let spec: TableSpec = crate::input::yaml::parse_small(name, text, "user-agent table")?;
        let mut rows = Vec::with_capacity(spec.rows.len());
        for row in spec.rows {
            let at = |s: &Spanned<String>, message: String| {
                InputError::at_line_column(name, s.referenced.line() as usize, s.referenced.column() as usize, message)
            };
            let pattern = match &row.pattern {
                Some(p) => Some(
                    Regex::new(&p.value).map_err(|e| at(p, format!("row {}: its `match` is no regular expression: {e}", row.id.value)))?,
                ),
                None => None,
            };
            let bound = |text: &Option<String>, which: &str| -> Result<Option<Vec<u64>>, InputError> {
                match text {
                    None => Ok(None),
                    Some(t) => version(t).map(Some).ok_or_else(|| {
                        at(
                            &row.id,
                            format!(
                                "row {}: `{which}: {t}` is not a version (numbers split by `.` or `_`)",
                                row.id.value
                            ),
                        )
                    }),
                }
            };
            let (from, below) = (bound(&row.from, "from")?, bound(&row.below, "below")?);
            let versioned = pattern.as_ref().is_some_and(|p| p.capture_names().any(|n| n == Some("version")));
            if (from.is_some() || below.is_some()) && !versioned {
                return Err(at(
                    &row.id,
                    format!(
                        "row {}: `from`/`below` compare the `version` group of `match`, and it has none",
                        row.id.value
                    ),
                ));
            }
            if rows.iter().any(|r: &Row| r.id == row.id.value) {
                return Err(at(&row.id, format!("row {} is defined twice", row.id.value)));
            }
            rows.push(Row {
                id: row.id.value,
                class: row.class,
                request: row.request,
                pattern,
                from,
                below,
                tls: row.tls,
                why: row.why,
                citation: row.citation,
            });
        }
        Ok(Table {
            version: spec.version,
            rows,
        })
    }

    /// The first row the request matches; `None`: not impacted.
    pub fn row(&self, request: &Request<'_>) -> Option<&Row> {
        self.rows.iter().find(|row| row.matches(request))
    }

    pub fn classify(&self, request: &Request<'_>) -> Class {
        self.row(request).map_or(Class::NotImpacted, |r| r.class)
    }
}

impl Row {
    /// What the row matches, in words (the book's table).
    pub fn condition(&self) -> String {
        let mut parts = Vec::new();
        match self.request {
            Some(Origin::NotEyeball) => parts.push("`ClientRequestSource` other than `eyeball`".to_string()),
            Some(Origin::WorkerSubrequest) => parts.push("a Worker subrequest".to_string()),
            None => {}
        }
        if let Some(p) = &self.pattern {
            parts.push(format!("user agent `{}`", p.as_str()));
        }
        let version = |v: &Vec<u64>| v.iter().map(u64::to_string).collect::<Vec<_>>().join(".");
        match (&self.from, &self.below) {
            (Some(f), Some(b)) => parts.push(format!("version from {} below {}", version(f), version(b))),
            (Some(f), None) => parts.push(format!("version from {}", version(f))),
            (None, Some(b)) => parts.push(format!("version below {}", version(b))),
            (None, None) => {}
        }
        if let Some(tls) = &self.tls {
            parts.push(format!("over {tls}"));
        }
        parts.join(", ")
    }

    fn matches(&self, r: &Request<'_>) -> bool {
        match self.request {
            Some(Origin::NotEyeball) if !r.not_eyeball => return false,
            Some(Origin::WorkerSubrequest) if !r.worker_subrequest => return false,
            _ => {}
        }
        if self.tls.as_deref().is_some_and(|tls| !tls.eq_ignore_ascii_case(r.tls)) {
            return false;
        }
        let Some(pattern) = &self.pattern else { return true };
        if self.from.is_none() && self.below.is_none() {
            return pattern.is_match(r.user_agent);
        }
        // Any occurrence whose version is in range: a user agent may name several.
        pattern.captures_iter(r.user_agent).any(|c| {
            let Some(v) = c.name("version").and_then(|v| version(v.as_str())) else {
                return false;
            };
            self.from.as_ref().is_none_or(|f| compare(&v, f).is_ge()) && self.below.as_ref().is_none_or(|b| compare(&v, b).is_lt())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(ua: &str, tls: &str) -> Class {
        Table::builtin().expect("the table").classify(&Request {
            user_agent: ua,
            tls,
            ..Request::default()
        })
    }

    #[test]
    fn each_row_and_the_default() {
        let table = Table::builtin().expect("the table");
        let row = |ua: &str, tls: &str| {
            table
                .row(&Request {
                    user_agent: ua,
                    tls,
                    ..Request::default()
                })
                .map(|r| r.id.as_str())
        };
        assert_eq!(
            row("Mozilla/5.0 (Android 7.0; Mobile; rv:68.0) Gecko/68.0 Firefox/68.0", ""),
            Some("firefox-android")
        );
        assert_eq!(
            row(
                "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/112.0.0.0 Mobile Safari/537.36",
                ""
            ),
            Some("chrome-reduced-user-agent")
        );
        assert_eq!(
            row(
                "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/115.0.0.0 Mobile Safari/537.36",
                ""
            ),
            None
        );
        assert_eq!(
            row("Dalvik/2.1.0 (Linux; U; Android 7.0; SM-G930F Build/NRD90M)", ""),
            Some("android-7.0-or-earlier")
        );
        assert_eq!(
            row("Mozilla/5.0 (Linux; Android 7.1; Pixel) Chrome/60.0", ""),
            Some("android-7.1-no-patch")
        );
        assert_eq!(row("Mozilla/5.0 (Linux; Android 7.1.1; Pixel) Chrome/60.0", ""), None);
        assert_eq!(row("okhttp/4.9.0", "TLSv1.3"), Some("okhttp-tls-1.3"));
        assert_eq!(row("okhttp/4.9.0", "TLSv1.2"), Some("okhttp"));
        assert_eq!(
            row("Mozilla/5.0 (iPhone; CPU iPhone OS 9_3_5 like Mac OS X) AppleWebKit/601.1.46", ""),
            Some("ios-before-10")
        );
        assert_eq!(
            row("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_6) AppleWebKit/601.7.7", ""),
            Some("macos-before-10.12.1")
        );
        assert_eq!(row("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_12_1) Safari/602.2.14", ""), None);
        assert_eq!(row("Java/1.8.0_131", ""), Some("java-8-before-u141"));
        assert_eq!(row("Java/1.8.0_141", ""), None);
        let excluded = table.classify(&Request {
            user_agent: "Dalvik/2.1.0 (Linux; U; Android 6.0)",
            worker_subrequest: true,
            ..Request::default()
        });
        assert_eq!(excluded, Class::Excluded);
        assert_eq!(class("curl/8.5.0", ""), Class::NotImpacted);
    }

    #[test]
    fn versions_compare_part_by_part() {
        let lt = |a: &str, b: &str| compare(&version(a).unwrap(), &version(b).unwrap()).is_lt();
        assert!(lt("7.0", "7.1") && lt("7", "7.1") && lt("7.1", "7.1.1") && lt("9_3_5", "10") && lt("10.11.6", "10.12.1"));
        assert!(!lt("10", "7.1") && !lt("7.1.0", "7.1"));
    }

    #[test]
    fn a_broken_table_is_an_error_at_its_row() {
        let bad = "version: 1\nrows:\n  - id: x\n    class: impacted\n    match: '('\n    why: w\n    citation: c\n";
        let e = Table::parse("t.yaml", bad).expect_err("no regex");
        assert!(e.to_string().contains("t.yaml:5:12"), "{e}");
        let unranged = "version: 1\nrows:\n  - id: x\n    class: impacted\n    match: 'a'\n    below: '7'\n    why: w\n    citation: c\n";
        assert!(
            Table::parse("t.yaml", unranged)
                .expect_err("no group")
                .to_string()
                .contains("`version` group")
        );
    }
}
