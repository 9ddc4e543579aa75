//! Message templates: literal text with `{fact}` placeholders (`{item}` is the
//! current element of a `for_each` rule); `{{` and `}}` are literal braces.
//! A section `{#fact}…{/fact}` is rendered only when the fact has something
//! to say (true, non-zero, non-empty), so a message never prints "events not
//! covered: none".

use std::fmt::Write;

use super::super::facts::{FactName, Facts, Value};
use crate::words::shown;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Literal(String),
    Placeholder(Name),
    Section(Name, Vec<Piece>),
}

/// A placeholder's name as written, and the fact it names, resolved once:
/// a message renders without comparing names as text.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Name {
    text: String,
    fact: Option<FactName>,
}

impl Name {
    fn new(text: String) -> Name {
        let fact = FactName::parse(&text);
        Name { text, fact }
    }

    fn is_item(&self) -> bool {
        self.text == "item"
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    pieces: Vec<Piece>,
    /// The length of its literal text: with room for the facts, what a
    /// message is made in without growing it step by step.
    literal_len: usize,
}

impl Template {
    pub fn parse(source: &str) -> Result<Template, String> {
        // Open sections, innermost last: (name, the pieces before it).
        let mut open: Vec<(String, Vec<Piece>)> = Vec::new();
        let mut pieces = Vec::new();
        let mut literal = String::new();
        let mut chars = source.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '{' if chars.peek() == Some(&'{') => {
                    chars.next();
                    literal.push('{');
                }
                '}' if chars.peek() == Some(&'}') => {
                    chars.next();
                    literal.push('}');
                }
                '{' => {
                    let mut name = String::new();
                    let mut closed = false;
                    for c in chars.by_ref() {
                        if c == '}' {
                            closed = true;
                            break;
                        }
                        name.push(c);
                    }
                    if !closed {
                        return Err(format!("unclosed placeholder `{{{name}`"));
                    }
                    let trimmed = name.trim();
                    let (marker, bare) = match trimmed.chars().next() {
                        Some(m @ ('#' | '/')) => (Some(m), trimmed[1..].trim()),
                        _ => (None, trimmed),
                    };
                    if bare.is_empty() || !bare.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                        return Err(format!(
                            "invalid placeholder `{{{name}}}`: expected `{{fact_name}}`, or `{{#fact_name}}…{{/fact_name}}` for a section (write `{{{{` for a literal brace)"
                        ));
                    }
                    if !literal.is_empty() {
                        pieces.push(Piece::Literal(std::mem::take(&mut literal)));
                    }
                    match marker {
                        Some('#') => open.push((bare.to_string(), std::mem::take(&mut pieces))),
                        Some(_) => match open.pop() {
                            Some((opened, before)) if opened == bare => {
                                let inner = std::mem::replace(&mut pieces, before);
                                pieces.push(Piece::Section(Name::new(opened), inner));
                            }
                            Some((opened, _)) => {
                                return Err(format!(
                                    "`{{/{bare}}}` closes section `{{#{opened}}}`: close it with `{{/{opened}}}` first"
                                ));
                            }
                            None => return Err(format!("`{{/{bare}}}` closes no open section")),
                        },
                        None => pieces.push(Piece::Placeholder(Name::new(bare.to_string()))),
                    }
                }
                '}' => return Err("unmatched `}` (write `}}` for a literal brace)".into()),
                c => literal.push(c),
            }
        }
        if let Some((name, _)) = open.last() {
            return Err(format!("section `{{#{name}}}` is never closed with `{{/{name}}}`"));
        }
        if !literal.is_empty() {
            pieces.push(Piece::Literal(literal));
        }
        let literal_len = literal_len(&pieces);
        Ok(Template { pieces, literal_len })
    }

    /// The template with each placeholder that `constant` knows (a named
    /// date, say) written in as text; a section of one is an error.
    pub fn fill(self, constant: impl Fn(&str) -> Option<String>) -> Result<Template, String> {
        fn fill_pieces(pieces: Vec<Piece>, constant: &dyn Fn(&str) -> Option<String>) -> Result<Vec<Piece>, String> {
            let mut out: Vec<Piece> = Vec::with_capacity(pieces.len());
            for piece in pieces {
                let piece = match piece {
                    Piece::Placeholder(name) => match constant(&name.text) {
                        Some(text) => Piece::Literal(text),
                        None => Piece::Placeholder(name),
                    },
                    Piece::Section(name, _) if constant(&name.text).is_some() => {
                        return Err(format!(
                            "`{{#{}}}` is a constant, not a fact: a section of it is always shown",
                            name.text
                        ));
                    }
                    Piece::Section(name, inner) => Piece::Section(name, fill_pieces(inner, constant)?),
                    literal => literal,
                };
                // Adjacent literals become one.
                match (out.last_mut(), piece) {
                    (Some(Piece::Literal(before)), Piece::Literal(text)) => before.push_str(&text),
                    (_, piece) => out.push(piece),
                }
            }
            Ok(out)
        }
        let pieces = fill_pieces(self.pieces, &constant)?;
        let literal_len = literal_len(&pieces);
        Ok(Template { pieces, literal_len })
    }

    /// Every fact the template names, in placeholders and sections.
    pub fn placeholders(&self) -> impl Iterator<Item = &str> {
        fn collect<'a>(pieces: &'a [Piece], out: &mut Vec<&'a str>) {
            for p in pieces {
                match p {
                    Piece::Literal(_) => {}
                    Piece::Placeholder(name) => out.push(&name.text),
                    Piece::Section(name, inner) => {
                        out.push(&name.text);
                        collect(inner, out);
                    }
                }
            }
        }
        let mut out = Vec::new();
        collect(&self.pieces, &mut out);
        out.into_iter()
    }

    pub fn render(&self, facts: &dyn Facts, item: Option<&str>) -> String {
        self.render_escaped(facts, item, None)
    }

    /// As [`render`](Self::render), each value from outside (a fact's text,
    /// each item of a list, the finding's item) written through `escape`:
    /// a Markdown message holds its values in code spans.
    pub fn render_escaped(&self, facts: &dyn Facts, item: Option<&str>, escape: Option<Escape>) -> String {
        let mut out = String::with_capacity(self.literal_len + 512);
        render_pieces(&self.pieces, facts, item, escape, &mut out);
        // Some callers keep every message (JUnit, the plan's manual steps):
        // room left over would be held for each.
        if out.capacity() - out.len() > 256 {
            out.shrink_to_fit();
        }
        out
    }
}

