//! The Terraform adapter (docs/src/terraform.md): a `cloudflare_*` resource's
//! attributes, as state, plan or `.tf` source hold them, in the API's shape,
//! with the layout of its provider generation so that findings point at the
//! attribute where the document has it.
//!
//! Provider v4 (SDKv2) keeps nested blocks as lists of one element
//! (`filters[0]`, `notification_filter[0].pool[0]`, `ssl[0]`, `data[0]`,
//! `custom_ssl_options[0]`) and a policy's mechanisms as
//! `email_integration` / `webhooks_integration` / `pagerduty_integration`;
//! provider v5 uses objects and `mechanisms = {email, webhooks, pagerduty}`
//! as the API does. The generation is read per resource from that shape.

use serde_json::{Map, Value};

use crate::model::Kind;
use crate::model::fields::{self, CertificateFields, CustomCertificateFields, HostnameFields, Layout, PolicyFields, PoolFields};
use crate::model::terraform::Generation;
use crate::model::unknown::{UnknownValue, Why};

/// What edgeaudit reads of a resource type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResourceType {
    Record(Kind),
    /// `cloudflare_zone`: a zone's id and name.
    Zone,
}

pub fn resource_type(name: &str) -> Option<ResourceType> {
    Some(ResourceType::Record(match name {
        "cloudflare_load_balancer_pool" => Kind::Pool,
        "cloudflare_notification_policy" => Kind::NotificationPolicy,
        "cloudflare_certificate_pack" => Kind::CertificatePack,
        "cloudflare_total_tls" => Kind::TotalTls,
        "cloudflare_custom_hostname" => Kind::CustomHostname,
        "cloudflare_custom_ssl" => Kind::CustomCertificate,
        "cloudflare_record" | "cloudflare_dns_record" => Kind::DnsRecord,
        "cloudflare_zone" => return Some(ResourceType::Zone),
        _ => return None,
    }))
}

static V4_POOL: PoolFields = PoolFields {
    notification_filter: "/notification_filter/0",
    ..fields::POOL
};

static V4_POLICY: PolicyFields = PolicyFields {
    mechanisms: "/email_integration",
    filters: "/filters/0",
    pool_id: "/filters/0/pool_id",
    ..fields::POLICY
};

static V4_HOSTNAME: HostnameFields = HostnameFields {
    certificate_authority: "/ssl/0/certificate_authority",
    ssl_method: "/ssl/0/method",
    ssl_type: "/ssl/0/type",
    wildcard: "/ssl/0/wildcard",
    custom_certificate: "/ssl/0/custom_certificate",
    certificate: "/ssl/0",
    id: "/id",
    hostname: "/hostname",
    issued: CertificateFields {
        id: "/ssl/0/id",
        issuer: "/ssl/0/issuer",
        signature: "/ssl/0/signature",
        bundle_method: "/ssl/0/bundle_method",
        uploaded_on: "/ssl/0/uploaded_on",
        expires_on: "/ssl/0/expires_on",
        status: "/ssl/0/status",
    },
};

static V4_CUSTOM_SSL: CustomCertificateFields = CustomCertificateFields {
    certificate: "/custom_ssl_options/0/certificate",
    issued: CertificateFields {
        bundle_method: "/custom_ssl_options/0/bundle_method",
        ..fields::ISSUED
    },
    hosts: "/hosts",
    zone_id: "/zone_id",
};

/// Provider v4 (SDKv2): nested blocks as lists of one.
pub static V4: Layout = Layout {
    pool: &V4_POOL,
    policy: &V4_POLICY,
    custom_certificate: &V4_CUSTOM_SSL,
    pack: &fields::PACK,
    hostname: &V4_HOSTNAME,
    setting: &fields::SETTING,
    dns_data: "/data/0",
};

/// Provider v5: the API's own shape.
pub static V5: Layout = Layout {
    dns_data: "/data",
    ..fields::LAYOUT
};

