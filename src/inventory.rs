//! `edgeaudit inventory`: one row per certificate across every certificate
//! kind, with its CA, how that CA was chosen, bundle method, key type, dates
//! and chain status. It answers "which certificates use the free public CA".

use std::io::Write;

use serde::Serialize;

use crate::facts::certificate::chain_state;
use crate::model::certificate::{Authority, BundleMethod, IssuedCertificate, KeyType, issuer_is_lets_encrypt};
use crate::model::{Account, Inventory};

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Row {
    pub kind: &'static str,
    pub id: String,
    pub hosts: String,
    /// `lets_encrypt`, `google`, … or, for uploaded certificates, from the issuer.
    pub ca: String,
    /// `yes`, `no`, or `uploaded` for certificates the customer uploads.
    pub explicit: &'static str,
    pub bundle_method: &'static str,
    pub key_type: &'static str,
    pub uploaded: String,
    pub expires: String,
    /// For uploaded certificates `cross_signed`, `dst_cross_signed`, `clean`, `unreadable` or `unavailable`
    /// (no PEM in the export); `managed` when the service builds the chain;
    /// `not_issued` for a pack whose export lists no certificate (ordered,
    /// not yet issued): nothing about a certificate is guessed.
    pub chain: &'static str,
    pub file: String,
    pub pointer: String,
    /// The requests its hosts received, with `--traffic`.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub traffic: Option<RowTraffic>,
}

/// A certificate's traffic: its hosts' requests, and those from impacted clients.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RowTraffic {
    pub requests: u64,
    pub impacted: u64,
    /// `impacted / requests`; none without a request.
    pub share: Option<f64>,
}

impl Eq for RowTraffic {}

/// Adds to each row the requests its hosts received (a wildcard counts the
/// hosts one label below it).
pub fn add_traffic(rows: &mut [Row], traffic: &crate::traffic::Traffic) {
    use std::collections::HashMap;
    let mut by_pattern: HashMap<String, crate::traffic::Counters> = HashMap::new();
    for (host, c) in &traffic.by_host {
        by_pattern.entry(host.clone()).or_default().merge(c);
        if let Some((_, parent)) = host.split_once('.') {
            by_pattern.entry(format!("*.{parent}")).or_default().merge(c);
        }
    }
    for row in rows {
        let mut sum = crate::traffic::Counters::default();
        for host in row.hosts.split(' ').filter(|h| !h.is_empty()) {
            if let Some(c) = by_pattern.get(crate::traffic::hosts::normalise(host).as_ref()) {
                sum.merge(c);
            }
        }
        let round = |n: f64| if n.is_finite() && n > 0.0 { n.round() as u64 } else { 0 };
        row.traffic = Some(RowTraffic {
            requests: round(sum.requests),
            impacted: round(sum.impacted),
            share: (sum.requests >= 0.5).then(|| sum.impacted / sum.requests),
        });
    }
}

fn date(t: Option<chrono::DateTime<chrono::Utc>>) -> String {
    t.map(|t| t.format("%Y-%m-%d").to_string()).unwrap_or_default()
}

/// The CA names `--ca` takes: those of `certificate_authority`.
pub const CA_NAMES: [&str; 7] = ["lets_encrypt", "google", "ssl_com", "digicert", "default", "unknown", "other"];

/// Whether a row's certificate is from the CA `--ca` names (one of
/// [`CA_NAMES`]): uploaded certificates by their issuer's words.
pub fn from_ca(row: &Row, ca: &str) -> bool {
    if row.explicit != "uploaded" {
        return row.ca == ca;
    }
    let squashed: String = row
        .ca
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_ascii_lowercase();
    let by_issuer = if row.ca == "lets_encrypt" {
        "lets_encrypt"
    } else if squashed.contains("digicert") {
        "digicert"
    } else if squashed.contains("google") || squashed.starts_with("gts") {
        "google"
    } else if squashed.contains("sslcom") {
        "ssl_com"
    } else if squashed.is_empty() {
        "unknown"
    } else {
        "other"
    };
    by_issuer == ca
}

fn ca_of_issuer(issuer: &str) -> String {
    if issuer_is_lets_encrypt(issuer) {
        "lets_encrypt".into()
    } else {
        issuer.to_string()
    }
}

