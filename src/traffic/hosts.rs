//! Which resources serve a request's host: a custom hostname its `hostname`;
//! a certificate pack or a custom certificate each of its `hosts` (a wildcard
//! `*.x` covers exactly one label below `x`); Total TLS every host of its zone.
//! Built from the exports before the traffic is read, so that only the hosts
//! some resource serves are counted.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::facts::SubjectRef;
use crate::model::{Inventory, Kind};

/// A request's host as compared: lower case, no port, no trailing dot.
pub fn normalise(host: &str) -> Cow<'_, str> {
    let host = host.trim();
    // A port, but not an IPv6 address's colons (`[::1]:443`).
    let host = match host.rsplit_once(':') {
        Some((name, port)) if !name.contains(':') && !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => name,
        Some((name, port)) if name.ends_with(']') && port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    };
    let host = host.trim_end_matches('.');
    if host.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(host.to_ascii_lowercase())
    } else {
        Cow::Borrowed(host)
    }
}

/// The resources each host is served by.
#[derive(Debug, Default)]
pub struct HostIndex {
    /// A host named exactly.
    exact: Map,
    /// `*.x`: the hosts one label below `x`, by `x`.
    wildcard: Map,
    /// Total TLS: every host of the zone, by the zone's name.
    zone: Map,
}

/// Looked up for every request: foldhash, not SipHash.
type Map = HashMap<String, Vec<SubjectRef>, foldhash::fast::RandomState>;

impl HostIndex {
    pub fn of(inventory: &Inventory) -> HostIndex {
        let mut index = HostIndex::default();
        for (a, account) in inventory.accounts.iter().enumerate() {
            let at = |kind: Kind, index: usize| SubjectRef {
                account: a as u32,
                kind,
                index: index as u32,
            };
            for (i, host) in account.custom_hostnames.iter().enumerate() {
                index.add(host.hostname(), at(Kind::CustomHostname, i));
            }
            for (i, pack) in account.certificate_packs.iter().enumerate() {
                for host in &pack.hosts {
                    index.add(host, at(Kind::CertificatePack, i));
                }
            }
            for (i, certificate) in account.custom_certificates.iter().enumerate() {
                for host in &certificate.hosts {
                    index.add(host, at(Kind::CustomCertificate, i));
                }
            }
            for (i, setting) in account.total_tls.iter().enumerate() {
                if let Some(name) = account.zone(setting.zone).and_then(|z| z.name.as_deref()) {
                    index
                        .zone
                        .entry(normalise(name).into_owned())
                        .or_default()
                        .push(at(Kind::TotalTls, i));
                }
            }
        }
        index
    }

    fn add(&mut self, host: &str, subject: SubjectRef) {
        let host = normalise(host);
        match host.strip_prefix("*.") {
            Some(parent) => self.wildcard.entry(parent.to_string()).or_default().push(subject),
            None => self.exact.entry(host.into_owned()).or_default().push(subject),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.exact.is_empty() && self.wildcard.is_empty() && self.zone.is_empty()
    }

    /// Whether a resource serves this (normalised) host.
    pub fn serves(&self, host: &str) -> bool {
        let mut found = false;
        self.for_each(host, |_| found = true);
        found
    }

    /// Each resource that serves this (normalised) host.
    pub fn for_each(&self, host: &str, mut each: impl FnMut(SubjectRef)) {
        for s in self.exact.get(host).into_iter().flatten() {
            each(*s);
        }
        if let Some((_, parent)) = host.split_once('.') {
            for s in self.wildcard.get(parent).into_iter().flatten() {
                each(*s);
            }
        }
        if !self.zone.is_empty() {
            let mut rest = host;
            loop {
                for s in self.zone.get(rest).into_iter().flatten() {
                    each(*s);
                }
                match rest.split_once('.') {
                    Some((_, parent)) => rest = parent,
                    None => break,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_compared_without_case_port_or_trailing_dot() {
        assert_eq!(normalise("Shop.Example.COM:8443"), "shop.example.com");
        assert_eq!(normalise("shop.example.com."), "shop.example.com");
        assert_eq!(normalise("[2001:db8::1]:443"), "[2001:db8::1]");
        assert_eq!(normalise("2001:db8::1"), "2001:db8::1");
    }

    #[test]
    fn a_wildcard_covers_exactly_one_label() {
        let mut index = HostIndex::default();
        let s = SubjectRef {
            account: 0,
            kind: Kind::CertificatePack,
            index: 0,
        };
        index.add("*.shop.example.com", s);
        assert!(index.serves("eu.shop.example.com"));
        assert!(!index.serves("shop.example.com"), "not the parent itself");
        assert!(!index.serves("a.eu.shop.example.com"), "not two labels below");
    }
}
