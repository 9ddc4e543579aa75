//! The typed shape of every document edgeaudit reads, for JSON and YAML alike.
//!
//! One struct covers envelopes, bundles, zones and the fields of every record
//! kind, so a document is parsed in a single pass straight into typed values
//! (no generic tree, no second scan). A record's byte offset, which locates
//! findings later, comes from its first key: keys are borrowed from the input
//! and only whitespace separates a JSON object's `{` from its first key.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

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

#[derive(Debug, Default)]
pub struct Shape<'a> {
    /// The first key as it appears in the input, when borrowed from it.
    pub first_key: Option<&'a str>,

    // The API envelope. `result: null` is `Some(None)`.
    pub result: Option<Option<Container<'a>>>,
    pub success: Option<bool>,

    // The bundle document and its zones.
    pub account_id: Option<Text<'a>>,
    pub pools: Option<Container<'a>>,
    pub notification_policies: Option<Container<'a>>,
    pub zones: Option<Vec<Shape<'a>>>,
    pub zone_id: Option<Text<'a>>,
    pub certificate_packs: Option<Container<'a>>,
    pub custom_certificates: Option<Container<'a>>,
    pub custom_hostnames: Option<Container<'a>>,
    pub dns_records: Option<Container<'a>>,
    pub total_tls: Option<Container<'a>>,
    pub universal_ssl: Option<Container<'a>>,

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
    pub filters: Option<PolicyFilters<'a>>,

    // Shapes of the certificate-side records, recognised so that zone exports
    // load; their fields are modelled by the certificate rules.
    pub hostname: Option<IgnoredAny>,
    pub ssl: Option<IgnoredAny>,
    pub record_type: Option<Text<'a>>,
    pub bundle_method: Option<IgnoredAny>,
    pub uploaded_on: Option<IgnoredAny>,
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

/// A value that holds records: an array (of records or of envelopes, i.e.
/// pages) or an object (an envelope, a bundle, or a single record).
#[derive(Debug)]
pub enum Container<'a> {
    List(Vec<Shape<'a>>),
    Object(Box<Shape<'a>>),
}

impl<'de: 'a, 'a> Deserialize<'de> for Container<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ContainerVisitor<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for ContainerVisitor<'a> {
            type Value = Container<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an array of records or an object (an API envelope, a bundle or a record)")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
                while let Some(item) = seq.next_element::<Shape<'a>>()? {
                    items.push(item);
                }
                Ok(Container::List(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                ShapeVisitor(PhantomData).visit_map(map).map(|s| Container::Object(Box::new(s)))
            }
        }
        d.deserialize_any(ContainerVisitor(PhantomData))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Shape<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // A map, never a sequence: serde would otherwise read a struct from an array.
        d.deserialize_map(ShapeVisitor(PhantomData))
    }
}

