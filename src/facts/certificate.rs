//! Facts of uploaded (custom) certificates.

use super::FactName;
use super::chain::dst_certificate;
use super::{Fact, Facts, Subject, Value, located_items, static_text, text, text_items, text_or_placeholder};
use crate::model::Kind;
use crate::model::certificate::CustomCertificate;
use crate::model::fields::join;
use crate::model::pem::Chain;
use std::borrow::Cow;

/// `cross_signed` (ISRG Root X1 by DST Root CA X3), `dst_cross_signed`
/// (another certificate issued by DST Root CA X3), `clean`, `unreadable`
/// when a PEM cannot be decoded (EX003), or `unavailable` when no PEM was exported.
pub fn chain_state(chain: Option<&Chain>) -> &'static str {
    match chain.map(|c| c.readable().map(dst_certificate)) {
        None => "unavailable",
        Some(None) => "unreadable",
        Some(Some(Some((_, true)))) => "cross_signed",
        Some(Some(Some((_, false)))) => "dst_cross_signed",
        Some(Some(None)) => "clean",
    }
}

/// The DST-issued certificate a chain carries, in words, with its expiry.
pub fn dst_certificate_words(chain: Option<&Chain>) -> String {
    match chain.and_then(Chain::readable).and_then(dst_certificate) {
        Some((c, _)) => {
            let until = chrono::DateTime::from_timestamp(c.not_after, 0)
                .map(|t| t.format("%Y-%m-%d").to_string())
                .unwrap_or_default();
            format!(
                "{} cross-signed by DST Root CA X3 (valid until {until})",
                c.subject_cn.as_deref().unwrap_or(&c.subject)
            )
        }
        None => String::new(),
    }
}

/// The facts every record with an uploaded PEM has (EX003, EX004): why its
/// PEM cannot be read, and which export fields contradict its leaf.
fn pem_fact(chain: Option<&Chain>, name: FactName, default_path: &'static str) -> Option<Fact> {
    Some(match name {
        FactName::PemError => match chain.and_then(|c| c.unreadable.as_ref()) {
            Some((path, reason)) => Fact::at(text(reason.as_str()), path.clone()),
            None => Fact::new(text(""), default_path),
        },
        FactName::PemContradictions => Fact::new(
            located_items(
                chain
                    .into_iter()
                    .flat_map(|c| &c.contradictions)
                    .map(|c| (c.text.as_str(), c.path.as_str())),
            ),
            default_path,
        ),
        _ => return None,
    })
}

