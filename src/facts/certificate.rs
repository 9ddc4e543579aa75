//! Facts of uploaded (custom) certificates.

use super::chain::find_cross_sign;
use super::{Fact, Facts, Subject, Value, static_text, text, text_items};
use crate::model::Kind;
use crate::model::certificate::CustomCertificate;

pub struct CustomCertificateFacts<'a> {
    cert: &'a CustomCertificate,
}

impl<'a> CustomCertificateFacts<'a> {
    pub fn new(cert: &'a CustomCertificate) -> Self {
        CustomCertificateFacts { cert }
    }
}

impl Facts for CustomCertificateFacts<'_> {
    fn subject(&self) -> Subject<'_> {
        let c = self.cert;
        Subject {
            kind: Kind::CustomCertificate,
            id: &c.id,
            name: c.hosts.first().map_or("", String::as_str),
            origin: &c.origin,
        }
    }

    fn get(&self, name: &str) -> Option<Fact> {
        let c = self.cert;
        Some(match name {
            "id" => Fact::new(text(&c.id), "/id"),
            "hosts" => Fact::new(text_items(c.hosts.iter().map(String::as_str)), "/hosts"),
            "zone" => Fact::new(text(c.zone_id.as_deref().unwrap_or("{zone_id}")), "/zone_id"),
            "issuer" => Fact::new(text(&c.issuer), "/issuer"),
            "is_lets_encrypt" => Fact::new(Value::Bool(c.is_lets_encrypt()), "/issuer"),
            "key_type" => Fact::new(static_text(c.key_type.as_str()), "/signature"),
            "bundle_method" => Fact::new(static_text(c.bundle_method.map_or("unknown", |b| b.as_str())), "/bundle_method"),
            "uploaded_on" => Fact::new(Value::Date(c.uploaded_on?), "/uploaded_on"),
            "expires_on" => Fact::new(Value::Date(c.expires_on?), "/expires_on"),
            "status" => Fact::new(text(&c.status), "/status"),
            "pem_available" => Fact::new(Value::Bool(c.chain.is_some()), "/certificate"),
            "chain" => {
                let state = match &c.chain {
                    None => "unavailable",
                    Some(chain) if find_cross_sign(chain).is_some() => "cross_signed",
                    Some(_) => "clean",
                };
                Fact::new(static_text(state), "/certificate")
            }
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::certificate::{BundleMethod, KeyType, parse_timestamp};
    use crate::model::samples::origin;

    #[test]
    fn provides_every_catalogue_fact() {
        let cert = CustomCertificate {
            origin: origin(),
            id: "c1".into(),
            zone_id: None,
            hosts: vec!["example.com".into()],
            issuer: "LetsEncrypt".into(),
            key_type: KeyType::Rsa,
            bundle_method: Some(BundleMethod::Compatible),
            uploaded_on: parse_timestamp("2024-01-01T00:00:00Z"),
            expires_on: parse_timestamp("2024-04-01T00:00:00Z"),
            status: "active".into(),
            chain: None,
        };
        crate::facts::tests::provides_its_catalogue(&CustomCertificateFacts::new(&cert));
        let undated = CustomCertificate { uploaded_on: None, ..cert };
        assert!(
            CustomCertificateFacts::new(&undated).get("uploaded_on").is_none(),
            "an absent date is no fact: no date condition holds"
        );
    }
}