fn literal_len(pieces: &[Piece]) -> usize {
    pieces
        .iter()
        .map(|p| match p {
            Piece::Literal(s) => s.len(),
            Piece::Placeholder(_) => 0,
            Piece::Section(_, inner) => literal_len(inner),
        })
        .sum()
}

/// How a value from outside is written into a message of some kind of output.
pub type Escape = fn(&str) -> String;

fn push_text(out: &mut String, s: &str, escape: Option<Escape>) {
    match escape {
        None => out.push_str(&shown(s)),
        Some(escape) => out.push_str(&escape(&shown(s))),
    }
}

fn render_pieces(pieces: &[Piece], facts: &dyn Facts, item: Option<&str>, escape: Option<Escape>, out: &mut String) {
    for piece in pieces {
        match piece {
            Piece::Literal(s) => out.push_str(s),
            Piece::Placeholder(name) if name.is_item() => push_text(out, item.unwrap_or(""), escape),
            Piece::Placeholder(name) => match name.fact.and_then(|fact| facts.get(fact)) {
                Some(fact) => render_value_into(&fact.value, escape, out),
                None => out.push_str("(unknown)"),
            },
            Piece::Section(name, inner) => {
                let says_something = if name.is_item() {
                    item.is_some_and(|i| !i.is_empty())
                } else {
                    name.fact.and_then(|fact| facts.get(fact)).is_some_and(|f| match f.value {
                        Value::Bool(b) => b,
                        Value::Int(i) => i != 0,
                        Value::Text(ref s) => !s.is_empty(),
                        Value::Date(_) => true,
                        Value::List(ref items) => !items.is_empty(),
                        Value::NotInExport { .. } => false,
                    })
                };
                if says_something {
                    render_pieces(inner, facts, item, escape, out);
                }
            }
        }
    }
}

pub fn render_value(value: &Value) -> String {
    let mut out = String::new();
    render_value_into(value, None, &mut out);
    out
}

