//! `edgeaudit export` (docs/src/commands/export.md): the live account as one bundle
//! document (§1.2), every list page by page with the pages kept as they came
//! (so that EX001 can tell a cut list).
//!
//! Pages are written to a folder beside the output as they come (memory
//! holds one page, not the account) and joined into the bundle once every
//! list was read: the output appears whole or not at all. A stopped export
//! leaves the folder; `--resume` goes on from it, after checking that what
//! was read still holds. Records that crossed a page boundary while a list
//! was paged (a record deleted on a page read already) are found by reading
//! the places before each page again ([`super::boundary`]); a list that
//! moved more than that shows is read again.

use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::boundary::Boundaries;
use super::client::{Client, LiveError};
use crate::api::operations::CUSTOM_CERTIFICATE_STATUSES;
use crate::api::{Call, Op, Operation};

/// Times a list whose count moves while it is read is read, in all.
const READS_OF_A_CHANGING_LIST: usize = 3;

/// What to export.
#[derive(Debug, Clone)]
pub struct Scope {
    pub account: String,
    pub zones: Vec<String>,
    /// Also every zone the account holds (`GET /zones?account.id=…`).
    pub all_zones: bool,
}

/// Why an export stopped.
#[derive(Debug)]
pub enum ExportError {
    /// A request failed after its retries.
    Live(LiveError),
    /// The pages could not be written or read back.
    Io(String),
    /// `--resume` met pages of another export.
    Resume(String),
}

impl std::fmt::Display for ExportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExportError::Live(e) => write!(f, "{e}"),
            ExportError::Io(e) | ExportError::Resume(e) => f.write_str(e),
        }
    }
}

impl From<LiveError> for ExportError {
    fn from(e: LiveError) -> Self {
        ExportError::Live(e)
    }
}

/// What an export did besides writing the file.
#[derive(Debug, Default)]
pub struct Report {
    /// Lists that changed while they were read (each read again).
    pub notes: Vec<String>,
    /// Pages taken over from a stopped export (`--resume`).
    pub resumed_pages: usize,
}

/// The folder a stopped export leaves beside its output.
pub fn parts_folder(output: &Path) -> PathBuf {
    let dir = match output.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = output.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    dir.join(format!(".{name}.edgeaudit-export"))
}

/// Reads the account into `output`; the first request that fails (after its
/// retries) ends the export with `output` untouched and the pages read so far
/// kept for `resume`.
pub fn export_to(
    client: &mut Client,
    scope: &Scope,
    now: chrono::DateTime<chrono::Utc>,
    output: &Path,
    resume: bool,
) -> Result<Report, ExportError> {
    let parts = parts_folder(output);
    let identity = json!({"account": scope.account, "zones": scope.zones, "all_zones": scope.all_zones, "from": client.base()});
    let mut store = Store::open(&parts, &identity, resume)?;
    let mut report = Report::default();
    let account = scope.account.as_str();
    let mut lists: Vec<(String, Vec<String>)> = Vec::new();
    for (key, name, op) in [
        ("pools", "pools", Op::ListPools),
        ("notification_policies", "policies", Op::ListPolicies),
    ] {
        let call = Operation::of(op).call(&[account]);
        lists.push((key.into(), read_list(client, &mut store, &mut report, name, &call)?));
    }
    let mut zones: Vec<(String, Option<String>)> = scope.zones.iter().map(|z| (z.clone(), None)).collect();
    if scope.all_zones {
        let call = Operation::of(Op::ListZones).call(&[]).with("account.id", account);
        for file in read_list(client, &mut store, &mut report, "zones", &call)? {
            let page = store.read(&file)?;
            for zone in page.get("result").and_then(Value::as_array).into_iter().flatten() {
                // A zone without an id cannot be exported: say so rather than leave it out.
                let Some(id) = zone.get("id").and_then(Value::as_str) else {
                    return Err(ExportError::Live(LiveError {
                        request: call.name(),
                        why: "a zone in the answer has no `id`".into(),
                        status: None,
                    }));
                };
                let name = zone.get("name").and_then(Value::as_str).map(str::to_string);
                match zones.iter_mut().find(|(z, _)| z == id) {
                    Some(known) => known.1 = name,
                    None => zones.push((id.to_string(), name)),
                }
            }
        }
    }
    let mut zone_lists = Vec::new();
    for (n, (zone_id, _)) in zones.iter().enumerate() {
        zone_lists.push(read_zone(client, &mut store, &mut report, n, zone_id)?);
    }
    // Every list read: the bundle is joined from the pages, then put in place whole.
    let exported = json!({
        "at": now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        "from": client.base(),
        "by": format!("edgeaudit {}", env!("CARGO_PKG_VERSION")),
        "page_sizes": page_sizes(client),
    });
    join(&store, output, &exported, account, &lists, &zones, &zone_lists)?;
    report.resumed_pages = store.resumed;
    store.remove();
    Ok(report)
}

