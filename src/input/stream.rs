//! Parses a document in one pass and hands each object to a [`Walk`] as soon
//! as it is complete, so a list of a million records never exists at once:
//! only the record being read does. Values that hold records (`result`,
//! `pools`, `zones`, …) are streamed the same way while their parent object
//! is still being read.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::shape::{Shape, Text};
use crate::model::Kind;
use crate::text::pointer;

/// A bundle's keys whose values are lists of records (a zone's too).
pub const BUNDLE_LISTS: [&str; 6] = [
    "pools",
    "notification_policies",
    "certificate_packs",
    "custom_certificates",
    "custom_hostnames",
    "dns_records",
];

/// What a position in the document holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// Records of this kind (a bundle key or `--kind`).
    Kind(Kind),
    /// Records recognised by their fields.
    ByShape,
    /// An element of a bundle's `zones`.
    Zone,
}

/// The walk was stopped by an error the walker kept (an `InputError` with its
/// location); the serde error carrying this message only unwinds the parser.
pub const ABORTED: &str = "edgeaudit: walk aborted";

/// The walker stopped the walk; it keeps the reason (an input error with its
/// location) for the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stopped;

/// Receives complete objects of a document whose text lives for `'de`,
/// with the pointer they are at.
pub trait Walk<'de> {
    /// An element of a list. The shape is lent: a walk that keeps it takes
    /// it (`mem::take`), and a walk that reads it reads it where it lies (a
    /// split list's shapes are not copied out of their part: `parallel.rs`).
    fn element(&mut self, shape: &mut Shape<'de>, pointer: &str, expect: Expect) -> Result<(), Stopped>;
    /// An object that is not in a list: the document, an envelope's single
    /// `result`, a settings object under a bundle key (lent as in `element`).
    fn object(&mut self, shape: &mut Shape<'de>, pointer: &str, expect: Expect) -> Result<(), Stopped>;
    /// A list begins (its elements follow).
    fn list_start(&mut self) {}
    /// The list being walked holds about this many elements (an upper
    /// estimate, made when its parts are parsed apart: `parallel.rs`).
    fn expect_elements(&mut self, _elements: usize) {}
    /// The elements of the list at `pointer` were split out of the document
    /// to be parsed elsewhere (`parallel.rs`): the walk takes them from there,
    /// and `Some` says it did. The list's own value is then empty.
    fn split_list(&mut self, _pointer: &str, _expect: Expect) -> Option<Result<(), Stopped>> {
        None
    }
}

/// A value that holds records: an array, or an object (an envelope, a bundle
/// or a single record). `null` holds nothing.
pub struct ContainerSeed<'w, W> {
    pub walk: &'w mut W,
    pub pointer: String,
    pub expect: Expect,
}

impl<'de, W: Walk<'de>> DeserializeSeed<'de> for ContainerSeed<'_, W> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<W> ContainerSeed<'_, W> {
    /// `null` holds no records; as the whole document (`null`, `~`, comments
    /// only) it is judged like an empty object, `{}`.
    fn nothing<'de, E: de::Error>(self) -> Result<(), E>
    where
        W: Walk<'de>,
    {
        if !self.pointer.is_empty() {
            return Ok(());
        }
        self.walk
            .object(&mut Shape::default(), &self.pointer, self.expect)
            .map_err(|Stopped| de::Error::custom(ABORTED))
    }
}

impl<'de, W: Walk<'de>> Visitor<'de> for ContainerSeed<'_, W> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of records or an object (an API envelope, a bundle or a record)")
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.nothing()
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.nothing()
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.walk.list_start();
        if let Some(split) = self.walk.split_list(&self.pointer, self.expect) {
            split.map_err(|Stopped| de::Error::custom(ABORTED))?;
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            return Ok(());
        }
        let (mut index, mut element) = (0usize, String::new());
        loop {
            pointer::write_index(&mut element, &self.pointer, index);
            let seed = ObjectSeed {
                walk: &mut *self.walk,
                pointer: &element,
                expect: self.expect,
            };
            let Some(mut shape) = seq.next_element_seed(seed)? else {
                return Ok(());
            };
            self.walk
                .element(&mut shape, &element, self.expect)
                .map_err(|Stopped| de::Error::custom(ABORTED))?;
            index += 1;
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        let mut shape = ObjectSeed {
            walk: &mut *self.walk,
            pointer: &self.pointer,
            expect: self.expect,
        }
        .visit_map(map)?;
        self.walk
            .object(&mut shape, &self.pointer, self.expect)
            .map_err(|Stopped| de::Error::custom(ABORTED))
    }
}

