//! Facts about the export itself (docs/src/inputs.md): whether a list was loaded in
//! full (EX001), and which resources were loaded twice with different
//! content (EX002).

use super::FactName;
use super::UnknownFact;
use super::{Fact, Facts, Item, Subject, Value, text};
use crate::model::Kind;
use crate::model::duplicates::Conflict;
use crate::model::list::ExportList;
use crate::model::unknown::{UnknownValue, UnknownValues};

pub struct ListFacts<'a> {
    list: &'a ExportList,
}

impl<'a> ListFacts<'a> {
    pub fn new(list: &'a ExportList) -> Self {
        ListFacts { list }
    }
}

impl Facts for ListFacts<'_> {
    fn subject(&self) -> Subject<'_> {
        self.list.subject()
    }

    fn get(&self, name: FactName) -> Option<Fact> {
        let l = self.list;
        // At the count that shows the shortfall, else at `result_info`.
        let at = match (l.total_count, l.total_pages) {
            (Some(n), _) if n > l.loaded => l.fields.total_count,
            (_, Some(n)) if n > l.pages => l.fields.total_pages,
            _ => l.fields.paging,
        };
        Some(match name {
            FactName::Id => Fact::new(text(l.id.as_str()), ""),
            FactName::Name => Fact::new(text(l.name.as_str()), ""),
            FactName::Records => Fact::new(text(l.kind.records_in_words()), ""),
            FactName::Complete => Fact::new(Value::Bool(l.is_complete()), at),
            FactName::Loaded => Fact::new(Value::Int(l.loaded.min(i64::MAX as u64) as i64), at),
            FactName::PagesLoaded => Fact::new(Value::Int(l.pages.min(i64::MAX as u64) as i64), at),
            FactName::Expected => Fact::new(
                text(match (l.total_count, l.total_pages) {
                    (Some(c), Some(p)) => format!("`total_count` {c} in `total_pages` {p}"),
                    (Some(c), None) => format!("`total_count` {c}"),
                    (None, Some(p)) => format!("`total_pages` {p}"),
                    (None, None) => "nothing".to_string(),
                }),
                at,
            ),
            FactName::Affected => Fact::new(
                text(match l.kind {
                    Kind::Pool => {
                        "coverage (LB001–LB003) is judged only for the pools loaded, and LB004's counts and LB006 (a policy naming a pool that is not loaded) are wrong"
                    }
                    Kind::NotificationPolicy => {
                        "a pool covered by a policy that was not loaded is reported as not covered (LB001, LB003), and LB004's counts are wrong"
                    }
                    Kind::DnsRecord => "a CAA record that was not loaded can change which CA a custom hostname falls back to (CA005)",
                    _ => "the records that were not loaded are not checked at all",
                }),
                "",
            ),
            _ => return None,
        })
    }
}

/// A subject's facts, and the fact about its other copies.
pub struct WithCopies<'a> {
    inner: &'a dyn Facts,
    copies: &'a [Conflict],
    files: &'a [String],
    /// The account's values not known before apply.
    unknown: Option<&'a UnknownValues>,
}

impl<'a> WithCopies<'a> {
    pub fn new(inner: &'a dyn Facts, copies: &'a [Conflict], files: &'a [String]) -> Self {
        WithCopies {
            inner,
            copies,
            files,
            unknown: None,
        }
    }

    /// With the account's values not known before apply, which leave the
    /// facts that read them unknown.
    pub fn with_unknown(self, unknown: &'a UnknownValues) -> Self {
        WithCopies {
            // Most accounts (every API export) have none: asked for each
            // condition of each rule, the answer is then found at once.
            unknown: (!unknown.is_empty()).then_some(unknown),
            ..self
        }
    }

    /// The subject's own unknown value fact `name` reads, if any. A fact
    /// made element by element whose known elements make items is known:
    /// an unknown element of its lists decides none of them.
    fn own_unknown(&self, name: FactName) -> Option<UnknownFact> {
        let (whole, elements, known_items) = self.deciding(name);
        let element = elements.first().copied().filter(|_| !known_items);
        whole.or(element).map(Self::unknown_fact)
    }

