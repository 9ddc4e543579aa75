//! The API adapter: classified records of JSON and YAML exports (and BIND
//! CAA lines in the same shape) into model resources.

use crate::model::notification::{EventSource, Mechanism, Policy, Pool, Valued, parse_recipients};
use std::borrow::Cow;

use chrono::{DateTime, Utc};

use crate::input::shape::{RecordSpans, Shape, SourceFilter, Text};
use crate::input::walk::{FieldError, RecordSink};
use crate::model::certificate::{
    Authority, BundleMethod, CertificatePack, CustomCertificate, CustomHostname, FromPem, HostnameSpans, IssuedCertificate, KeyType,
    PackCertificate, Zone, ZoneKey, ZoneSetting, issuer_is_lets_encrypt, parse_timestamp, zone_of,
};
use crate::model::dns::{CaaRecord, normalise_name, parse_caa_content};
use crate::model::fields::{CertificateFields, CustomCertificateFields, HostnameFields, Layout, PolicyFields, PoolFields, join};
use crate::model::hostname_text::HostnameStrings;
use crate::model::list::Page;
use crate::model::origin::{RecordOrigin, ValueSpan};
use crate::model::pem::{Chain, Contradiction};
use crate::model::word::Words;
use crate::model::{Account, Inventory, Kind};

#[derive(Default)]
pub struct Builder {
    inventory: Inventory,
    texts: Words,
    /// The current document's resources and record counts, until its account is known.
    staged: Account,
    staged_records: Vec<(Kind, usize)>,
    /// The current document's resources read but not analysed.
    staged_not_analysed: Vec<crate::text::error::InputError>,
    /// Records the list being walked holds, about (`RecordSink::expect_records`).
    expected: usize,
}

/// Pushes a record onto the list of its kind, making room at once for the
/// records still expected when the list is full: growing a list of a million
/// hostnames by doubling copied it to fresh pages again and again (50,000
/// page faults and 0.1 s of the run in bench/RESULTS.md).
/// An estimate the system cannot give room for (a huge file of tiny
/// records) only leaves the list to grow as it would have.
fn push<T>(list: &mut Vec<T>, record: T, expected: usize) {
    if list.len() == list.capacity() && expected > list.len() {
        let _ = list.try_reserve_exact(expected - list.len());
    }
    list.push(record);
}

impl Builder {
    pub fn finish(mut self) -> Inventory {
        self.inventory.settle();
        self.inventory
    }

    fn account(&mut self, id: Option<&str>) -> &mut Account {
        let accounts = &mut self.inventory.accounts;
        let index = match accounts.iter().position(|a| a.id.as_deref() == id) {
            Some(i) => i,
            None => {
                accounts.push(Account {
                    id: id.map(str::to_string),
                    ..Account::default()
                });
                accounts.len() - 1
            }
        };
        &mut accounts[index]
    }
}

