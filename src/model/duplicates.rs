//! The same resource loaded twice: by kind and id, counted once. Identical
//! copies (in every field edgeaudit reads) are only noted; copies that
//! differ are kept on the first copy as conflicts (EX002).
//!
//! Blocks of Terraform source that declare one address twice are the
//! exception: they are two declarations, not two snapshots of one resource,
//! and Terraform refuses the configuration rather than pick one. Both are
//! kept and judged, each at its own lines, and still reported as a conflict.

use super::certificate::{CertificatePack, CustomCertificate, CustomHostname, IssuedCertificate};
use super::notification::{Policy, Pool, Valued};
use super::origin::RecordOrigin;
use super::terraform::is_declaration;
use super::{Account, Kind};

/// A later copy of a resource that differs from the one kept.
#[derive(Debug, Clone)]
pub struct Conflict {
    pub kind: Kind,
    /// The kept copy, by its index in its account's list of that kind.
    pub index: usize,
    /// Where the other copy is.
    pub other: RecordOrigin,
    /// The fields that differ, as the export names them.
    pub fields: Vec<&'static str>,
}

/// A resource that can be loaded twice: its identity and how copies differ.
trait Resource {
    fn key(&self) -> &str;
    fn origin(&self) -> &RecordOrigin;
    fn differences(&self, other: &Self) -> Vec<&'static str>;
}

fn differ<T: PartialEq>(out: &mut Vec<&'static str>, field: &'static str, a: T, b: T) {
    if a != b {
        out.push(field);
    }
}

fn values(v: &[Valued]) -> Vec<&str> {
    v.iter().map(|v| v.value.as_str()).collect()
}

impl Resource for Pool {
    fn key(&self) -> &str {
        &self.id
    }
    fn origin(&self) -> &RecordOrigin {
        &self.origin
    }
    fn differences(&self, o: &Self) -> Vec<&'static str> {
        let mut d = Vec::new();
        differ(&mut d, "name", &self.name, &o.name);
        differ(&mut d, "notification_email", &self.legacy_recipients, &o.legacy_recipients);
        differ(&mut d, "notification_filter", self.legacy_events, o.legacy_events);
        d
    }
}

impl Resource for Policy {
    fn key(&self) -> &str {
        &self.id
    }
    fn origin(&self) -> &RecordOrigin {
        &self.origin
    }
    fn differences(&self, o: &Self) -> Vec<&'static str> {
        let mut d = Vec::new();
        differ(&mut d, "name", &self.name, &o.name);
        differ(&mut d, "alert_type", &self.alert_type, &o.alert_type);
        differ(&mut d, "enabled", self.enabled, o.enabled);
        let mechanisms = |p: &Policy| p.mechanisms.iter().map(|m| (m.kind.clone(), m.target.clone())).collect::<Vec<_>>();
        differ(&mut d, "mechanisms", mechanisms(self), mechanisms(o));
        differ(&mut d, "filters.pool_id", values(&self.pool_ids), values(&o.pool_ids));
        differ(&mut d, "filters.new_health", values(&self.new_health), values(&o.new_health));
        differ(&mut d, "filters.event_source", values(&self.event_source), values(&o.event_source));
        d
    }
}

fn certificate_differences(d: &mut Vec<&'static str>, a: &IssuedCertificate, b: &IssuedCertificate) {
    differ(d, "issuer", &a.issuer, &b.issuer);
    differ(d, "signature", a.key_type, b.key_type);
    differ(d, "bundle_method", a.bundle_method, b.bundle_method);
    differ(d, "uploaded_on", a.uploaded_on, b.uploaded_on);
    differ(d, "expires_on", a.expires_on, b.expires_on);
    differ(d, "status", &a.status, &b.status);
}

fn chain_fingerprints(chain: Option<&super::pem::Chain>) -> Option<Vec<&str>> {
    chain.map(|c| c.certificates.iter().map(|c| c.sha256.as_str()).collect())
}