    /// The unknown values fact `name` reads: the first that decides it whole;
    /// those that are elements of a list a by-element fact reads; and whether
    /// the known elements make items.
    fn deciding(&self, name: FactName) -> (Option<&UnknownValue>, Vec<&UnknownValue>, bool) {
        let values = self.unknown.map_or(&[][..], |u| u.of(self.inner.subject().origin));
        if values.is_empty() {
            return (None, Vec::new(), false);
        }
        let kind = self.inner.subject().kind;
        let reads = super::catalogue::reads(kind, name);
        let mut deciding = values
            .iter()
            .filter(|v| reads.is_none_or(|fields| fields.iter().any(|f| v.decides(f))));
        if !super::catalogue::by_element(kind, name) {
            return (deciding.next(), Vec::new(), false);
        }
        let is_element = |v: &UnknownValue| {
            reads.into_iter().flatten().any(|list| {
                v.field
                    .strip_prefix(list)
                    .and_then(|rest| rest.strip_prefix('/'))
                    .is_some_and(|index| index.parse::<usize>().is_ok())
            })
        };
        let (elements, whole): (Vec<&UnknownValue>, Vec<&UnknownValue>) = deciding.partition(|v| is_element(v));
        let known_items =
            !elements.is_empty() && matches!(self.inner.get(name), Some(Fact { value: Value::List(items), .. }) if !items.is_empty());
        (whole.first().copied(), elements, known_items)
    }

    fn unknown_fact(value: &UnknownValue) -> UnknownFact {
        UnknownFact {
            value: value.clone(),
            elsewhere: None,
            of: None,
        }
    }
}