/// The page size each list the current API reference widens was read at,
/// and by which contract: the reference's where the service took it, the
/// published excerpt's where it answered 400.
fn page_sizes(client: &Client) -> Value {
    let mut sizes = serde_json::Map::new();
    for operation in crate::api::OPERATIONS.iter().filter(|o| o.has_reference() && o.method == "GET") {
        let by = if client.takes_reference(operation.op) {
            "the current API reference (2026)"
        } else {
            "the published contract (2024 excerpt): the service refused the current reference's (HTTP 400)"
        };
        sizes.insert(
            operation.operation_id.to_string(),
            json!({"per_page": client.page_size(operation), "by": by}),
        );
    }
    Value::Object(sizes)
}

/// A zone's lists and settings, by bundle key: page files each.
type ZoneLists = Vec<(&'static str, Vec<String>)>;

fn read_zone(client: &mut Client, store: &mut Store, report: &mut Report, n: usize, zone: &str) -> Result<ZoneLists, ExportError> {
    let mut out: ZoneLists = Vec::new();
    let packs = Operation::of(Op::ListCertificatePacks).call(&[zone]).with("status", "all");
    out.push((
        "certificate_packs",
        read_list(client, store, report, &format!("zone{n}-packs"), &packs)?,
    ));
    // The contract filters custom certificates by one status at a time: every status it names is read.
    let mut certificates = Vec::new();
    for status in CUSTOM_CERTIFICATE_STATUSES {
        let call = Operation::of(Op::ListCustomCertificates).call(&[zone]).with("status", status);
        certificates.extend(read_list(client, store, report, &format!("zone{n}-certificates-{status}"), &call)?);
    }
    out.push(("custom_certificates", certificates));
    let hostnames = Operation::of(Op::ListCustomHostnames).call(&[zone]);
    out.push((
        "custom_hostnames",
        read_list(client, store, report, &format!("zone{n}-hostnames"), &hostnames)?,
    ));
    let dns = Operation::of(Op::ListDnsRecords).call(&[zone]).with("type", "CAA");
    out.push(("dns_records", read_list(client, store, report, &format!("zone{n}-dns"), &dns)?));
    for (key, op) in [("total_tls", Op::GetTotalTls), ("universal_ssl", Op::GetUniversalSsl)] {
        let name = format!("zone{n}-{key}");
        let file = match store.finished(&name) {
            Some(files) => files,
            None => {
                let envelope = client.read(&Operation::of(op).call(&[zone]))?;
                let file = store.write_page(&name, 1, &envelope)?;
                store.finish(&name, std::slice::from_ref(&file))?;
                vec![file]
            }
        };
        out.push((key, file));
    }
    Ok(out)
}

/// Reads one list into page files and returns them in order. A list that
/// moved while it was read more than its page boundaries show is read
/// again, up to three times in all;
/// after that it is kept as read, and the note says so (its pages disagree,
/// which `check` reports as EX001).
fn read_list(client: &mut Client, store: &mut Store, report: &mut Report, name: &str, call: &Call) -> Result<Vec<String>, ExportError> {
    // Only a paged list is taken over part way: one the contract does not
    // page (read on where it paged anyway) is read again whole.
    let paged = matches!(call.operation.paging, crate::api::Paging::Pages { .. });
    if let Some(files) = store.finished(name) {
        // Taken over from a stopped export when its first page still reads
        // the same; when the list only grew, its pages are kept and it is
        // read on from the last of them (below).
        match still_holds(client, store, call, &files)? {
            // A list the contract does not page was read whole: one page kept, one read again.
            Holds::Same if paged || files.len() == 1 => {
                store.resumed += files.len();
                return Ok(files);
            }
            // Read on from the last page: no longer finished until then.
            Holds::Grew if paged => store.unfinish(name)?,
            Holds::Same | Holds::Grew | Holds::No => store.forget(name)?,
        }
    }
    for attempt in 1..=READS_OF_A_CHANGING_LIST {
        let resumed = store.started(name);
        let mut watch = Watch::default();
        let mut boundaries = Boundaries::new();
        // Pages kept from a stopped export count once the last of them reads the same.
        let mut files: Vec<String> = Vec::new();
        let mut skip = 0;
        let holds = match (resumed.last(), resumed.last().and_then(|l| page_number(l))) {
            (Some(last), Some(page)) if paged => (page, same_page(client, store, call, page, last)?),
            _ => (0, Holds::No),
        };
        if holds.1 != Holds::No {
            // A last page that grew is read again (its file written anew).
            let page = if holds.1 == Holds::Same {
                holds.0
            } else {
                holds.0.saturating_sub(1)
            };
            let kept = &resumed[..page as usize];
            for file in kept {
                let page = store.read(file)?;
                watch.see(&page);
                boundaries = Boundaries::after(&page);
            }
            files = kept.to_vec();
            skip = page;
            store.resumed += kept.len();
        } else {
            store.forget(name)?;
        }
        let mut failure = None;
        let outcome = if skip > 0 {
            // Only the pages after those kept; the client pages from 1, so the kept ones are asked for again only when needed.
            continue_from(client, store, call, name, skip, (&mut watch, &mut boundaries), &mut files)
        } else {
            client
                .for_each_page(call, &mut |client, number, mut envelope| {
                    let per_page = client.page_size(call.operation);
                    boundaries.next(client, call, number, per_page, &mut envelope)?;
                    watch.see(&envelope);
                    match store.write_page(name, number, &envelope) {
                        Ok(file) => {
                            files.push(file);
                            Ok(())
                        }
                        Err(e) => {
                            failure = Some(e);
                            Err(LiveError {
                                request: "writing the pages".into(),
                                why: "see above".into(),
                                status: None,
                            })
                        }
                    }
                })
                .map_err(ExportError::Live)
        };
        if let Some(e) = failure {
            return Err(e);
        }
        outcome?;
        let steady = watch.steady(&boundaries);
        if steady || attempt == READS_OF_A_CHANGING_LIST {
            // Said of the read that is kept, not of one read again.
            if boundaries.recovered > 0 {
                report.notes.push(format!(
                    "{}: {} crossed a page boundary while the list was paged (a record deleted on a page read already): read from the places before the page, and kept",
                    call.name(),
                    crate::words::plural(boundaries.recovered, "record", "records")
                ));
            }
            if !steady {
                report.notes.push(format!(
                    "{}: the list changed while it was read ({}), {READS_OF_A_CHANGING_LIST} times: kept as last read; `check` reports its pages' disagreement (EX001)",
                    call.name(),
                    watch.why()
                ));
            } else if attempt > 1 {
                report.notes.push(format!(
                    "{}: the list changed while it was read; read again whole ({} reads)",
                    call.name(),
                    attempt
                ));
            }
            store.finish(name, &files)?;
            return Ok(files);
        }
        store.forget(name)?;
    }
    Ok(Vec::new())
}

/// Pages `skip + 1, …` of a paged list, after kept pages `1..=skip`.
#[allow(clippy::too_many_arguments)]
fn continue_from(
    client: &mut Client,
    store: &mut Store,
    call: &Call,
    name: &str,
    skip: u64,
    (watch, boundaries): (&mut Watch, &mut Boundaries),
    files: &mut Vec<String>,
) -> Result<(), ExportError> {
    let mut number = skip + 1;
    loop {
        let (mut envelope, per_page) = client.read_page(call, number)?;
        boundaries.next(client, call, number, per_page, &mut envelope)?;
        let count = envelope.get("result").and_then(Value::as_array).map_or(0, Vec::len);
        let total = envelope.pointer("/result_info/total_count").and_then(Value::as_u64);
        watch.see(&envelope);
        files.push(store.write_page(name, number, &envelope)?);
        if count < per_page || total.is_some_and(|t| watch.records >= t) {
            return Ok(());
        }
        number += 1;
    }
}

/// How a kept page reads now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Holds {
    /// The same records in the same places, the same count.
    Same,
    /// The list only grew: the kept records are where they were, the page
    /// holds more after them or the count is larger (records added at the
    /// end shift nothing).
    Grew,
    /// Records moved: what was kept no longer holds.
    No,
}

