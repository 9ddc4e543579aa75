//! Property: the findings describe the account, not the way it was exported.
//! For generated accounts (pools, policies, custom hostnames, CAA records,
//! custom certificates and packs, in the API's list shapes), the findings —
//! rule, resource, field without array indices, element, and the message —
//! are the same when the records are shuffled, when each list is split into
//! pages (in one file or across files), when the files are YAML instead of
//! JSON, minified or pretty, named in another order or walked as a directory.
//!
//! Runs the check in-process (no binary per case) so that many accounts can
//! be tried; `PROPTEST_CASES` raises the count.

use std::collections::BTreeMap;
use std::path::Path;

use chrono::NaiveDate;
use edgeaudit::check::{CheckOptions, check};
use edgeaudit::engine::RuleSet;
use edgeaudit::load::LoadOptions;
use edgeaudit::triage::Triage;
use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::{Value, json};

const ADDRESSES: [&str; 3] = ["noc@example.com", "oncall@example.com", "sre@example.org"];
const DOMAINS: [&str; 2] = ["customer-one.org", "shop.customer-two.net"];

/// One list of the account: its file stem and its records.
#[derive(Debug, Clone)]
struct List {
    stem: &'static str,
    records: Vec<Value>,
}

fn optional<T: Clone + std::fmt::Debug + 'static>(values: &'static [T]) -> impl Strategy<Value = Option<T>> {
    prop::option::of(prop::sample::select(values))
}

fn id(prefix: char, i: usize) -> String {
    format!("{prefix}{i:031x}")
}

fn pool(i: usize) -> impl Strategy<Value = Value> {
    (
        prop::sample::subsequence(ADDRESSES.to_vec(), 0..=2),
        prop::option::of((optional(&[true, false]), optional(&[true, false]), any::<bool>())),
    )
        .prop_map(move |(emails, filter)| {
            let mut pool = json!({
                "id": id('p', i),
                "name": format!("pool-{i:02}"),
                "enabled": true,
                "origins": [{"name": "o1", "address": "192.0.2.1", "enabled": true}],
                "notification_email": emails.join(", "),
            });
            if let Some((pool_healthy, origin_healthy, disable_origin)) = filter {
                pool["notification_filter"] = json!({
                    "pool": {"healthy": pool_healthy},
                    "origin": {"healthy": origin_healthy, "disable": disable_origin},
                });
            }
            pool
        })
}

fn policy(i: usize, pools: usize) -> impl Strategy<Value = Value> {
    (
        prop::sample::select(&["load_balancing_health_alert", "g6_health_alert", "universal_ssl_event_type"][..]),
        optional(&[true, false]),
        prop::sample::subsequence(ADDRESSES.to_vec(), 0..=2),
        prop::option::of(prop::collection::btree_set(0..pools + 2, 0..=3)),
        prop::option::of(prop::sample::subsequence(vec!["Healthy", "Unhealthy", "unhealthy"], 0..=2)),
        prop::option::of(prop::sample::subsequence(vec!["pool", "origin", "Pool"], 0..=2)),
    )
        .prop_map(move |(alert_type, enabled, emails, pool_ids, new_health, event_source)| {
            let mut filters = serde_json::Map::new();
            if let Some(ids) = pool_ids {
                // Indices past the pools name pools the export does not hold (LB006).
                filters.insert("pool_id".into(), ids.into_iter().map(|p| id('p', p)).collect());
            }
            if let Some(h) = new_health {
                filters.insert("new_health".into(), json!(h));
            }
            if let Some(s) = event_source {
                filters.insert("event_source".into(), json!(s));
            }
            let mut policy = json!({
                "id": id('n', i),
                "name": format!("policy {i}"),
                "alert_type": alert_type,
                "mechanisms": {"email": emails.iter().map(|e| json!({"id": e})).collect::<Vec<_>>()},
                "filters": filters,
            });
            if let Some(enabled) = enabled {
                policy["enabled"] = json!(enabled);
            }
            policy
        })
}