/// Takes no records: for reading one record's shape on its own.
struct NoRecords;

impl<'de> Walk<'de> for NoRecords {
    fn element(&mut self, _: &mut Shape<'de>, _: &str, _: Expect) -> Result<(), Stopped> {
        Ok(())
    }

    fn object(&mut self, _: &mut Shape<'de>, _: &str, _: Expect) -> Result<(), Stopped> {
        Ok(())
    }
}

/// The shape of one record already in memory (another format's record put
/// in the API's shape by its adapter).
pub fn shape_of(record: &serde_json::Value) -> Result<Shape<'_>, serde_json::Error> {
    use serde::de::DeserializeSeed;
    ObjectSeed {
        walk: &mut NoRecords,
        pointer: "",
        expect: Expect::ByShape,
    }
    .deserialize(record)
}

/// One object: its fields into a [`Shape`], its record-holding values
/// streamed to the walker.
pub struct ObjectSeed<'w, 'p, W> {
    walk: &'w mut W,
    pointer: &'p str,
    expect: Expect,
}

impl<'w, 'p, W> ObjectSeed<'w, 'p, W> {
    /// An element of the list of `expect` at `pointer` (parsed on its own:
    /// see `parallel.rs`).
    pub fn element(walk: &'w mut W, pointer: &'p str, expect: Expect) -> Self {
        ObjectSeed { walk, pointer, expect }
    }
}

impl<'de, W: Walk<'de>> DeserializeSeed<'de> for ObjectSeed<'_, '_, W> {
    type Value = Shape<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Shape<'de>, D::Error> {
        // A map, never a sequence: serde would otherwise read a struct from an array.
        d.deserialize_map(self)
    }
}

impl<'de, W: Walk<'de>> Visitor<'de> for ObjectSeed<'_, '_, W> {
    type Value = Shape<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a record (an object)")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Shape<'de>, A::Error> {
        let mut s = Shape::default();
        fill(self.walk, self.pointer, self.expect, map, &mut s)?;
        Ok(s)
    }
}

/// One object's fields written into a shape where it lies (`out`, made
/// empty by the caller): a record list's part fills the shapes in its list
/// of events, rather than have each (864 bytes) copied from the parse's
/// frame to its caller's and into the list.
pub struct ObjectInto<'w, 'p, 'o, 'de, W> {
    walk: &'w mut W,
    pointer: &'p str,
    expect: Expect,
    out: &'o mut Shape<'de>,
}

impl<'w, 'p, 'o, 'de, W> ObjectInto<'w, 'p, 'o, 'de, W> {
    /// An element of the list of `expect` at `pointer`, into `out`; records
    /// inside it go to `walk`.
    pub fn element(walk: &'w mut W, pointer: &'p str, expect: Expect, out: &'o mut Shape<'de>) -> Self {
        ObjectInto {
            walk,
            pointer,
            expect,
            out,
        }
    }
}

impl<'de, W: Walk<'de>> DeserializeSeed<'de> for ObjectInto<'_, '_, '_, 'de, W> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        // A map, never a sequence, as for `ObjectSeed`.
        d.deserialize_map(self)
    }
}

impl<'de, W: Walk<'de>> Visitor<'de> for ObjectInto<'_, '_, '_, 'de, W> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a record (an object)")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        fill(self.walk, self.pointer, self.expect, map, self.out)
    }
}

