//! The shapes of traffic edgeaudit reads, declared once: how each is told
//! by its content (the name only breaking ties), the names a folder's walk
//! takes for it, and how help, messages and the book name it. A shape is
//! added here and in its reader's module, nowhere else.

/// A shape of traffic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Logpush `http_requests` lines (NDJSON).
    Logpush,
    /// A saved GraphQL Analytics answer.
    GraphQl,
    /// A CSV aggregate `host,user_agent,requests`.
    Aggregate,
}

/// One shape's declaration.
pub struct Declared {
    pub shape: Shape,
    /// What it is, as messages and the book say it.
    pub what: &'static str,
    /// The names a walk takes for it (each also gzip'd, `.gz`).
    pub extensions: &'static [&'static str],
    /// Whether the start of a file's (decompressed) content is of this shape.
    pub holds: fn(&[u8]) -> bool,
}

pub static SHAPES: [Declared; 3] = [
    Declared {
        shape: Shape::Logpush,
        what: "Logpush `http_requests` lines",
        extensions: &["log", "ndjson", "jsonl"],
        holds: is_logpush,
    },
    Declared {
        shape: Shape::GraphQl,
        what: "a saved GraphQL answer",
        extensions: &["json"],
        holds: is_graphql,
    },
    Declared {
        shape: Shape::Aggregate,
        what: "a CSV aggregate (`host,user_agent,requests`)",
        extensions: &["csv"],
        holds: is_aggregate,
    },
];

/// The first line of `head`, without its line end and a byte-order mark.
fn first_line(head: &[u8]) -> &[u8] {
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    let end = memchr::memchr(b'\n', head).unwrap_or(head.len());
    let line = &head[..end];
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn trimmed(head: &[u8]) -> &[u8] {
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    let start = head.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(head.len());
    &head[start..]
}

/// A JSON object on its first line naming a request's Logpush fields.
fn is_logpush(head: &[u8]) -> bool {
    let line = first_line(trimmed(head));
    line.starts_with(b"{")
        && [
            "\"ClientRequestHost\"",
            "\"ClientRequestUserAgent\"",
            "\"EdgeStartTimestamp\"",
            "\"RayID\"",
        ]
        .iter()
        .any(|key| memchr::memmem::find(line, key.as_bytes()).is_some())
}

/// A JSON object whose members include GraphQL's `data` or `errors`, and
/// which is not a Logpush line.
fn is_graphql(head: &[u8]) -> bool {
    let text = trimmed(head);
    text.starts_with(b"{")
        && !is_logpush(head)
        && ["\"data\"", "\"errors\""]
            .iter()
            .any(|key| memchr::memmem::find(text, key.as_bytes()).is_some())
}

/// A header row naming `host`, `user_agent` and `requests`.
fn is_aggregate(head: &[u8]) -> bool {
    let header = String::from_utf8_lossy(first_line(head)).to_ascii_lowercase();
    let columns: Vec<&str> = header.split(',').map(|c| c.trim().trim_matches('"')).collect();
    ["host", "user_agent", "requests"].iter().all(|c| columns.contains(c))
}

/// The shape a walk takes a file's name for.
pub fn by_name(name: &str) -> Option<Shape> {
    let name = name.strip_suffix(".gz").unwrap_or(name);
    let extension = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase())?;
    SHAPES.iter().find(|d| d.extensions.contains(&extension.as_str())).map(|d| d.shape)
}

/// The shape of a file: told by its content; where the content holds no
/// shape this reads (a line cut short, an empty file), by its name.
pub fn of(name: &str, head: &[u8]) -> Option<Shape> {
    SHAPES.iter().find(|d| (d.holds)(head)).map(|d| d.shape).or_else(|| by_name(name))
}

/// The names a walk takes, as help and messages list them: `*.log.gz`, `*.log`, ….
pub fn names() -> String {
    let mut out = Vec::new();
    for d in &SHAPES {
        for e in d.extensions {
            out.push(format!("`*.{e}`"));
        }
    }
    format!("{} (each also gzip'd, `.gz`)", out.join(", "))
}

/// `--traffic`'s help: every shape, the names a folder's walk takes, and `-`.
pub fn help() -> String {
    format!(
        "Traffic that ranks certificate findings by the requests from impacted clients: {}, each told by its content; files, folders (which take {}) or `-` for standard input (gzip'd or not: `rclone cat …`, `aws s3 cp … -`); repeated (replaces the config's `traffic`)",
        whats(),
        names()
    )
}

/// The shapes, as messages say them: "Logpush … lines, a saved GraphQL answer, or …".
pub fn whats() -> String {
    let whats: Vec<&str> = SHAPES.iter().map(|d| d.what).collect();
    match whats.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{}, or {last}", rest.join(", ")),
        _ => whats.join(""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_decides_and_the_name_breaks_ties() {
        let line = br#"{"ClientRequestHost":"a.example","ClientRequestUserAgent":"curl/8","EdgeStartTimestamp":"2022-05-07 18:53:12"}"#;
        // A Logpush line is a Logpush line whatever it is called.
        for name in ["one.json", "lines.txt", "x.log"] {
            assert_eq!(of(name, line), Some(Shape::Logpush), "{name}");
        }
        let answer = b"{\n  \"data\": {\"viewer\": {\"zones\": []}},\n  \"errors\": null\n}";
        assert_eq!(of("answer.log", answer), Some(Shape::GraphQl));
        assert_eq!(
            of("rows.txt", b"host,user_agent,requests\na.example,curl/8,3\n"),
            Some(Shape::Aggregate)
        );
        assert_eq!(
            of("rows.txt", b"\xef\xbb\xbf\"host\",\"user_agent\",\"requests\",\"tls\"\r\n"),
            Some(Shape::Aggregate)
        );
        // Content that tells nothing: the name decides, or nothing does.
        assert_eq!(of("empty.csv", b""), Some(Shape::Aggregate));
        assert_eq!(of("ownership-challenge.txt", b"b3d9d1e6"), None);
        assert_eq!(by_name("logs/20240910/x.log.gz"), Some(Shape::Logpush));
        assert_eq!(by_name("traffic.CSV.gz"), Some(Shape::Aggregate));
        assert!(names().contains("`*.log`") && names().contains("`*.ndjson`") && names().contains("`*.csv`"));
        assert_eq!(
            whats(),
            "Logpush `http_requests` lines, a saved GraphQL answer, or a CSV aggregate (`host,user_agent,requests`)"
        );
    }
}
