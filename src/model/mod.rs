//! Typed, normalised resources, grouped by account.

pub mod as_of;
pub mod ca;
pub mod certificate;
pub mod delivery;
pub mod dns;
pub mod duplicates;
pub mod fields;
pub mod hostname_text;
pub mod join;
pub mod kind;
pub mod list;
pub mod notification;
pub mod origin;
pub mod pem;
#[cfg(test)]
pub mod samples;
pub mod subject;
pub mod terraform;
pub mod timestamp;
pub mod unknown;
pub mod word;

use std::collections::BTreeMap;

pub use kind::Kind;
use notification::{Policy, Pool};
use origin::RecordOrigin;

#[derive(Debug, Default)]
pub struct Account {
    /// The bundle's `account_id`; `None` for exports that do not name one,
    /// which all belong to one unnamed account.
    pub id: Option<String>,
    pub pools: Vec<Pool>,
    pub policies: Vec<Policy>,
    pub custom_certificates: Vec<certificate::CustomCertificate>,
    pub certificate_packs: Vec<certificate::CertificatePack>,
    pub total_tls: Vec<certificate::ZoneSetting>,
    pub universal_ssl: Vec<certificate::ZoneSetting>,
    pub custom_hostnames: Vec<certificate::CustomHostname>,
    pub caa_records: Vec<dns::CaaRecord>,
    /// The ids of the DNS records that are not CAA (no rule reads them):
    /// a record loaded twice is counted once.
    pub other_dns_ids: Vec<String>,
    /// Zones of bundle documents, by key: their `zone_id` and `name`.
    pub zones: Vec<certificate::Zone>,
    /// The lists pools were found in, in load order, for account-level findings.
    pub pool_lists: Vec<RecordOrigin>,
    /// Pages of API lists that carried `result_info`, as loaded.
    pub pages: Vec<list::Page>,
    /// The lists those pages make up, for completeness (EX001).
    pub lists: Vec<list::ExportList>,
    /// Resources loaded twice with different content, by kind and index (EX002).
    pub conflicts: Vec<duplicates::Conflict>,
    /// Values of its resources not known before apply (Terraform), by record.
    pub unknown: unknown::UnknownValues,
}

impl Account {
    /// Whether any notification policy of the account was loaded: a policy,
    /// or a policies list, if empty. Without one, every legacy pool looks
    /// uncovered, which is true only if the account has no policy.
    pub fn policies_loaded(&self) -> bool {
        !self.policies.is_empty() || self.lists.iter().any(|l| l.kind == Kind::NotificationPolicy)
    }

    /// Whether the record at `origin` may not exist: its `count` or
    /// `for_each` is not known before a run. Such a resource is counted
    /// nowhere and planned for by no step.
    pub fn may_exist(&self, origin: &RecordOrigin) -> bool {
        self.unknown.of(origin).iter().any(unknown::UnknownValue::is_existence)
    }

    /// The pools that exist whatever a run gives the configuration: every
    /// pool of an export, and those of Terraform whose existence is known.
    pub fn existing_pools(&self) -> impl Iterator<Item = &Pool> {
        self.pools.iter().filter(|p| !self.may_exist(&p.origin))
    }

    /// The resources of each kind whose existence is not known ([`Self::may_exist`]).
    fn may_exist_by_kind(&self) -> Vec<(Kind, usize)> {
        if self.unknown.is_empty() {
            return Vec::new();
        }
        let count = |origins: &mut dyn Iterator<Item = &RecordOrigin>| origins.filter(|o| self.may_exist(o)).count();
        let counts = [
            (Kind::Pool, count(&mut self.pools.iter().map(|r| &r.origin))),
            (Kind::NotificationPolicy, count(&mut self.policies.iter().map(|r| &r.origin))),
            (
                Kind::CustomCertificate,
                count(&mut self.custom_certificates.iter().map(|r| &r.origin)),
            ),
            (Kind::CertificatePack, count(&mut self.certificate_packs.iter().map(|r| &r.origin))),
            (Kind::CustomHostname, count(&mut self.custom_hostnames.iter().map(|r| &r.origin))),
            (Kind::DnsRecord, count(&mut self.caa_records.iter().map(|r| &r.origin))),
            (Kind::TotalTls, count(&mut self.total_tls.iter().map(|r| &r.origin))),
            (Kind::UniversalSsl, count(&mut self.universal_ssl.iter().map(|r| &r.origin))),
        ];
        counts.into_iter().filter(|(_, n)| *n > 0).collect()
    }

