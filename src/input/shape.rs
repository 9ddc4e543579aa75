//! The typed shape of every document edgeaudit reads, for JSON and YAML alike.
//!
//! One struct covers envelopes, bundles, zones and the fields of every record
//! kind (see `stream.rs` for how a document is parsed into them). A record's
//! byte offset, which locates findings later, comes from its first key: keys
//! are borrowed from the input and only whitespace separates a JSON object's
//! `{` from its first key.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, Visitor};

use crate::model::origin::ValueSpan;

/// A string field, borrowed from the input when it has no escapes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Text<'a>(pub Cow<'a, str>);

impl Text<'_> {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct TextVisitor<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for TextVisitor<'a> {
            type Value = Text<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v)))
            }
        }
        d.deserialize_str(TextVisitor(PhantomData))
    }
}

/// Where a JSON record's most pointed-at values lie ([`Shape::json_spans`]):
/// a custom hostname's CA and certificate expiry (CA004, CA005, CA010), a
/// pool's legacy e-mail (LB001–LB003). A million findings at them are then
/// located without reading their records again.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RecordSpans {
    pub ssl_authority: ValueSpan,
    pub ssl_expires_on: ValueSpan,
    pub notification_email: ValueSpan,
}

impl RecordSpans {
    pub const NONE: RecordSpans = RecordSpans {
        ssl_authority: ValueSpan::NONE,
        ssl_expires_on: ValueSpan::NONE,
        notification_email: ValueSpan::NONE,
    };
}

/// What one JSON or YAML object holds, as far as edgeaudit reads it. The
/// values that hold records (`result`, `pools`, `zones`, …) are not kept here:
/// they are streamed to the walker while the object is parsed, and only
/// their presence is noted.
#[derive(Debug, Default)]
pub struct Shape<'a> {
    /// The first key as it appears in the input, when borrowed from it.
    pub first_key: Option<&'a str>,

    // The API envelope: `result` present (even `null`), `success`.
    pub has_result: bool,
    pub success: Option<bool>,

    // The bundle document and its zones.
    pub has_bundle_key: bool,
    pub account_id: Option<Text<'a>>,
    pub zone_id: Option<Text<'a>>,

    // Fields shared by records.
    pub id: Option<Text<'a>>,
    pub name: Option<Text<'a>>,
    pub enabled: Option<bool>,

    // Load-balancing pool. `notification_email: null` is `Some(None)`: a
    // pool with a null e-mail is still a pool.
    pub origins: Option<IgnoredAny>,
    pub notification_email: Option<Option<Text<'a>>>,
    pub notification_filter: Option<NotificationFilter>,

    // Notification policy.
    pub alert_type: Option<Text<'a>>,
    pub mechanisms: Option<BTreeMap<String, Option<Vec<MechanismTarget<'a>>>>>,
    pub filters: Option<Box<PolicyFilters<'a>>>,

    // Shapes of the certificate-side records, recognised so that zone exports
    // load; their fields are modelled by the certificate rules.
    pub hostname: Option<Text<'a>>,
    pub ssl: Option<Ssl<'a>>,
    pub record_type: Option<Text<'a>>,
    pub bundle_method: Option<Text<'a>>,
    pub uploaded_on: Option<Text<'a>>,
    /// When the resource was made: a custom hostname's `created_at`, a
    /// certificate pack's `created_on` (as-of replays leave out what is younger).
    pub created_at: Option<Text<'a>>,
    pub created_on: Option<Text<'a>>,

    // Certificates.
    pub expires_on: Option<Text<'a>>,
    pub issuer: Option<Text<'a>>,
    pub signature: Option<Text<'a>>,
    pub status: Option<Text<'a>>,
    pub hosts: Option<Vec<Text<'a>>>,
    /// The PEM chain, when an export carries it (the API does not return it).
    pub certificate: Option<Text<'a>>,
    /// Certificate packs, Total TLS, Universal SSL, custom hostnames' `ssl`.
    pub certificate_authority: Option<Text<'a>>,
    /// DNS records: `content` (for CAA, `0 issue "letsencrypt.org"`).
    pub content: Option<Text<'a>>,
    /// A certificate pack's certificates.
    pub certificates: Option<Vec<PackCertificate<'a>>>,
    /// DNS records of older and Terraform-era exports: CAA as `data: {flags, tag, value}`.
    pub data: Option<Box<DnsData>>,
    /// Total TLS: `validity_period` (API) or `validity_days`.
    pub validity: bool,

    /// The envelope's paging, for completeness (EX001).
    pub result_info: Option<Box<ResultInfo>>,
    /// Fields of records edgeaudit does not analyse, so that a skipped list
    /// can say what it holds.
    pub foreign: Foreign,
}