fn bundle(b: Option<BundleMethod>) -> &'static str {
    b.map_or("", BundleMethod::as_str)
}

#[allow(clippy::too_many_arguments)]
fn issued_row(
    kind: &'static str,
    id: &str,
    ca: String,
    explicit: &'static str,
    hosts: &[String],
    c: &IssuedCertificate,
    file: &str,
    pointer: String,
) -> Row {
    Row {
        kind,
        id: id.to_string(),
        hosts: hosts.join(" "),
        ca,
        explicit,
        bundle_method: bundle(c.bundle_method),
        key_type: c.key_type.as_str(),
        uploaded: date(c.uploaded_on),
        expires: date(c.expires_on),
        chain: "managed",
        file: file.to_string(),
        pointer,
        traffic: None,
    }
}

/// A row for a certificate the export says nothing more about than its CA
/// (a pack without certificates, Total TLS, a hostname without `ssl` details).
fn managed_row(kind: &'static str, id: &str, hosts: String, ca: &Authority, explicit: &'static str, file: String, pointer: String) -> Row {
    Row {
        kind,
        id: id.to_string(),
        hosts,
        ca: ca.as_str().into(),
        explicit,
        bundle_method: "",
        key_type: KeyType::Unknown.as_str(),
        uploaded: String::new(),
        expires: String::new(),
        chain: "managed",
        file,
        pointer,
        traffic: None,
    }
}

/// Every certificate of the inventory, account by account, in load order.
pub fn rows(inventory: &Inventory, file_name: impl Fn(&crate::model::origin::RecordOrigin) -> String) -> Vec<Row> {
    let mut rows = Vec::new();
    for_each_row(inventory, file_name, |row| rows.push(row));
    rows
}

/// Every certificate, one row at a time: a report that keeps a few of a
/// million hostnames holds no more than those.
pub fn for_each_row(inventory: &Inventory, file_name: impl Fn(&crate::model::origin::RecordOrigin) -> String, mut each: impl FnMut(Row)) {
    for account in &inventory.accounts {
        account_rows(account, &file_name, &mut each);
    }
}

fn account_rows(account: &Account, file_name: &impl Fn(&crate::model::origin::RecordOrigin) -> String, rows: &mut impl FnMut(Row)) {
    let universal_ssl = account.universal_ssl_by_zone();
    for pack in &account.certificate_packs {
        let universal_settings = pack.zone.and_then(|z| universal_ssl.get(&z).copied());
        let explicit = pack.pack_type != "universal" || universal_settings.is_some_and(|s| s.authority != Authority::Unknown);
        let explicit = if explicit { "yes" } else { "no" };
        let file = file_name(&pack.origin);
        if pack.certificates.is_empty() {
            rows(Row {
                chain: "not_issued",
                ..managed_row(
                    "certificate_pack",
                    &pack.id,
                    pack.hosts.join(" "),
                    &pack.authority,
                    explicit,
                    file.clone(),
                    pack.origin.pointer().into_owned(),
                )
            });
        }
        for (i, c) in pack.certificates.iter().enumerate() {
            let ca = pack.authority.as_str().to_string();
            rows(issued_row(
                "certificate_pack",
                &c.id,
                ca,
                explicit,
                &pack.hosts,
                &c.issued,
                &file,
                pack.origin.field(&pack.fields.certificate(i)),
            ));
        }
    }
    for setting in &account.total_tls {
        let explicit = if matches!(setting.authority, Authority::Unknown | Authority::Default) {
            "no"
        } else {
            "yes"
        };
        rows(managed_row(
            "total_tls",
            "",
            String::new(),
            &setting.authority,
            explicit,
            file_name(&setting.origin),
            setting.origin.pointer().into_owned(),
        ));
    }
    for host in &account.custom_hostnames {
        let authority = host.authority();
        let id = host.id();
        let explicit = if matches!(authority, Authority::Unknown | Authority::Default) {
            "no"
        } else {
            "yes"
        };
        let hosts = [host.hostname().to_string()];
        let file = file_name(&host.origin);
        match &host.certificate {
            Some(c) => {
                rows(issued_row(
                    "custom_hostname",
                    &id,
                    authority.as_str().into(),
                    explicit,
                    &hosts,
                    c,
                    &file,
                    host.origin.field(host.fields.certificate),
                ));
            }
            None => rows(managed_row(
                "custom_hostname",
                &id,
                host.hostname().to_string(),
                &authority,
                explicit,
                file,
                host.origin.pointer().into_owned(),
            )),
        }
    }
    for cert in &account.custom_certificates {
        let c = &cert.certificate;
        let mut row = issued_row(
            "custom_certificate",
            &cert.id,
            ca_of_issuer(&c.issuer),
            "uploaded",
            &cert.hosts,
            c,
            &file_name(&cert.origin),
            cert.origin.pointer().into_owned(),
        );
        // Uploaded chains can be read, when the export carries them.
        row.chain = chain_state(cert.chain.as_deref());
        rows(row);
    }
}