impl Builder {
    /// A record into the model; `spans` say where some of its values lie
    /// (none for a record of another format, given in the API's shape).
    fn build(
        &mut self,
        kind: Kind,
        origin: RecordOrigin,
        shape: &Shape<'_>,
        layout: &'static Layout,
        zone: Option<ZoneKey>,
        spans: RecordSpans,
    ) -> Result<(), FieldError> {
        match kind {
            Kind::Pool => {
                let mut pool = pool(origin, shape, layout.pool)?;
                pool.email_span = spans.notification_email;
                // Account-level findings point at the list the pools are in
                // (made once a list, not once a pool).
                let (file, list) = (pool.origin.file(), list_of(&pool.origin));
                if !self
                    .staged
                    .pool_lists
                    .last()
                    .is_some_and(|last| last.file() == file && last.pointer() == list)
                {
                    self.staged.pool_lists.push(RecordOrigin::new(file, &list, None));
                }
                push(&mut self.staged.pools, pool, self.expected);
            }
            Kind::NotificationPolicy => push(&mut self.staged.policies, policy(origin, shape, layout.policy), self.expected),
            Kind::CustomCertificate => {
                let certificate = custom_certificate(&mut self.texts, origin, shape, layout.custom_certificate)?;
                push(&mut self.staged.custom_certificates, certificate, self.expected);
            }
            Kind::CertificatePack => self.staged.certificate_packs.push(CertificatePack {
                fields: layout.pack,
                id: text(&shape.id),
                pack_type: text(&shape.record_type),
                hosts: shape.hosts.iter().flatten().map(|h| h.as_str().to_string()).collect(),
                authority: Authority::parse_with(shape.certificate_authority.as_ref().map(Text::as_str), |v| self.texts.get(v)),
                status: text(&shape.status),
                zone,
                certificates: shape
                    .certificates
                    .iter()
                    .flatten()
                    .enumerate()
                    .map(|(i, c)| {
                        let path = || layout.pack.certificate(i);
                        Ok(PackCertificate {
                            id: text(&c.id).into(),
                            issued: issued(
                                &mut self.texts,
                                &c.issuer,
                                &c.signature,
                                &c.bundle_method,
                                &c.uploaded_on,
                                &c.expires_on,
                                &c.status,
                                path,
                            )?,
                        })
                    })
                    .collect::<Result<_, _>>()?,
                created: timestamp(&shape.created_on, || "/created_on".to_string())?,
                origin,
            }),
            Kind::CustomHostname => {
                let ssl = shape.ssl.as_ref();
                // `null` is not set, like an absent key; only `""` is the default CA.
                let authority = ssl.and_then(|s| s.certificate_authority.as_ref()).map_or(Authority::Unknown, |ca| {
                    Authority::parse_with(ca.as_ref().map(Text::as_str), |v| self.texts.get(v))
                });
                let hostname = shape.hostname.as_ref().map_or("", Text::as_str);
                let fields = layout.hostname;
                let mut chain = hostname_chain(ssl, fields);
                let mut certificate = match ssl {
                    Some(s)
                        if s.issuer.is_some()
                            || s.expires_on.is_some()
                            || s.signature.is_some()
                            || s.bundle_method.is_some()
                            || s.uploaded_on.is_some()
                            || chain.is_some() =>
                    {
                        Some(issued(
                            &mut self.texts,
                            &s.issuer,
                            &s.signature,
                            &s.bundle_method,
                            &s.uploaded_on,
                            &s.expires_on,
                            &s.status,
                            || fields.certificate.to_string(),
                        )?)
                    }
                    _ => None,
                };
                if let (Some(certificate), Some(chain)) = (certificate.as_mut(), chain.as_mut()) {
                    reconcile(certificate, "", &fields.issued, chain, &mut self.texts);
                }
                let strings = HostnameStrings {
                    id: shape.id.as_ref().map_or("", Text::as_str),
                    hostname,
                    ssl_method: ssl.and_then(|s| s.method.as_ref()).map(Text::as_str),
                    ssl_type: ssl.and_then(|s| s.ssl_type.as_ref()).map(Text::as_str),
                    authority: Some(&authority),
                    wildcard: ssl.and_then(|s| s.wildcard).unwrap_or(false) || hostname.starts_with("*."),
                    // A record's zone is always one of its own file's: the block keeps its index.
                    zone: zone.map(|(_, index)| index),
                };
                debug_assert_eq!(zone.map(|(file, _)| file), zone.map(|_| origin.file()));
                let mut host = CustomHostname::new(origin, fields, &strings, certificate, chain);
                host.created = timestamp(&shape.created_at, || "/created_at".to_string())?;
                host.spans = HostnameSpans {
                    authority: spans.ssl_authority,
                    expires_on: spans.ssl_expires_on,
                };
                push(&mut self.staged.custom_hostnames, host, self.expected);
            }
            Kind::DnsRecord => {
                let is_caa = shape.record_type.as_ref().is_some_and(|t| t.as_str().eq_ignore_ascii_case("CAA"));
                if is_caa {
                    let (flags, tag, value) = caa_value(shape, layout.dns_data)?;
                    self.staged.caa_records.push(CaaRecord {
                        id: text(&shape.id),
                        name: normalise_name(&text(&shape.name)),
                        flags,
                        tag,
                        value,
                        origin,
                    });
                } else if let Some(id) = shape.id.as_ref().filter(|id| !id.as_str().is_empty()) {
                    // Kept by id only, so that a record loaded twice is counted once.
                    self.staged.other_dns_ids.push(id.as_str().to_string());
                }
            }
            Kind::TotalTls | Kind::UniversalSsl => {
                let setting = ZoneSetting {
                    fields: layout.setting,
                    enabled: shape.enabled,
                    authority: Authority::parse_with(shape.certificate_authority.as_ref().map(Text::as_str), |v| self.texts.get(v)),
                    zone,
                    origin,
                };
                if kind == Kind::TotalTls {
                    self.staged.total_tls.push(setting);
                } else {
                    self.staged.universal_ssl.push(setting);
                }
            }
            _ => {}
        }
        match self.staged_records.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => *n += 1,
            None => self.staged_records.push((kind, 1)),
        }
        Ok(())
    }
}