/// A v4 nested block: the first element of a list (`[{…}]`), or the object
/// itself where it is one (v5).
fn block(value: Option<&Value>) -> Option<&Value> {
    match value? {
        Value::Array(items) => items.first(),
        Value::Null => None,
        other => Some(other),
    }
}

/// The generation a nested block's shape shows: a list is v4's, an object
/// v5's; absent or null shows nothing.
fn shown_by(value: Option<&Value>) -> Option<Generation> {
    match value {
        Some(Value::Array(_)) => Some(Generation::V4),
        Some(Value::Object(_)) => Some(Generation::V5),
        _ => None,
    }
}

/// Copies the named attributes that are set.
fn pick(attributes: &Map<String, Value>, names: &[&str]) -> Map<String, Value> {
    names
        .iter()
        .filter_map(|n| attributes.get(*n).filter(|v| !v.is_null()).map(|v| (n.to_string(), v.clone())))
        .collect()
}

/// A resource's attributes in the API's shape, and the layout of where its
/// document keeps them; `None` when the attributes are not an object. The
/// generation is read from the resource's shape, or is `generation` (its
/// configuration's) when the shape does not tell: a v4 pool of `.tf` source
/// without a `notification_filter` block has no list to show it.
pub fn normalise(kind: Kind, attributes: &Value, generation: Option<Generation>) -> Option<(Value, &'static Layout)> {
    let a = attributes.as_object()?;
    let (record, shown) = match kind {
        Kind::Pool => {
            let mut r = pick(a, &["id", "name", "notification_email", "origins"]);
            let filter = a.get("notification_filter");
            let shown = shown_by(filter);
            if let Some(f) = block(filter).and_then(Value::as_object) {
                let mut normal = Map::new();
                for source in ["pool", "origin"] {
                    if let Some(s) = block(f.get(source)) {
                        normal.insert(source.into(), s.clone());
                    }
                }
                r.insert("notification_filter".into(), Value::Object(normal));
            }
            (r, shown)
        }
        Kind::NotificationPolicy => {
            let mut r = pick(a, &["id", "name", "alert_type", "enabled"]);
            let shown = if a.contains_key("email_integration") {
                Some(Generation::V4)
            } else {
                shown_by(a.get("filters")).or(shown_by(a.get("mechanisms")))
            };
            if shown == Some(Generation::V4) {
                let mut mechanisms = Map::new();
                for (api_name, tf_name) in [
                    ("email", "email_integration"),
                    ("webhooks", "webhooks_integration"),
                    ("pagerduty", "pagerduty_integration"),
                ] {
                    if let Some(list) = a.get(tf_name).filter(|v| v.is_array()) {
                        mechanisms.insert(api_name.into(), list.clone());
                    }
                }
                r.insert("mechanisms".into(), Value::Object(mechanisms));
            } else if let Some(m) = a.get("mechanisms").filter(|m| m.is_object()) {
                r.insert("mechanisms".into(), m.clone());
            }
            if let Some(f) = block(a.get("filters")) {
                r.insert("filters".into(), f.clone());
            }
            (r, shown)
        }
        Kind::CertificatePack => (
            pick(a, &["id", "type", "hosts", "certificate_authority", "status", "created_on"]),
            None,
        ),
        Kind::TotalTls | Kind::UniversalSsl => (pick(a, &["enabled", "certificate_authority", "validity_days"]), None),
        Kind::CustomHostname => {
            let mut r = pick(a, &["id", "hostname", "status", "created_at"]);
            let ssl = a.get("ssl");
            if let Some(s) = block(ssl) {
                r.insert("ssl".into(), s.clone());
            }
            (r, shown_by(ssl))
        }
        Kind::CustomCertificate => {
            let mut r = pick(
                a,
                &[
                    "id",
                    "hosts",
                    "issuer",
                    "signature",
                    "uploaded_on",
                    "expires_on",
                    "status",
                    "zone_id",
                    "certificate",
                    "bundle_method",
                ],
            );
            let options = a.get("custom_ssl_options");
            if let Some(o) = block(options).and_then(Value::as_object) {
                r.extend(pick(o, &["certificate", "bundle_method"]));
            }
            (r, shown_by(options))
        }
        Kind::DnsRecord => {
            // v4 computes the full name as `hostname`; v5's `name` is the full name.
            let mut r = pick(a, &["id", "type", "content"]);
            let name = a.get("hostname").filter(|h| h.is_string()).or_else(|| a.get("name"));
            if let Some(name) = name {
                r.insert("name".into(), name.clone());
            }
            if !r.contains_key("content")
                && let Some(v) = a.get("value").filter(|v| v.is_string())
            {
                r.insert("content".into(), v.clone());
            }
            let data = a.get("data");
            if let Some(d) = block(data) {
                r.insert("data".into(), d.clone());
            }
            (r, shown_by(data))
        }
        _ => return None,
    };
    let mut record = Value::Object(record);
    unset_empty_strings(&mut record);
    let layout = match shown.or(generation) {
        Some(Generation::V4) => &V4,
        _ => &V5,
    };
    Some((record, layout))
}

