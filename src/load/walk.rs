//! Walks a parsed document's shape (envelope, pages, bundle, zones, bare
//! array), classifies each record and hands it to a sink with its origin.

use super::error::InputError;
use super::shape::{Container, Shape};
use super::source::{FileId, Format, SourceFile};
use crate::locate::{pointer, resolve_locations};
use crate::model::Kind;
use crate::model::origin::{Anchor, RecordOrigin};

/// A problem with a field of a record, relative to the record.
#[derive(Debug)]
pub struct FieldError {
    pub path: String,
    pub message: String,
}

pub trait RecordSink {
    fn record(&mut self, kind: Kind, origin: RecordOrigin, account: Option<&str>, shape: &Shape<'_>) -> Result<(), FieldError>;
}

/// What a position in the document holds.
#[derive(Clone, Copy)]
enum Expect {
    /// Records of this kind (a bundle key or `--kind`).
    Kind(Kind),
    /// Records recognised by their fields.
    ByShape,
}

pub struct Walker<'f, S> {
    file: &'f SourceFile,
    file_id: FileId,
    files: &'f [SourceFile],
    sink: &'f mut S,
    account: Option<String>,
    /// Records accepted so far: until the first, a document that does not
    /// look like an export is "not an export" rather than a broken one.
    accepted: usize,
}

impl<'f, S: RecordSink> Walker<'f, S> {
    pub fn new(files: &'f [SourceFile], file_id: FileId, sink: &'f mut S) -> Self {
        Walker {
            file: &files[file_id.0 as usize],
            file_id,
            files,
            sink,
            account: None,
            accepted: 0,
        }
    }

