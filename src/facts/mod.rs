//! Stage 3: per resource, named and typed facts with provenance, computed in
//! Rust. Rules (stage 4) read only these.
//!
//! Facts are computed when a rule asks for them: most resources fire nothing,
//! and a message's facts (a replacement policy body, say) are only worth
//! building for the resources that do.

pub mod account;
pub mod caa;
pub mod catalogue;
pub mod certificate;
pub mod chain;
pub mod coverage;
pub mod export;
pub mod name;
pub mod policy;
pub mod pool;

use std::borrow::Cow;

use chrono::{DateTime, Utc};

use crate::model::Kind;

pub use catalogue::{FactSpec, ValueType, catalogue};
pub use name::FactName;

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Bool(bool),
    Int(i64),
    /// Borrowed when static (`coverage`, `delivery`, …): asked for by several
    /// rules per resource, they cost no allocation.
    Text(Cow<'static, str>),
    Date(DateTime<Utc>),
    List(Vec<Item>),
    /// A value of the fact's type the export does not give (a certificate's
    /// zone id). It matches no condition's value, and a message shows it as
    /// the placeholder a person fills in (`{zone_id}`): unknown is a value
    /// of its own, never a string that might be taken for an id.
    NotInExport {
        /// What a message shows instead: the placeholder's name.
        placeholder: &'static str,
    },
}

/// One element of a list fact, with the field it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub text: String,
    /// Path relative to the record; `None` points at the fact's own path.
    pub path: Option<String>,
    /// Another record the element is at (the other copy of a resource
    /// loaded twice), when it is not at the subject's own.
    pub elsewhere: Option<crate::model::origin::RecordOrigin>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Fact {
    pub value: Value,
    /// The field (relative to the record) this fact was derived from; a
    /// finding "at" this fact points there. `""` is the record itself.
    pub path: Cow<'static, str>,
}

impl Fact {
    pub fn new(value: Value, path: &'static str) -> Fact {
        Fact {
            value,
            path: Cow::Borrowed(path),
        }
    }

    /// A fact at a field whose path the model carries.
    pub fn at(value: Value, path: impl Into<Cow<'static, str>>) -> Fact {
        Fact { value, path: path.into() }
    }
}

/// Items of a list fact, each at its own field.
pub fn located_items<'s>(values: impl IntoIterator<Item = (&'s str, &'s str)>) -> Value {
    Value::List(
        values
            .into_iter()
            .map(|(text, path)| Item {
                text: text.to_string(),
                path: Some(path.to_string()),
                elsewhere: None,
            })
            .collect(),
    )
}

pub use crate::model::subject::Subject;

/// A resource's facts, by name (the names of `catalogue(kind)`).
pub trait Facts {
    fn subject(&self) -> Subject<'_>;
    fn get(&self, name: FactName) -> Option<Fact>;

    /// The policy bodies that would take over a pool's legacy e-mail: the
    /// `replacement_policy` fact as data, which the remedy sends. Empty for
    /// every other subject.
    fn replacement_bodies(&self) -> &[crate::model::notification::NewPolicy] {
        &[]
    }

    /// The zone the resource's requests are addressed to, when the export
    /// gives it (the `zone`/`zone_id` facts render `{zone_id}` otherwise).
    fn zone_id(&self) -> Option<&str> {
        None
    }

    /// The body that moves a custom hostname to `authority`, as data: the
    /// `ca_change_body` fact as the remedy sends it. `None` when the export
    /// lacks the `ssl.method` or `ssl.type` the body must carry back (no
    /// request is built on a guess) and for every other subject.
    fn ca_change(&self, _authority: &str) -> Option<serde_json::Value> {
        None
    }

    /// The value not known before apply that fact `name` depends on, when
    /// one does: a rule that tests the fact cannot judge the resource. The
    /// resource's own values are found by [`export::WithCopies`] from the
    /// catalogue's [`catalogue::reads`]; a subject's facts add what other
    /// resources leave unknown (a pool's coverage, by a policy's values).
    fn unknown(&self, _name: FactName) -> Option<UnknownFact> {
        None
    }