    /// Each zone's Universal SSL settings, by zone.
    pub fn universal_ssl_by_zone(&self) -> std::collections::HashMap<certificate::ZoneKey, &certificate::ZoneSetting> {
        self.universal_ssl.iter().filter_map(|s| Some((s.zone?, s))).collect()
    }

    /// The bundle zone a record was listed under.
    pub fn zone(&self, key: Option<certificate::ZoneKey>) -> Option<&certificate::Zone> {
        let key = key?;
        self.zones.iter().find(|z| z.key == key)
    }

    /// Each bundle zone's `zone_id`, by zone.
    pub fn zone_ids(&self) -> std::collections::HashMap<certificate::ZoneKey, &str> {
        self.zones.iter().filter_map(|z| Some((z.key, z.id.as_deref()?))).collect()
    }
}

#[derive(Debug, Default)]
pub struct Inventory {
    pub accounts: Vec<Account>,
    /// Records loaded, by kind (including kinds no rule reads yet), each
    /// resource loaded twice counted once.
    pub records: BTreeMap<Kind, usize>,
    /// Resources whose existence is not known before a run (a Terraform
    /// `count` or `for_each`), by kind: not counted above.
    pub may_exist: BTreeMap<Kind, usize>,
    /// Later copies of resources identical to the first, not counted above.
    pub duplicates: usize,
    /// Blocks of Terraform source joined with the state resource of their
    /// address (a state committed beside its source), not counted above.
    pub joined: usize,
    /// Resources read but not analysed, with where they are and why (a
    /// Terraform plan's values known only after apply).
    pub not_analysed: Vec<crate::text::error::InputError>,
}

impl Inventory {
    /// Once every adapter has filled it: accounts in order, each resource
    /// loaded twice counted once (and its differing copies kept, EX002), the
    /// lists its pages make up (EX001), and no growth slack.
    pub fn settle(&mut self) {
        self.accounts.sort_by(|a, b| a.id.cmp(&b.id));
        for account in &mut self.accounts {
            let counted = |a: &Account| {
                [
                    (Kind::Pool, a.pools.len()),
                    (Kind::NotificationPolicy, a.policies.len()),
                    (Kind::CustomCertificate, a.custom_certificates.len()),
                    (Kind::CertificatePack, a.certificate_packs.len()),
                    (Kind::CustomHostname, a.custom_hostnames.len()),
                    (Kind::DnsRecord, a.caa_records.len() + a.other_dns_ids.len()),
                    (Kind::TotalTls, a.total_tls.len()),
                    (Kind::UniversalSsl, a.universal_ssl.len()),
                ]
            };
            let before = counted(account);
            self.joined += join::by_address(account);
            self.duplicates += duplicates::merge(account);
            for ((kind, was), (_, now)) in before.into_iter().zip(counted(account)) {
                if let Some(n) = self.records.get_mut(&kind) {
                    *n = n.saturating_sub(was - now);
                }
            }
            for (kind, n) in account.may_exist_by_kind() {
                if let Some(counted) = self.records.get_mut(&kind) {
                    *counted = counted.saturating_sub(n);
                    if *counted == 0 {
                        self.records.remove(&kind);
                    }
                }
                *self.may_exist.entry(kind).or_default() += n;
            }
            account.lists = list::lists(&account.pages);
            list::name_by_zone(&mut account.lists, &account.zones);
            // Growth slack of large lists is memory a big export cannot spare.
            account.pools.shrink_to_fit();
            account.policies.shrink_to_fit();
        }
    }
}