impl Resource for CustomCertificate {
    fn key(&self) -> &str {
        &self.id
    }
    fn origin(&self) -> &RecordOrigin {
        &self.origin
    }
    fn differences(&self, o: &Self) -> Vec<&'static str> {
        let mut d = Vec::new();
        differ(&mut d, "hosts", &self.hosts, &o.hosts);
        certificate_differences(&mut d, &self.certificate, &o.certificate);
        differ(
            &mut d,
            "certificate",
            chain_fingerprints(self.chain.as_deref()),
            chain_fingerprints(o.chain.as_deref()),
        );
        d
    }
}

impl Resource for CertificatePack {
    fn key(&self) -> &str {
        &self.id
    }
    fn origin(&self) -> &RecordOrigin {
        &self.origin
    }
    fn differences(&self, o: &Self) -> Vec<&'static str> {
        let mut d = Vec::new();
        differ(&mut d, "type", &self.pack_type, &o.pack_type);
        differ(&mut d, "hosts", &self.hosts, &o.hosts);
        differ(&mut d, "certificate_authority", &self.authority, &o.authority);
        differ(&mut d, "status", &self.status, &o.status);
        if self.certificates.len() != o.certificates.len() {
            d.push("certificates");
        } else {
            let mut inner = Vec::new();
            for (a, b) in self.certificates.iter().zip(&o.certificates) {
                certificate_differences(&mut inner, &a.issued, &b.issued);
            }
            if !inner.is_empty() {
                d.push("certificates");
            }
        }
        d
    }
}

impl Resource for CustomHostname {
    fn key(&self) -> &str {
        self.id_key()
    }
    fn origin(&self) -> &RecordOrigin {
        &self.origin
    }
    fn differences(&self, o: &Self) -> Vec<&'static str> {
        let mut d = Vec::new();
        differ(&mut d, "hostname", self.hostname(), o.hostname());
        differ(&mut d, "ssl.certificate_authority", self.authority(), o.authority());
        differ(&mut d, "ssl.wildcard", self.wildcard(), o.wildcard());
        differ(&mut d, "ssl.method", self.ssl_method(), o.ssl_method());
        differ(&mut d, "ssl.type", self.ssl_type(), o.ssl_type());
        match (&self.certificate, &o.certificate) {
            (Some(a), Some(b)) => {
                let mut inner = Vec::new();
                certificate_differences(&mut inner, a, b);
                if !inner.is_empty() {
                    d.push("ssl");
                }
            }
            (None, None) => {}
            _ => d.push("ssl"),
        }
        differ(
            &mut d,
            "ssl.custom_certificate",
            chain_fingerprints(self.chain.as_deref()),
            chain_fingerprints(o.chain.as_deref()),
        );
        d
    }
}

fn hash(key: &str) -> u64 {
    use std::hash::BuildHasher;
    // A fixed seed: nothing may depend on the run. foldhash, not SipHash:
    // a million ids are hashed on the one thread that settles the model.
    foldhash::fast::FixedState::with_seed(0).hash_one(key)
}