/// An object's fields into `s`, its record-holding values streamed to `walk`.
fn fill<'de, W: Walk<'de>, A: MapAccess<'de>>(
    walk: &mut W,
    object: &str,
    expect: Expect,
    mut map: A,
    s: &mut Shape<'de>,
) -> Result<(), A::Error> {
    let mut seen: u64 = 0;
    let mut first = true;
    while let Some(key) = map.next_key::<Text<'de>>()? {
        if first {
            first = false;
            if let Cow::Borrowed(k) = key.0 {
                s.first_key = Some(k);
            }
        }
        let Some(field) = Field::of(key.as_str()) else {
            map.next_value::<IgnoredAny>()?;
            continue;
        };
        // Known fields, each at most once (like serde's derive).
        let bit = 1u64 << (field as u32);
        if seen & bit != 0 {
            return Err(de::Error::duplicate_field(field.name()));
        }
        seen |= bit;
        let mut records = |expect: Expect| {
            let pointer = pointer::join(object, field.name());
            map.next_value_seed(ContainerSeed {
                walk: &mut *walk,
                pointer,
                expect,
            })
        };
        match field {
            Field::Result => {
                s.has_result = true;
                let expect = if expect == Expect::Zone { Expect::ByShape } else { expect };
                records(expect)?;
            }
            Field::Pools => {
                s.has_bundle_key = true;
                records(Expect::Kind(Kind::Pool))?;
            }
            Field::NotificationPolicies => {
                s.has_bundle_key = true;
                records(Expect::Kind(Kind::NotificationPolicy))?;
            }
            Field::Zones => {
                s.has_bundle_key = true;
                records(Expect::Zone)?;
            }
            // A zone's keys; at the top of a document they make a one-zone bundle.
            Field::CertificatePacks
            | Field::CustomCertificates
            | Field::CustomHostnames
            | Field::DnsRecords
            | Field::TotalTls
            | Field::UniversalSsl => {
                s.has_bundle_key = true;
                let kind = match field {
                    Field::CertificatePacks => Kind::CertificatePack,
                    Field::CustomCertificates => Kind::CustomCertificate,
                    Field::CustomHostnames => Kind::CustomHostname,
                    Field::DnsRecords => Kind::DnsRecord,
                    Field::TotalTls => Kind::TotalTls,
                    _ => Kind::UniversalSsl,
                };
                records(Expect::Kind(kind))?;
            }
            Field::Success => s.success = map.next_value()?,
            Field::AccountId => s.account_id = map.next_value()?,
            Field::ZoneId => s.zone_id = map.next_value()?,
            Field::Id => s.id = map.next_value()?,
            Field::Name => s.name = map.next_value()?,
            Field::Enabled => s.enabled = map.next_value()?,
            Field::Origins => s.origins = map.next_value()?,
            Field::NotificationEmail => s.notification_email = Some(map.next_value()?),
            Field::NotificationFilter => s.notification_filter = map.next_value()?,
            Field::AlertType => s.alert_type = map.next_value()?,
            Field::Mechanisms => s.mechanisms = map.next_value()?,
            Field::Filters => s.filters = map.next_value()?,
            Field::Hostname => s.hostname = map.next_value()?,
            Field::Ssl => s.ssl = map.next_value()?,
            Field::Type => s.record_type = map.next_value()?,
            Field::BundleMethod => s.bundle_method = map.next_value()?,
            Field::UploadedOn => s.uploaded_on = map.next_value()?,
            Field::CreatedAt => s.created_at = map.next_value()?,
            Field::CreatedOn => s.created_on = map.next_value()?,
            Field::ExpiresOn => s.expires_on = map.next_value()?,
            Field::Issuer => s.issuer = map.next_value()?,
            Field::Signature => s.signature = map.next_value()?,
            Field::Status => s.status = map.next_value()?,
            Field::Hosts => s.hosts = map.next_value()?,
            Field::Certificate => s.certificate = map.next_value()?,
            Field::CertificateAuthority => s.certificate_authority = map.next_value()?,
            Field::Content => s.content = map.next_value()?,
            Field::Certificates => s.certificates = map.next_value()?,
            Field::Data => s.data = map.next_value()?,
            Field::ValidityPeriod | Field::ValidityDays => {
                map.next_value::<IgnoredAny>()?;
                s.validity = true;
            }
            Field::ResultInfo => s.result_info = map.next_value()?,
            Field::DefaultPools | Field::FallbackPool => {
                map.next_value::<IgnoredAny>()?;
                s.foreign.load_balancer = true;
            }
            Field::ExpectedCodes | Field::Interval => {
                map.next_value::<IgnoredAny>()?;
                s.foreign.monitor = true;
            }
            Field::NameServers | Field::OriginalRegistrar => {
                map.next_value::<IgnoredAny>()?;
                s.foreign.zone = true;
            }
            Field::Url => {
                map.next_value::<IgnoredAny>()?;
                s.foreign.webhook = true;
            }
        }
    }
    Ok(())
}