impl Facts for WithCopies<'_> {
    fn subject(&self) -> Subject<'_> {
        self.inner.subject()
    }

    fn replacement_bodies(&self) -> &[crate::model::notification::NewPolicy] {
        self.inner.replacement_bodies()
    }

    fn zone_id(&self) -> Option<&str> {
        self.inner.zone_id()
    }

    fn ca_change(&self, authority: &str) -> Option<serde_json::Value> {
        self.inner.ca_change(authority)
    }

    fn unknown(&self, name: FactName) -> Option<UnknownFact> {
        // A fact whose value another fact decides is as known as that one:
        // the deciding value unknown, the value it decided is a guess.
        if let Some(by) = self.inner.decided_by(name)
            && by != name
        {
            return self.own_unknown(by);
        }
        self.own_unknown(name).or_else(|| self.inner.unknown(name))
    }

    fn partly_unknown(&self, name: FactName) -> Vec<UnknownFact> {
        match self.deciding(name) {
            (None, elements, _) => elements.into_iter().map(Self::unknown_fact).collect(),
            _ => Vec::new(),
        }
    }

    fn decided_by(&self, name: FactName) -> Option<FactName> {
        self.inner.decided_by(name)
    }

    fn made(&self) -> Option<crate::model::as_of::Made> {
        self.inner.made()
    }

    fn get(&self, name: FactName) -> Option<Fact> {
        match name {
            // Everything was judged unless the evaluator says otherwise.
            FactName::NotJudged => return Some(Fact::new(Value::List(Vec::new()), "")),
            FactName::ConflictingCopies => {}
            // Nearly every account has no unknown value: the fact as it is.
            _ if self.unknown.is_none() => return self.inner.get(name),
            _ => {
                let fact = self.inner.get(name)?;
                // A value not known before apply is said so in a message,
                // never shown as empty (`hosts` from a variable is not "none").
                return Some(match (&fact.value, self.own_unknown(name)) {
                    (Value::List(_), Some(u)) => Fact {
                        value: Value::List(vec![Item {
                            text: format!("{} not known before apply", u.value.field_name()),
                            path: None,
                            elsewhere: None,
                        }]),
                        ..fact
                    },
                    (Value::Text(_), Some(u)) => Fact {
                        value: text(format!("({} not known before apply)", u.value.field_name())),
                        ..fact
                    },
                    _ => fact,
                });
            }
        }
        if self.copies.is_empty() {
            // Nearly every resource: asked once per resource, it costs nothing.
            return Some(Fact::new(Value::List(Vec::new()), ""));
        }
        let subject = self.inner.subject();
        let what = format!("{} {}", subject.kind, super::pool::describe(subject.name, &subject.id.text()));
        // Each differing copy is reported at both places: on the first copy
        // (the one analysed), and on the other, each naming where the other is.
        let place = |origin: &crate::model::origin::RecordOrigin| {
            let file = self.files.get(origin.file().0 as usize).map_or("?", String::as_str);
            let pointer = origin.pointer();
            let pointer = if pointer.is_empty() { "/" } else { &pointer };
            format!("{file} at {pointer}")
        };
        let first = subject.origin;
        // Two blocks of one address in Terraform source are both judged (the
        // model keeps both); copies of a snapshot are counted once.
        let words = |other: &crate::model::origin::RecordOrigin| {
            use crate::model::terraform::is_declaration;
            if is_declaration(first) && is_declaration(other) {
                (
                    "is declared again in",
                    "is declared here again",
                    "Terraform refuses a configuration that declares one address twice; edgeaudit judges each block on its own",
                )
            } else {
                (
                    "is loaded again from",
                    "is loaded here again",
                    "edgeaudit counts the resource once and analyses the first copy it loaded; if the other copy is the current one, the findings for this resource are about stale data",
                )
            }
        };
        let items = self
            .copies
            .iter()
            .flat_map(|c| {
                let fields = c.fields.join(", ");
                let (again, here_again, consequence) = words(&c.other);
                [
                    Item {
                        text: format!("{what} {again} {} with a different {fields}: {consequence}", place(&c.other)),
                        path: None,
                        elsewhere: None,
                    },
                    Item {
                        text: format!(
                            "{what} {here_again}, with a different {fields} than its first copy in {}: {consequence}",
                            place(first)
                        ),
                        path: Some(String::new()),
                        elsewhere: Some(c.other.clone()),
                    },
                ]
            })
            .collect();
        Some(Fact::new(Value::List(items), ""))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::origin::FileId;
    use crate::model::origin::RecordOrigin;

    static FIELDS: crate::model::fields::ListFields = crate::model::fields::ListFields {
        paging: "/result_info",
        total_count: "/result_info/total_count",
        total_pages: "/result_info/total_pages",
    };

    fn list(total_count: Option<u64>, total_pages: Option<u64>) -> ExportList {
        ExportList {
            fields: &FIELDS,
            kind: Kind::Pool,
            id: "pool".into(),
            name: "pools".into(),
            zone: None,
            origin: RecordOrigin::new(FileId(0), "", None),
            loaded: 25,
            pages: 1,
            total_count,
            total_pages,
        }
    }

    #[test]
    fn a_list_points_at_the_count_that_shows_the_shortfall() {
        let short = list(Some(60), Some(3));
        let facts = ListFacts::new(&short);
        crate::facts::tests::provides_its_catalogue(&facts);
        let complete = facts.get(FactName::Complete).expect("complete");
        assert_eq!(
            (complete.value, complete.path.as_ref()),
            (Value::Bool(false), "/result_info/total_count")
        );
        let pages_only = list(Some(25), Some(2));
        assert_eq!(
            ListFacts::new(&pages_only).get(FactName::Complete).map(|f| f.path.into_owned()),
            Some("/result_info/total_pages".to_string())
        );
        let whole = list(Some(25), Some(1));
        assert_eq!(
            ListFacts::new(&whole).get(FactName::Complete).map(|f| f.value),
            Some(Value::Bool(true))
        );
    }
}