/// A certificate value's field: the export's, or the PEM's when it was read from there.
fn value_path(from_pem: bool, chain: Option<&Chain>, field: Cow<'static, str>) -> Cow<'static, str> {
    match chain.filter(|_| from_pem) {
        Some(chain) => chain.path.clone().into(),
        None => field,
    }
}

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
        self.cert.subject()
    }

    fn made(&self) -> Option<crate::model::as_of::Made> {
        self.cert.made()
    }

    fn get(&self, name: FactName) -> Option<Fact> {
        let c = self.cert;
        let i = &c.certificate;
        let chain = c.chain.as_deref();
        let at = c.fields;
        Some(match name {
            FactName::Label => Fact::new(static_text("Custom certificate"), ""),
            FactName::Id => Fact::new(text(&*c.id), at.issued.id),
            FactName::Hosts => Fact::new(text_items(c.hosts.iter().map(String::as_str)), at.hosts),
            FactName::Zone => Fact::new(text_or_placeholder(c.zone_id.as_deref(), "zone_id"), at.zone_id),
            FactName::Issuer => Fact::at(text(&*i.issuer), value_path(i.from_pem.issuer, chain, at.issued.issuer.into())),
            FactName::IsLetsEncrypt => Fact::at(
                Value::Bool(c.is_lets_encrypt()),
                value_path(i.from_pem.issuer, chain, at.issued.issuer.into()),
            ),
            FactName::KeyType => Fact::at(
                static_text(i.key_type.as_str()),
                value_path(i.from_pem.key_type, chain, at.issued.signature.into()),
            ),
            FactName::BundleMethod => Fact::new(
                static_text(i.bundle_method.map_or("unknown", |b| b.as_str())),
                at.issued.bundle_method,
            ),
            FactName::UploadedOn => Fact::new(Value::Date(i.uploaded_on?), at.issued.uploaded_on),
            FactName::ExpiresOn => Fact::at(
                Value::Date(i.expires_on?),
                value_path(i.from_pem.expires_on, chain, at.issued.expires_on.into()),
            ),
            FactName::Status => Fact::new(text(&*i.status), at.issued.status),
            FactName::PemAvailable => Fact::new(Value::Bool(c.chain.is_some()), at.certificate),
            FactName::Chain => Fact::new(static_text(chain_state(chain)), at.certificate),
            FactName::DstCertificate => Fact::new(text(dst_certificate_words(chain)), at.certificate),
            _ => return pem_fact(chain, name, at.certificate),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::certificate::{BundleMethod, IssuedCertificate, KeyType, parse_timestamp};
    use crate::model::samples::origin;

    #[test]
    fn provides_every_catalogue_fact() {
        let cert = CustomCertificate {
            fields: &crate::model::fields::CUSTOM_CERTIFICATE,
            origin: origin(),
            zone_id: None,
            id: "c1".into(),
            hosts: vec!["example.com".into()],
            certificate: IssuedCertificate {
                issuer: "LetsEncrypt".into(),
                key_type: KeyType::Rsa,
                bundle_method: Some(BundleMethod::Compatible),
                uploaded_on: parse_timestamp("2024-01-01T00:00:00Z"),
                expires_on: parse_timestamp("2024-04-01T00:00:00Z"),
                status: "active".into(),
                from_pem: Default::default(),
            },
            chain: None,
        };
        crate::facts::tests::provides_its_catalogue(&CustomCertificateFacts::new(&cert));
        // A zone the export does not give is a value of its own, shown as
        // the placeholder and equal to no text (not even the placeholder's).
        let zone = CustomCertificateFacts::new(&cert).get(FactName::Zone).map(|f| f.value);
        assert_eq!(zone, Some(Value::NotInExport { placeholder: "zone_id" }));
        assert_eq!(
            crate::engine::template::render_value(&zone.unwrap_or(Value::Bool(false))),
            "{zone_id}"
        );
        let undated = CustomCertificate {
            certificate: IssuedCertificate {
                uploaded_on: None,
                ..cert.certificate.clone()
            },
            ..cert
        };
        assert!(
            CustomCertificateFacts::new(&undated).get(FactName::UploadedOn).is_none(),
            "an absent date is no fact: no date condition holds"
        );
    }
}

/// Certificate packs. A universal pack's CA counts as explicitly chosen only
/// when its zone's Universal SSL settings carry a `certificate_authority`;
/// every other pack's CA is an explicit choice (docs/src/rules/index.md).
pub struct CertificatePackFacts<'a> {
    pack: &'a crate::model::certificate::CertificatePack,
    zone_universal_ssl: Option<&'a crate::model::certificate::ZoneSetting>,
    zone: Option<&'a crate::model::certificate::Zone>,
}

impl<'a> CertificatePackFacts<'a> {
    pub fn new(
        pack: &'a crate::model::certificate::CertificatePack,
        zone_universal_ssl: Option<&'a crate::model::certificate::ZoneSetting>,
    ) -> Self {
        CertificatePackFacts {
            pack,
            zone_universal_ssl,
            zone: None,
        }
    }

    /// The pack's zone, which its requests are addressed to.
    pub fn in_zone(mut self, zone: Option<&'a crate::model::certificate::Zone>) -> Self {
        self.zone = zone;
        self
    }

    /// The CA the zone's Universal SSL settings name, which the service
    /// issues the zone's universal certificates from.
    fn universal_authority(&self) -> crate::model::certificate::Authority {
        self.zone_universal_ssl
            .map_or(crate::model::certificate::Authority::Unknown, |s| s.authority.clone())
    }

    fn explicit(&self) -> bool {
        use crate::model::certificate::Authority;
        if self.pack.pack_type != "universal" {
            return true;
        }
        self.zone_universal_ssl.is_some_and(|s| !matches!(s.authority, Authority::Unknown))
    }
}

impl Facts for CertificatePackFacts<'_> {
    fn subject(&self) -> Subject<'_> {
        self.pack.subject()
    }

    fn zone_id(&self) -> Option<&str> {
        self.zone.and_then(|z| z.id.as_deref())
    }

    fn made(&self) -> Option<crate::model::as_of::Made> {
        self.pack.made()
    }

    fn get(&self, name: FactName) -> Option<Fact> {
        let p = self.pack;
        let at = p.fields;
        let active = || {
            p.certificates
                .iter()
                .enumerate()
                .filter(|(_, c)| c.issued.status.eq_ignore_ascii_case("active"))
        };
        Some(match name {
            FactName::Label => Fact::new(static_text("Certificate pack"), ""),
            FactName::Id => Fact::new(text(&p.id), at.id),
            FactName::Type => Fact::new(text(&p.pack_type), at.pack_type),
            FactName::Hosts => Fact::new(text_items(p.hosts.iter().map(String::as_str)), at.hosts),
            FactName::Authority => Fact::new(static_text(p.authority.as_str()), at.certificate_authority),
            FactName::Explicit => Fact::new(Value::Bool(self.explicit()), at.certificate_authority),
            FactName::UniversalAuthority => Fact::new(static_text(self.universal_authority().as_str()), at.certificate_authority),
            FactName::ZoneId => Fact::new(text_or_placeholder(self.zone_id(), "zone_id"), at.certificate_authority),
            FactName::Status => match active().next() {
                Some((i, _)) => Fact::at(static_text("active"), join(&at.certificate(i), at.issued.status)),
                None => Fact::new(text(&p.status), at.status),
            },
            FactName::ExpiresOn => {
                let (i, c) = active()
                    .filter(|(_, c)| c.issued.expires_on.is_some())
                    .min_by_key(|(_, c)| c.issued.expires_on)?;
                Fact::at(Value::Date(c.issued.expires_on?), join(&at.certificate(i), at.issued.expires_on))
            }
            _ => return None,
        })
    }
}

