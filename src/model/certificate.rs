//! Certificates, normalised (docs/src/inputs.md): bundle methods, certificate
//! authorities, free-text issuers, key types and timestamps as the API and
//! the dashboard spell them.

use std::borrow::Cow;

use super::hostname_text::{HostnameStrings, HostnameText};
use super::word::Word;
use chrono::{DateTime, Utc};

use super::fields::{CustomCertificateFields, HostnameFields, PackFields, SettingFields};
use super::origin::{RecordOrigin, ValueSpan};
use super::pem::Chain;

pub use super::ca::{Authority, KeyType, issuer_is_lets_encrypt};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BundleMethod {
    /// API `ubiquitous`, dashboard `compatible`.
    Compatible,
    /// API `optimal`, dashboard `modern`.
    Modern,
    /// API `force`, dashboard `user-defined`: the uploaded chain is served as is.
    UserDefined,
}

impl BundleMethod {
    pub fn parse(s: &str) -> Option<BundleMethod> {
        // Read for every certificate: compared in place, trimmed, in any
        // case, `_` as `-`, rather than normalised into a copy.
        let s = s.trim().as_bytes();
        let is = |word: &str| {
            s.len() == word.len()
                && s.iter()
                    .zip(word.bytes())
                    .all(|(&a, b)| a.to_ascii_lowercase() == b || (a == b'_' && b == b'-'))
        };
        if is("ubiquitous") || is("compatible") {
            Some(BundleMethod::Compatible)
        } else if is("optimal") || is("modern") {
            Some(BundleMethod::Modern)
        } else if is("force") || is("user-defined") || is("userdefined") {
            Some(BundleMethod::UserDefined)
        } else {
            None
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            BundleMethod::Compatible => "compatible",
            BundleMethod::Modern => "modern",
            BundleMethod::UserDefined => "user_defined",
        }
    }
}

pub use super::timestamp::parse_timestamp;

#[derive(Debug, Clone)]
pub struct CustomCertificate {
    pub origin: RecordOrigin,
    /// Where its format keeps each field.
    pub fields: &'static CustomCertificateFields,
    pub id: Box<str>,
    pub zone_id: Option<String>,
    pub hosts: Vec<String>,
    /// Its issuer, key type, bundle method (`None` when absent: the API
    /// default is `ubiquitous`, but an export without it is reported as
    /// unknown rather than guessed), dates and status.
    pub certificate: IssuedCertificate,
    /// The uploaded chain, when the export carries it (`certificate`).
    pub chain: Option<Box<Chain>>,
}

