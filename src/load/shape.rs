//! The typed shape of every document edgeaudit reads, for JSON and YAML alike.
//!
//! One struct covers envelopes, bundles, zones and the fields of every record
//! kind, so a document is parsed in one pass straight into typed values (no
//! generic tree). List elements are of type `H`: for JSON a borrowed
//! `RawValue`, whose address gives the record's byte offset for locating
//! findings later; for YAML the element's own `Shape`.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
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

/// Distinguishes a field given as `null` (`Some(None)`) from an absent one
/// (`None`): a pool with `"notification_email": null` is still a pool.
fn present<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

#[derive(Debug, Default, serde::Deserialize)]
#[serde(bound(deserialize = "H: Deserialize<'de>, 'de: 'a"))]
pub struct Shape<'a, H> {
    // The API envelope.
    #[serde(default, deserialize_with = "present")]
    pub result: Option<Option<Container<'a, H>>>,
    pub success: Option<bool>,
    pub errors: Option<IgnoredAny>,
    pub result_info: Option<IgnoredAny>,

    // The bundle document and its zones.
    pub account_id: Option<Text<'a>>,
    pub pools: Option<Container<'a, H>>,
    pub notification_policies: Option<Container<'a, H>>,
    pub zones: Option<Vec<Shape<'a, H>>>,
    pub zone_id: Option<Text<'a>>,
    pub certificate_packs: Option<Container<'a, H>>,
    pub custom_certificates: Option<Container<'a, H>>,
    pub custom_hostnames: Option<Container<'a, H>>,
    pub dns_records: Option<Container<'a, H>>,
    pub total_tls: Option<Container<'a, H>>,
    pub universal_ssl: Option<Container<'a, H>>,

    // Fields shared by records.
    pub id: Option<Text<'a>>,
    pub name: Option<Text<'a>>,
    pub enabled: Option<bool>,

    // Load-balancing pool.
    pub origins: Option<IgnoredAny>,
    #[serde(default, deserialize_with = "present")]
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
    #[serde(rename = "type")]
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
/// pages) or an object (an envelope, or a single settings object).
#[derive(Debug)]
pub enum Container<'a, H> {
    List(Vec<H>),
    Object(Box<Shape<'a, H>>),
}

impl<'de: 'a, 'a, H: Deserialize<'de>> Deserialize<'de> for Container<'a, H> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ContainerVisitor<'a, H>(PhantomData<(&'a (), H)>);
        impl<'de: 'a, 'a, H: Deserialize<'de>> Visitor<'de> for ContainerVisitor<'a, H> {
            type Value = Container<'a, H>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an array of records or an object (an API envelope, a bundle or a record)")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
                while let Some(item) = seq.next_element::<H>()? {
                    items.push(item);
                }
                Ok(Container::List(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                Shape::deserialize(MapAccessDeserializer::new(map)).map(|s| Container::Object(Box::new(s)))
            }
        }
        d.deserialize_any(ContainerVisitor(PhantomData))
    }
}

/// A YAML list element: its shape, parsed in place.
#[derive(Debug)]
pub struct YamlNode<'a>(pub Box<Shape<'a, YamlNode<'a>>>);

impl<'de: 'a, 'a> Deserialize<'de> for YamlNode<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Shape::deserialize(d).map(|s| YamlNode(Box::new(s)))
    }
}

impl<H> Shape<'_, H> {
    pub fn is_envelope(&self) -> bool {
        self.result.is_some() || self.success.is_some()
    }

    pub fn is_bundle(&self) -> bool {
        self.pools.is_some() || self.notification_policies.is_some() || self.zones.is_some()
    }
}