/// A zone's Total TLS settings.
pub struct TotalTlsFacts<'a> {
    setting: &'a crate::model::certificate::ZoneSetting,
    zone: Option<&'a crate::model::certificate::Zone>,
}

impl<'a> TotalTlsFacts<'a> {
    pub fn new(setting: &'a crate::model::certificate::ZoneSetting, zone: Option<&'a crate::model::certificate::Zone>) -> Self {
        TotalTlsFacts { setting, zone }
    }
}

impl Facts for TotalTlsFacts<'_> {
    fn subject(&self) -> Subject<'_> {
        self.setting.subject(Kind::TotalTls, self.zone)
    }

    fn zone_id(&self) -> Option<&str> {
        self.zone.and_then(|z| z.id.as_deref())
    }

    fn get(&self, name: FactName) -> Option<Fact> {
        let s = self.setting;
        Some(match name {
            FactName::Enabled => Fact::new(Value::Bool(s.enabled.unwrap_or(false)), s.fields.enabled),
            FactName::Authority => Fact::new(static_text(s.authority.as_str()), s.fields.certificate_authority),
            FactName::ZoneId => Fact::new(
                text_or_placeholder(self.zone.and_then(|z| z.id.as_deref()), "zone_id"),
                s.fields.enabled,
            ),
            _ => return None,
        })
    }
}

#[cfg(test)]
mod pack_tests {
    use super::*;
    use crate::model::certificate::{Authority, CertificatePack, ZoneSetting};
    use crate::model::samples::origin;