impl CustomCertificate {
    pub fn is_lets_encrypt(&self) -> bool {
        issuer_is_lets_encrypt(&self.certificate.issuer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundle_methods_in_api_and_dashboard_words() {
        for (word, method) in [
            ("ubiquitous", BundleMethod::Compatible),
            ("Compatible", BundleMethod::Compatible),
            ("optimal", BundleMethod::Modern),
            ("modern", BundleMethod::Modern),
            ("force", BundleMethod::UserDefined),
            ("user-defined", BundleMethod::UserDefined),
            ("User_Defined", BundleMethod::UserDefined),
        ] {
            assert_eq!(BundleMethod::parse(word), Some(method), "{word}");
        }
        assert_eq!(BundleMethod::parse("shortest"), None);
    }

    #[test]
    fn free_text_issuers_that_are_lets_encrypt() {
        for yes in [
            "LetsEncrypt",
            "Let's Encrypt",
            "lets_encrypt",
            "R3",
            "R10",
            "r14",
            "E5",
            "E9",
            "ISRG Root X1",
            "Let's Encrypt Authority X3",
        ] {
            assert!(issuer_is_lets_encrypt(yes), "{yes}");
        }
        for no in ["GlobalSign", "DigiCertInc", "Google Trust Services", "R15", "E3", "SSL.com", ""] {
            assert!(!issuer_is_lets_encrypt(no), "{no}");
        }
    }

    #[test]
    fn key_type_comes_from_the_signature_algorithm() {
        assert_eq!(KeyType::from_signature(Some("SHA256WithRSA")), KeyType::Rsa);
        assert_eq!(KeyType::from_signature(Some("ECDSAWithSHA256")), KeyType::Ecdsa);
        assert_eq!(KeyType::from_signature(Some("")), KeyType::Unknown);
        assert_eq!(KeyType::from_signature(None), KeyType::Unknown);
        assert_eq!(KeyType::from_signature(Some("sha384withrsa")), KeyType::Rsa);
        assert_eq!(KeyType::from_signature(Some("EcDsa")), KeyType::Ecdsa);
    }

    #[test]
    fn a_custom_hostname_is_small() {
        // A million of them are most of the model: each byte of one is a
        // megabyte at a million (`created_at`, for as-of replays, is 16).
        // Its own values are a plain struct (`hostname_text`): peak memory
        // at a million stays far under its target (0.37x the input against
        // 1.3x); a record that grows past this says why here.
        assert_eq!(std::mem::size_of::<IssuedCertificate>(), 48);
        // (Where its CA and expiry lie, 8 bytes, saves reading a million
        // records again to locate their findings: bench/RESULTS.md.)
        assert_eq!(std::mem::size_of::<CustomHostname>(), 216);
    }
}

/// A zone of a bundle document: the file and the zone's index in `zones`.
pub type ZoneKey = (crate::model::origin::FileId, u32);

/// The bundle zone a record was listed under, from its pointer (`/zones/N/…`).
pub fn zone_of(origin: &RecordOrigin) -> Option<ZoneKey> {
    let zone_in = |path: &str| path.strip_prefix("/zones/")?.split('/').next()?.parse().ok();
    let index = match origin.list_and_index() {
        // A zone itself: `/zones/N`.
        Some(("/zones", index)) => index,
        Some((list, _)) => zone_in(list)?,
        None => zone_in(&origin.pointer())?,
    };
    Some((origin.file(), index))
}

/// What is known of an issued certificate: of a pack, of a custom hostname,
/// or uploaded. Its id and where it is in its record are its owner's (a
/// custom hostname's certificate has neither of its own: 40 of the 88 bytes
/// this took in each of a million hostnames).
#[derive(Debug, Clone)]
pub struct IssuedCertificate {
    /// Shared between certificates: a million custom hostnames name a
    /// handful of issuers and statuses.
    pub issuer: Word,
    pub key_type: KeyType,
    pub bundle_method: Option<BundleMethod>,
    pub uploaded_on: Option<DateTime<Utc>>,
    pub expires_on: Option<DateTime<Utc>>,
    pub status: Word,
    /// Which values were read from the PEM's leaf rather than the export's fields.
    pub from_pem: FromPem,
}

/// Values of a certificate taken from its PEM's leaf (docs/src/inputs.md): facts
/// then point at the PEM rather than at an export field.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FromPem {
    pub issuer: bool,
    pub expires_on: bool,
    pub key_type: bool,
}

#[derive(Debug, Clone)]
pub struct CertificatePack {
    pub origin: RecordOrigin,
    /// Where its format keeps each field.
    pub fields: &'static PackFields,
    pub id: String,
    /// `universal`, `advanced`, `total_tls`, …
    pub pack_type: String,
    pub hosts: Vec<String>,
    pub authority: Authority,
    pub status: String,
    pub zone: Option<ZoneKey>,
    pub certificates: Vec<PackCertificate>,
    /// `created_on`, when the export has it (the pack list usually does not).
    pub created: Option<DateTime<Utc>>,
}

/// A certificate of a pack, with its id.
#[derive(Debug, Clone)]
pub struct PackCertificate {
    pub id: Box<str>,
    pub issued: IssuedCertificate,
}

#[derive(Debug, Clone)]
pub struct CustomHostname {
    pub origin: RecordOrigin,
    /// Where its format keeps each field.
    pub fields: &'static HostnameFields,
    /// `id`, `hostname`, `ssl.certificate_authority`, `ssl.method`,
    /// `ssl.type`, `ssl.wildcard` (or a `*.` hostname) and the zone, in one block.
    text: HostnameText,
    /// The certificate issued for it (`ssl.issuer`, `ssl.expires_on`, …), when exported.
    pub certificate: Option<IssuedCertificate>,
    /// The uploaded chain (`ssl.custom_certificate`), when there is one.
    pub chain: Option<Box<Chain>>,
    /// `created_at`: an as-of replay leaves out a hostname made later.
    pub created: Option<DateTime<Utc>>,
    /// Where its CA and expiry lie in its record, as the parse saw them.
    pub spans: HostnameSpans,
}

/// Where a custom hostname's most pointed-at values lie in its JSON record
/// (`input::shape::RecordSpans`): findings at them are located without
/// reading the record again.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HostnameSpans {
    /// `ssl.certificate_authority` (CA004, CA005).
    pub authority: ValueSpan,
    /// `ssl.expires_on` (CA010).
    pub expires_on: ValueSpan,
}

