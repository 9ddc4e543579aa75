//! Decides what each streamed object is (envelope, page, bundle, zone,
//! record), classifies records by their fields and hands them to a sink with
//! where they came from.

use super::error::InputError;
use super::shape::Shape;
use super::source::{FileId, Format, SourceFile};
use super::stream::{ContainerSeed, Expect, Stopped, Walk};
use crate::locate::{locate_one, pointer};
use crate::model::Kind;
use crate::model::origin::{Anchor, RecordOrigin};

/// A problem with a field of a record, relative to the record.
#[derive(Debug)]
pub struct FieldError {
    pub path: String,
    pub message: String,
}

pub trait RecordSink {
    fn record(&mut self, kind: Kind, origin: RecordOrigin, shape: &Shape<'_>) -> Result<(), FieldError>;
    /// The document's records belong to this account (a bundle may name its
    /// `account_id` after its pools, so this comes at the end).
    fn end_document(&mut self, account: Option<&str>);
    /// A zone of a bundle ended (its lists were streamed before).
    fn zone(&mut self, origin: RecordOrigin, shape: &Shape<'_>);
    /// The document was skipped: forget what it sent.
    fn discard_document(&mut self);
}

pub struct Walker<'f, S> {
    file: &'f SourceFile,
    file_id: FileId,
    files: &'f [SourceFile],
    sink: &'f mut S,
    /// `--kind`: what the document's records are.
    kind: Option<Kind>,
    account: Option<String>,
    /// Records accepted so far: until the first, a document that does not
    /// look like an export is "not an export" rather than a broken one.
    accepted: usize,
    error: Option<InputError>,
}

impl<'f, S: RecordSink> Walker<'f, S> {
    pub fn new(files: &'f [SourceFile], file_id: FileId, sink: &'f mut S, kind: Option<Kind>) -> Self {
        Walker {
            file: &files[file_id.0 as usize],
            file_id,
            files,
            sink,
            kind,
            account: None,
            accepted: 0,
            error: None,
        }
    }