    fn pack(pack_type: &str) -> CertificatePack {
        CertificatePack {
            fields: &crate::model::fields::PACK,
            origin: origin(),
            id: "p".into(),
            pack_type: pack_type.into(),
            hosts: vec!["example.com".into()],
            authority: Authority::LetsEncrypt,
            status: "active".into(),
            zone: None,
            created: None,
            certificates: vec![crate::model::certificate::PackCertificate {
                id: "c".into(),
                issued: crate::model::certificate::IssuedCertificate {
                    issuer: "R10".into(),
                    key_type: crate::model::certificate::KeyType::Rsa,
                    bundle_method: None,
                    uploaded_on: None,
                    expires_on: crate::model::certificate::parse_timestamp("2024-10-30T00:00:00Z"),
                    status: "active".into(),
                    from_pem: Default::default(),
                },
            }],
        }
    }

    #[test]
    fn only_universal_packs_can_be_implicit() {
        let settings = |a: Authority| ZoneSetting {
            fields: &crate::model::fields::SETTING,
            origin: origin(),
            enabled: Some(true),
            authority: a,
            zone: None,
        };
        let explicit = |f: &CertificatePackFacts| f.get(FactName::Explicit).map(|f| f.value);
        let universal = pack("universal");
        assert_eq!(explicit(&CertificatePackFacts::new(&universal, None)), Some(Value::Bool(false)));
        let chosen = settings(Authority::LetsEncrypt);
        assert_eq!(
            explicit(&CertificatePackFacts::new(&universal, Some(&chosen))),
            Some(Value::Bool(true))
        );
        let unset = settings(Authority::Unknown);
        assert_eq!(
            explicit(&CertificatePackFacts::new(&universal, Some(&unset))),
            Some(Value::Bool(false))
        );
        let advanced = pack("advanced");
        assert_eq!(explicit(&CertificatePackFacts::new(&advanced, None)), Some(Value::Bool(true)));
        // What the settings name, whatever the pack's own CA is now.
        let named = |f: &CertificatePackFacts| f.get(FactName::UniversalAuthority).map(|f| f.value);
        assert_eq!(
            named(&CertificatePackFacts::new(&universal, Some(&chosen))),
            Some(static_text("lets_encrypt"))
        );
        assert_eq!(
            named(&CertificatePackFacts::new(&universal, Some(&settings(Authority::Google)))),
            Some(static_text("google"))
        );
        assert_eq!(
            named(&CertificatePackFacts::new(&universal, Some(&unset))),
            Some(static_text("unknown"))
        );
        assert_eq!(named(&CertificatePackFacts::new(&universal, None)), Some(static_text("unknown")));
        let zone = crate::model::certificate::Zone {
            key: (crate::model::origin::FileId(0), 0),
            id: Some("9a7806061c88ada191ed06f989cc3dac".into()),
            name: None,
        };
        assert_eq!(CertificatePackFacts::new(&universal, None).zone_id(), None);
        assert_eq!(
            CertificatePackFacts::new(&universal, None).in_zone(Some(&zone)).zone_id(),
            Some("9a7806061c88ada191ed06f989cc3dac")
        );
        crate::facts::tests::provides_its_catalogue(&CertificatePackFacts::new(&advanced, None));
        crate::facts::tests::provides_its_catalogue(&TotalTlsFacts::new(&chosen, None));
    }

    #[test]
    fn a_packs_dates_and_status_point_at_its_active_certificate() {
        let mut pack = pack("advanced");
        let mut expired = pack.certificates[0].clone();
        expired.issued.status = "expired".into();
        expired.issued.expires_on = crate::model::certificate::parse_timestamp("2020-01-01T00:00:00Z");
        pack.certificates.insert(0, expired);
        let facts = CertificatePackFacts::new(&pack, None);
        let path = |name: FactName| facts.get(name).map(|f| f.path.into_owned());
        assert_eq!(path(FactName::Status).as_deref(), Some("/certificates/1/status"));
        assert_eq!(path(FactName::ExpiresOn).as_deref(), Some("/certificates/1/expires_on"));
    }
}