    /// For a fact made element by element that nothing decides whole: the
    /// elements of its lists not known before apply, each of which may make
    /// one more item. A rule that reports each item reports the known ones
    /// and cannot judge these.
    fn partly_unknown(&self, _name: FactName) -> Vec<UnknownFact> {
        Vec::new()
    }

    /// When the resource was made, when its record says: an as-of replay
    /// does not judge what the account did not yet hold.
    fn made(&self) -> Option<crate::model::as_of::Made> {
        None
    }

    /// The fact whose value alone decides `name`'s, when it does: a policy
    /// of another alert type has no invalid health filter, whatever its
    /// filters are, so an unknown filter leaves that fact known.
    fn decided_by(&self, _name: FactName) -> Option<FactName> {
        None
    }
}

/// A fact's dependence on a value not known before apply.
#[derive(Debug, Clone, PartialEq)]
pub struct UnknownFact {
    pub value: crate::model::unknown::UnknownValue,
    /// The record the value is in, when it is another resource's.
    pub elsewhere: Option<crate::model::origin::RecordOrigin>,
    /// That resource, in words (`notification_policy oncall (…)`).
    pub of: Option<String>,
}

/// A text the export may not give: `placeholder` when it does not.
pub fn text_or_placeholder(s: Option<&str>, placeholder: &'static str) -> Value {
    s.map_or(Value::NotInExport { placeholder }, text)
}

pub fn text(s: impl Into<String>) -> Value {
    Value::Text(Cow::Owned(s.into()))
}

pub fn static_text(s: &'static str) -> Value {
    Value::Text(Cow::Borrowed(s))
}

pub fn text_items<S: Into<String>>(values: impl IntoIterator<Item = S>) -> Value {
    Value::List(
        values
            .into_iter()
            .map(|text| Item {
                text: text.into(),
                path: None,
                elsewhere: None,
            })
            .collect(),
    )
}

/// Which resource a finding is about, so its facts (and message) can be
/// rebuilt when a report writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SubjectRef {
    pub account: u32,
    pub kind: Kind,
    pub index: u32,
}

/// Consecutive subjects of one account and kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubjectRange {
    pub account: u32,
    pub kind: Kind,
    pub indexes: std::ops::Range<u32>,
}

/// The cross-resource indexes of an inventory, built once: everything a
/// subject's facts need besides the subject itself.
pub struct Analysis<'a> {
    inventory: &'a crate::model::Inventory,
    /// The input files' names, for saying where other copies of a resource are.
    files: Vec<String>,
    indexes: Vec<coverage::CoverageIndex<'a>>,
    /// CAA records describe DNS names, whatever account's export they came in.
    caa: caa::CaaIndex<'a>,
    /// Per account, counted when its account facts are first asked for.
    tallies: Vec<std::sync::OnceLock<account::Tally>>,
    /// Per account: Universal SSL settings and zone ids by zone.
    universal_ssl: Vec<std::collections::HashMap<crate::model::certificate::ZoneKey, &'a crate::model::certificate::ZoneSetting>>,
    zone_ids: Vec<std::collections::HashMap<crate::model::certificate::ZoneKey, &'a str>>,
}

impl<'a> Analysis<'a> {
    pub fn new(inventory: &'a crate::model::Inventory, files: Vec<String>) -> Self {
        let indexes: Vec<_> = inventory.accounts.iter().map(coverage::CoverageIndex::new).collect();
        let tallies = inventory.accounts.iter().map(|_| std::sync::OnceLock::new()).collect();
        let caa = caa::CaaIndex::new(inventory.accounts.iter().flat_map(|a| &a.caa_records));
        let universal_ssl = inventory.accounts.iter().map(|a| a.universal_ssl_by_zone()).collect();
        let zone_ids = inventory.accounts.iter().map(|a| a.zone_ids()).collect();
        Analysis {
            inventory,
            files,
            indexes,
            caa,
            tallies,
            universal_ssl,
            zone_ids,
        }
    }