    /// Parses and walks the whole document with `parse`, which runs a
    /// [`ContainerSeed`] over the file; `parse_error` turns the parser's own
    /// errors into located input errors.
    pub fn run<E>(
        self,
        parse: impl FnOnce(ContainerSeed<'_, Self>) -> Result<(), E>,
        parse_error: impl FnOnce(E) -> InputError,
    ) -> Result<(), InputError> {
        self.run_lines(|w| {
            let expect = w.kind.map(Expect::Kind).unwrap_or(Expect::ByShape);
            match parse(ContainerSeed {
                walk: &mut *w,
                pointer: String::new(),
                expect,
            }) {
                Ok(()) => Ok(()),
                // The walker stopped the parser; its own error is the one to report.
                Err(_) if w.error.is_some() => Ok(()),
                Err(e) => Err(parse_error(e)),
            }
        })
    }

    /// Walks a document with `walk` (a zone file hands records over with
    /// [`Walker::record_at`]); the document's records reach the model only
    /// if it all went well.
    pub fn run_lines(mut self, walk: impl FnOnce(&mut Self) -> Result<(), InputError>) -> Result<(), InputError> {
        let result = match (walk(&mut self), self.error.take()) {
            (_, Some(error)) | (Err(error), None) => Err(error),
            (Ok(()), None) => Ok(()),
        };
        match &result {
            Ok(()) => self.sink.end_document(self.account.as_deref()),
            Err(_) => self.sink.discard_document(),
        }
        result
    }

    /// A record of a zone file, anchored at byte `offset` (its data).
    pub fn record_at(&mut self, kind: Kind, shape: &Shape<'_>, offset: usize) -> Result<(), Stopped> {
        let origin = self.origin("", Some(Anchor { offset, tokens: 0 }));
        self.hand_over(kind, origin, shape)
    }

    /// Gives a classified record to the sink; a field the model rejects is an
    /// input error at that field.
    fn hand_over(&mut self, kind: Kind, origin: RecordOrigin, shape: &Shape<'_>) -> Result<(), Stopped> {
        match self.sink.record(kind, origin.clone(), shape) {
            Ok(()) => {
                self.accepted += 1;
                Ok(())
            }
            Err(e) => {
                let error = self.error_at(&origin, &e.path, &e.message);
                self.fail(error)
            }
        }
    }

    pub fn file(&self) -> &SourceFile {
        self.file
    }

    fn origin(&self, pointer: &str, anchor: Option<Anchor>) -> RecordOrigin {
        RecordOrigin {
            file: self.file_id,
            pointer: pointer.to_string(),
            anchor,
        }
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

    fn error_at(&self, origin: &RecordOrigin, path: &str, message: &str) -> InputError {
        let located = locate_one(self.files, origin, path);
        InputError::at_offset(&self.file.name, &self.file.text, located.start, message)
    }

    /// Keeps the error for `run` and stops the parser.
    fn fail(&mut self, error: InputError) -> Result<(), Stopped> {
        self.error = Some(error);
        Err(Stopped)
    }

    fn envelope(&mut self, shape: &Shape<'_>, pointer: &str) -> Result<(), Stopped> {
        if shape.success == Some(false) {
            let origin = self.origin(pointer, self.anchor(shape, pointer));
            let error = self.error_at(
                &origin,
                "/success",
                "this is an API error response (`success: false`), not an export: check the `errors` it lists and export again",
            );
            return self.fail(error);
        }
        Ok(())
    }

    fn record(&mut self, shape: Shape<'_>, pointer: &str, expect: Expect) -> Result<(), Stopped> {
        let origin = self.origin(pointer, self.anchor(&shape, pointer));
        let kind = match expect {
            Expect::Kind(kind) => kind,
            Expect::ByShape | Expect::Zone => match classify(&shape) {
                Some(kind) => kind,
                None => {
                    let error = self.error_at(&origin, "", UNRECOGNISED);
                    return self.fail(if self.accepted == 0 { error.not_an_export() } else { error });
                }
            },
        };
        if kind.is_single_object() && expect == Expect::ByShape {
            let error = self.error_at(
                &origin,
                "",
                "a settings object is only recognised under a bundle key or with `--kind`",
            );
            return self.fail(error);
        }
        self.hand_over(kind, origin, &shape)
    }
}

impl<S: RecordSink> Walk for Walker<'_, S> {
    fn element(&mut self, shape: Shape<'_>, pointer: &str, expect: Expect) -> Result<(), Stopped> {
        if expect == Expect::Zone {
            // A zone's lists were streamed while it was read; now its id and name are known.
            let origin = self.origin(pointer, None);
            self.sink.zone(origin, &shape);
            return Ok(());
        }
        if shape.is_envelope() && classify(&shape).is_none() {
            // A page of a multi-page export; its records were streamed.
            return self.envelope(&shape, pointer);
        }
        self.record(shape, pointer, expect)
    }

    fn object(&mut self, shape: Shape<'_>, pointer: &str, expect: Expect) -> Result<(), Stopped> {
        let is_document = pointer.is_empty();
        if shape.is_envelope() && classify(&shape).is_none() {
            return self.envelope(&shape, pointer);
        }
        if shape.is_bundle() {
            if is_document {
                self.account = shape.account_id.as_ref().map(|t| t.as_str().to_string());
            }
            return Ok(());
        }
        match expect {
            // `pools: {...}`: a list key holding a lone object.
            Expect::Kind(kind) if is_list_key(pointer) => {
                let origin = self.origin(pointer, self.anchor(&shape, pointer));
                let error = self.error_at(
                    &origin,
                    "",
                    &format!("expected an array of {kind} records or an API envelope with `result`"),
                );
                self.fail(error)
            }
            Expect::Kind(_) => self.record(shape, pointer, expect),
            Expect::ByShape if is_document => {
                let origin = self.origin(pointer, None);
                let error = self.error_at(&origin, "", NOT_AN_EXPORT).not_an_export();
                self.fail(error)
            }
            Expect::ByShape | Expect::Zone => self.record(shape, pointer, expect),
        }
    }
}

const NOT_AN_EXPORT: &str = "not an edge-service export: expected an API envelope (`result`), a bundle (`pools`, `notification_policies`, `zones`), an array of records, or `--kind` for a single object";

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

fn is_list_key(pointer: &str) -> bool {
    let last = pointer.rsplit('/').next().unwrap_or("");
    [
        "pools",
        "notification_policies",
        "certificate_packs",
        "custom_certificates",
        "custom_hostnames",
        "dns_records",
    ]
    .contains(&last)
}

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
