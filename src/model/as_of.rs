//! When each resource came into the account, and the newest moment an
//! export records: an as-of replay judges the account as it stood on its
//! date, so what was made later is left out, and a date earlier than the
//! export's own newest timestamp is said to be one.

use chrono::{DateTime, NaiveDate, Utc};

use super::certificate::{CertificatePack, CustomCertificate, CustomHostname};
use super::origin::RecordOrigin;
use super::{Account, Kind};

/// The moment a resource was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Made {
    pub at: DateTime<Utc>,
}

impl Made {
    /// Not yet in the account at the end of `day` (the as-of date is a whole day).
    pub fn after(&self, day: NaiveDate) -> bool {
        self.at.date_naive() > day
    }
}

impl CustomCertificate {
    /// An uploaded certificate is made when it is uploaded.
    pub fn made(&self) -> Option<Made> {
        self.certificate.uploaded_on.map(|at| Made { at })
    }
}

impl CertificatePack {
    /// Only a pack's own `created_on` says when it was ordered: its
    /// certificates' upload dates are those of the latest renewal.
    pub fn made(&self) -> Option<Made> {
        self.created.map(|at| Made { at })
    }
}

impl CustomHostname {
    pub fn made(&self) -> Option<Made> {
        self.created.map(|at| Made { at })
    }
}

/// The newest moment an account's records state, and where.
#[derive(Debug, Clone)]
pub struct Newest {
    pub at: DateTime<Utc>,
    pub kind: Kind,
    /// The record, and the field inside it.
    pub origin: RecordOrigin,
    pub path: String,
}

/// Every timestamp of the account that records an event (uploads and
/// creations; never an expiry, which lies ahead by design).
pub fn newest(account: &Account) -> Option<Newest> {
    let mut newest: Option<Newest> = None;
    let mut see = |at: Option<DateTime<Utc>>, kind: Kind, origin: &RecordOrigin, path: &dyn Fn() -> String| {
        if let Some(at) = at
            && newest.as_ref().is_none_or(|n| at > n.at)
        {
            newest = Some(Newest {
                at,
                kind,
                origin: origin.clone(),
                path: path(),
            });
        }
    };
    for c in &account.custom_certificates {
        see(c.certificate.uploaded_on, Kind::CustomCertificate, &c.origin, &|| {
            c.fields.issued.uploaded_on.to_string()
        });
    }
    for p in &account.certificate_packs {
        see(p.created, Kind::CertificatePack, &p.origin, &|| "/created_on".to_string());
        for (i, c) in p.certificates.iter().enumerate() {
            see(c.issued.uploaded_on, Kind::CertificatePack, &p.origin, &|| {
                format!("{}{}", p.fields.certificate(i), p.fields.issued.uploaded_on)
            });
        }
    }
    for h in &account.custom_hostnames {
        see(h.created, Kind::CustomHostname, &h.origin, &|| "/created_at".to_string());
        if let Some(c) = &h.certificate {
            see(c.uploaded_on, Kind::CustomHostname, &h.origin, &|| {
                h.fields.issued.uploaded_on.to_string()
            });
        }
    }
    newest
}

/// How many resources of each kind were made after `day`.
pub fn made_after(account: &Account, day: NaiveDate) -> Vec<(Kind, usize)> {
    let count = |made: &mut dyn Iterator<Item = Option<Made>>| made.filter(|m| m.is_some_and(|m| m.after(day))).count();
    [
        (
            Kind::CertificatePack,
            count(&mut account.certificate_packs.iter().map(CertificatePack::made)),
        ),
        (
            Kind::CustomCertificate,
            count(&mut account.custom_certificates.iter().map(CustomCertificate::made)),
        ),
        (
            Kind::CustomHostname,
            count(&mut account.custom_hostnames.iter().map(CustomHostname::made)),
        ),
    ]
    .into_iter()
    .filter(|(_, n)| *n > 0)
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_as_of_date_is_a_whole_day() {
        let made = |s: &str| Made {
            at: crate::model::certificate::parse_timestamp(s).expect("timestamp"),
        };
        let day = NaiveDate::from_ymd_opt(2024, 9, 9).expect("date");
        assert!(!made("2024-09-09T23:59:59Z").after(day));
        assert!(made("2024-09-10T00:00:00Z").after(day));
        // In UTC: 01:00 at +02:00 is still the day before.
        assert!(!made("2024-09-10T01:00:00+02:00").after(day));
    }
}