    pub fn document<'a>(&mut self, top: Container<'a>, kind: Option<Kind>) -> Result<(), InputError> {
        let expect = kind.map(Expect::Kind).unwrap_or(Expect::ByShape);
        match top {
            Container::List(items) => self.list(items, String::new(), expect),
            Container::Object(shape) if shape.is_envelope() => self.envelope(*shape, String::new(), expect),
            Container::Object(shape) if kind.is_some() && !shape.is_bundle() => self.record(*shape, String::new(), expect),
            Container::Object(shape) if shape.is_bundle() => self.bundle(*shape),
            Container::Object(_) => Err(self
                .error_at(&self.origin(String::new(), None), "", "not an edge-service export: expected an API envelope (`result`), a bundle (`pools`, `notification_policies`, `zones`), an array of records, or `--kind` for a single object")
                .not_an_export()),
        }
    }

    fn origin(&self, pointer: String, anchor: Option<Anchor>) -> RecordOrigin {
        RecordOrigin {
            file: self.file_id,
            pointer,
            anchor,
        }
    }

    fn error_at(&self, origin: &RecordOrigin, path: &str, message: &str) -> InputError {
        let located = &resolve_locations(self.files, &[(origin, path)])[0];
        InputError::at_offset(&self.file.name, &self.file.text, located.start, message)
    }

    /// Where a JSON object starts, so its fields can be located by scanning
    /// it alone. YAML is located through its parser's events instead.
    fn anchor(&self, shape: &Shape<'_>, pointer: &str) -> Option<Anchor> {
        if self.file.format != Format::Json {
            return None;
        }
        shape.json_offset(&self.file.text).map(|offset| Anchor {
            offset,
            tokens: pointer::tokens(pointer).len(),
        })
    }

    fn list<'a>(&mut self, items: Vec<Shape<'a>>, base: String, expect: Expect) -> Result<(), InputError> {
        for (i, shape) in items.into_iter().enumerate() {
            let pointer = pointer::join_index(&base, i);
            if shape.is_envelope() && classify(&shape).is_none() {
                self.envelope(shape, pointer, expect)?;
            } else {
                self.record(shape, pointer, expect)?;
            }
        }
        Ok(())
    }

    fn envelope<'a>(&mut self, shape: Shape<'a>, base: String, expect: Expect) -> Result<(), InputError> {
        if shape.success == Some(false) {
            let anchor = self.anchor(&shape, &base);
            let origin = self.origin(base, anchor);
            return Err(self.error_at(
                &origin,
                "/success",
                "this is an API error response (`success: false`), not an export: check the `errors` it lists and export again",
            ));
        }
        let result_pointer = pointer::join(&base, "result");
        match shape.result.flatten() {
            Some(Container::List(items)) => self.list(items, result_pointer, expect),
            Some(Container::Object(object)) => self.record(*object, result_pointer, expect),
            None => Ok(()),
        }
    }

    fn bundle<'a>(&mut self, shape: Shape<'a>) -> Result<(), InputError> {
        self.account = shape.account_id.as_ref().map(|t| t.as_str().to_string());
        self.keyed(shape.pools, "/pools".into(), Kind::Pool)?;
        self.keyed(
            shape.notification_policies,
            "/notification_policies".into(),
            Kind::NotificationPolicy,
        )?;
        for (i, zone) in shape.zones.into_iter().flatten().enumerate() {
            let base = format!("/zones/{i}");
            for (container, key, kind) in [
                (zone.certificate_packs, "certificate_packs", Kind::CertificatePack),
                (zone.custom_certificates, "custom_certificates", Kind::CustomCertificate),
                (zone.custom_hostnames, "custom_hostnames", Kind::CustomHostname),
                (zone.dns_records, "dns_records", Kind::DnsRecord),
                (zone.total_tls, "total_tls", Kind::TotalTls),
                (zone.universal_ssl, "universal_ssl", Kind::UniversalSsl),
            ] {
                self.keyed(container, pointer::join(&base, key), kind)?;
            }
        }
        Ok(())
    }

    /// The value of a bundle key: an array, an envelope or (for settings) an object.
    fn keyed<'a>(&mut self, container: Option<Container<'a>>, base: String, kind: Kind) -> Result<(), InputError> {
        match container {
            None => Ok(()),
            Some(Container::List(items)) => self.list(items, base, Expect::Kind(kind)),
            Some(Container::Object(shape)) if shape.is_envelope() => self.envelope(*shape, base, Expect::Kind(kind)),
            Some(Container::Object(shape)) if kind.is_single_object() => self.record(*shape, base, Expect::Kind(kind)),
            Some(Container::Object(_)) => {
                let origin = self.origin(base, None);
                Err(self.error_at(
                    &origin,
                    "",
                    &format!("expected an array of {kind} records or an API envelope with `result`"),
                ))
            }
        }
    }

    fn record(&mut self, shape: Shape<'_>, pointer: String, expect: Expect) -> Result<(), InputError> {
        let anchor = self.anchor(&shape, &pointer);
        let origin = self.origin(pointer, anchor);
        let kind = match expect {
            Expect::Kind(kind) => kind,
            Expect::ByShape => match classify(&shape) {
                Some(kind) => kind,
                None => {
                    let error = self.error_at(&origin, "", UNRECOGNISED);
                    return Err(if self.accepted == 0 { error.not_an_export() } else { error });
                }
            },
        };
        if kind.is_single_object() && matches!(expect, Expect::ByShape) {
            return Err(self.error_at(
                &origin,
                "",
                "a settings object is only recognised under a bundle key or with `--kind`",
            ));
        }
        let account = self.account.clone();
        match self.sink.record(kind, origin.clone(), account.as_deref(), &shape) {
            Ok(()) => {
                self.accepted += 1;
                Ok(())
            }
            Err(e) => Err(self.error_at(&origin, &e.path, &e.message)),
        }
    }
}

const UNRECOGNISED: &str = "this record matches no known kind: expected a pool (`origins` or `notification_email`), a notification policy (`alert_type`), a custom hostname (`hostname` and `ssl`), a certificate pack (`type`: universal, advanced, …), a custom certificate (`bundle_method` and `uploaded_on`) or a DNS record (`type` and `name`)";

const PACK_TYPES: [&str; 8] = [
    "universal",
    "advanced",
    "total_tls",
    "sni_custom",
    "legacy_custom",
    "keyless",
    "mh_custom",
    "managed_hostname",
];

/// Recognises a record by its fields (DESIGN §1.2).
pub fn classify(shape: &Shape<'_>) -> Option<Kind> {
    let record_type = shape.record_type.as_ref().map(|t| t.as_str());
    if shape.origins.is_some() || shape.notification_email.is_some() {
        Some(Kind::Pool)
    } else if shape.alert_type.is_some() {
        Some(Kind::NotificationPolicy)
    } else if shape.hostname.is_some() && shape.ssl.is_some() {
        Some(Kind::CustomHostname)
    } else if record_type.is_some_and(|t| PACK_TYPES.contains(&t)) {
        Some(Kind::CertificatePack)
    } else if shape.bundle_method.is_some() && shape.uploaded_on.is_some() {
        Some(Kind::CustomCertificate)
    } else if record_type.is_some() && shape.name.is_some() {
        Some(Kind::DnsRecord)
    } else {
        None
    }
}
