//! Decides what each streamed object is (envelope, page, bundle, zone,
//! record), classifies records by their fields and hands them to a sink with
//! where they came from.

use super::json::parallel;
use super::shape::{RecordSpans, Shape};
use super::source::{FileId, SourceFile};
use super::stream::{ContainerSeed, Expect, Stopped, Walk};
use crate::input::locate::{Locator, fill_positions};
use crate::model::Kind;
use crate::model::certificate::{Zone, ZoneKey};
use crate::model::fields::{Layout, ListFields};
use crate::model::list::Page;
use crate::model::origin::{Places, RecordOrigin};
use crate::text::error::InputError;
use crate::text::mapped::Releaser;

/// A problem with a field of a record, relative to the record.
#[derive(Debug)]
pub struct FieldError {
    pub path: String,
    pub message: String,
}

pub trait RecordSink {
    /// An envelope with `result_info` ended; its records were handed over before.
    fn page(&mut self, page: Page);
    /// A record of the API's shape; `spans` say where some of its values lie.
    fn record(&mut self, kind: Kind, origin: RecordOrigin, shape: &Shape<'_>, spans: RecordSpans) -> Result<(), FieldError>;
    /// A record of another input format, in the API's shape: its fields are
    /// where `layout` says, and it belongs to `zone` (from its own zone id,
    /// not from a bundle's `zones`).
    fn record_as(
        &mut self,
        kind: Kind,
        origin: RecordOrigin,
        shape: &Shape<'_>,
        layout: &'static Layout,
        zone: Option<ZoneKey>,
    ) -> Result<(), FieldError>;
    /// Something of the document read but not followed (a Terraform module
    /// call), located, with why: every report lists it.
    fn not_analysed(&mut self, error: InputError);
    /// A zone a document names by id and maybe name, outside a bundle.
    fn zone_found(&mut self, zone: Zone);
    /// The document's records belong to this account (a bundle may name its
    /// `account_id` after its pools, so this comes at the end).
    fn end_document(&mut self, account: Option<&str>);
    /// A zone of a bundle ended (its lists were streamed before).
    fn zone(&mut self, origin: RecordOrigin, shape: &Shape<'_>);
    /// The document was skipped: forget what it sent.
    fn discard_document(&mut self);
    /// Values of the record at `origin`, handed over before, that are not
    /// known before apply: the rules that read them do not judge it.
    fn unknown_values(&mut self, origin: &RecordOrigin, values: Vec<crate::model::unknown::UnknownValue>);
    /// The list being walked holds about this many records (an upper
    /// estimate): room for them can be made in one go.
    fn expect_records(&mut self, _records: usize) {}
}

pub struct Walker<'f> {
    file: &'f SourceFile,
    file_id: FileId,
    files: &'f [SourceFile],
    sink: &'f mut dyn RecordSink,
    /// `--kind`: what the document's records are.
    kind: Option<Kind>,
    account: Option<String>,
    /// Records of a kind edgeaudit reads handed over so far, whatever said
    /// their kind (their fields, a bundle key, `--kind`).
    recognised: usize,
    /// Records of no kind edgeaudit reads, located (the first few) and
    /// counted: judged when the document ends (see [`Walker::verdict`]).
    unrecognised: Vec<InputError>,
    unrecognised_count: usize,
    /// What the first unrecognised record looks like, for the skip reason.
    foreign: Option<&'static str>,
    /// Records handed over since the current list began, and their first kind,
    /// for the page an envelope's `result_info` describes.
    page_records: usize,
    page_kind: Option<Kind>,
    error: Option<InputError>,
    /// Where errors are: one per walk, so a file's node map (YAML, `.tf`) is
    /// built once however many of its resources are not analysed.
    locator: std::cell::RefCell<Locator<'f>>,
    /// Origins of the document's records, each list's pointer shared.
    places: std::cell::RefCell<Places>,
    /// The pages of a mapped file behind the records handed over are released.
    releaser: Releaser<'f>,
    /// A JSON document read through `parallel::Skeleton`: its record lists
    /// are taken from the parallel parse.
    split: Option<(std::rc::Rc<parallel::Cursor>, parallel::Settings)>,
}

/// Where an API envelope keeps its paging.
static API_LIST: ListFields = ListFields {
    paging: "/result_info",
    total_count: "/result_info/total_count",
    total_pages: "/result_info/total_pages",
};

/// At most this many unrecognised records are located one by one; the rest are counted.
const UNRECOGNISED_LOCATED: usize = 20;

impl<'f> Walker<'f> {
    pub fn new(files: &'f [SourceFile], file_id: FileId, sink: &'f mut dyn RecordSink, kind: Option<Kind>) -> Self {
        let file = &files[file_id.0 as usize];
        Walker {
            file,
            file_id,
            files,
            sink,
            kind,
            account: None,
            recognised: 0,
            unrecognised: Vec::new(),
            unrecognised_count: 0,
            foreign: None,
            page_records: 0,
            page_kind: None,
            locator: std::cell::RefCell::new(Locator::new(files)),
            places: std::cell::RefCell::default(),
            releaser: Releaser::new(&file.text, 0),
            error: None,
            split: None,
        }
    }

