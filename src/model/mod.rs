//! Typed, normalised resources, grouped by account.

pub mod certificate;
pub mod dns;
pub mod duplicates;
pub mod fields;
pub mod kind;
pub mod list;
pub mod notification;
pub mod origin;
pub mod pem;
#[cfg(test)]
pub mod samples;
pub mod subject;

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
}

impl Account {
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
    /// Later copies of resources identical to the first, not counted above.
    pub duplicates: usize,
}