/// How page `page` of a list reads now against the kept file. A page kept
/// at another page size than is asked now (the service refused the larger
/// one since, or takes it now) holds nothing.
fn same_page(client: &mut Client, store: &Store, call: &Call, page: u64, file: &str) -> Result<Holds, ExportError> {
    let kept = store.read(file)?;
    let now = match call.operation.paging {
        crate::api::Paging::Pages { .. } => {
            let (now, per_page) = client.read_page(call, page)?;
            if kept.pointer("/result_info/per_page").and_then(Value::as_u64) != Some(per_page as u64) {
                return Ok(Holds::No);
            }
            now
        }
        _ => client.read(call)?,
    };
    let (kept_ids, now_ids) = (ids(&kept), ids(&now));
    Ok(if kept_ids == now_ids && total(&kept) == total(&now) {
        Holds::Same
    } else if now_ids.starts_with(&kept_ids) && total(&now) >= total(&kept) {
        Holds::Grew
    } else {
        Holds::No
    })
}

/// How a finished list of a stopped export holds: its first page read again.
fn still_holds(client: &mut Client, store: &Store, call: &Call, files: &[String]) -> Result<Holds, ExportError> {
    let Some(first) = files.first() else { return Ok(Holds::No) };
    same_page(client, store, call, 1, first)
}