fn custom_hostname(i: usize) -> impl Strategy<Value = Value> {
    (
        prop::sample::select(&DOMAINS[..]),
        prop::option::of(prop::option::of(prop::sample::select(&["lets_encrypt", "", "google"][..]))),
    )
        .prop_map(move |(domain, ca)| {
            let mut record = json!({"id": id('h', i), "hostname": format!("h{i}.{domain}"), "status": "active"});
            if let Some(ca) = ca {
                record["ssl"] = json!({"method": "http", "type": "dv", "status": "active", "certificate_authority": ca});
            }
            record
        })
}

fn caa(i: usize) -> impl Strategy<Value = Value> {
    (
        prop::sample::select(&DOMAINS[..]),
        prop::sample::select(&["letsencrypt.org", "pki.goog", "ssl.com", "digicert.com"][..]),
        any::<bool>(),
    )
        .prop_map(move |(domain, ca, as_data)| {
            let mut record = json!({"id": id('d', i), "name": domain, "type": "CAA", "ttl": 1});
            if as_data {
                record["data"] = json!({"flags": 0, "tag": "issue", "value": ca});
            } else {
                record["content"] = json!(format!("0 issue \"{ca}\""));
            }
            record
        })
}

fn custom_certificate(i: usize) -> impl Strategy<Value = Value> {
    (
        prop::sample::select(&["LetsEncrypt", "R11", "DigiCertInc"][..]),
        prop::sample::select(&["ubiquitous", "optimal", "force"][..]),
        prop::sample::select(&["2024-05-01T10:00:00.12345Z", "2024-09-20T14:30:00Z"][..]),
        prop::sample::select(&["2024-09-01T00:00:00Z", "2025-01-01T00:00:00Z"][..]),
        prop::sample::select(&["SHA256WithRSA", "ECDSAWithSHA256"][..]),
    )
        .prop_map(move |(issuer, bundle_method, uploaded_on, expires_on, signature)| {
            json!({
                "id": id('c', i), "hosts": [format!("c{i}.example.com")], "issuer": issuer,
                "signature": signature, "status": "active", "bundle_method": bundle_method,
                "uploaded_on": uploaded_on, "expires_on": expires_on, "priority": 1,
            })
        })
}

fn certificate_pack(i: usize) -> impl Strategy<Value = Value> {
    (
        prop::sample::select(&["universal", "advanced"][..]),
        prop::sample::select(&["lets_encrypt", "google"][..]),
    )
        .prop_map(move |(kind, ca)| {
            json!({
                "id": id('k', i), "type": kind, "hosts": ["example.com", "*.example.com"],
                "status": "active", "certificate_authority": ca, "validity_days": 90,
                "certificates": [],
            })
        })
}

/// `count` records made by `record(i)`, as one list.
fn list<S: Strategy<Value = Value> + 'static>(
    stem: &'static str,
    count: std::ops::RangeInclusive<usize>,
    record: fn(usize) -> S,
) -> impl Strategy<Value = List> {
    count
        .prop_flat_map(move |n| (0..n).map(record).collect::<Vec<_>>())
        .prop_map(move |records| List { stem, records })
}

fn account() -> impl Strategy<Value = Vec<List>> {
    (1usize..=6).prop_flat_map(|pools| {
        (
            (0..pools).map(pool).collect::<Vec<_>>(),
            prop::collection::vec(Just(()), 0..=4).prop_flat_map(move |p| (0..p.len()).map(|i| policy(i, pools)).collect::<Vec<_>>()),
            list("custom-hostnames", 0..=4, custom_hostname),
            list("dns-records", 0..=3, caa),
            list("custom-certificates", 0..=3, custom_certificate),
            list("certificate-packs", 0..=2, certificate_pack),
        )
            .prop_map(|(pools, policies, hostnames, dns, certificates, packs)| {
                vec![
                    List {
                        stem: "pools",
                        records: pools,
                    },
                    List {
                        stem: "notification-policies",
                        records: policies,
                    },
                    hostnames,
                    dns,
                    certificates,
                    packs,
                ]
            })
    })
}