/// The keys edgeaudit reads; every other key is skipped unread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Result,
    Success,
    AccountId,
    Pools,
    NotificationPolicies,
    Zones,
    ZoneId,
    CertificatePacks,
    CustomCertificates,
    CustomHostnames,
    DnsRecords,
    TotalTls,
    UniversalSsl,
    Id,
    Name,
    Enabled,
    Origins,
    NotificationEmail,
    NotificationFilter,
    AlertType,
    Mechanisms,
    Filters,
    Hostname,
    Ssl,
    Type,
    BundleMethod,
    UploadedOn,
    ExpiresOn,
    Issuer,
    Signature,
    Status,
    Hosts,
    Certificate,
    CertificateAuthority,
    Content,
    Certificates,
    Data,
    ValidityPeriod,
    ValidityDays,
    ResultInfo,
    DefaultPools,
    FallbackPool,
    ExpectedCodes,
    Interval,
    NameServers,
    OriginalRegistrar,
    Url,
    CreatedAt,
    CreatedOn,
}

impl Field {
    const ALL: [(Field, &'static str); 49] = [
        (Field::Result, "result"),
        (Field::Success, "success"),
        (Field::AccountId, "account_id"),
        (Field::Pools, "pools"),
        (Field::NotificationPolicies, "notification_policies"),
        (Field::Zones, "zones"),
        (Field::ZoneId, "zone_id"),
        (Field::CertificatePacks, "certificate_packs"),
        (Field::CustomCertificates, "custom_certificates"),
        (Field::CustomHostnames, "custom_hostnames"),
        (Field::DnsRecords, "dns_records"),
        (Field::TotalTls, "total_tls"),
        (Field::UniversalSsl, "universal_ssl"),
        (Field::Id, "id"),
        (Field::Name, "name"),
        (Field::Enabled, "enabled"),
        (Field::Origins, "origins"),
        (Field::NotificationEmail, "notification_email"),
        (Field::NotificationFilter, "notification_filter"),
        (Field::AlertType, "alert_type"),
        (Field::Mechanisms, "mechanisms"),
        (Field::Filters, "filters"),
        (Field::Hostname, "hostname"),
        (Field::Ssl, "ssl"),
        (Field::Type, "type"),
        (Field::BundleMethod, "bundle_method"),
        (Field::UploadedOn, "uploaded_on"),
        (Field::ExpiresOn, "expires_on"),
        (Field::Issuer, "issuer"),
        (Field::Signature, "signature"),
        (Field::Status, "status"),
        (Field::Hosts, "hosts"),
        (Field::Certificate, "certificate"),
        (Field::CertificateAuthority, "certificate_authority"),
        (Field::Content, "content"),
        (Field::Certificates, "certificates"),
        (Field::Data, "data"),
        (Field::ValidityPeriod, "validity_period"),
        (Field::ValidityDays, "validity_days"),
        (Field::ResultInfo, "result_info"),
        (Field::DefaultPools, "default_pools"),
        (Field::FallbackPool, "fallback_pool"),
        (Field::ExpectedCodes, "expected_codes"),
        (Field::Interval, "interval"),
        (Field::NameServers, "name_servers"),
        (Field::OriginalRegistrar, "original_registrar"),
        (Field::Url, "url"),
        (Field::CreatedAt, "created_at"),
        (Field::CreatedOn, "created_on"),
    ];

    /// One `match` on the key (compiled to a length switch), not a search.
    fn of(key: &str) -> Option<Field> {
        Some(match key {
            "result" => Field::Result,
            "success" => Field::Success,
            "account_id" => Field::AccountId,
            "pools" => Field::Pools,
            "notification_policies" => Field::NotificationPolicies,
            "zones" => Field::Zones,
            "zone_id" => Field::ZoneId,
            "certificate_packs" => Field::CertificatePacks,
            "custom_certificates" => Field::CustomCertificates,
            "custom_hostnames" => Field::CustomHostnames,
            "dns_records" => Field::DnsRecords,
            "total_tls" => Field::TotalTls,
            "universal_ssl" => Field::UniversalSsl,
            "id" => Field::Id,
            "name" => Field::Name,
            "enabled" => Field::Enabled,
            "origins" => Field::Origins,
            "notification_email" => Field::NotificationEmail,
            "notification_filter" => Field::NotificationFilter,
            "alert_type" => Field::AlertType,
            "mechanisms" => Field::Mechanisms,
            "filters" => Field::Filters,
            "hostname" => Field::Hostname,
            "ssl" => Field::Ssl,
            "type" => Field::Type,
            "bundle_method" => Field::BundleMethod,
            "uploaded_on" => Field::UploadedOn,
            "expires_on" => Field::ExpiresOn,
            "issuer" => Field::Issuer,
            "signature" => Field::Signature,
            "status" => Field::Status,
            "hosts" => Field::Hosts,
            "certificate" => Field::Certificate,
            "certificate_authority" => Field::CertificateAuthority,
            "content" => Field::Content,
            "certificates" => Field::Certificates,
            "data" => Field::Data,
            "validity_period" => Field::ValidityPeriod,
            "validity_days" => Field::ValidityDays,
            "result_info" => Field::ResultInfo,
            "default_pools" => Field::DefaultPools,
            "fallback_pool" => Field::FallbackPool,
            "expected_codes" => Field::ExpectedCodes,
            "interval" => Field::Interval,
            "name_servers" => Field::NameServers,
            "original_registrar" => Field::OriginalRegistrar,
            "url" => Field::Url,
            "created_at" => Field::CreatedAt,
            "created_on" => Field::CreatedOn,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        Field::ALL[self as usize].1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Event = (String, &'static str, Option<String>, Option<usize>);

    /// Records every object it is handed, with where and how.
    struct Log<'t> {
        events: Vec<Event>,
        text: &'t str,
    }

    impl<'de> Walk<'de> for Log<'_> {
        fn element(&mut self, shape: &mut Shape<'de>, pointer: &str, _: Expect) -> Result<(), Stopped> {
            let offset = shape.json_offset(self.text);
            self.events.push((
                pointer.to_string(),
                "element",
                shape.id.as_ref().map(|t| t.as_str().to_string()),
                offset,
            ));
            Ok(())
        }
        fn object(&mut self, shape: &mut Shape<'de>, pointer: &str, _: Expect) -> Result<(), Stopped> {
            self.events.push((
                pointer.to_string(),
                "object",
                shape.id.as_ref().map(|t| t.as_str().to_string()),
                None,
            ));
            Ok(())
        }
    }

    fn walk(text: &str) -> Result<Vec<Event>, serde_json::Error> {
        let mut log = Log { events: Vec::new(), text };
        let mut de = serde_json::Deserializer::from_str(text);
        ContainerSeed {
            walk: &mut log,
            pointer: String::new(),
            expect: Expect::ByShape,
        }
        .deserialize(&mut de)?;
        de.end()?;
        Ok(log.events)
    }

    #[test]
    fn field_names_and_keys_agree() {
        for (i, (field, name)) in Field::ALL.iter().enumerate() {
            assert_eq!(*field as usize, i);
            assert_eq!(Field::of(name), Some(*field));
            assert_eq!(field.name(), *name);
        }
        assert_eq!(Field::of("modified_on"), None);
    }

    #[test]
    fn records_are_handed_over_in_order_with_pointers() {
        let events = walk(r#"{"success": true, "result": [{"id": "a"}, {"id": "b"}]}"#).unwrap();
        let summary: Vec<(&str, &str, Option<&str>)> = events.iter().map(|(p, k, id, _)| (p.as_str(), *k, id.as_deref())).collect();
        assert_eq!(
            summary,
            vec![
                ("/result/0", "element", Some("a")),
                ("/result/1", "element", Some("b")),
                ("", "object", None)
            ]
        );
    }

    #[test]
    fn bundles_stream_each_key_and_zones() {
        let events =
            walk(r#"{"pools": [{"id": "p"}], "zones": [{"zone_id": "z", "total_tls": {"result": {"id": "t"}}}], "account_id": "acc"}"#)
                .unwrap();
        let pointers: Vec<&str> = events.iter().map(|(p, ..)| p.as_str()).collect();
        assert_eq!(
            pointers,
            vec!["/pools/0", "/zones/0/total_tls/result", "/zones/0/total_tls", "/zones/0", ""]
        );
    }

    #[test]
    fn objects_must_be_maps_and_fields_appear_once() {
        assert!(walk("[[1]]").is_err());
        let e = walk(r#"[{"id": "a", "id": "b"}]"#).unwrap_err();
        assert!(e.to_string().contains("duplicate field `id`"), "{e}");
    }

    #[test]
    fn a_record_knows_where_its_object_starts() {
        let text = "[ {\"id\": \"a\"},\n  {\n   \"origins\": [], \"id\": \"b\"}, {\"x\\u0079z\": 1}, {}]";
        let events = walk(text).unwrap();
        let offsets: Vec<Option<usize>> = events.iter().map(|e| e.3).collect();
        assert_eq!(
            offsets,
            vec![Some(2), Some(text.find("{\n").unwrap()), None, None],
            "escaped or no first key: no offset"
        );
    }
}