/// A resource's attributes in the API's shape, as [`normalise`] puts them,
/// with its values not known before apply — each at its pointer in the
/// attributes, with why — left out of the record and listed by the field
/// the API's shape has them at, which is what facts read. An unknown value
/// of an attribute no rule reads (`description`, a webhook's `name`) is not
/// listed: it decides nothing.
pub fn normalise_with_unknown(
    kind: Kind,
    attributes: &Value,
    unknown: &[(String, Why)],
    generation: Option<Generation>,
) -> Option<Normalised> {
    if unknown.is_empty() {
        let (record, layout) = normalise(kind, attributes, generation)?;
        return Some(Normalised {
            record,
            layout,
            unknown: Vec::new(),
        });
    }
    // Each unknown value is marked where it is; the adapter carries the
    // marks to where the API's shape has them (v4's `filters[0].pool_id`
    // becomes `filters.pool_id`), and they are taken out there.
    let mut marked = attributes.clone();
    for (i, (pointer, _)) in unknown.iter().enumerate() {
        set_at(&mut marked, pointer, Value::String(mark(i)));
    }
    let (mut record, layout) = normalise(kind, &marked, generation)?;
    let mut fields: Vec<Vec<String>> = vec![Vec::new(); unknown.len()];
    take_marks(&mut record, &mut String::new(), &mut fields);
    let mut values = Vec::new();
    for ((pointer, why), found) in unknown.iter().zip(fields) {
        let found = if found.is_empty() { renamed(kind, pointer) } else { found };
        values.extend(found.into_iter().map(|field| UnknownValue {
            field,
            at: pointer.clone(),
            why: why.clone(),
        }));
    }
    Some(Normalised {
        record,
        layout,
        unknown: values,
    })
}

/// A resource in the API's shape, where its document keeps its fields, and
/// its values not known before apply.
pub struct Normalised {
    pub record: Value,
    pub layout: &'static Layout,
    pub unknown: Vec<UnknownValue>,
}

const MARK: &str = "\u{0}edgeaudit:unknown:";

fn mark(i: usize) -> String {
    format!("{MARK}{i}")
}

/// Sets `value` at `pointer` (relative to `root`), making the objects and
/// lists on the way.
fn set_at(root: &mut Value, pointer: &str, value: Value) {
    let mut at = root;
    for token in pointer.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        at = match at {
            Value::Array(items) => match token.parse::<usize>() {
                Ok(i) if i < 10_000 => {
                    if items.len() <= i {
                        items.resize(i + 1, Value::Object(Map::new()));
                    }
                    &mut items[i]
                }
                _ => return,
            },
            other => {
                if !other.is_object() {
                    *other = Value::Object(Map::new());
                }
                match other {
                    Value::Object(map) => map.entry(token).or_insert(Value::Null),
                    _ => return,
                }
            }
        };
    }
    *at = value;
}

