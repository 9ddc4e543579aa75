//! Which CAs the loaded CAA records allow for a hostname (RFC 8659).
//!
//! The relevant record set is the first found climbing from the hostname
//! towards the root; none found means every CA is allowed. For a wildcard
//! name, `issuewild` records govern when there are any. A CA is allowed when
//! an `issue` (or `issuewild`) value's domain — the part before `;` — is its
//! CAA domain. An unknown tag with the critical flag (128) forbids all.

use std::collections::HashMap;

use crate::model::dns::{CaaRecord, normalise_name};

pub const LETS_ENCRYPT: &str = "letsencrypt.org";
pub const GOOGLE: &str = "pki.goog";
pub const SSL_COM: &str = "ssl.com";

pub struct CaaIndex<'a> {
    by_name: HashMap<&'a str, Vec<&'a CaaRecord>>,
}

/// The record set that applies to a hostname, and where it was found.
pub struct RelevantSet<'a> {
    pub name: &'a str,
    pub records: &'a [&'a CaaRecord],
}

impl<'a> CaaIndex<'a> {
    pub fn new(records: impl IntoIterator<Item = &'a CaaRecord>) -> Self {
        let mut by_name: HashMap<&str, Vec<&CaaRecord>> = HashMap::new();
        for r in records {
            by_name.entry(r.name.as_str()).or_default().push(r);
        }
        CaaIndex { by_name }
    }

    pub fn relevant(&self, hostname: &str) -> Option<RelevantSet<'_>> {
        // Most exports load no CAA record: then a million hostnames are not
        // each normalised (a new string) to be looked up in vain, several times.
        if self.by_name.is_empty() {
            return None;
        }
        let name = normalise_name(hostname);
        let mut candidate = name.strip_prefix("*.").unwrap_or(&name);
        loop {
            if let Some((found, records)) = self.by_name.get_key_value(candidate) {
                return Some(RelevantSet { name: found, records });
            }
            match candidate.split_once('.') {
                Some((_, parent)) if !parent.is_empty() => candidate = parent,
                _ => return None,
            }
        }
    }

    /// Whether `ca_domain` may issue for `hostname`.
    pub fn allows(&self, hostname: &str, ca_domain: &str) -> bool {
        let wildcard = hostname.trim().starts_with("*.");
        self.relevant(hostname)
            .is_none_or(|set| set_allows(set.records, ca_domain, wildcard))
    }
}

fn set_allows(records: &[&CaaRecord], ca_domain: &str, wildcard: bool) -> bool {
    let known = ["issue", "issuewild", "iodef", "contactemail", "contactphone"];
    if records.iter().any(|r| r.flags & 128 != 0 && !known.contains(&r.tag.as_str())) {
        return false;
    }
    let with_tag = |tag: &str| records.iter().filter(|r| r.tag == tag).collect::<Vec<_>>();
    let issuewild = with_tag("issuewild");
    let governing = if wildcard && !issuewild.is_empty() {
        issuewild
    } else {
        with_tag("issue")
    };
    if governing.is_empty() {
        return true;
    }
    governing
        .iter()
        .any(|r| r.value.split(';').next().unwrap_or("").trim().eq_ignore_ascii_case(ca_domain))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::samples::origin;

    fn caa(name: &str, flags: u8, tag: &str, value: &str) -> CaaRecord {
        CaaRecord {
            id: String::new(),
            origin: origin(),
            name: name.into(),
            flags,
            tag: tag.into(),
            value: value.into(),
        }
    }

    #[test]
    fn the_first_record_set_up_the_tree_applies() {
        let records = vec![
            caa("example.com", 0, "issue", "letsencrypt.org"),
            caa("shop.example.com", 0, "issue", "pki.goog"),
        ];
        let index = CaaIndex::new(&records);
        assert!(index.allows("shop.example.com", GOOGLE));
        assert!(
            !index.allows("shop.example.com", LETS_ENCRYPT),
            "shop's own set applies, not the parent's"
        );
        assert!(index.allows("a.b.example.com", LETS_ENCRYPT));
        assert!(!index.allows("a.b.example.com", GOOGLE));
        assert!(index.allows("other.org", GOOGLE), "no record set: every CA");
        assert_eq!(index.relevant("A.B.Example.com.").map(|s| s.name), Some("example.com"));
    }

    #[test]
    fn parameters_after_the_domain_are_ignored() {
        let records = vec![caa("example.com", 0, "issue", "pki.goog; cansignhttpexchanges=yes")];
        assert!(CaaIndex::new(&records).allows("example.com", GOOGLE));
    }

    #[test]
    fn issuewild_governs_wildcards_when_present() {
        let records = vec![
            caa("example.com", 0, "issue", "pki.goog"),
            caa("example.com", 0, "issuewild", "letsencrypt.org"),
        ];
        let index = CaaIndex::new(&records);
        assert!(index.allows("*.example.com", LETS_ENCRYPT));
        assert!(!index.allows("*.example.com", GOOGLE));
        assert!(index.allows("www.example.com", GOOGLE), "not a wildcard: issue applies");
        let only_issue = vec![caa("example.com", 0, "issue", "pki.goog")];
        assert!(
            CaaIndex::new(&only_issue).allows("*.example.com", GOOGLE),
            "no issuewild: issue applies to wildcards"
        );
    }

    #[test]
    fn critical_unknown_tags_forbid_and_empty_values_deny() {
        let critical = vec![caa("example.com", 0, "issue", "pki.goog"), caa("example.com", 128, "tbs", "x")];
        assert!(!CaaIndex::new(&critical).allows("example.com", GOOGLE));
        let not_critical = vec![caa("example.com", 0, "issue", "pki.goog"), caa("example.com", 0, "tbs", "x")];
        assert!(CaaIndex::new(&not_critical).allows("example.com", GOOGLE));
        let deny = vec![caa("example.com", 0, "issue", ";")];
        assert!(!CaaIndex::new(&deny).allows("example.com", LETS_ENCRYPT));
        let iodef_only = vec![caa("example.com", 0, "iodef", "mailto:sec@example.com")];
        assert!(CaaIndex::new(&iodef_only).allows("example.com", LETS_ENCRYPT));
    }
}