/// How the account is written out.
#[derive(Debug, Clone)]
struct Export {
    /// Sort keys: record order is the order of these keys (cycled).
    order: Vec<u16>,
    /// Records per page; `None` is one envelope per list.
    per_page: Option<usize>,
    pages_in_files: bool,
    yaml: bool,
    pretty: bool,
    /// Files named in reverse order instead of walking the directory.
    named_in_reverse: bool,
}

fn export() -> impl Strategy<Value = Export> {
    (
        prop::collection::vec(any::<u16>(), 1..8),
        prop::option::of(1usize..=3),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(order, per_page, pages_in_files, yaml, pretty, named_in_reverse)| Export {
            order,
            per_page,
            pages_in_files,
            yaml,
            pretty,
            named_in_reverse,
        })
}

/// The canonical export: one pretty JSON envelope per non-empty list, in order.
fn canonical() -> Export {
    Export {
        order: vec![0],
        per_page: None,
        pages_in_files: false,
        yaml: false,
        pretty: true,
        named_in_reverse: false,
    }
}

fn envelope(records: &[Value], page: usize, per_page: usize, total: usize) -> Value {
    json!({
        "success": true, "errors": [], "messages": [], "result": records,
        "result_info": {"page": page, "per_page": per_page, "count": records.len(),
                        "total_count": total, "total_pages": total.div_ceil(per_page).max(1)},
    })
}

/// Writes the account into `dir` as `export` says; returns the paths to check.
fn write(dir: &Path, account: &[List], export: &Export) -> Vec<String> {
    let text = |v: &Value| match (export.yaml, export.pretty) {
        (true, _) => serde_saphyr::to_string(v).expect("yaml"),
        (false, true) => serde_json::to_string_pretty(v).expect("json"),
        (false, false) => serde_json::to_string(v).expect("json"),
    };
    let extension = if export.yaml { "yaml" } else { "json" };
    let mut names = Vec::new();
    for list in account.iter().filter(|l| !l.records.is_empty()) {
        let mut records: Vec<(u16, usize, &Value)> = list
            .records
            .iter()
            .enumerate()
            .map(|(i, r)| (export.order[i % export.order.len()], i, r))
            .collect();
        records.sort_by_key(|&(key, i, _)| (key, i));
        let records: Vec<Value> = records.into_iter().map(|(_, _, r)| r.clone()).collect();
        let total = records.len();
        let per_page = export.per_page.unwrap_or(total);
        let pages: Vec<Value> = records
            .chunks(per_page)
            .enumerate()
            .map(|(i, chunk)| envelope(chunk, i + 1, per_page, total))
            .collect();
        let documents: Vec<(String, Value)> = match (export.per_page, export.pages_in_files) {
            (None, _) => vec![(list.stem.to_string(), pages[0].clone())],
            (Some(_), false) => vec![(list.stem.to_string(), Value::Array(pages))],
            (Some(_), true) => pages
                .into_iter()
                .enumerate()
                .map(|(i, page)| (format!("{}-page-{i}", list.stem), page))
                .collect(),
        };
        for (stem, document) in documents {
            let name = format!("{stem}.{extension}");
            std::fs::write(dir.join(&name), text(&document)).expect("write");
            names.push(dir.join(name).to_string_lossy().into_owned());
        }
    }
    if export.named_in_reverse {
        names.reverse();
        names
    } else {
        vec![dir.to_string_lossy().into_owned()]
    }
}