impl RecordSink for Builder {
    fn record(&mut self, kind: Kind, origin: RecordOrigin, shape: &Shape<'_>, spans: RecordSpans) -> Result<(), FieldError> {
        let zone = zone_of(&origin);
        self.build(kind, origin, shape, &crate::model::fields::LAYOUT, zone, spans)
    }

    fn record_as(
        &mut self,
        kind: Kind,
        origin: RecordOrigin,
        shape: &Shape<'_>,
        layout: &'static Layout,
        zone: Option<ZoneKey>,
    ) -> Result<(), FieldError> {
        self.build(kind, origin, shape, layout, zone, RecordSpans::NONE)
    }

    fn expect_records(&mut self, records: usize) {
        self.expected = records;
    }

    fn page(&mut self, page: Page) {
        self.staged.pages.push(page);
    }

    fn end_document(&mut self, account: Option<&str>) {
        let staged = std::mem::take(&mut self.staged);
        self.expected = 0;
        self.inventory.not_analysed.append(&mut self.staged_not_analysed);
        for (kind, n) in std::mem::take(&mut self.staged_records) {
            *self.inventory.records.entry(kind).or_default() += n;
        }
        let target = self.account(account);
        // Appending to an empty vector moves the staged one; nothing is copied
        // in the common case of one document per account.
        append(&mut target.pools, staged.pools);
        append(&mut target.policies, staged.policies);
        append(&mut target.custom_certificates, staged.custom_certificates);
        append(&mut target.certificate_packs, staged.certificate_packs);
        append(&mut target.total_tls, staged.total_tls);
        append(&mut target.universal_ssl, staged.universal_ssl);
        append(&mut target.custom_hostnames, staged.custom_hostnames);
        append(&mut target.caa_records, staged.caa_records);
        append(&mut target.other_dns_ids, staged.other_dns_ids);
        append(&mut target.zones, staged.zones);
        append(&mut target.pool_lists, staged.pool_lists);
        append(&mut target.pages, staged.pages);
        target.unknown.extend(staged.unknown);
    }

    fn unknown_values(&mut self, origin: &RecordOrigin, values: Vec<crate::model::unknown::UnknownValue>) {
        // The record they are of was handed over just before.
        if let Some(policy) = self
            .staged
            .policies
            .last_mut()
            .filter(|p| p.origin.file() == origin.file() && p.origin.pointer() == origin.pointer())
        {
            policy.leave_holes(&values);
        }
        self.staged.unknown.insert(origin, values);
    }

    fn not_analysed(&mut self, error: crate::text::error::InputError) {
        self.staged_not_analysed.push(error);
    }

    fn zone_found(&mut self, zone: Zone) {
        self.staged.zones.push(zone);
    }

    fn zone(&mut self, origin: RecordOrigin, shape: &Shape<'_>) {
        if let Some(key) = zone_of(&origin) {
            let id = shape.zone_id.as_ref().map(|t| t.as_str().to_string());
            self.staged.zones.push(Zone {
                key,
                id,
                name: shape.name.as_ref().map(|t| t.as_str().to_string()),
            });
        }
    }