fn ids(envelope: &Value) -> Vec<Value> {
    match envelope.get("result") {
        Some(Value::Array(records)) => records.iter().map(|r| r.get("id").cloned().unwrap_or(Value::Null)).collect(),
        Some(other) => vec![other.clone()],
        None => Vec::new(),
    }
}

fn total(envelope: &Value) -> Option<u64> {
    envelope.pointer("/result_info/total_count").and_then(Value::as_u64)
}

/// The page number a page file is named with.
fn page_number(file: &str) -> Option<u64> {
    file.rsplit('-').next()?.strip_suffix(".json")?.parse().ok()
}

/// What the pages of one read of a list say about it: whether its count
/// held still and no record came twice (records added or deleted while it
/// was paged shift the pages).
#[derive(Default)]
struct Watch {
    totals: Vec<u64>,
    records: u64,
    seen: HashSet<u64>,
    twice: usize,
}

impl Watch {
    fn see(&mut self, envelope: &Value) {
        // Every page's count, in order (a count that went down and up again is no growth).
        if let Some(t) = total(envelope) {
            self.totals.push(t);
        }
        if let Some(Value::Array(records)) = envelope.get("result") {
            for record in records {
                self.records += 1;
                if let Some(id) = record.get("id").and_then(Value::as_str) {
                    let mut h = std::collections::hash_map::DefaultHasher::new();
                    id.hash(&mut h);
                    if !self.seen.insert(h.finish()) {
                        self.twice += 1;
                    }
                }
            }
        }
    }

    /// Nothing was missed: no record came twice, and every record counted
    /// was read. Where every page boundary was read again (`boundaries`), a
    /// record deleted meanwhile moved nothing past the read unseen, so a count
    /// that went down is no reason to read again; else the count must only
    /// have grown (records added at the end of the list while it was paged
    /// shift nothing).
    fn steady(&self, boundaries: &Boundaries) -> bool {
        if boundaries.lost {
            return false;
        }
        if boundaries.probed {
            return self.twice == 0 && self.totals.last().is_none_or(|&t| t <= self.records);
        }
        let only_grew = self.totals.windows(2).all(|w| w[1] >= w[0]);
        only_grew && self.twice == 0 && self.totals.last().is_none_or(|&t| t == self.records)
    }