/// The findings of a check of `paths`: identity and message → how many.
fn findings(paths: Vec<String>, rules: &RuleSet) -> BTreeMap<String, usize> {
    let options = CheckOptions {
        paths,
        load: LoadOptions::default(),
        as_of: NaiveDate::from_ymd_opt(2024, 10, 1).expect("date"),
        traffic: None,
    };
    let result = check(&options, rules, Triage::default(), |outcome, analysis| {
        assert!(outcome.skipped.is_empty(), "nothing skipped");
        let mut out = BTreeMap::new();
        for f in &outcome.findings {
            let resource = f.resource(analysis);
            let message = analysis
                .with_facts(f.subject, |facts| f.rule.message_in(f.phase).render(facts, f.item.as_deref()))
                .unwrap_or_default();
            let field: Vec<&str> = f
                .path
                .split('/')
                .filter(|t| !t.bytes().all(|b| b.is_ascii_digit()) || t.is_empty())
                .collect();
            let key = format!(
                "{} {}/{} {} [{}] {}",
                f.rule.id,
                resource.kind,
                resource.id,
                field.join("/"),
                f.item.as_deref().unwrap_or(""),
                message
            );
            *out.entry(key).or_insert(0) += 1;
        }
        out
    });
    match result {
        Ok(found) => found,
        Err(errors) => panic!("input errors: {errors:?}"),
    }
}

proptest! {
    // Failures are kept as named tests below, not in a persistence file.
    #![proptest_config(Config {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64),
        failure_persistence: None,
        ..Config::default()
    })]

    #[test]
    fn findings_do_not_depend_on_how_an_account_is_exported(account in account(), export in export()) {
        let rules = RuleSet::builtin().expect("built-in rules");
        let reference = tempfile::tempdir().expect("temp dir");
        let expected = findings(write(reference.path(), &account, &canonical()), &rules);
        let variant = tempfile::tempdir().expect("temp dir");
        let found = findings(write(variant.path(), &account, &export), &rules);
        prop_assert_eq!(found, expected, "{:?}", export);
    }
}

/// Found by the property: an LB002 message named its covering policies in the
/// order the export listed them.
#[test]
fn covering_policies_are_named_in_an_order_of_their_own() {
    let rules = RuleSet::builtin().expect("built-in rules");
    let policy = |i: usize| {
        json!({"id": id('n', i), "name": format!("policy {i}"), "alert_type": "load_balancing_health_alert",
               "filters": {}, "mechanisms": {"email": [{"id": "sre@example.org"}]}})
    };
    let account = vec![
        List {
            stem: "pools",
            records: vec![json!({"id": id('p', 0), "name": "pool-00", "notification_email": "sre@example.org", "origins": []})],
        },
        List {
            stem: "notification-policies",
            records: vec![policy(0), policy(1)],
        },
    ];
    let reference = tempfile::tempdir().expect("temp dir");
    let expected = findings(write(reference.path(), &account, &canonical()), &rules);
    assert!(
        expected
            .keys()
            .any(|k| k.starts_with("LB002") && k.contains("policy 0 (n0") && k.contains("policy 1 (n0"))
    );
    let reversed = Export {
        order: vec![1, 0],
        ..canonical()
    };
    let variant = tempfile::tempdir().expect("temp dir");
    assert_eq!(findings(write(variant.path(), &account, &reversed), &rules), expected);
}

/// The generator is not vacuous: over a fixed set of accounts, every kind of
/// finding the property compares does occur.
#[test]
fn generated_accounts_give_the_findings_the_property_compares() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let rules = RuleSet::builtin().expect("built-in rules");
    let mut runner = TestRunner::deterministic();
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..64 {
        let account = account().new_tree(&mut runner).expect("account").current();
        let dir = tempfile::tempdir().expect("temp dir");
        for key in findings(write(dir.path(), &account, &canonical()), &rules).keys() {
            seen.insert(key.split(' ').next().unwrap_or("").to_string());
        }
    }
    for rule in [
        "LB001", "LB002", "LB003", "LB004", "LB005", "LB006", "LB007", "CA001", "CA002", "CA004", "CA005", "CA006", "CA007", "CA010",
    ] {
        assert!(seen.contains(rule), "{rule} never fired over the generated accounts: {seen:?}");
    }
}