/// Fields that name a kind of record edgeaudit does not analyse.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Foreign {
    /// `default_pools`, `fallback_pool`: a load balancer.
    pub load_balancer: bool,
    /// `expected_codes`, `interval`: a health monitor.
    pub monitor: bool,
    /// `name_servers`, `original_registrar`: a zone.
    pub zone: bool,
    /// `url`: a webhook destination.
    pub webhook: bool,
}

/// An API envelope's `result_info`. Numbers as large as 2^63-1 (and larger,
/// or fractional) are read without failing the file.
#[derive(Debug, Default, Clone, Copy, serde::Deserialize)]
pub struct ResultInfo {
    pub page: Option<Count>,
    pub per_page: Option<Count>,
    pub count: Option<Count>,
    pub total_count: Option<Count>,
    pub total_pages: Option<Count>,
}

/// A non-negative count as the API writes it: any JSON number (saturating),
/// or a string of digits.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Count(pub u64);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct CountVisitor;
        impl Visitor<'_> for CountVisitor {
            type Value = Count;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a count")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Count, E> {
                Ok(Count(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Count, E> {
                Ok(Count(v.max(0) as u64))
            }
            fn visit_u128<E: de::Error>(self, v: u128) -> Result<Count, E> {
                Ok(Count(u64::try_from(v).unwrap_or(u64::MAX)))
            }
            fn visit_i128<E: de::Error>(self, v: i128) -> Result<Count, E> {
                Ok(Count(u64::try_from(v.max(0)).unwrap_or(u64::MAX)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Count, E> {
                // `as` saturates (and maps NaN to 0).
                Ok(Count(v.max(0.0) as u64))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Count, E> {
                v.trim()
                    .parse::<u64>()
                    .map(Count)
                    .map_err(|_| E::invalid_value(de::Unexpected::Str(v), &self))
            }
        }
        d.deserialize_any(CountVisitor)
    }
}

/// A DNS record's structured `data`; for CAA `{flags, tag, value}`. Other
/// records' `data` may be anything (a string, an array): it is then empty,
/// never an error, as for any field edgeaudit does not read.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct DnsData {
    pub flags: Option<String>,
    pub tag: Option<String>,
    pub value: Option<String>,
}

impl<'de> Deserialize<'de> for DnsData {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct DataVisitor;
        impl<'de> Visitor<'de> for DataVisitor {
            type Value = DnsData;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<DnsData, A::Error> {
                let mut data = DnsData::default();
                while let Some(key) = map.next_key::<Text<'de>>()? {
                    let slot = match key.as_str() {
                        "flags" => &mut data.flags,
                        "tag" => &mut data.tag,
                        "value" => &mut data.value,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    *slot = map.next_value::<Scalar>()?.0;
                }
                Ok(data)
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<DnsData, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(DnsData::default())
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<DnsData, E> {
                Ok(DnsData::default())
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<DnsData, E> {
                Ok(DnsData::default())
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<DnsData, E> {
                Ok(DnsData::default())
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<DnsData, E> {
                Ok(DnsData::default())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<DnsData, E> {
                Ok(DnsData::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<DnsData, E> {
                Ok(DnsData::default())
            }
            fn visit_none<E: de::Error>(self) -> Result<DnsData, E> {
                Ok(DnsData::default())
            }
        }
        d.deserialize_any(DataVisitor)
    }
}

/// A scalar (number, string or bool) as text, `None` for null or a
/// container: CAA `flags` is `0` in some exports and `"0"` in others.
struct Scalar(Option<String>);

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ScalarVisitor;
        impl<'de> Visitor<'de> for ScalarVisitor {
            type Value = Scalar;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number or a string")
            }
            fn visit_unit<E: de::Error>(self) -> Result<Scalar, E> {
                Ok(Scalar(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<Scalar, E> {
                Ok(Scalar(None))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Scalar, E> {
                Ok(Scalar(Some(v.to_string())))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Scalar, E> {
                Ok(Scalar(Some(v.to_string())))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Scalar, E> {
                Ok(Scalar(Some(v.to_string())))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Scalar, E> {
                Ok(Scalar(Some(v.to_string())))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Scalar, E> {
                Ok(Scalar(Some(v.to_string())))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Scalar, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Scalar(None))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Scalar, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Scalar(None))
            }
        }
        d.deserialize_any(ScalarVisitor)
    }
}

/// One certificate of a certificate pack.
#[derive(Debug, Default, serde::Deserialize)]
pub struct PackCertificate<'a> {
    #[serde(borrow)]
    pub id: Option<Text<'a>>,
    #[serde(borrow)]
    pub issuer: Option<Text<'a>>,
    #[serde(borrow)]
    pub signature: Option<Text<'a>>,
    #[serde(borrow)]
    pub bundle_method: Option<Text<'a>>,
    #[serde(borrow)]
    pub uploaded_on: Option<Text<'a>>,
    #[serde(borrow)]
    pub expires_on: Option<Text<'a>>,
    #[serde(borrow)]
    pub status: Option<Text<'a>>,
}

/// A custom hostname's `ssl` object.
#[derive(Debug, Default, serde::Deserialize)]
pub struct Ssl<'a> {
    /// `Some(None)` for `null`; `Some(Some(""))` for the default CA.
    #[serde(default, borrow, deserialize_with = "present_text")]
    pub certificate_authority: Option<Option<Text<'a>>>,
    #[serde(borrow)]
    pub bundle_method: Option<Text<'a>>,
    #[serde(borrow)]
    pub method: Option<Text<'a>>,
    #[serde(borrow, rename = "type")]
    pub ssl_type: Option<Text<'a>>,
    pub wildcard: Option<bool>,
    #[serde(borrow)]
    pub status: Option<Text<'a>>,
    #[serde(borrow)]
    pub issuer: Option<Text<'a>>,
    #[serde(borrow)]
    pub signature: Option<Text<'a>>,
    #[serde(borrow)]
    pub uploaded_on: Option<Text<'a>>,
    #[serde(borrow)]
    pub expires_on: Option<Text<'a>>,
    /// An uploaded certificate's PEM chain (custom certificates on custom hostnames).
    #[serde(borrow)]
    pub custom_certificate: Option<Text<'a>>,
    /// Several uploaded certificates (e.g. RSA and ECDSA), each with its chain.
    #[serde(borrow)]
    pub custom_cert_bundle: Option<Vec<BundledCertificate<'a>>>,
}

#[derive(Debug, Default, serde::Deserialize)]
pub struct BundledCertificate<'a> {
    #[serde(borrow)]
    pub custom_certificate: Option<Text<'a>>,
}

fn present_text<'de: 'a, 'a, D: Deserializer<'de>>(d: D) -> Result<Option<Option<Text<'a>>>, D::Error> {
    Option::<Text<'a>>::deserialize(d).map(Some)
}

#[derive(Debug, Default, Clone, serde::Deserialize)]
pub struct NotificationFilter {
    pub pool: Option<SourceFilter>,
    pub origin: Option<SourceFilter>,
}

#[derive(Debug, Default, Clone, Copy, serde::Deserialize)]
pub struct SourceFilter {
    pub disable: Option<bool>,
    pub healthy: Option<bool>,
}

#[derive(Debug, Default, serde::Deserialize)]
pub struct MechanismTarget<'a> {
    #[serde(borrow)]
    pub id: Option<Text<'a>>,
}

#[derive(Debug, Default, serde::Deserialize)]
pub struct PolicyFilters<'a> {
    #[serde(borrow)]
    pub pool_id: Option<Vec<Text<'a>>>,
    #[serde(borrow)]
    pub new_health: Option<Vec<Text<'a>>>,
    #[serde(borrow)]
    pub event_source: Option<Vec<Text<'a>>>,
}

impl Shape<'_> {
    pub fn is_envelope(&self) -> bool {
        self.has_result || self.success.is_some()
    }

    pub fn is_bundle(&self) -> bool {
        self.has_bundle_key
    }

    /// Where the record's first key starts in `text`, when the parser
    /// handed it over as a piece of `text` (not an unescaped copy).
    pub fn key_offset(&self, text: &str) -> Option<usize> {
        let key = self.first_key?;
        let start = (key.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
        (start.checked_add(key.len())? <= text.len()).then_some(start)
    }

    /// Where the values findings point at most lie in this JSON object, whose
    /// `{` is at byte `record` of `text`: those the parse lent from the text.
    pub fn json_spans(&self, text: &str, record: usize) -> RecordSpans {
        let span = |value: Option<&Text<'_>>| match value.map(|v| &v.0) {
            Some(Cow::Borrowed(s)) => ValueSpan::of_json_string(s, text, record),
            _ => ValueSpan::NONE,
        };
        let ssl = self.ssl.as_ref();
        RecordSpans {
            ssl_authority: span(ssl.and_then(|s| s.certificate_authority.as_ref()?.as_ref())),
            ssl_expires_on: span(ssl.and_then(|s| s.expires_on.as_ref())),
            notification_email: span(self.notification_email.as_ref().and_then(Option::as_ref)),
        }
    }

    /// The byte offset of this object's `{` in `text`, from its borrowed first
    /// key (JSON only: between `{` and the first key there is only whitespace).
    pub fn json_offset(&self, text: &str) -> Option<usize> {
        let key_start = self.key_offset(text)?;
        let bytes = text.as_bytes();
        let mut i = key_start.checked_sub(1)?; // the key's opening quote
        if bytes.get(i) != Some(&b'"') {
            return None;
        }
        while i > 0 {
            i -= 1;
            match bytes[i] {
                b' ' | b'\t' | b'\n' | b'\r' => continue,
                b'{' => return Some(i),
                _ => return None,
            }
        }
        None
    }
}