    fn why(&self) -> String {
        let mut why = Vec::new();
        let mut moves: Vec<u64> = self.totals.clone();
        moves.dedup();
        if moves.len() > 1 {
            let totals: Vec<String> = moves.iter().map(u64::to_string).collect();
            why.push(format!("its count went {}", totals.join(" → ")));
        }
        if self.twice > 0 {
            why.push(format!("{} came twice", crate::words::plural(self.twice, "record", "records")));
        }
        if let Some(&t) = self.totals.last()
            && t != self.records
        {
            why.push(format!("{} records read of {t} counted", self.records));
        }
        why.join("; ")
    }
}

/// The folder of page files: one file a page, a list's file of names once
/// it is read whole, and the export's identity (what `--resume` must match).
struct Store {
    dir: PathBuf,
    resumed: usize,
}

const IDENTITY: &str = "export.json";

/// The file of page `page` of `list`.
fn page_file(list: &str, page: u64) -> String {
    format!("{list}-{page:06}.json")
}

/// The page number of `file` when it is a page file of `list`.
fn page_of_list(list: &str, file: &str) -> Option<u64> {
    let number = file.strip_prefix(list)?.strip_prefix('-')?.strip_suffix(".json")?;
    (number.len() == 6 && number.bytes().all(|b| b.is_ascii_digit()))
        .then(|| number.parse().ok())
        .flatten()
}

/// A page file's name as this folder holds them: no folder in it, no hidden
/// name, and a page number.
fn is_page_name(file: &str) -> bool {
    !file.contains(['/', '\\']) && !file.starts_with('.') && page_number(file).is_some()
}

/// A small file of ours (the identity, a `.done` list), read only when it is
/// a plain file.
fn read_plain(path: &Path) -> std::io::Result<String> {
    let mut text = String::new();
    std::io::Read::read_to_string(&mut crate::files::open_plain(path)?, &mut text)?;
    Ok(text)
}

impl Store {
    fn open(dir: &Path, identity: &Value, resume: bool) -> Result<Store, ExportError> {
        let io = |e: std::io::Error| ExportError::Io(format!("{}: {e}", dir.display()));
        let identity_file = dir.join(IDENTITY);
        // A link put where the page folder goes would have the pages written
        // wherever it points, and read back from there.
        if crate::files::is_link(dir) {
            return Err(ExportError::Io(format!(
                "{}: the page folder is a symbolic link: not followed; remove it and run again",
                dir.display()
            )));
        }
        if resume {
            let kept = read_plain(&identity_file).map_err(|_| {
                ExportError::Resume(format!(
                    "--resume: no stopped export of this file to finish ({} holds none): run without --resume",
                    dir.display()
                ))
            })?;
            let kept: Value = serde_json::from_str(&kept).unwrap_or(Value::Null);
            if &kept != identity {
                return Err(ExportError::Resume(format!(
                    "--resume: the stopped export in {} was of another account, zones or address ({kept}): run without --resume to start again",
                    dir.display()
                )));
            }
        } else {
            let _ = std::fs::remove_dir_all(dir);
        }
        std::fs::create_dir_all(dir).map_err(io)?;
        crate::files::replace_in_own_folder(&identity_file, identity.to_string().as_bytes()).map_err(io)?;
        Ok(Store {
            dir: dir.to_path_buf(),
            resumed: 0,
        })
    }

    fn io(&self, e: std::io::Error) -> ExportError {
        ExportError::Io(format!("{}: {e}", self.dir.display()))
    }

    fn write_page(&self, list: &str, page: u64, envelope: &Value) -> Result<String, ExportError> {
        let name = page_file(list, page);
        let text = serde_json::to_vec(envelope).unwrap_or_default();
        crate::files::replace_in_own_folder(&self.dir.join(&name), &text).map_err(|e| self.io(e))?;
        Ok(name)
    }

    fn read(&self, file: &str) -> Result<Value, ExportError> {
        let text = self.read_own(file).map_err(|e| self.io(e))?;
        serde_json::from_slice(&text).map_err(|e| ExportError::Io(format!("{}: {e}", self.dir.join(file).display())))
    }

    /// The pages of a list read whole, in order.
    /// Only names of this list's pages count (`pools-000001.json`): a
    /// `.done` list that names anything else (`../…`, an absolute path,
    /// another list's page) is not ours, and the list is read again.
    fn finished(&self, list: &str) -> Option<Vec<String>> {
        let text = read_plain(&self.dir.join(format!("{list}.done"))).ok()?;
        let files: Vec<String> = text.lines().map(str::to_string).collect();
        let ours = |f: &String| {
            page_of_list(list, f).is_some() && std::fs::symlink_metadata(self.dir.join(f)).is_ok_and(|m| m.file_type().is_file())
        };
        files.iter().all(ours).then_some(files)
    }

