//! Message templates: literal text with `{fact}` placeholders (`{item}` is the
//! current element of a `for_each` rule); `{{` and `}}` are literal braces.

use super::super::facts::{Facts, Value};
use crate::findings::shown;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Literal(String),
    Placeholder(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    pieces: Vec<Piece>,
}

impl Template {
    pub fn parse(source: &str) -> Result<Template, String> {
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
                    let name = name.trim().to_string();
                    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                        return Err(format!(
                            "invalid placeholder `{{{name}}}`: expected `{{fact_name}}` (write `{{{{` for a literal brace)"
                        ));
                    }
                    if !literal.is_empty() {
                        pieces.push(Piece::Literal(std::mem::take(&mut literal)));
                    }
                    pieces.push(Piece::Placeholder(name));
                }
                '}' => return Err("unmatched `}` (write `}}` for a literal brace)".into()),
                c => literal.push(c),
            }
        }
        if !literal.is_empty() {
            pieces.push(Piece::Literal(literal));
        }
        Ok(Template { pieces })
    }

    pub fn placeholders(&self) -> impl Iterator<Item = &str> {
        self.pieces.iter().filter_map(|p| match p {
            Piece::Placeholder(name) => Some(name.as_str()),
            Piece::Literal(_) => None,
        })
    }

    pub fn render(&self, facts: &dyn Facts, item: Option<&str>) -> String {
        let mut out = String::new();
        for piece in &self.pieces {
            match piece {
                Piece::Literal(s) => out.push_str(s),
                Piece::Placeholder(name) if name == "item" => out.push_str(&shown(item.unwrap_or(""))),
                Piece::Placeholder(name) => match facts.get(name) {
                    Some(fact) => out.push_str(&render_value(&fact.value)),
                    None => out.push_str("(unknown)"),
                },
            }
        }
        out
    }
}

pub fn render_value(value: &Value) -> String {
    match value {
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Text(s) => shown(s).into_owned(),
        Value::Date(d) => d.format("%Y-%m-%d").to_string(),
        Value::List(items) if items.is_empty() => "none".into(),
        Value::List(items) => items.iter().map(|i| shown(&i.text)).collect::<Vec<_>>().join(", "),
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
                id: "p1",
                name: "web",
                origin: &self.0,
            }
        }
        fn get(&self, name: &str) -> Option<Fact> {
            match name {
                "name" => Some(Fact::new(text("web"), "/name")),
                "legacy_recipients" => Some(Fact::new(text_items(["a@x.io", "b@x.io"]), "")),
                "uncovered_events" => Some(Fact::new(text_items(Vec::<String>::new()), "")),
                _ => None,
            }
        }
    }

    fn facts() -> Sample {
        Sample(RecordOrigin {
            file: FileId(0),
            pointer: String::new(),
            anchor: None,
        })
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
    }
}