    fn discard_document(&mut self) {
        self.staged = Account::default();
        self.staged_records.clear();
        self.staged_not_analysed.clear();
        self.expected = 0;
    }
}

fn append<T>(target: &mut Vec<T>, staged: Vec<T>) {
    if target.is_empty() {
        *target = staged;
    } else {
        target.extend(staged);
    }
}

/// `path` makes where the certificate is in its record, only for an error (a
/// million certificates otherwise make three paths each).
#[allow(clippy::too_many_arguments)]
fn issued(
    texts: &mut Words,
    issuer: &Option<Text<'_>>,
    signature: &Option<Text<'_>>,
    bundle_method: &Option<Text<'_>>,
    uploaded_on: &Option<Text<'_>>,
    expires_on: &Option<Text<'_>>,
    status: &Option<Text<'_>>,
    path: impl Fn() -> String,
) -> Result<IssuedCertificate, FieldError> {
    Ok(IssuedCertificate {
        issuer: texts.get(issuer.as_ref().map_or("", Text::as_str)),
        key_type: KeyType::from_signature(signature.as_ref().map(Text::as_str)),
        bundle_method: bundle(bundle_method, || format!("{}/bundle_method", path()))?,
        uploaded_on: timestamp(uploaded_on, || format!("{}/uploaded_on", path()))?,
        expires_on: timestamp(expires_on, || format!("{}/expires_on", path()))?,
        status: texts.get(status.as_ref().map_or("", Text::as_str)),
        from_pem: FromPem::default(),
    })
}

fn bundle(value: &Option<Text<'_>>, path: impl FnOnce() -> String) -> Result<Option<BundleMethod>, FieldError> {
    match value {
        None => Ok(None),
        Some(t) => BundleMethod::parse(t.as_str()).map(Some).ok_or_else(|| FieldError {
            path: path(),
            message: format!(
                "unknown bundle method `{}`: expected ubiquitous, optimal or force (dashboard: compatible, modern, user-defined)",
                t.as_str()
            ),
        }),
    }
}

fn timestamp(value: &Option<Text<'_>>, path: impl FnOnce() -> String) -> Result<Option<DateTime<Utc>>, FieldError> {
    match value {
        None => Ok(None),
        Some(t) => parse_timestamp(t.as_str()).map(Some).ok_or_else(|| FieldError {
            path: path(),
            message: format!("`{}` is not an RFC 3339 timestamp (e.g. 2024-09-09T00:00:00Z)", t.as_str()),
        }),
    }
}

fn custom_certificate(
    texts: &mut Words,
    origin: RecordOrigin,
    shape: &Shape<'_>,
    fields: &'static CustomCertificateFields,
) -> Result<CustomCertificate, FieldError> {
    let s = shape;
    let mut certificate = issued(
        texts,
        &s.issuer,
        &s.signature,
        &s.bundle_method,
        &s.uploaded_on,
        &s.expires_on,
        &s.status,
        String::new,
    )?;
    let mut chain = s
        .certificate
        .as_ref()
        .and_then(|pem| Chain::read([(fields.certificate.to_string(), pem.as_str())]))
        .map(Box::new);
    if let Some(chain) = chain.as_mut() {
        reconcile(&mut certificate, "", &fields.issued, chain, texts);
    }
    Ok(CustomCertificate {
        fields,
        id: text(&s.id).into(),
        zone_id: s.zone_id.as_ref().map(|t| t.as_str().to_string()),
        hosts: s.hosts.iter().flatten().map(|h| h.as_str().to_string()).collect(),
        certificate,
        chain,
        origin,
    })
}