/// [`render_value`] written onto `out`: a message's facts are not copied
/// once more on their way into it.
fn render_value_into(value: &Value, escape: Option<Escape>, out: &mut String) {
    match value {
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        // (Writing to a String cannot fail.)
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Text(s) => push_text(out, s, escape),
        Value::Date(d) => {
            let _ = write!(out, "{}", d.format("%Y-%m-%d"));
        }
        Value::NotInExport { placeholder } => {
            let _ = write!(out, "{{{placeholder}}}");
        }
        Value::List(items) if items.is_empty() => out.push_str("none"),
        Value::List(items) => {
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.push_str(", ");
                }
                push_text(out, &item.text, escape);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::{Fact, Subject, text, text_items};
    use crate::model::Kind;
    use crate::model::origin::FileId;
    use crate::model::origin::RecordOrigin;

    struct Sample(RecordOrigin);

    impl Facts for Sample {
        fn subject(&self) -> Subject<'_> {
            Subject {
                kind: Kind::Pool,
                id: crate::model::subject::SubjectId::Text("p1"),
                name: "web",
                origin: &self.0,
                spans: crate::model::subject::Spans::NONE,
            }
        }
        fn get(&self, name: FactName) -> Option<Fact> {
            match name {
                FactName::Name => Some(Fact::new(text("web"), "/name")),
                FactName::LegacyRecipients => Some(Fact::new(text_items(["a@x.io", "b@x.io"]), "")),
                FactName::UncoveredEvents => Some(Fact::new(text_items(Vec::<String>::new()), "")),
                _ => None,
            }
        }
    }

    fn facts() -> Sample {
        Sample(RecordOrigin::new(FileId(0), "", None))
    }

    #[test]
    fn constants_are_written_in_and_facts_stay() {
        let constant = |name: &str| (name == "day").then(|| "2024-09-09".to_string());
        let t = Template::parse("pool {name} since {day}{#legacy_recipients}: {legacy_recipients}{/legacy_recipients}")
            .and_then(|t| t.fill(constant))
            .expect("fills");
        assert_eq!(
            t.placeholders().collect::<Vec<_>>(),
            ["name", "legacy_recipients", "legacy_recipients"]
        );
        assert_eq!(t.render(&facts(), None), "pool web since 2024-09-09: a@x.io, b@x.io");
        let section = Template::parse("{#day}x{/day}").and_then(|t| t.fill(constant));
        assert!(section.is_err_and(|e| e.contains("constant")));
    }

    #[test]
    fn placeholders_render_facts_lists_and_items() {
        let t = Template::parse("Pool {name} mails {legacy_recipients}; missing {uncovered_events}; {item}").unwrap();
        assert_eq!(t.render(&facts(), Some("x")), "Pool web mails a@x.io, b@x.io; missing none; x");
        assert_eq!(
            t.placeholders().collect::<Vec<_>>(),
            vec!["name", "legacy_recipients", "uncovered_events", "item"]
        );
    }

    #[test]
    fn doubled_braces_are_literal() {
        let t = Template::parse(r#"body {{"notification_email": ""}} for {name}"#).unwrap();
        assert_eq!(t.render(&facts(), None), r#"body {"notification_email": ""} for web"#);
    }

    #[test]
    fn malformed_placeholders_are_rejected() {
        assert!(Template::parse("a {bad name} b").is_err());
        assert!(Template::parse("a } b").is_err());
        assert!(Template::parse("a {} b").is_err());
        assert!(Template::parse("a {name").is_err());
        assert!(Template::parse("a {#name} b").is_err(), "a section never closed");
        assert!(Template::parse("a {/name} b").is_err(), "a close without an open");
        assert!(Template::parse("{#a}{#b}{/a}{/b}").is_err(), "crossed sections");
        assert!(Template::parse("{#}x{/}").is_err());
    }

    #[test]
    fn sections_render_only_when_their_fact_says_something() {
        let t = Template::parse("{name}:{#uncovered_events} missing {uncovered_events}.{/uncovered_events}{#legacy_recipients} mails {legacy_recipients}{#unknown_fact} never{/unknown_fact}.{/legacy_recipients}{#item} [{item}]{/item}")
            .unwrap();
        assert_eq!(t.render(&facts(), None), "web: mails a@x.io, b@x.io.");
        assert_eq!(t.render(&facts(), Some("x")), "web: mails a@x.io, b@x.io. [x]");
        assert_eq!(
            t.placeholders().collect::<Vec<_>>(),
            vec![
                "name",
                "uncovered_events",
                "uncovered_events",
                "legacy_recipients",
                "legacy_recipients",
                "unknown_fact",
                "item",
                "item"
            ]
        );
    }
}