const COLUMNS: [&str; 12] = [
    "kind",
    "id",
    "hosts",
    "ca",
    "explicit",
    "bundle_method",
    "key_type",
    "uploaded",
    "expires",
    "chain",
    "file",
    "pointer",
];

/// The columns, with the traffic's when the rows have it.
fn columns(rows: &[Row]) -> Vec<&'static str> {
    let mut columns = COLUMNS.to_vec();
    if rows.iter().any(|r| r.traffic.is_some()) {
        columns.extend(["requests", "impacted", "share"]);
    }
    columns
}

fn fields(r: &Row) -> Vec<std::borrow::Cow<'_, str>> {
    let mut cells: Vec<std::borrow::Cow<'_, str>> = [
        r.kind,
        &r.id,
        &r.hosts,
        &r.ca,
        r.explicit,
        r.bundle_method,
        r.key_type,
        &r.uploaded,
        &r.expires,
        r.chain,
        &r.file,
        &r.pointer,
    ]
    .into_iter()
    .map(std::borrow::Cow::Borrowed)
    .collect();
    if let Some(t) = &r.traffic {
        cells.push(t.requests.to_string().into());
        cells.push(t.impacted.to_string().into());
        cells.push(t.share.map_or(String::new(), |s| format!("{s:.4}")).into());
    }
    cells
}

/// The table for a terminal: every cell shown through the terminal's
/// escaping (`text::escape::terminal::value`).
pub fn write_table(rows: &[Row], out: &mut dyn Write) -> std::io::Result<()> {
    use crate::text::escape::terminal::value;
    let columns = columns(rows);
    let shown = |r: &Row| -> Vec<String> { fields(r).iter().map(|f| value(f).into_owned()).collect() };
    let mut widths: Vec<usize> = columns.iter().map(|c| c.len()).collect();
    for r in rows {
        for (w, f) in widths.iter_mut().zip(shown(r)) {
            *w = (*w).max(f.chars().count());
        }
    }
    let line = |cells: &[&str]| -> String {
        let padded: Vec<String> = cells.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        padded.join("  ").trim_end().to_string()
    };
    writeln!(out, "{}", line(&columns))?;
    for r in rows {
        let cells = shown(r);
        let cells: Vec<&str> = cells.iter().map(String::as_str).collect();
        writeln!(out, "{}", line(&cells))?;
    }
    writeln!(out, "\n{} certificate(s)", rows.len())
}

/// For a spreadsheet: each cell through `text::escape::csv::cell` (no
/// formula from outside; RFC 4180 quoting).
pub fn write_csv(rows: &[Row], out: &mut dyn Write) -> std::io::Result<()> {
    use crate::text::escape::csv::cell;
    write!(out, "{}\r\n", columns(rows).join(","))?;
    for r in rows {
        let cells: Vec<String> = fields(r).iter().map(|f| cell(f).into_owned()).collect();
        write!(out, "{}\r\n", cells.join(","))?;
    }
    Ok(())
}

/// The JSON document: `version` (of this shape, `docs/schemas/inventory.schema.json`)
/// and the `certificates`, one object per row.
pub fn write_json(rows: &[Row], out: &mut dyn Write) -> std::io::Result<()> {
    #[derive(Serialize)]
    struct Document<'a> {
        version: u32,
        certificates: &'a [Row],
    }
    serde_json::to_writer_pretty(
        &mut *out,
        &Document {
            version: 1,
            certificates: rows,
        },
    )?;
    writeln!(out)
}