/// Takes every mark out of `value`, noting the pointer it was at.
fn take_marks(value: &mut Value, pointer: &mut String, fields: &mut [Vec<String>]) {
    let index_of = |v: &Value| v.as_str()?.strip_prefix(MARK)?.parse::<usize>().ok();
    let len = pointer.len();
    match value {
        Value::Object(map) => {
            let keys: Vec<String> = map.keys().cloned().collect();
            for key in keys {
                crate::text::pointer::push_token(pointer, &key);
                if let Some(i) = map.get(&key).and_then(index_of) {
                    if let Some(f) = fields.get_mut(i) {
                        f.push(pointer.clone());
                    }
                    map.remove(&key);
                } else if let Some(child) = map.get_mut(&key) {
                    take_marks(child, pointer, fields);
                }
                pointer.truncate(len);
            }
        }
        Value::Array(items) => {
            for i in (0..items.len()).rev() {
                pointer.push_str(&format!("/{i}"));
                if let Some(m) = index_of(&items[i]) {
                    if let Some(f) = fields.get_mut(m) {
                        f.push(pointer.clone());
                    }
                    items.remove(i);
                } else {
                    take_marks(&mut items[i], pointer, fields);
                }
                pointer.truncate(len);
            }
        }
        _ => {}
    }
}

/// Where the API's shape has an attribute the adapter drops when it is not
/// of the shape it reads (v4's mechanism lists, `custom_ssl_options`): the
/// fields its value would have filled. An attribute no rule reads has none.
fn renamed(kind: Kind, pointer: &str) -> Vec<String> {
    let attribute = pointer.split('/').nth(1).unwrap_or("");
    if !is_decisive(kind, attribute, pointer) {
        return Vec::new();
    }
    let fields: &[&str] = match attribute {
        "email_integration" | "webhooks_integration" | "pagerduty_integration" => &["/mechanisms"],
        "custom_ssl_options" => &["/certificate", "/bundle_method"],
        "hostname" if kind == Kind::DnsRecord => &["/name"],
        "value" if kind == Kind::DnsRecord => &["/content"],
        // The API's shape has it under its own name.
        _ => return vec![format!("/{attribute}")],
    };
    fields.iter().map(|f| f.to_string()).collect()
}

/// Terraform writes an unset string attribute as `""` (SDKv2 state, v4): a
/// bundle method, a PEM, a timestamp that is `""` is not there. Two values
/// keep their `""`, which the API gives them as a meaning: the default CA
/// (`certificate_authority`) and no legacy e-mail (`notification_email`).
fn unset_empty_strings(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|k, v| v.as_str() != Some("") || k == "certificate_authority" || k == "notification_email");
            map.values_mut().for_each(unset_empty_strings);
        }
        Value::Array(items) => items.iter_mut().for_each(unset_empty_strings),
        _ => {}
    }
}

/// The attributes every rule about `kind` may read.
fn decisive(kind: Kind) -> &'static [&'static str] {
    match kind {
        Kind::Pool => &["id", "notification_email", "notification_filter"],
        Kind::NotificationPolicy => &[
            "alert_type",
            "enabled",
            "mechanisms",
            "email_integration",
            "webhooks_integration",
            "pagerduty_integration",
            "filters",
        ],
        Kind::CertificatePack => &["certificate_authority", "type", "hosts", "status"],
        Kind::TotalTls | Kind::UniversalSsl => &["enabled", "certificate_authority"],
        Kind::CustomHostname => &["hostname", "ssl"],
        Kind::CustomCertificate => &[
            "issuer",
            "signature",
            "uploaded_on",
            "expires_on",
            "bundle_method",
            "custom_ssl_options",
            "certificate",
            "status",
            "hosts",
        ],
        Kind::DnsRecord => &["type", "name", "hostname", "content", "value", "data"],
        _ => &[],
    }
}

