use std::fmt;

/// What a record is. The names are the ones used in findings, SARIF logical
/// locations, `--kind` and rule subjects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Account,
    Pool,
    NotificationPolicy,
    CertificatePack,
    CustomCertificate,
    CustomHostname,
    TotalTls,
    UniversalSsl,
    DnsRecord,
    /// An API list as exported (its completeness), not a record.
    List,
}

impl Kind {
    pub const RECORD_KINDS: [Kind; 8] = [
        Kind::Pool,
        Kind::NotificationPolicy,
        Kind::CertificatePack,
        Kind::CustomCertificate,
        Kind::CustomHostname,
        Kind::TotalTls,
        Kind::UniversalSsl,
        Kind::DnsRecord,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Account => "account",
            Kind::Pool => "pool",
            Kind::NotificationPolicy => "notification_policy",
            Kind::CertificatePack => "certificate_pack",
            Kind::CustomCertificate => "custom_certificate",
            Kind::CustomHostname => "custom_hostname",
            Kind::TotalTls => "total_tls",
            Kind::UniversalSsl => "universal_ssl",
            Kind::DnsRecord => "dns_record",
            Kind::List => "list",
        }
    }

    /// Every kind: the records', then the account and the list.
    pub fn all() -> impl Iterator<Item = Kind> {
        Kind::RECORD_KINDS.into_iter().chain([Kind::Account, Kind::List])
    }

    pub fn parse(s: &str) -> Option<Kind> {
        Kind::all().find(|k| k.as_str() == s)
    }

    /// The kind in words, singular and plural: `custom hostname(s)`.
    pub fn nouns(self) -> (&'static str, &'static str) {
        match self {
            Kind::Account => ("account", "accounts"),
            Kind::Pool => ("pool", "pools"),
            Kind::NotificationPolicy => ("notification policy", "notification policies"),
            Kind::CertificatePack => ("certificate pack", "certificate packs"),
            Kind::CustomCertificate => ("custom certificate", "custom certificates"),
            Kind::CustomHostname => ("custom hostname", "custom hostnames"),
            Kind::TotalTls => ("Total TLS setting", "Total TLS settings"),
            Kind::UniversalSsl => ("Universal SSL setting", "Universal SSL settings"),
            Kind::DnsRecord => ("DNS record", "DNS records"),
            Kind::List => ("list", "lists"),
        }
    }

    /// What a list of records of this kind holds, in words: `pools`.
    pub fn records_in_words(self) -> &'static str {
        match self {
            Kind::Account | Kind::List => "records",
            kind => kind.nouns().1,
        }
    }

    /// Settings objects come one per zone, never in lists.
    pub fn is_single_object(self) -> bool {
        matches!(self, Kind::TotalTls | Kind::UniversalSsl)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for Kind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}