/// Custom hostnames: their CA, and what the loaded CAA records allow.
pub struct CustomHostnameFacts<'a> {
    host: &'a crate::model::certificate::CustomHostname,
    caa: &'a super::caa::CaaIndex<'a>,
    zone_id: Option<&'a str>,
}

impl<'a> CustomHostnameFacts<'a> {
    pub fn new(host: &'a crate::model::certificate::CustomHostname, caa: &'a super::caa::CaaIndex<'a>, zone_id: Option<&'a str>) -> Self {
        CustomHostnameFacts { host, caa, zone_id }
    }
}

impl Facts for CustomHostnameFacts<'_> {
    fn subject(&self) -> Subject<'_> {
        self.host.subject()
    }

    fn zone_id(&self) -> Option<&str> {
        self.zone_id
    }

    fn ca_change(&self, authority: &str) -> Option<serde_json::Value> {
        let h = self.host;
        Some(serde_json::json!({"ssl": {"method": h.ssl_method()?, "type": h.ssl_type()?, "certificate_authority": authority}}))
    }

    fn made(&self) -> Option<crate::model::as_of::Made> {
        self.host.made()
    }

    fn get(&self, name: FactName) -> Option<Fact> {
        use super::caa::{GOOGLE, LETS_ENCRYPT, SSL_COM};
        let h = self.host;
        // The endpoint is words for a person: the placeholder stands in the path.
        let cert = h.certificate.as_ref();
        let chain = h.chain.as_deref();
        let at = h.fields;
        let pem_path = chain.map_or(Cow::Borrowed(at.custom_certificate), |c| c.path.clone().into());
        Some(match name {
            FactName::Label => Fact::new(static_text("Custom hostname"), ""),
            FactName::Id => Fact::new(text(h.id()), at.id),
            FactName::Hostname => Fact::new(text(h.hostname()), at.hostname),
            FactName::Hosts => Fact::new(text_items([h.hostname()]), at.hostname),
            FactName::BundleMethod => Fact::at(
                static_text(cert.and_then(|c| c.bundle_method).map_or("unknown", |b| b.as_str())),
                at.issued.bundle_method,
            ),
            FactName::Chain => Fact::at(static_text(chain_state(chain)), pem_path),
            FactName::DstCertificate => Fact::at(text(dst_certificate_words(chain)), pem_path),
            FactName::ExpiresOn => {
                let cert = cert?;
                Fact::at(
                    Value::Date(cert.expires_on?),
                    value_path(cert.from_pem.expires_on, chain, at.issued.expires_on.into()),
                )
            }
            FactName::Status => Fact::at(text(cert.map_or("", |c| &*c.status)), at.issued.status),
            FactName::Authority => Fact::new(static_text(h.authority().as_str()), at.certificate_authority),
            FactName::Wildcard => Fact::new(Value::Bool(h.wildcard()), at.wildcard),
            FactName::Zone => Fact::new(text_or_placeholder(self.zone_id, "zone_id"), ""),
            FactName::PatchEndpoint => Fact::new(
                text(
                    crate::api::Operation::of(crate::api::Op::EditCustomHostname)
                        .call_or_placeholders(&[self.zone_id, Some(&h.id())])
                        .name(),
                ),
                at.id,
            ),
            FactName::SslMethod => Fact::new(text(h.ssl_method().unwrap_or("")), at.ssl_method),
            FactName::SslType => Fact::new(text(h.ssl_type().unwrap_or("")), at.ssl_type),
            FactName::CaChangeBody => Fact::new(text(ca_change_body(h, "google")), at.certificate_authority),
            FactName::CaaRecordSet => Fact::new(text(self.caa.relevant(h.hostname()).map_or("", |s| s.name)), at.hostname),
            FactName::CaaAllowsLetsEncrypt => Fact::new(Value::Bool(self.caa.allows(h.hostname(), LETS_ENCRYPT)), at.hostname),
            FactName::CaaAllowsCompatible => Fact::new(
                Value::Bool(self.caa.allows(h.hostname(), GOOGLE) || self.caa.allows(h.hostname(), SSL_COM)),
                at.hostname,
            ),
            _ => return pem_fact(chain, name, at.certificate),
        })
    }
}