/// Whether a rule about `kind` may read the value at `pointer` (relative
/// to the resource) of its attribute `attribute`. A private key beside a
/// certificate is never read.
/// The first unknown value that leaves a record unreadable as a whole: a
/// CAA record is no subject of a rule, its values are read by custom
/// hostnames' CAA facts, which cannot say "not known". One unknown value
/// they would read makes the record not analysed, never a guess. A DNS
/// record known not to be CAA is never read. (Universal SSL settings, read
/// the same way, come only from API exports.)
pub fn unknown_unreadable<'u>(kind: Kind, attributes: &Value, unknown: &'u [(String, Why)]) -> Option<&'u (String, Why)> {
    let caa_or_unknown_type = attributes
        .get("type")
        .and_then(Value::as_str)
        .is_none_or(|t| t.eq_ignore_ascii_case("CAA"));
    if kind != Kind::DnsRecord || !caa_or_unknown_type {
        return None;
    }
    unknown
        .iter()
        .find(|(pointer, _)| is_decisive(kind, pointer.split('/').nth(1).unwrap_or(""), pointer))
}

pub fn is_decisive(kind: Kind, attribute: &str, pointer: &str) -> bool {
    decisive(kind).contains(&attribute) && !pointer.ends_with("/private_key")
}

/// A zone's id and name (`zone` in v4, `name` in v5).
pub fn zone_name(attributes: &Value) -> (Option<&str>, Option<&str>) {
    let id = attributes.get("id").and_then(Value::as_str);
    let name = attributes.get("name").or_else(|| attributes.get("zone")).and_then(Value::as_str);
    (id, name)
}

/// The zone a resource belongs to, by its `zone_id` attribute.
pub fn zone_id(attributes: &Value) -> Option<&str> {
    attributes.get("zone_id").and_then(Value::as_str)
}

/// The account a pool or policy belongs to.
pub fn account_id(attributes: &Value) -> Option<&str> {
    attributes.get("account_id").and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn v4_blocks_become_the_api_shape_and_keep_their_layout() {
        let policy = json!({"id": "p", "name": "n", "alert_type": "load_balancing_health_alert", "enabled": true,
            "email_integration": [{"id": "ops@x.io", "name": ""}], "webhooks_integration": [],
            "filters": [{"pool_id": ["a"], "new_health": ["Unhealthy"], "event_source": []}]});
        let (record, layout) = normalise(Kind::NotificationPolicy, &policy, None).expect("object");
        assert!(std::ptr::eq(layout, &V4));
        assert_eq!(record["mechanisms"]["email"][0]["id"], "ops@x.io");
        assert_eq!(record["filters"]["pool_id"], json!(["a"]));
        assert_eq!(layout.policy.pool_id, "/filters/0/pool_id");

        let pool = json!({"id": "a", "name": "web", "notification_email": "ops@x.io",
            "notification_filter": [{"pool": [{"disable": false, "healthy": false}], "origin": [{"disable": true}]}]});
        let (record, layout) = normalise(Kind::Pool, &pool, None).expect("object");
        assert!(std::ptr::eq(layout, &V4));
        assert_eq!(
            record["notification_filter"],
            json!({"pool": {"disable": false, "healthy": false}, "origin": {"disable": true}})
        );
    }

    #[test]
    fn v5_objects_are_the_api_shape() {
        let policy = json!({"id": "p", "alert_type": "load_balancing_health_alert",
            "mechanisms": {"email": [{"id": "ops@x.io"}], "webhooks": null},
            "filters": {"pool_id": ["a"]}});
        let (record, layout) = normalise(Kind::NotificationPolicy, &policy, None).expect("object");
        assert!(std::ptr::eq(layout, &V5));
        assert_eq!(record["filters"]["pool_id"], json!(["a"]));
        let caa = json!({"name": "example.com", "type": "CAA", "data": {"flags": 0, "tag": "issue", "value": "pki.goog"}});
        let (record, layout) = normalise(Kind::DnsRecord, &caa, None).expect("object");
        assert_eq!(layout.dns_data, "/data");
        assert_eq!(record["data"]["tag"], "issue");
        let v4_caa =
            json!({"name": "@", "hostname": "example.com", "type": "CAA", "data": [{"flags": "0", "tag": "issue", "value": "pki.goog"}]});
        let (record, layout) = normalise(Kind::DnsRecord, &v4_caa, None).expect("object");
        assert_eq!(layout.dns_data, "/data/0");
        assert_eq!(record["name"], "example.com");
    }
}