impl CustomHostname {
    pub fn new(
        origin: RecordOrigin,
        fields: &'static HostnameFields,
        strings: &HostnameStrings<'_>,
        certificate: Option<IssuedCertificate>,
        chain: Option<Box<Chain>>,
    ) -> CustomHostname {
        CustomHostname {
            origin,
            fields,
            text: HostnameText::new(strings),
            certificate,
            chain,
            created: None,
            spans: HostnameSpans::default(),
        }
    }

    /// The id as the export wrote it (a UUID is kept packed, so this may be a copy).
    pub fn id(&self) -> Cow<'_, str> {
        self.text.id()
    }

    /// Equal for two hostnames exactly when their ids are; empty when the id is.
    pub fn id_key(&self) -> &str {
        self.text.id_key()
    }

    pub fn hostname(&self) -> &str {
        self.text.hostname()
    }

    /// `ssl.certificate_authority`.
    pub fn authority(&self) -> Authority {
        self.text.authority()
    }

    /// `ssl.method` and `ssl.type`: an edit of the CA must send them back
    /// unchanged, or it changes how the hostname is validated.
    pub fn ssl_method(&self) -> Option<&str> {
        self.text.ssl_method()
    }

    pub fn ssl_type(&self) -> Option<&str> {
        self.text.ssl_type()
    }

    /// `ssl.wildcard`, or a hostname that starts with `*.`.
    pub fn wildcard(&self) -> bool {
        self.text.wildcard()
    }

    /// The bundle zone it belongs to (one of its own file's).
    pub fn zone(&self) -> Option<ZoneKey> {
        self.text.zone().map(|index| (self.origin.file(), index))
    }
}

/// A zone of a bundle document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Zone {
    pub key: ZoneKey,
    pub id: Option<String>,
    pub name: Option<String>,
}

/// Total TLS or Universal SSL settings of a zone.
#[derive(Debug, Clone)]
pub struct ZoneSetting {
    pub origin: RecordOrigin,
    /// Where its format keeps each field.
    pub fields: &'static SettingFields,
    pub enabled: Option<bool>,
    pub authority: Authority,
    pub zone: Option<ZoneKey>,
}

#[cfg(test)]
mod authority_tests {
    use super::*;

    #[test]
    fn authorities_compare_case_insensitively_and_tell_default_from_absent() {
        assert_eq!(Authority::parse(Some("Lets_Encrypt")), Authority::LetsEncrypt);
        assert_eq!(Authority::parse(Some("GOOGLE")), Authority::Google);
        assert_eq!(Authority::parse(Some("ssl_com")), Authority::SslCom);
        assert_eq!(Authority::parse(Some("digicert")), Authority::DigiCert);
        assert_eq!(Authority::parse(Some("")), Authority::Default);
        assert_eq!(Authority::parse(None), Authority::Unknown);
        assert_eq!(Authority::parse(Some("sectigo")).as_str(), "other");
        assert_eq!(Authority::parse(Some("  Lets_Encrypt ")), Authority::LetsEncrypt);
        let mut words = crate::model::word::Words::default();
        let first = Authority::parse_with(Some("Sectigo"), |v| words.get(v));
        let second = Authority::parse_with(Some("Sectigo"), |v| words.get(v));
        match (first, second) {
            (Authority::Other(a), Authority::Other(b)) => {
                assert_eq!(&*a, "Sectigo", "kept as written");
                assert!(std::ptr::eq(a.as_ptr(), b.as_ptr()), "one copy for every record that names it");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_record_under_a_bundle_zone_knows_its_zone() {
        let origin = |pointer: &str| crate::model::origin::Places::default().origin(crate::model::origin::FileId(2), pointer, None);
        assert_eq!(
            zone_of(&origin("/zones/3/certificate_packs/result/0")),
            Some((crate::model::origin::FileId(2), 3))
        );
        assert_eq!(zone_of(&origin("/zones/0/total_tls")), Some((crate::model::origin::FileId(2), 0)));
        assert_eq!(zone_of(&origin("/zones/7")), Some((crate::model::origin::FileId(2), 7)));
        assert_eq!(zone_of(&origin("/result/0")), None);
    }
}
