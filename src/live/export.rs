//! `edgeaudit export` (docs/src/commands/apply.md): the live account as one bundle
//! document (§1.2), every list page by page with the pages kept as they came
//! (so that EX001 can tell a cut list), written only when every request
//! succeeded.

use serde_json::{Map, Value, json};

use super::client::{Client, LiveError};

/// Records per page: the largest each endpoint documents (pools and
/// policies document none; the service answers them whole or pages them by
/// `result_info`, which is followed either way).
pub mod per_page {
    pub const POOLS: usize = 1000;
    pub const POLICIES: usize = 1000;
    pub const CERTIFICATE_PACKS: usize = 50;
    pub const CUSTOM_CERTIFICATES: usize = 50;
    pub const CUSTOM_HOSTNAMES: usize = 50;
    pub const DNS_RECORDS: usize = 5000;
    pub const ZONES: usize = 50;
}

/// What to export.
#[derive(Debug, Clone)]
pub struct Scope {
    pub account: String,
    pub zones: Vec<String>,
    /// Also every zone the account holds (`GET /zones?account.id=…`).
    pub all_zones: bool,
}

/// Reads the account and returns the bundle; the first request that fails
/// (after its retries) ends the export.
pub fn export(client: &mut Client, scope: &Scope, now: chrono::DateTime<chrono::Utc>) -> Result<Value, LiveError> {
    let account = crate::plan::request::segment(&scope.account);
    let mut bundle = Map::new();
    bundle.insert(
        "exported".into(),
        json!({
            "at": now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            "from": client.base(),
            "by": format!("edgeaudit {}", env!("CARGO_PKG_VERSION")),
        }),
    );
    bundle.insert("account_id".into(), json!(scope.account));
    bundle.insert(
        "pools".into(),
        Value::Array(client.pages(&format!("/accounts/{account}/load_balancers/pools"), per_page::POOLS, "")?),
    );
    bundle.insert(
        "notification_policies".into(),
        Value::Array(client.pages(&format!("/accounts/{account}/alerting/v3/policies"), per_page::POLICIES, "")?),
    );
    let mut zones: Vec<(String, Option<String>)> = scope.zones.iter().map(|z| (z.clone(), None)).collect();
    if scope.all_zones {
        let query = format!("&account.id={account}");
        for page in client.pages("/zones", per_page::ZONES, &query)? {
            for zone in page.get("result").and_then(Value::as_array).into_iter().flatten() {
                // A zone without an id cannot be exported: say so rather than leave it out.
                let Some(id) = zone.get("id").and_then(Value::as_str) else {
                    return Err(LiveError {
                        request: format!("GET /zones?account.id={account}"),
                        why: "a zone in the answer has no `id`".into(),
                    });
                };
                let name = zone.get("name").and_then(Value::as_str).map(str::to_string);
                match zones.iter_mut().find(|(z, _)| z == id) {
                    Some(known) => known.1 = name,
                    None => zones.push((id.to_string(), name)),
                }
            }
        }
    }
    let mut exported_zones = Vec::new();
    for (zone_id, name) in zones {
        exported_zones.push(zone(client, &zone_id, name)?);
    }
    bundle.insert("zones".into(), Value::Array(exported_zones));
    Ok(Value::Object(bundle))
}

fn zone(client: &mut Client, zone_id: &str, name: Option<String>) -> Result<Value, LiveError> {
    let z = format!("/zones/{}", crate::plan::request::segment(zone_id));
    let mut out = Map::new();
    out.insert("zone_id".into(), json!(zone_id));
    if let Some(name) = name {
        out.insert("name".into(), json!(name));
    }
    // `status=all`: without it the API leaves inactive packs and certificates out.
    let lists = [
        (
            "certificate_packs",
            "/ssl/certificate_packs",
            per_page::CERTIFICATE_PACKS,
            "&status=all",
        ),
        (
            "custom_certificates",
            "/custom_certificates",
            per_page::CUSTOM_CERTIFICATES,
            "&status=all",
        ),
        ("custom_hostnames", "/custom_hostnames", per_page::CUSTOM_HOSTNAMES, ""),
        ("dns_records", "/dns_records", per_page::DNS_RECORDS, "&type=CAA"),
    ];
    for (key, path, per_page, query) in lists {
        out.insert(key.into(), Value::Array(client.pages(&format!("{z}{path}"), per_page, query)?));
    }
    out.insert("total_tls".into(), client.read(&format!("{z}/acm/total_tls"))?);
    out.insert("universal_ssl".into(), client.read(&format!("{z}/ssl/universal/settings"))?);
    Ok(Value::Object(out))
}

/// Writes `bytes` to `path` so that the path holds either its earlier
/// content or all of the new one: a temporary file beside it, synced, then
/// renamed over it.
pub fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let temporary = dir.join(format!(".{name}.edgeaudit-{}.part", std::process::id()));
    let written = (|| {
        let mut file = std::fs::File::create(&temporary)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temporary, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

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
}