    /// Every subject's facts, one at a time, so that a million resources never
    /// hold a million fact sets at once (the fuzz targets walk them so).
    pub fn for_each_subject(&self, mut visit: impl FnMut(SubjectRef, &dyn Facts)) {
        for range in self.subject_ranges(usize::MAX) {
            self.for_each_subject_in(&range, &mut visit);
        }
    }

    /// Every subject in order, in consecutive ranges of at most `size`
    /// subjects of one account and kind (to be visited on several threads).
    pub fn subject_ranges(&self, size: usize) -> Vec<SubjectRange> {
        let size = size.max(1);
        let mut ranges = Vec::new();
        for (a, account) in self.inventory.accounts.iter().enumerate() {
            let kinds = [
                (Kind::Pool, account.pools.len()),
                (Kind::NotificationPolicy, account.policies.len()),
                (Kind::CustomCertificate, account.custom_certificates.len()),
                (Kind::CertificatePack, account.certificate_packs.len()),
                (Kind::TotalTls, account.total_tls.len()),
                (Kind::CustomHostname, account.custom_hostnames.len()),
                (Kind::Account, 1),
                (Kind::List, account.lists.len()),
            ];
            for (kind, count) in kinds {
                let mut start = 0;
                while start < count {
                    let end = count.min(start.saturating_add(size));
                    ranges.push(SubjectRange {
                        account: a as u32,
                        kind,
                        indexes: start as u32..end as u32,
                    });
                    start = end;
                }
            }
        }
        ranges
    }

    /// The facts of each subject of `range`, in order, one at a time, so
    /// that a million resources never hold a million fact sets at once.
    pub fn for_each_subject_in(&self, range: &SubjectRange, mut visit: impl FnMut(SubjectRef, &dyn Facts)) {
        for index in range.indexes.clone() {
            let subject = SubjectRef {
                account: range.account,
                kind: range.kind,
                index,
            };
            self.with_facts(subject, |facts| visit(subject, facts));
        }
    }