/// Keeps the first copy of each id (ids without a value are never merged),
/// counts identical later copies and records differing ones.
fn dedupe<T: Resource + Sync>(kind: Kind, items: &mut Vec<T>, identical: &mut usize, conflicts: &mut Vec<Conflict>) {
    // Sorted (hash, index) pairs rather than a map of strings: a million
    // hostnames cost 16 bytes each and a sort of integers; only ids whose
    // hashes collide are compared as text. Hashed on every thread, a stretch
    // of records each (on one, a million ids took 25 ms while the other core
    // waited).
    const STRETCH: usize = 1 << 16;
    let starts: Vec<usize> = (0..items.len()).step_by(STRETCH).collect();
    let stretches = crate::threads::ordered_map(&starts, crate::threads::count(), |&start| {
        let stretch = items.get(start..(start + STRETCH).min(items.len())).unwrap_or_default();
        stretch
            .iter()
            .enumerate()
            .filter_map(|(i, item)| {
                let key = item.key();
                (!key.is_empty()).then(|| (hash(key), (start + i) as u32))
            })
            .collect::<Vec<(u64, u32)>>()
    });
    let mut order: Vec<(u64, u32)> = stretches.concat();
    crate::threads::sort_unstable(&mut order);
    let mut drop = vec![false; items.len()];
    let mut found: Vec<(usize, RecordOrigin, Vec<&'static str>)> = Vec::new();
    for run in order.chunk_by(|a, b| a.0 == b.0).filter(|run| run.len() > 1) {
        for (n, &(_, later)) in run.iter().enumerate() {
            let later = later as usize;
            // The first copy: the earliest of the same id (indices ascend within a hash).
            let Some(&(_, first)) = run[..n].iter().find(|(_, i)| items[*i as usize].key() == items[later].key()) else {
                continue;
            };
            let first = first as usize;
            let fields = items[first].differences(&items[later]);
            if fields.is_empty() {
                drop[later] = true;
                *identical += 1;
            } else {
                // Two blocks of source are two declarations: both judged.
                drop[later] = !(is_declaration(items[first].origin()) && is_declaration(items[later].origin()));
                found.push((first, items[later].origin().clone(), fields));
            }
        }
    }
    if found.is_empty() && !drop.contains(&true) {
        return;
    }
    // Indices of the kept copies after the dropped ones are removed.
    let mut new_index = Vec::with_capacity(items.len());
    let mut kept = 0;
    for &dropped in &drop {
        new_index.push(kept);
        if !dropped {
            kept += 1;
        }
    }
    let mut i = 0;
    items.retain(|_| {
        let keep = !drop[i];
        i += 1;
        keep
    });
    for (first, other, fields) in found {
        conflicts.push(Conflict {
            kind,
            index: new_index[first],
            other,
            fields,
        });
    }
}

/// Merges the copies of every resource of an account.
pub fn merge(account: &mut Account) -> usize {
    let mut identical = 0;
    let mut conflicts = Vec::new();
    dedupe(Kind::Pool, &mut account.pools, &mut identical, &mut conflicts);
    dedupe(Kind::NotificationPolicy, &mut account.policies, &mut identical, &mut conflicts);
    dedupe(
        Kind::CustomCertificate,
        &mut account.custom_certificates,
        &mut identical,
        &mut conflicts,
    );
    dedupe(
        Kind::CertificatePack,
        &mut account.certificate_packs,
        &mut identical,
        &mut conflicts,
    );
    dedupe(Kind::CustomHostname, &mut account.custom_hostnames, &mut identical, &mut conflicts);
    identical += dedupe_dns(account);
    conflicts.sort_by_key(|c| (c.kind, c.index));
    account.conflicts = conflicts;
    identical
}

/// DNS records by id, like every other kind: a later copy of a record
/// (recorded answers often repeat one) is dropped and counted; copies of one
/// CAA record id that differ are both kept (no rule judges a DNS record, and
/// each may be the one in force). Records without an id (BIND) are never merged.
fn dedupe_dns(account: &mut Account) -> usize {
    let before = account.caa_records.len() + account.other_dns_ids.len();
    let mut seen: std::collections::HashSet<(String, String, u8, String, String)> = std::collections::HashSet::new();
    account
        .caa_records
        .retain(|r| r.id.is_empty() || seen.insert((r.id.clone(), r.name.clone(), r.flags, r.tag.clone(), r.value.clone())));
    let mut ids: std::collections::HashSet<String> = std::collections::HashSet::new();
    account.other_dns_ids.retain(|id| ids.insert(id.clone()));
    before - account.caa_records.len() - account.other_dns_ids.len()
}

impl Account {
    /// The differing copies of a resource.
    pub fn conflicts_of(&self, kind: Kind, index: usize) -> &[Conflict] {
        let start = self.conflicts.partition_point(|c| (c.kind, c.index) < (kind, index));
        let end = self.conflicts.partition_point(|c| (c.kind, c.index) <= (kind, index));
        &self.conflicts[start..end]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::samples::{all_events, pool};

    #[test]
    fn identical_copies_are_counted_and_differing_ones_kept_as_conflicts() {
        let mut account = Account {
            pools: vec![
                pool("a", &["x@example.com"], all_events()),
                pool("b", &["y@example.com"], all_events()),
                pool("a", &["x@example.com"], all_events()),
                pool("b", &["z@example.com"], all_events()),
                pool("", &[], all_events()),
                pool("", &[], all_events()),
            ],
            ..Account::default()
        };
        let identical = merge(&mut account);
        assert_eq!(identical, 1);
        let ids: Vec<&str> = account.pools.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(
            ids,
            ["a", "b", "", ""],
            "the first copy is kept; ids without a value are never merged"
        );
        assert!(account.conflicts_of(Kind::Pool, 0).is_empty());
        let b = account.conflicts_of(Kind::Pool, 1);
        assert_eq!(b.len(), 1);
        assert_eq!(b[0].fields, ["notification_email"]);
    }

    #[test]
    fn two_blocks_of_source_are_both_kept_and_two_plans_are_not() {
        let id = "${cloudflare_load_balancer_pool.web.id}";
        let at = |pointer: &str, recipient: &str| Pool {
            origin: RecordOrigin::new(crate::model::origin::FileId(0), pointer, None),
            ..pool(id, &[recipient], all_events())
        };
        let mut declared = Account {
            pools: vec![
                at("/resource/cloudflare_load_balancer_pool/web/0", "x@example.com"),
                at("/resource/cloudflare_load_balancer_pool/web/1", "y@example.com"),
            ],
            ..Account::default()
        };
        merge(&mut declared);
        assert_eq!(declared.pools.len(), 2, "both blocks are judged");
        assert_eq!(declared.conflicts_of(Kind::Pool, 0).len(), 1, "and reported (EX002)");
        // A pool a plan creates has the same kind of id: two plans are two snapshots.
        let mut planned = Account {
            pools: vec![
                at("/resource_changes/0/change/after", "x@example.com"),
                at("/resource_changes/0/change/after", "y@example.com"),
            ],
            ..Account::default()
        };
        merge(&mut planned);
        assert_eq!(planned.pools.len(), 1, "counted once");
        assert_eq!(planned.conflicts_of(Kind::Pool, 0).len(), 1);
    }

    #[test]
    fn custom_hostnames_are_merged_by_their_id_as_written_whether_packed_or_not() {
        use crate::model::certificate::{Authority, CustomHostname};
        use crate::model::hostname_text::HostnameStrings;
        let uuid = "0d89c70d-ad9f-4843-b99f-6cc0252067e9";
        let host = |id: &str, hostname: &str, ca: &Authority| {
            let strings = HostnameStrings {
                id,
                hostname,
                ssl_method: Some("http"),
                authority: Some(ca),
                ..HostnameStrings::default()
            };
            CustomHostname::new(
                crate::model::samples::origin(),
                &crate::model::fields::HOSTNAME,
                &strings,
                None,
                None,
            )
        };
        let google = Authority::Google;
        let mut account = Account {
            custom_hostnames: vec![
                host(uuid, "a.example", &google),
                // The same UUID in capitals, and without dashes: other ids as written.
                host(&uuid.to_uppercase(), "a.example", &google),
                host(&uuid.replace('-', ""), "a.example", &google),
                host(uuid, "a.example", &google),
                host(uuid, "a.example", &Authority::LetsEncrypt),
                host("h1", "b.example", &google),
                host("h1", "b.example", &google),
            ],
            ..Account::default()
        };
        let identical = merge(&mut account);
        assert_eq!(identical, 2);
        let ids: Vec<String> = account.custom_hostnames.iter().map(|h| h.id().into_owned()).collect();
        assert_eq!(
            ids,
            [uuid.to_string(), uuid.to_uppercase(), uuid.replace('-', ""), "h1".to_string()]
        );
        let conflicts = account.conflicts_of(Kind::CustomHostname, 0);
        assert_eq!(conflicts.len(), 1);
        assert_eq!(conflicts[0].fields, ["ssl.certificate_authority"]);
    }
}