struct ShapeVisitor<'a>(PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for ShapeVisitor<'a> {
    type Value = Shape<'a>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a record (an object)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut s = Shape::default();
        let mut seen: u64 = 0;
        let mut first = true;
        while let Some(key) = map.next_key::<Text<'a>>()? {
            if first {
                first = false;
                if let Cow::Borrowed(k) = key.0 {
                    s.first_key = Some(k);
                }
            }
            // Known fields, each at most once (like serde's derive).
            macro_rules! set {
                ($bit:expr, $name:literal, $slot:expr) => {{
                    if seen & (1 << $bit) != 0 {
                        return Err(de::Error::duplicate_field($name));
                    }
                    seen |= 1 << $bit;
                    $slot = map.next_value()?;
                }};
            }
            match key.as_str() {
                "result" => set!(0, "result", s.result),
                "success" => set!(1, "success", s.success),
                "account_id" => set!(2, "account_id", s.account_id),
                "pools" => set!(3, "pools", s.pools),
                "notification_policies" => set!(4, "notification_policies", s.notification_policies),
                "zones" => set!(5, "zones", s.zones),
                "zone_id" => set!(6, "zone_id", s.zone_id),
                "certificate_packs" => set!(7, "certificate_packs", s.certificate_packs),
                "custom_certificates" => set!(8, "custom_certificates", s.custom_certificates),
                "custom_hostnames" => set!(9, "custom_hostnames", s.custom_hostnames),
                "dns_records" => set!(10, "dns_records", s.dns_records),
                "total_tls" => set!(11, "total_tls", s.total_tls),
                "universal_ssl" => set!(12, "universal_ssl", s.universal_ssl),
                "id" => set!(13, "id", s.id),
                "name" => set!(14, "name", s.name),
                "enabled" => set!(15, "enabled", s.enabled),
                "origins" => set!(16, "origins", s.origins),
                "notification_email" => {
                    if seen & (1 << 17) != 0 {
                        return Err(de::Error::duplicate_field("notification_email"));
                    }
                    seen |= 1 << 17;
                    s.notification_email = Some(map.next_value()?);
                }
                "notification_filter" => set!(18, "notification_filter", s.notification_filter),
                "alert_type" => set!(19, "alert_type", s.alert_type),
                "mechanisms" => set!(20, "mechanisms", s.mechanisms),
                "filters" => set!(21, "filters", s.filters),
                "hostname" => set!(22, "hostname", s.hostname),
                "ssl" => set!(23, "ssl", s.ssl),
                "type" => set!(24, "type", s.record_type),
                "bundle_method" => set!(25, "bundle_method", s.bundle_method),
                "uploaded_on" => set!(26, "uploaded_on", s.uploaded_on),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            // `result: null` must read as present: an envelope with no data.
            if key.as_str() == "result" && s.result.is_none() {
                s.result = Some(None);
            }
        }
        Ok(s)
    }
}

impl Shape<'_> {
    pub fn is_envelope(&self) -> bool {
        self.result.is_some() || self.success.is_some()
    }

    pub fn is_bundle(&self) -> bool {
        self.pools.is_some() || self.notification_policies.is_some() || self.zones.is_some()
    }

    /// The byte offset of this object's `{` in `text`, from its borrowed first
    /// key (JSON only: between `{` and the first key there is only whitespace).
    pub fn json_offset(&self, text: &str) -> Option<usize> {
        let key = self.first_key?;
        let key_start = (key.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_knows_where_its_object_starts() {
        let text = "[ {\"id\": \"a\"},\n  {\n   \"origins\": [], \"id\": \"b\"}, {\"x\\u0079z\": 1}, {}]";
        let Container::List(items) = serde_json::from_str::<Container>(text).unwrap() else {
            panic!("list")
        };
        let offsets: Vec<Option<usize>> = items.iter().map(|s| s.json_offset(text)).collect();
        assert_eq!(offsets[0], Some(2));
        assert_eq!(offsets[1], Some(text.find("{\n").unwrap()));
        assert_eq!(offsets[2], None, "an escaped first key is not borrowed");
        assert_eq!(offsets[3], None, "an empty object has no key");
    }

    #[test]
    fn null_result_and_null_email_are_present() {
        let s: Shape = serde_json::from_str(r#"{"result": null, "notification_email": null}"#).unwrap();
        assert!(matches!(s.result, Some(None)));
        assert!(matches!(s.notification_email, Some(None)));
        let s: Shape = serde_json::from_str(r#"{"id": "x"}"#).unwrap();
        assert!(s.result.is_none() && s.notification_email.is_none());
    }

    #[test]
    fn a_record_is_an_object_and_fields_appear_once() {
        assert!(serde_json::from_str::<Shape>("[1, 2]").is_err());
        let e = serde_json::from_str::<Shape>(r#"{"id": "a", "id": "b"}"#).unwrap_err();
        assert!(e.to_string().contains("duplicate field `id`"), "{e}");
    }
}