    /// The resource a subject names, straight from the inventory.
    pub fn subject(&self, subject: SubjectRef) -> Option<Subject<'a>> {
        let account = self.inventory.accounts.get(subject.account as usize)?;
        let i = subject.index as usize;
        match subject.kind {
            Kind::Pool => Some(account.pools.get(i)?.subject()),
            Kind::NotificationPolicy => Some(account.policies.get(i)?.subject()),
            Kind::CustomCertificate => Some(account.custom_certificates.get(i)?.subject()),
            Kind::CertificatePack => Some(account.certificate_packs.get(i)?.subject()),
            Kind::TotalTls => {
                let setting = account.total_tls.get(i)?;
                Some(setting.subject(Kind::TotalTls, account.zone(setting.zone)))
            }
            Kind::CustomHostname => Some(account.custom_hostnames.get(i)?.subject()),
            Kind::Account => account.subject(),
            Kind::List => Some(account.lists.get(i)?.subject()),
            _ => None,
        }
    }

    /// Runs `f` on the subject's facts; `None` when the subject has none (an
    /// account without pools).
    /// The model the facts are computed from.
    pub fn inventory(&self) -> &'a crate::model::Inventory {
        self.inventory
    }

    pub fn with_facts<R>(&self, subject: SubjectRef, f: impl FnOnce(&dyn Facts) -> R) -> Option<R> {
        let a = subject.account as usize;
        let account = self.inventory.accounts.get(a)?;
        let index = &self.indexes[a];
        let i = subject.index as usize;
        match subject.kind {
            Kind::Pool => Some(f(&export::WithCopies::new(
                &pool::PoolFacts::new(account.pools.get(i)?, account.id.as_deref(), index),
                account.conflicts_of(Kind::Pool, i),
                &self.files,
            )
            .with_unknown(&account.unknown))),
            Kind::NotificationPolicy => Some(f(&export::WithCopies::new(
                &policy::PolicyFacts::new(account.policies.get(i)?, index),
                account.conflicts_of(Kind::NotificationPolicy, i),
                &self.files,
            )
            .with_unknown(&account.unknown))),
            Kind::CustomCertificate => Some(f(&export::WithCopies::new(
                &certificate::CustomCertificateFacts::new(account.custom_certificates.get(i)?),
                account.conflicts_of(Kind::CustomCertificate, i),
                &self.files,
            )
            .with_unknown(&account.unknown))),
            Kind::CertificatePack => {
                let pack = account.certificate_packs.get(i)?;
                let universal = pack.zone.and_then(|zone| self.universal_ssl[a].get(&zone).copied());
                Some(f(&export::WithCopies::new(
                    &certificate::CertificatePackFacts::new(pack, universal).in_zone(account.zone(pack.zone)),
                    account.conflicts_of(Kind::CertificatePack, i),
                    &self.files,
                )
                .with_unknown(&account.unknown)))
            }
            Kind::TotalTls => {
                let setting = account.total_tls.get(i)?;
                Some(f(&export::WithCopies::new(
                    &certificate::TotalTlsFacts::new(setting, account.zone(setting.zone)),
                    &[],
                    &self.files,
                )
                .with_unknown(&account.unknown)))
            }
            Kind::CustomHostname => {
                let host = account.custom_hostnames.get(i)?;
                let zone_id = host.zone().and_then(|key| self.zone_ids[a].get(&key).copied());
                Some(f(&export::WithCopies::new(
                    &certificate::CustomHostnameFacts::new(host, &self.caa, zone_id),
                    account.conflicts_of(Kind::CustomHostname, i),
                    &self.files,
                )
                .with_unknown(&account.unknown)))
            }
            Kind::List => Some(f(&export::ListFacts::new(account.lists.get(i)?))),
            Kind::Account => {
                let tally = *self.tallies[a].get_or_init(|| {
                    let mut tally = account::Tally::default();
                    for pool in &account.pools {
                        // A pool that may not exist is counted in no total.
                        if account.may_exist(&pool.origin) {
                            tally.may_exist += 1;
                            continue;
                        }
                        tally.add(index.of(pool).coverage);
                    }
                    tally
                });
                Some(f(&account::AccountFacts::new(account, tally)?))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Every fact the catalogue names for the provider's kind is provided.
    pub fn provides_its_catalogue(own: &dyn Facts) {
        // As the analysis hands them out: with the fact about other copies.
        let facts = &export::WithCopies::new(own, &[], &[]);
        for spec in catalogue(facts.subject().kind) {
            let fact = facts
                .get(spec.name)
                .unwrap_or_else(|| panic!("{} does not provide {}", facts.subject().kind, spec.name));
            let ty = match fact.value {
                Value::Bool(_) => ValueType::Bool,
                Value::Int(_) => ValueType::Int,
                Value::Text(_) => ValueType::Text,
                Value::Date(_) => ValueType::Date,
                Value::List(_) => ValueType::List,
                // Of any type: what the export leaves out.
                Value::NotInExport { .. } => spec.value_type,
            };
            assert_eq!(ty, spec.value_type, "type of {}", spec.name);
            if let (Value::Text(t), false) = (&fact.value, spec.values.is_empty()) {
                assert!(
                    spec.values.contains(&t.as_ref()),
                    "{} = {t} is not among its declared values",
                    spec.name
                );
            }
        }
        // And nothing else: the subject's own facts answer no name its
        // kind's catalogue lacks (no arm is kept that no rule could name).
        let kind = own.subject().kind;
        for name in FactName::ALL {
            if !catalogue(kind).iter().any(|spec| spec.name == *name) {
                assert!(own.get(*name).is_none(), "{kind} answers {name}, which its catalogue lacks");
            }
        }
    }
}
