//! Stage 3: per resource, named and typed facts with provenance, computed in
//! Rust. Rules (stage 4) read only these.

pub mod account;
pub mod catalogue;
pub mod coverage;
pub mod policy;
pub mod pool;

use chrono::{DateTime, Utc};

use crate::model::Kind;
use crate::model::origin::RecordOrigin;

pub use catalogue::{FactSpec, ValueType, catalogue};

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Bool(bool),
    Int(i64),
    Text(String),
    Date(DateTime<Utc>),
    List(Vec<Item>),
}

/// One element of a list fact, with the field it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub text: String,
    /// Path relative to the record; `None` points at the fact's own path.
    pub path: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Fact {
    pub value: Value,
    /// The field (relative to the record) this fact was derived from; a
    /// finding "at" this fact points there. `""` is the record itself.
    pub path: String,
}

/// The resource facts are about.
#[derive(Debug, Clone)]
pub struct Subject {
    pub kind: Kind,
    pub id: String,
    pub name: String,
    pub origin: RecordOrigin,
}

#[derive(Debug, Clone)]
pub struct Facts {
    pub subject: Subject,
    values: Vec<(&'static str, Fact)>,
}

impl Facts {
    pub fn new(subject: Subject) -> Self {
        Facts {
            subject,
            values: Vec::new(),
        }
    }

    pub fn set(&mut self, name: &'static str, value: Value, path: impl Into<String>) {
        debug_assert!(
            catalogue(self.subject.kind).iter().any(|s| s.name == name),
            "fact {name} is not in the catalogue of {}",
            self.subject.kind
        );
        self.values.push((name, Fact { value, path: path.into() }));
    }

    pub fn get(&self, name: &str) -> Option<&Fact> {
        self.values.iter().find(|(n, _)| *n == name).map(|(_, f)| f)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &Fact)> {
        self.values.iter().map(|(n, f)| (*n, f))
    }
}

pub fn text_items(values: impl IntoIterator<Item = String>, path: Option<&str>) -> Value {
    Value::List(
        values
            .into_iter()
            .map(|text| Item {
                text,
                path: path.map(str::to_string),
            })
            .collect(),
    )
}

/// Every subject's facts, account by account, handed to `visit` one at a
/// time so that a million resources never hold a million fact sets at once.
pub fn for_each_subject(inventory: &crate::model::Inventory, mut visit: impl FnMut(&Facts)) {
    for account in &inventory.accounts {
        let coverage = coverage::CoverageIndex::new(account);
        for pool in &account.pools {
            visit(&pool::facts(pool, account.id.as_deref(), &coverage));
        }
        for policy in &account.policies {
            visit(&policy::facts(policy, &coverage));
        }
        if let Some(facts) = account::facts(account, &coverage) {
            visit(&facts);
        }
    }
}