/// The body that moves a custom hostname to another CA: `ssl` must carry its
/// `method` and `type` as they are (the API replaces `ssl` whole), so they
/// are sent back unchanged; when the export lacks one, the body says so in
/// its place rather than guess (an edit with a guessed method could change
/// how the hostname is validated).
pub fn ca_change_body(h: &crate::model::certificate::CustomHostname, authority: &str) -> String {
    // Made for every such hostname's message and action: written into one
    // buffer, each value quoted by serde_json, without a `Value` or a
    // string for each.
    let mut body = Vec::with_capacity(96);
    let mut quoted = |before: &str, value: &str| {
        body.extend_from_slice(before.as_bytes());
        // Writing a string into a vector cannot fail.
        let _ = serde_json::to_writer(&mut body, value);
    };
    quoted(
        r#"{"ssl":{"method":"#,
        h.ssl_method().unwrap_or("<its ssl.method: not in the export>"),
    );
    quoted(r#","type":"#, h.ssl_type().unwrap_or("<its ssl.type: not in the export>"));
    quoted(r#","certificate_authority":"#, authority);
    body.extend_from_slice(b"}}");
    // serde_json writes UTF-8 from UTF-8.
    String::from_utf8(body).unwrap_or_default()
}

#[cfg(test)]
mod hostname_tests {
    use super::*;
    use crate::facts::caa::CaaIndex;
    use crate::model::certificate::{Authority, CustomHostname};
    use crate::model::dns::CaaRecord;
    use crate::model::hostname_text::HostnameStrings;
    use crate::model::samples::origin;

    #[test]
    fn caa_facts_follow_the_loaded_records() {
        let records = vec![CaaRecord {
            id: String::new(),
            origin: origin(),
            name: "customer.org".into(),
            flags: 0,
            tag: "issue".into(),
            value: "letsencrypt.org".into(),
        }];
        let index = CaaIndex::new(&records);
        let strings = HostnameStrings {
            id: "h1",
            hostname: "app.customer.org",
            ssl_method: Some("http"),
            authority: Some(&Authority::Default),
            ..HostnameStrings::default()
        };
        let certificate = crate::model::certificate::IssuedCertificate {
            issuer: "GTS".into(),
            key_type: crate::model::certificate::KeyType::Rsa,
            bundle_method: None,
            uploaded_on: None,
            expires_on: crate::model::certificate::parse_timestamp("2025-01-01T00:00:00Z"),
            status: "active".into(),
            from_pem: Default::default(),
        };
        let with = |strings: &HostnameStrings<'_>| {
            CustomHostname::new(origin(), &crate::model::fields::HOSTNAME, strings, Some(certificate.clone()), None)
        };
        let host = with(&strings);
        let facts = CustomHostnameFacts::new(&host, &index, Some("z1"));
        crate::facts::tests::provides_its_catalogue(&facts);
        assert_eq!(facts.get(FactName::CaaAllowsLetsEncrypt).map(|f| f.value), Some(Value::Bool(true)));
        assert_eq!(facts.get(FactName::CaaAllowsCompatible).map(|f| f.value), Some(Value::Bool(false)));
        assert_eq!(facts.get(FactName::CaaRecordSet).map(|f| f.value), Some(text("customer.org")));
        assert_eq!(
            facts.get(FactName::PatchEndpoint).map(|f| f.value),
            Some(text("PATCH /zones/z1/custom_hostnames/h1"))
        );
        // The method is sent back as it is, quoted; the missing type says so.
        let host = with(&HostnameStrings {
            ssl_method: Some("ht\"tp"),
            ..strings
        });
        let body = ca_change_body(&host, "google");
        assert_eq!(
            body,
            r#"{"ssl":{"method":"ht\"tp","type":"<its ssl.type: not in the export>","certificate_authority":"google"}}"#
        );
        assert!(serde_json::from_str::<serde_json::Value>(&body).is_ok());
    }
}