/// When a PEM is there, the leaf's issuer, expiry and key type are the
/// truth: they fill what the export leaves out, and an export field that
/// says otherwise is recorded as a contradiction (EX004) and overridden.
/// `base` is where the certificate is in its record.
fn reconcile(certificate: &mut IssuedCertificate, base: &str, fields: &CertificateFields, chain: &mut Chain, texts: &mut Words) {
    let Some(leaf) = chain.leaf() else { return };
    let mut contradictions = Vec::new();
    if certificate.issuer.is_empty() || issuer_is_lets_encrypt(&certificate.issuer) != leaf.issued_by_lets_encrypt() {
        if !certificate.issuer.is_empty() {
            contradictions.push(Contradiction {
                path: join(base, fields.issuer),
                text: format!(
                    "`issuer` says `{}`, but the PEM's leaf is issued by {}",
                    certificate.issuer,
                    leaf.issuer_name()
                ),
            });
        }
        certificate.issuer = texts.get(leaf.issuer_name());
        certificate.from_pem.issuer = true;
    }
    if let Some(not_after) = DateTime::<Utc>::from_timestamp(leaf.not_after, 0) {
        match certificate.expires_on {
            // A day's leeway: hand-made exports round the time.
            Some(said) if (said - not_after).num_seconds().abs() <= 86_400 => {}
            said => {
                if let Some(said) = said {
                    contradictions.push(Contradiction {
                        path: join(base, fields.expires_on),
                        text: format!(
                            "`expires_on` says {}, but the PEM's leaf expires on {}",
                            said.format("%Y-%m-%d %H:%M:%S UTC"),
                            not_after.format("%Y-%m-%d %H:%M:%S UTC")
                        ),
                    });
                }
                certificate.expires_on = Some(not_after);
                certificate.from_pem.expires_on = true;
            }
        }
    }
    if leaf.key_type != KeyType::Unknown && certificate.key_type != leaf.key_type {
        if certificate.key_type != KeyType::Unknown {
            contradictions.push(Contradiction {
                path: join(base, fields.signature),
                text: format!(
                    "`signature` names an {} signature, but the PEM's leaf is signed with {}",
                    certificate.key_type.as_str().to_uppercase(),
                    leaf.key_type.as_str().to_uppercase()
                ),
            });
        }
        certificate.key_type = leaf.key_type;
        certificate.from_pem.key_type = true;
    }
    chain.contradictions = contradictions;
}

/// The uploaded chains of a custom hostname: `ssl.custom_certificate` and
/// every `ssl.custom_cert_bundle[].custom_certificate`, as one chain.
fn hostname_chain(ssl: Option<&crate::input::shape::Ssl<'_>>, fields: &HostnameFields) -> Option<Box<Chain>> {
    let ssl = ssl?;
    let single = ssl
        .custom_certificate
        .as_ref()
        .map(|pem| (fields.custom_certificate.to_string(), pem.as_str()));
    let bundled = ssl.custom_cert_bundle.iter().flatten().enumerate().filter_map(|(i, b)| {
        b.custom_certificate.as_ref().map(|pem| {
            (
                format!("{}/custom_cert_bundle/{i}/custom_certificate", fields.certificate),
                pem.as_str(),
            )
        })
    });
    Chain::read(single.into_iter().chain(bundled)).map(Box::new)
}

/// A CAA record's value: from `content` (`0 issue "letsencrypt.org"`), or
/// from `data: {flags, tag, value}` in exports that have no `content`.
fn caa_value(shape: &Shape<'_>, data_path: &str) -> Result<(u8, String, String), FieldError> {
    let content = shape.content.as_ref().map(Text::as_str).filter(|c| !c.trim().is_empty());
    match (content, &shape.data) {
        (None, Some(data)) => {
            let at = |field: &str| format!("{data_path}/{field}");
            let flags = match data.flags.as_deref().map(str::trim) {
                None | Some("") => 0,
                Some(f) => f.parse::<u8>().map_err(|_| FieldError {
                    path: at("flags"),
                    message: format!("CAA flags `{f}` are not a number from 0 to 255"),
                })?,
            };
            let tag = data.tag.as_deref().map(str::trim).unwrap_or("");
            if tag.is_empty() || !tag.chars().all(|c| c.is_ascii_alphanumeric()) {
                return Err(FieldError {
                    path: if data.tag.is_some() { at("tag") } else { data_path.into() },
                    message: format!("a CAA record needs a tag of letters and digits (issue, issuewild, iodef), not `{tag}`"),
                });
            }
            let value = data.value.clone().unwrap_or_default();
            if value.contains('\0') {
                return Err(FieldError {
                    path: at("value"),
                    message: "a CAA record cannot hold a NUL character: the export is damaged".into(),
                });
            }
            Ok((flags, tag.to_ascii_lowercase(), value))
        }
        _ => parse_caa_content(content.unwrap_or("")).map_err(|message| FieldError {
            path: if shape.content.is_some() {
                "/content".into()
            } else {
                String::new()
            },
            message: if shape.content.is_some() {
                message
            } else {
                "a CAA record needs its value in `content` (`0 issue \"letsencrypt.org\"`) or in `data` (`{flags, tag, value}`)".into()
            },
        }),
    }
}