    /// Takes record lists from the parallel parse (see [`Walker::run_split`]).
    pub fn split(mut self, cursor: std::rc::Rc<parallel::Cursor>, settings: parallel::Settings) -> Self {
        self.split = Some((cursor, settings));
        self
    }

    /// Like [`Walker::run`] over a `parallel::Skeleton`, or `None` when the
    /// document must be parsed again in one pass (what it sent is discarded):
    /// the one-pass parse gives parse errors as a one-thread run gives them.
    pub fn run_split<E>(self, parse: impl FnOnce(ContainerSeed<'_, Self>) -> Result<(), E>) -> Option<Result<(), Vec<InputError>>> {
        let expect = self.expect();
        self.run_parts(|w| {
            parse(ContainerSeed {
                walk: w,
                pointer: String::new(),
                expect,
            })
            .map_err(|_| Stopped)
        })
    }

    /// Walks the records `parse` hands over itself (a JSON Lines text's
    /// parts, parsed on every core), or `None` when the document must be
    /// parsed again in one pass (what it sent is discarded).
    pub fn run_parts(mut self, parse: impl FnOnce(&mut Self) -> Result<(), Stopped>) -> Option<Result<(), Vec<InputError>>> {
        let parsed = parse(&mut self);
        if parsed.is_err() && self.error.is_none() {
            self.sink.discard_document();
            return None;
        }
        // Parsed, or stopped by the walker at a record: its error is the one to report.
        Some(self.run_lines(|_| Ok(())))
    }

    /// Parses and walks the whole document with `parse`, which runs a
    /// [`ContainerSeed`] over the file; `parse_error` turns the parser's own
    /// errors into located input errors.
    pub fn run<E>(
        self,
        parse: impl FnOnce(ContainerSeed<'_, Self>) -> Result<(), E>,
        parse_error: impl FnOnce(E) -> InputError,
    ) -> Result<(), Vec<InputError>> {
        self.run_lines(|w| {
            let expect = w.expect();
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
    pub fn run_lines(mut self, walk: impl FnOnce(&mut Self) -> Result<(), InputError>) -> Result<(), Vec<InputError>> {
        let result = match (walk(&mut self), self.error.take()) {
            (_, Some(error)) | (Err(error), None) => Err(vec![error]),
            (Ok(()), None) => self.verdict(),
        };
        match &result {
            Ok(()) => self.sink.end_document(self.account.as_deref()),
            Err(_) => self.sink.discard_document(),
        }
        result
    }

    /// A document that parsed: analysed in full, or not at all. A record of no
    /// known kind beside records of known kinds is an error at each such
    /// record (a list comes from one endpoint, so an unknown record there is
    /// one edgeaudit misread, never one to pass over); a document none of
    /// whose records is of a known kind is not an export edgeaudit analyses.
    fn verdict(&mut self) -> Result<(), Vec<InputError>> {
        if self.unrecognised_count == 0 {
            return Ok(());
        }
        let mut errors = std::mem::take(&mut self.unrecognised);
        let more = self.unrecognised_count - errors.len();
        if self.recognised > 0 {
            if more > 0
                && let Some(last) = errors.last_mut()
            {
                last.message.push_str(&format!(
                    " ({more} more records like this one follow; only the first {UNRECOGNISED_LOCATED} are listed)"
                ));
            }
            return Err(errors);
        }
        let first = errors.swap_remove(0);
        let records = match self.unrecognised_count {
            1 => "1 record".to_string(),
            n => format!("{n} records"),
        };
        let reason = match self.foreign {
            Some(what) => format!("{records} of a kind it does not analyse: {what}"),
            None => format!(
                "{records}, of no kind edgeaudit reads (pools, notification policies, certificate packs, custom certificates, custom hostnames, Total TLS, DNS records)"
            ),
        };
        Err(vec![first.not_analysed(reason)])
    }

    /// A record of a zone file, anchored at byte `offset` (its data).
    pub fn record_at(&mut self, kind: Kind, shape: &Shape<'_>, offset: usize) -> Result<(), Stopped> {
        let origin = self.origin("", Some(offset));
        self.hand_over(kind, origin, shape)
    }

    /// What the document's records are expected to be: `--kind`'s, else
    /// recognised by their fields.
    pub fn expect(&self) -> Expect {
        self.kind.map(Expect::Kind).unwrap_or(Expect::ByShape)
    }

    /// Whether the walk stopped at an error it keeps (the parser's error
    /// that unwound it is then not the one to report).
    pub fn stopped(&self) -> bool {
        self.error.is_some()
    }

    pub fn file_id(&self) -> FileId {
        self.file_id
    }

    /// Every file of the run, this one among them.
    pub fn files(&self) -> &'f [SourceFile] {
        self.files
    }

    /// The account the document's records belong to, when the document says.
    pub fn set_account(&mut self, account: Option<String>) {
        self.account = account;
    }

    pub fn zone_found(&mut self, zone: Zone) {
        self.sink.zone_found(zone);
    }

    /// An input error at the value at `pointer`.
    pub fn error_at_pointer(&self, pointer: &str, message: &str) -> InputError {
        self.error_at(&self.origin(pointer, None), "", message)
    }

    /// Something of the document (no resource of ours) that was not
    /// followed, at `offset`, and why: every report lists it.
    /// A resource of the document whose value is at `pointer` that is not
    /// analysed, and why: every report lists it.
    pub fn not_analysed(&mut self, pointer: &str, why: &str) {
        let error = self.error_at_pointer(pointer, why);
        let reason = error.message.clone();
        let mut error = error.not_analysed(reason);
        error.resource = true;
        self.sink.not_analysed(error);
    }

    pub fn not_followed(&mut self, offset: usize, why: &str) {
        let mut error = InputError::at_offset(&self.file.name, &self.file.text, offset, "").not_analysed(why);
        error.resource = true;
        self.sink.not_analysed(error);
    }

    /// A record of another input format, put in the API's shape by its
    /// adapter (see [`RecordSink::record_as`]), at `pointer` and named by
    /// `address`. A value of the wrong type is an input error at the record.
    pub fn record_as(
        &mut self,
        kind: Kind,
        pointer: &str,
        address: std::sync::Arc<str>,
        normalised: crate::input::terraform::Normalised,
        zone: Option<ZoneKey>,
    ) -> Result<(), Stopped> {
        let origin = self.origin(pointer, None).with_address(address);
        let crate::input::terraform::Normalised { record, layout, unknown } = normalised;
        let result = match super::stream::shape_of(&record) {
            Ok(shape) => self.sink.record_as(kind, origin.clone(), &shape, layout, zone).map(|()| {
                if !unknown.is_empty() {
                    self.sink.unknown_values(&origin, unknown);
                }
            }),
            Err(e) => Err(FieldError {
                path: String::new(),
                message: format!("{}: {e}", origin.address().map_or("", |a| a)),
            }),
        };
        self.handed(kind, &origin, result)
    }

    /// Gives a classified record to the sink; a field the model rejects is an
    /// input error at that field.
    fn hand_over(&mut self, kind: Kind, origin: RecordOrigin, shape: &Shape<'_>) -> Result<(), Stopped> {
        let spans = match origin.anchor() {
            Some(record) => self.file.format.value_spans(shape, &self.file.text, record.offset),
            None => RecordSpans::NONE,
        };
        let result = self.sink.record(kind, origin.clone(), shape, spans);
        self.handed(kind, &origin, result)
    }

    /// Counts a record the sink took, or stops at the field it rejected.
    fn handed(&mut self, kind: Kind, origin: &RecordOrigin, result: Result<(), FieldError>) -> Result<(), Stopped> {
        match result {
            Ok(()) => {
                self.recognised += 1;
                self.page_records += 1;
                self.page_kind.get_or_insert(kind);
                Ok(())
            }
            Err(e) => {
                let error = self.error_at(origin, &e.path, &e.message);
                self.fail(error)
            }
        }
    }

    pub fn file(&self) -> &SourceFile {
        self.file
    }

    fn origin(&self, pointer: &str, anchor: Option<usize>) -> RecordOrigin {
        self.places.borrow_mut().origin(self.file_id, pointer, anchor)
    }

    /// Where a record starts, so its fields can be located from there alone:
    /// a JSON object's `{`, a YAML mapping's first key (a block mapping has
    /// no opening token; `locate::yaml::record_field` reads the rest).
    fn anchor(&self, shape: &Shape<'_>) -> Option<usize> {
        self.file.format.anchor(shape, &self.file.text)
    }

    fn error_at(&self, origin: &RecordOrigin, path: &str, message: &str) -> InputError {
        let mut located = self.locator.borrow_mut().locate(origin, path);
        fill_positions(self.files, std::iter::once(&mut located));
        InputError::at_offset(&self.file.name, &self.file.text, located.start, message)
    }

    /// Keeps the error for `run` and stops the parser.
    fn fail(&mut self, error: InputError) -> Result<(), Stopped> {
        self.error = Some(error);
        Err(Stopped)
    }

    fn envelope(&mut self, shape: &Shape<'_>, pointer: &str, expect: Expect) -> Result<(), Stopped> {
        if shape.success == Some(false) {
            let origin = self.origin(pointer, self.anchor(shape));
            let error = self.error_at(
                &origin,
                "/success",
                "this is an API error response (`success: false`), not an export: check the `errors` it lists and export again",
            );
            return self.fail(error);
        }
        if let Some(&info) = shape.result_info.as_deref() {
            let kind = match expect {
                Expect::Kind(kind) => Some(kind),
                _ => self.page_kind,
            };
            if let Some(kind) = kind {
                let origin = self.origin(pointer, self.anchor(shape));
                self.sink.page(Page {
                    kind,
                    origin,
                    fields: &API_LIST,
                    records: self.page_records,
                    page: info.page.map(|c| c.0),
                    per_page: info.per_page.map(|c| c.0),
                    total_count: info.total_count.map(|c| c.0),
                    total_pages: info.total_pages.map(|c| c.0),
                });
            }
        }
        Ok(())
    }

    /// A record of no kind edgeaudit reads: kept for the verdict.
    fn unrecognised(&mut self, shape: &Shape<'_>, origin: &RecordOrigin) {
        self.unrecognised_count += 1;
        self.foreign = self.foreign.or_else(|| looks_like(shape));
        if self.unrecognised.len() < UNRECOGNISED_LOCATED {
            let error = self.error_at(origin, "", UNRECOGNISED);
            self.unrecognised.push(error);
        }
    }

    /// A record: of the kind its place says (`--kind`, a bundle key), which
    /// its fields must not contradict, or of the kind its fields say.
    /// `alone` is a record that is not an element of a list (a document's or
    /// an envelope's single object): only such a record can be a setting.
    fn record(&mut self, shape: &Shape<'_>, pointer: &str, expect: Expect, alone: bool) -> Result<(), Stopped> {
        let anchor = self.anchor(shape);
        if let Some(offset) = anchor {
            self.releaser.reached(offset);
        }
        let origin = self.origin(pointer, anchor);
        let by_fields = classify(shape).or_else(|| (alone && is_total_tls(shape)).then_some(Kind::TotalTls));
        let kind = match expect {
            Expect::Kind(kind) => {
                if let Some(other) = by_fields.filter(|&other| other != kind && !(kind.is_single_object() && other.is_single_object())) {
                    let error = self.error_at(
                        &origin,
                        "",
                        &format!(
                            "this record is read as a {kind} (by `--kind` or by the bundle key it is listed under), but its fields are those of a {other}: fix the bundle key or `--kind`"
                        ),
                    );
                    return self.fail(error);
                }
                // A DNS record is only one with a DNS `type`: under `dns_records`, a zone
                // (`type: full`) or a record without a type would otherwise pass unread.
                if kind == Kind::DnsRecord && by_fields.is_none() {
                    let error = self.error_at(&origin, "", NOT_A_DNS_RECORD);
                    return self.fail(error);
                }
                kind
            }
            Expect::ByShape | Expect::Zone => match by_fields {
                Some(kind) => kind,
                // Skipped with its reason when met in a walk (the rest is judged); an error when named.
                None if alone && is_setting_like(shape) => {
                    let error = self.error_at(&origin, "", "").not_analysed(SETTING_WITHOUT_KIND);
                    return self.fail(error);
                }
                None => {
                    self.unrecognised(shape, &origin);
                    return Ok(());
                }
            },
        };
        self.hand_over(kind, origin, shape)
    }
}

impl<'f, 'de> Walk<'de> for Walker<'f> {
    fn split_list(&mut self, pointer: &str, expect: Expect) -> Option<Result<(), Stopped>> {
        let (cursor, settings) = self.split.clone()?;
        let open = cursor.take_list()?;
        let text: &'f str = &self.file.text;
        let outcome = parallel::parse_list(text, open, pointer, expect, settings, |part| parallel::replay(self, part));
        // The estimate was this list's: a small list after it makes no room for as many.
        self.expect_elements(0);
        Some(match outcome {
            parallel::ListOutcome::Done(end) => {
                cursor.list_ended(end);
                Ok(())
            }
            parallel::ListOutcome::Stopped => Err(Stopped),
            // No error kept: `run_split` parses the document again in one pass.
            parallel::ListOutcome::Unsound => Err(Stopped),
        })
    }

    fn element(&mut self, shape: &mut Shape<'de>, pointer: &str, expect: Expect) -> Result<(), Stopped> {
        let shape = &*shape;
        if expect == Expect::Zone {
            // A zone's lists were streamed while it was read; now its id and name are known.
            let origin = self.origin(pointer, None);
            self.sink.zone(origin, shape);
            return Ok(());
        }
        if shape.is_envelope() && classify(shape).is_none() {
            // A page of a multi-page export; its records were streamed.
            return self.envelope(shape, pointer, expect);
        }
        self.record(shape, pointer, expect, false)
    }

    fn list_start(&mut self) {
        self.page_records = 0;
        self.page_kind = None;
    }

    fn expect_elements(&mut self, elements: usize) {
        self.sink.expect_records(elements);
    }

    fn object(&mut self, shape: &mut Shape<'de>, pointer: &str, expect: Expect) -> Result<(), Stopped> {
        let shape = &*shape;
        let is_document = pointer.is_empty();
        if shape.is_envelope() && classify(shape).is_none() {
            return self.envelope(shape, pointer, expect);
        }
        if shape.is_bundle() {
            if is_document {
                self.account = shape.account_id.as_ref().map(|t| t.as_str().to_string());
            }
            return Ok(());
        }
        match expect {
            // `pools: {...}`: a list key holding a lone object.
            Expect::Kind(kind) if ends_at_bundle_list(pointer) => {
                let origin = self.origin(pointer, self.anchor(shape));
                let error = self.error_at(
                    &origin,
                    "",
                    &format!("expected an array of {kind} records or an API envelope with `result`"),
                );
                self.fail(error)
            }
            Expect::Kind(_) => self.record(shape, pointer, expect, true),
            // A bare object as the whole document: what it is must be said with
            // `--kind`, but for Total TLS, whose shape says it (and a lone
            // `enabled`, which gets the error that names both settings kinds).
            Expect::ByShape if is_document && !is_total_tls(shape) && !is_setting_like(shape) => {
                let origin = self.origin(pointer, None);
                let error = self.error_at(&origin, "", "").not_analysed(no_export_structure());
                self.fail(error)
            }
            Expect::ByShape | Expect::Zone => self.record(shape, pointer, expect, true),
        }
    }
}

/// Why a lone object is no export, naming `--kind` and every kind it takes.
fn no_export_structure() -> String {
    let kinds: Vec<String> = crate::model::Kind::RECORD_KINDS
        .iter()
        .map(|k| format!("`{}`", k.as_str()))
        .collect();
    format!(
        "it has no export structure (an API response with `result`, a bundle with `pools`, `notification_policies` or `zones`, an array of records), and a single record's kind is not told by its fields: name it with `--kind` ({}). A zone setting such as SSL's (`{{\"id\": \"ssl\", \"value\": …}}`) is of no kind edgeaudit reads; the settings it reads are Total TLS and Universal SSL",
        kinds.join(", ")
    )
}

const UNRECOGNISED: &str = "this record is of no kind edgeaudit reads, while other records of this document are: a list comes from one endpoint, so edgeaudit would be misreading it. Expected a pool (`origins` or `notification_email`), a notification policy (`alert_type`), a custom hostname (`hostname`), a certificate pack (`hosts` with `certificates` or `certificate_authority`), a custom certificate (`bundle_method` and `uploaded_on`) or a DNS record (`name` and a DNS `type`)";

const NOT_A_DNS_RECORD: &str = "this record is listed as a DNS record, but it has no `name` and DNS `type` (A, AAAA, CAA, …): a zone or another record under `dns_records`? Export the zone's DNS records there";

const SETTING_WITHOUT_KIND: &str = "this looks like a zone setting (`enabled`), but which one cannot be told from its fields: run with `--kind universal_ssl` or `--kind total_tls`, or put it under a bundle's `universal_ssl` or `total_tls` key";

/// Certificate pack types the rules know by name; a record with `hosts` and
/// `certificates` or `certificate_authority` is a pack whatever its type.
const PACK_TYPES: [&str; 10] = [
    "universal",
    "advanced",
    "total_tls",
    "sni_custom",
    "legacy_custom",
    "keyless",
    "mh_custom",
    "managed_hostname",
    // Real older values.
    "custom",
    "dedicated_custom",
];

/// DNS record types (the API's `type` values for DNS records). Zones
/// (`full`, `partial`), webhook destinations (`generic`, `slack`) and
/// Terraform resources (`cloudflare_…`) have a `type` too, but none of these.
const DNS_TYPES: [&str; 26] = [
    "A",
    "AAAA",
    "CAA",
    "CERT",
    "CNAME",
    "DNAME",
    "DNSKEY",
    "DS",
    "HINFO",
    "HTTPS",
    "LOC",
    "MX",
    "NAPTR",
    "NS",
    "OPENPGPKEY",
    "PTR",
    "SMIMEA",
    "SOA",
    "SPF",
    "SRV",
    "SSHFP",
    "SVCB",
    "TLSA",
    "TXT",
    "URI",
    "URL",
];

/// Whether `pointer` ends at a bundle's list key (`/zones/0/custom_hostnames`):
/// unlike `split::is_list_key`, which takes a top-level key and `result` too.
fn ends_at_bundle_list(pointer: &str) -> bool {
    let last = pointer.rsplit('/').next().unwrap_or("");
    super::stream::BUNDLE_LISTS.contains(&last)
}

/// Recognises a record by its fields (docs/src/inputs.md). Settings objects are
/// not records of lists: see [`is_total_tls`].
pub fn classify(shape: &Shape<'_>) -> Option<Kind> {
    let record_type = shape.record_type.as_ref().map(|t| t.as_str());
    if shape.origins.is_some() || shape.notification_email.is_some() {
        Some(Kind::Pool)
    } else if shape.alert_type.is_some() {
        Some(Kind::NotificationPolicy)
    } else if shape.hostname.is_some() {
        Some(Kind::CustomHostname)
    } else if shape.hosts.is_some() && (shape.certificates.is_some() || shape.certificate_authority.is_some()) {
        Some(Kind::CertificatePack)
    } else if shape.bundle_method.is_some() && shape.uploaded_on.is_some() {
        // Before the pack types: custom certificates carry a `type` of their own (`legacy_custom`).
        Some(Kind::CustomCertificate)
    } else if record_type.is_some_and(|t| PACK_TYPES.contains(&t)) {
        Some(Kind::CertificatePack)
    } else if shape.hosts.is_some() && shape.id.is_some() && record_type.is_some_and(|t| !is_other_type(t)) {
        // A pack of a type not listed above, ordered but not yet issued
        // (`id`, `type`, `hosts` and nothing else): still a pack.
        Some(Kind::CertificatePack)
    } else if shape.name.is_some() && record_type.is_some_and(|t| DNS_TYPES.iter().any(|d| d.eq_ignore_ascii_case(t))) {
        Some(Kind::DnsRecord)
    } else {
        None
    }
}

/// Total TLS, on its own: `enabled` with `validity_period` (or
/// `validity_days`), the documented response of `GET /zones/{id}/acm/total_tls`.
pub fn is_total_tls(shape: &Shape<'_>) -> bool {
    shape.enabled.is_some() && shape.validity && shape.hosts.is_none()
}

/// A lone `{"enabled": …}` (maybe with `certificate_authority`): Universal
/// SSL, or a Total TLS export without its validity. Zones and other records
/// carry an `id`, a `name` or a `type`.
fn is_setting_like(shape: &Shape<'_>) -> bool {
    shape.enabled.is_some() && shape.id.is_none() && shape.name.is_none() && shape.record_type.is_none() && shape.hostname.is_none()
}

/// A `type` that names something other than a certificate pack: a DNS
/// record type, a zone's, or a Terraform resource's.
fn is_other_type(t: &str) -> bool {
    DNS_TYPES.iter().any(|d| d.eq_ignore_ascii_case(t)) || ["full", "partial", "secondary"].contains(&t) || t.starts_with("cloudflare_")
}

/// What a record of no analysed kind looks like, for the reason a file is skipped.
fn looks_like(shape: &Shape<'_>) -> Option<&'static str> {
    let record_type = shape.record_type.as_ref().map_or("", |t| t.as_str());
    Some(if shape.foreign.load_balancer {
        "load balancers (`default_pools`, `fallback_pool`); edgeaudit reads their pools, not load balancers"
    } else if shape.foreign.monitor {
        "health monitors (`expected_codes`, `interval`), which no rule reads"
    } else if shape.foreign.zone || ["full", "partial", "secondary"].contains(&record_type) {
        "zones (`type: full|partial`, `name_servers`), which are not DNS records"
    } else if shape.foreign.webhook {
        "notification destinations (webhooks: `url`, `type: generic|slack|…`), not policies"
    } else if record_type.starts_with("cloudflare_") {
        "Terraform resources (`type: cloudflare_…`): give edgeaudit the API export instead"
    } else {
        return None;
    })
}
