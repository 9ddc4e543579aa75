//! A custom hostname's own strings and small values: its id, hostname,
//! `ssl.method`, `ssl.type`, `ssl.certificate_authority`, `ssl.wildcard`
//! and its bundle zone.
//!
//! A plain struct. They were once packed into one heap block of a few
//! bytes (a UUID in 19 bytes, known methods as bits), which saved about
//! 80 MB at a million hostnames; peak memory is 0.26× the input against a
//! target of 1.3× (docs/src/performance.md), so the packing no longer paid
//! for its 500 lines. The method and type the API names are kept without an
//! allocation of their own.

use std::borrow::Cow;

use super::ca::Authority;

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct HostnameText {
    id: Box<str>,
    hostname: Box<str>,
    ssl_method: Option<Cow<'static, str>>,
    ssl_type: Option<Cow<'static, str>>,
    authority: Authority,
    wildcard: bool,
    zone: Option<u32>,
}

/// What a [`HostnameText`] is made of.
#[derive(Debug, Clone, Copy, Default)]
pub struct HostnameStrings<'a> {
    pub id: &'a str,
    pub hostname: &'a str,
    pub ssl_method: Option<&'a str>,
    pub ssl_type: Option<&'a str>,
    pub authority: Option<&'a Authority>,
    pub wildcard: bool,
    /// The index of the bundle zone (in the record's own file) it belongs to.
    pub zone: Option<u32>,
}

/// The values the API gives `ssl.method` and `ssl.type`, shared by every
/// hostname that has them.
const KNOWN: [&str; 4] = ["http", "txt", "email", "dv"];

fn word(value: Option<&str>) -> Option<Cow<'static, str>> {
    value.map(|v| match KNOWN.iter().find(|k| **k == v) {
        Some(known) => Cow::Borrowed(*known),
        None => Cow::Owned(v.to_string()),
    })
}

impl HostnameText {
    pub fn new(s: &HostnameStrings<'_>) -> HostnameText {
        HostnameText {
            id: s.id.into(),
            hostname: s.hostname.into(),
            ssl_method: word(s.ssl_method),
            ssl_type: word(s.ssl_type),
            authority: s.authority.cloned().unwrap_or(Authority::Unknown),
            wildcard: s.wildcard,
            zone: s.zone,
        }
    }

    /// The id as the export wrote it.
    pub fn id(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.id)
    }

    /// The id's identity: equal exactly when the ids are equal as written,
    /// and empty when the id is.
    pub fn id_key(&self) -> &str {
        &self.id
    }

    pub fn hostname(&self) -> &str {
        &self.hostname
    }

    pub fn ssl_method(&self) -> Option<&str> {
        self.ssl_method.as_deref()
    }

    pub fn ssl_type(&self) -> Option<&str> {
        self.ssl_type.as_deref()
    }

    pub fn wildcard(&self) -> bool {
        self.wildcard
    }

    pub fn zone(&self) -> Option<u32> {
        self.zone
    }

    pub fn authority(&self) -> Authority {
        self.authority.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::word::Word;

    #[test]
    fn every_part_reads_back_as_written() {
        let sectigo = Authority::Other(Word::from("Sectigo"));
        for id in [
            "0d89c70d-ad9f-4843-b99f-6cc0252067e9",
            "0D89C70D-AD9F-4843-B99F-6CC0252067E9",
            "h1",
            "é",
            "",
        ] {
            for (method, ssl_type) in [(None, None), (Some("http"), Some("dv")), (Some("HTTP"), Some("")), (Some(""), None)] {
                for authority in [None, Some(&Authority::Default), Some(&sectigo)] {
                    for (wildcard, zone) in [(false, None), (true, Some(0)), (false, Some(4_000_000_000))] {
                        let t = HostnameText::new(&HostnameStrings {
                            id,
                            hostname: "app.example.com",
                            ssl_method: method,
                            ssl_type,
                            authority,
                            wildcard,
                            zone,
                        });
                        assert_eq!(t.id(), id);
                        assert_eq!(t.id_key(), id);
                        assert_eq!(t.hostname(), "app.example.com");
                        assert_eq!((t.ssl_method(), t.ssl_type()), (method, ssl_type));
                        assert_eq!(t.authority(), authority.cloned().unwrap_or(Authority::Unknown));
                        assert_eq!((t.wildcard(), t.zone()), (wildcard, zone));
                    }
                }
            }
        }
    }

    #[test]
    fn the_apis_methods_and_types_are_shared_not_copied() {
        let t = HostnameText::new(&HostnameStrings {
            ssl_method: Some("txt"),
            ssl_type: Some("dv"),
            ..HostnameStrings::default()
        });
        assert!(matches!(t.ssl_method, Some(Cow::Borrowed("txt"))));
        assert!(matches!(t.ssl_type, Some(Cow::Borrowed("dv"))));
        let other = HostnameText::new(&HostnameStrings {
            ssl_method: Some("HTTP"),
            ..HostnameStrings::default()
        });
        assert!(matches!(other.ssl_method, Some(Cow::Owned(_))), "kept as written");
    }
}