    /// A page file of ours, read only when it is a plain file in the folder.
    fn read_own(&self, file: &str) -> std::io::Result<Vec<u8>> {
        if !is_page_name(file) && file != IDENTITY {
            return Err(std::io::Error::other(format!("{file}: not a page file of this export")));
        }
        let mut text = Vec::new();
        std::io::Read::read_to_end(&mut crate::files::open_plain(&self.dir.join(file))?, &mut text)?;
        Ok(text)
    }

    /// The pages of a list begun and not finished, in order of their numbers
    /// and without a gap.
    fn started(&self, list: &str) -> Vec<String> {
        let mut files = Vec::new();
        for page in 1.. {
            let name = page_file(list, page);
            if !std::fs::symlink_metadata(self.dir.join(&name)).is_ok_and(|m| m.file_type().is_file()) {
                break;
            }
            files.push(name);
        }
        files
    }

    fn finish(&self, list: &str, files: &[String]) -> Result<(), ExportError> {
        crate::files::replace_in_own_folder(&self.dir.join(format!("{list}.done")), files.join("\n").as_bytes()).map_err(|e| self.io(e))
    }

    /// A list read whole no longer counts as finished (its pages are kept).
    fn unfinish(&self, list: &str) -> Result<(), ExportError> {
        match std::fs::remove_file(self.dir.join(format!("{list}.done"))) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(self.io(e)),
            _ => Ok(()),
        }
    }

    /// Deletes what is kept of a list.
    fn forget(&self, list: &str) -> Result<(), ExportError> {
        let prefix = format!("{list}-");
        let _ = std::fs::remove_file(self.dir.join(format!("{list}.done")));
        for entry in std::fs::read_dir(&self.dir).map_err(|e| self.io(e))?.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name
                .strip_prefix(&prefix)
                .is_some_and(|rest| rest.len() == 11 && rest.ends_with(".json"))
            {
                std::fs::remove_file(entry.path()).map_err(|e| self.io(e))?;
            }
        }
        Ok(())
    }

    fn copy_into(&self, file: &str, out: &mut impl Write) -> Result<(), ExportError> {
        if !is_page_name(file) {
            return Err(self.io(std::io::Error::other(format!("{file}: not a page file of this export"))));
        }
        let mut input = crate::files::open_plain(&self.dir.join(file)).map_err(|e| self.io(e))?;
        std::io::copy(&mut input, out).map_err(|e| self.io(e))?;
        Ok(())
    }

    fn remove(self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Writes the bundle from the page files into a temporary file beside
/// `output`, then puts it in place: `output` holds either its earlier
/// content or all of the new one.
fn join(
    store: &Store,
    output: &Path,
    exported: &Value,
    account: &str,
    lists: &[(String, Vec<String>)],
    zones: &[(String, Option<String>)],
    zone_lists: &[ZoneLists],
) -> Result<(), ExportError> {
    let io = |e: std::io::Error| ExportError::Io(format!("{}: {e}", output.display()));
    let (file, temporary) = crate::files::temporary_beside(output).map_err(io)?;
    let written = (|| -> Result<(), ExportError> {
        let mut out = std::io::BufWriter::new(file);
        let string = |v: &str| serde_json::to_string(v).unwrap_or_default();
        write!(out, "{{\n\"exported\": {exported},\n\"account_id\": {}", string(account)).map_err(io)?;
        let array = |out: &mut std::io::BufWriter<std::fs::File>, files: &[String]| -> Result<(), ExportError> {
            out.write_all(b"[").map_err(io)?;
            for (i, file) in files.iter().enumerate() {
                out.write_all(if i == 0 { b"\n" } else { b",\n" }).map_err(io)?;
                store.copy_into(file, out)?;
            }
            out.write_all(b"\n]").map_err(io)
        };
        for (key, files) in lists {
            write!(out, ",\n{}: ", string(key)).map_err(io)?;
            array(&mut out, files)?;
        }
        out.write_all(b",\n\"zones\": [").map_err(io)?;
        for (i, ((zone_id, name), lists)) in zones.iter().zip(zone_lists).enumerate() {
            write!(out, "{}{{\"zone_id\": {}", if i == 0 { "\n" } else { ",\n" }, string(zone_id)).map_err(io)?;
            if let Some(name) = name {
                write!(out, ", \"name\": {}", string(name)).map_err(io)?;
            }
            for (key, files) in lists {
                write!(out, ",\n{}: ", string(key)).map_err(io)?;
                if matches!(*key, "total_tls" | "universal_ssl") {
                    // A setting is one envelope, not a list of pages.
                    for file in files {
                        store.copy_into(file, &mut out)?;
                    }
                } else {
                    array(&mut out, files)?;
                }
            }
            out.write_all(b"}").map_err(io)?;
        }
        out.write_all(b"\n]\n}\n").map_err(io)?;
        let file = out.into_inner().map_err(|e| io(e.into_error()))?;
        crate::files::put_in_place(&temporary, &file, output).map_err(io)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

/// Reads the account and returns the bundle (a file in a temporary folder,
/// read back): for tests and callers that want the document.
pub fn export(client: &mut Client, scope: &Scope, now: chrono::DateTime<chrono::Utc>) -> Result<Value, LiveError> {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("edgeaudit-export-{}-{n}", std::process::id()));
    let local = |why: String| LiveError {
        request: "writing the export".into(),
        why,
        status: None,
    };
    std::fs::create_dir_all(&dir).map_err(|e| local(e.to_string()))?;
    let output = dir.join("account.json");
    let outcome = export_to(client, scope, now, &output, false);
    let document = match outcome {
        Ok(_) => std::fs::read(&output)
            .map_err(|e| local(e.to_string()))
            .and_then(|text| serde_json::from_slice(&text).map_err(|e| local(e.to_string()))),
        Err(ExportError::Live(e)) => Err(e),
        Err(other) => Err(local(other.to_string())),
    };
    let _ = std::fs::remove_dir_all(&dir);
    document
}

pub use crate::files::write_atomically;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_atomic_write_replaces_the_file_whole_and_leaves_no_part_behind() {
        let dir = std::env::temp_dir().join(format!("edgeaudit-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let path = dir.join("account.json");
        std::fs::write(&path, "old").expect("old");
        write_atomically(&path, b"new").expect("written");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "new");
        let missing = dir.join("no-such-dir").join("account.json");
        assert!(write_atomically(&missing, b"x").is_err());
        let left: Vec<_> = std::fs::read_dir(&dir).expect("list").flatten().map(|e| e.file_name()).collect();
        assert_eq!(left.len(), 1, "{left:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_watch_tells_a_list_that_moved_while_it_was_paged() {
        let page = |total: u64, ids: &[&str]| json!({"result": ids.iter().map(|i| json!({"id": i})).collect::<Vec<_>>(), "result_info": {"total_count": total}});
        // Boundaries not read again: only growth is steady.
        let unprobed = Boundaries::default();
        let mut steady = Watch::default();
        steady.see(&page(3, &["a", "b"]));
        steady.see(&page(3, &["c"]));
        assert!(steady.steady(&unprobed));
        let mut moved = Watch::default();
        moved.see(&page(3, &["a", "b"]));
        moved.see(&page(2, &["c"]));
        assert!(!moved.steady(&unprobed));
        assert!(moved.why().contains("3 → 2"), "{}", moved.why());
        // Every boundary read again and none lost: a count that went down moved nothing unseen.
        let probed = Boundaries::new();
        assert!(moved.steady(&probed));
        let mut lost = Boundaries::new();
        lost.lost = true;
        assert!(!moved.steady(&lost));
        assert!(!steady.steady(&lost), "a boundary that moved more than it shows is read again");
        let mut shifted = Watch::default();
        shifted.see(&page(3, &["a", "b"]));
        shifted.see(&page(3, &["b"]));
        assert!(!shifted.steady(&unprobed), "a record came twice");
        assert!(!shifted.steady(&probed), "a record came twice");
        let mut short = Watch::default();
        short.see(&page(3, &["a", "b"]));
        assert!(!short.steady(&probed), "a record counted was not read");
        assert_eq!(page_number("zone0-hostnames-000012.json"), Some(12));
    }
}