/// The pointer of the list (or object) a record is in.
fn list_of(origin: &RecordOrigin) -> Cow<'_, str> {
    match origin.list_and_index() {
        Some((list, _)) => Cow::Borrowed(list),
        None => {
            let pointer = origin.pointer();
            Cow::Owned(pointer.rfind('/').map_or("", |i| &pointer[..i]).to_string())
        }
    }
}

fn text(t: &Option<Text<'_>>) -> String {
    t.as_ref().map(|t| t.as_str().to_string()).unwrap_or_default()
}

fn pool(origin: RecordOrigin, shape: &Shape<'_>, fields: &'static PoolFields) -> Result<Pool, FieldError> {
    // A pool without an `id` (the service's migration guide lists pools by
    // name and e-mail alone) is judged all the same; findings name it by name.
    let id = text(&shape.id);
    let email = shape.notification_email.as_ref().and_then(|e| e.as_ref()).map(Text::as_str);
    let filter = shape.notification_filter.clone().unwrap_or_default();
    let setting = |source, s: Option<SourceFilter>| {
        let SourceFilter { disable, healthy } = s.unwrap_or_default();
        (source, disable, healthy)
    };
    let legacy_events =
        crate::model::notification::legacy_events([setting(EventSource::Pool, filter.pool), setting(EventSource::Origin, filter.origin)]);
    Ok(Pool {
        fields,
        origin,
        id,
        name: text(&shape.name),
        legacy_recipients: parse_recipients(email),
        legacy_events,
        email_span: ValueSpan::NONE,
    })
}

fn policy(origin: RecordOrigin, shape: &Shape<'_>, fields: &'static PolicyFields) -> Policy {
    let mut mechanisms = Vec::new();
    for (kind, targets) in shape.mechanisms.iter().flatten() {
        for target in targets.iter().flatten() {
            mechanisms.push(Mechanism {
                kind: kind.clone(),
                // Compared like pool recipients: trimmed, case-insensitively.
                target: target.id.as_ref().map(|t| t.as_str().trim().to_string()),
            });
        }
    }
    let valued = |values: Option<&Vec<Text<'_>>>| -> Vec<Valued> {
        values
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(index, v)| Valued {
                value: v.as_str().to_string(),
                index,
            })
            .collect()
    };
    let filters = shape.filters.as_ref();
    Policy {
        fields,
        origin,
        id: text(&shape.id),
        name: text(&shape.name),
        alert_type: text(&shape.alert_type),
        enabled: shape.enabled.unwrap_or(true),
        mechanisms,
        pool_ids: valued(filters.and_then(|f| f.pool_id.as_ref())),
        new_health: valued(filters.and_then(|f| f.new_health.as_ref())),
        event_source: valued(filters.and_then(|f| f.event_source.as_ref())),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_full_list_makes_room_for_the_records_expected_at_once() {
        let mut list = vec![1];
        super::push(&mut list, 2, 1000);
        assert!(list.capacity() >= 1000, "{}", list.capacity());
        let mut list = vec![1];
        super::push(&mut list, 2, 0);
        assert!(list.capacity() < 1000, "nothing expected: it grows as usual");
        let mut list: Vec<u8> = Vec::new();
        super::push(&mut list, 1, usize::MAX);
        assert_eq!(list, [1], "room that cannot be had is not made");
    }
}
