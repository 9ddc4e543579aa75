//! Traffic impact (docs/src/traffic.md): the client classes on real user agents with
//! known versions, the three input shapes, the join with the resources and the
//! output in every format.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;

use edgeaudit::traffic::classes::{Class, Request, Table, version};

/// The class DESIGN gives a client, from its versions as an independent
/// parser (uap-core's regexes) reads them.
fn by_versions(os: &str, os_version: &str, browser: &str, browser_major: &str, device: &str) -> Class {
    let v: Vec<u64> = {
        // Leading numbers only: `2.1-update1` is 2.1.
        let mut parts = Vec::new();
        for part in os_version.split(['.', '_']) {
            let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
            let Ok(n) = digits.parse() else { break };
            parts.push(n);
            if digits.len() != part.len() {
                break;
            }
        }
        parts
    };
    let below = |bound: &[u64]| version_below(&v, bound);
    // uap-core names a crawler's device `Spider`.
    if device == "Spider" {
        return Class::Crawler;
    }
    if browser == "okhttp" {
        return Class::Unknown;
    }
    match os {
        "Android" if browser.contains("Firefox") => Class::NotImpacted,
        "Android" if v == [10] && browser == "Chrome Mobile" && browser_major.parse::<u64>().is_ok_and(|m| (110..=114).contains(&m)) => {
            Class::Unknown
        }
        "Android" if v.is_empty() => Class::NotImpacted,
        "Android" if below(&[7, 1]) => Class::Impacted,
        "Android" if v == [7, 1] || v == [7, 1, 0] => Class::Unknown,
        "iOS" if !v.is_empty() && below(&[10]) => Class::AlreadyBroken,
        "Mac OS X" if !v.is_empty() && below(&[10, 12, 1]) => Class::AlreadyBroken,
        _ => Class::NotImpacted,
    }
}

/// Writes the disagreements found to `EDGEAUDIT_WRITE_DISAGREEMENTS/<name>.csv`
/// when that is set: what a maintainer reviews before listing them with why
/// (tests/fixtures/user-agents/README.md).
fn write_found(name: &str, found: &BTreeSet<(String, Class, Class)>) {
    let Some(dir) = std::env::var_os("EDGEAUDIT_WRITE_DISAGREEMENTS") else {
        return;
    };
    let mut w = csv::Writer::from_path(std::path::Path::new(&dir).join(format!("{name}.csv"))).expect("writable");
    for (ua, expected, class) in found {
        w.write_record([ua.as_str(), expected.as_str(), class.as_str()]).expect("written");
    }
}

/// Whether version `v` is below `bound`, part by part (a missing part is 0).
fn version_below(v: &[u64], bound: &[u64]) -> bool {
    let n = v.len().max(bound.len());
    (0..n)
        .map(|i| v.get(i).copied().unwrap_or(0).cmp(&bound.get(i).copied().unwrap_or(0)))
        .find(|o| o.is_ne())
        == Some(std::cmp::Ordering::Less)
}

fn parse_class(text: &str) -> Class {
    Class::ALL
        .into_iter()
        .find(|c| c.as_str() == text)
        .unwrap_or_else(|| panic!("no class {text}"))
}

/// Every real user agent of the fixture gets the class its known versions
/// give it, but for the listed strings, each with why; every class and every
/// row the suite has strings for is met.
#[test]
fn the_client_classes_hold_on_real_user_agents_with_known_versions() {
    let table = Table::builtin().expect("the table");
    let root = common::root().join("tests/fixtures/user-agents");
    let mut known: BTreeSet<(String, Class, Class)> = BTreeSet::new();
    let mut listed = csv::Reader::from_path(root.join("disagreements.csv")).expect("disagreements.csv");
    for row in listed.records() {
        let row = row.expect("a row");
        assert!(!row[3].is_empty() && !row[3].contains('?'), "each listed string says why: {row:?}");
        known.insert((row[0].to_string(), parse_class(&row[1]), parse_class(&row[2])));
    }
    let mut found = BTreeSet::new();
    let mut by_class: BTreeMap<Class, usize> = BTreeMap::new();
    let mut by_row: BTreeMap<String, usize> = BTreeMap::new();
    let mut cases = csv::Reader::from_path(root.join("uap-core.csv")).expect("uap-core.csv");
    let mut n = 0;
    for row in cases.records() {
        let row = row.expect("a row");
        n += 1;
        let request = Request {
            user_agent: &row[0],
            ..Request::default()
        };
        let class = table.classify(&request);
        *by_class.entry(class).or_default() += 1;
        *by_row
            .entry(table.row(&request).map_or("(none)".to_string(), |r| r.id.clone()))
            .or_default() += 1;
        let expected = by_versions(&row[1], &row[2], &row[3], &row[4], &row[5]);
        if class != expected {
            found.insert((row[0].to_string(), expected, class));
        }
    }
    assert!(n > 10_000, "{n} strings");
    write_found("uap-core", &found);
    let new: Vec<_> = found.difference(&known).collect();
    let gone: Vec<_> = known.difference(&found).collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "disagreements changed:\nnew {new:#?}\ngone {gone:#?}"
    );
    for class in [Class::Impacted, Class::NotImpacted, Class::Unknown, Class::AlreadyBroken] {
        assert!(by_class.get(&class).is_some_and(|&n| n > 0), "{class:?} met: {by_class:?}");
    }
    // The rows no string of the suite meets are tested on their sources' forms (below).
    // (The Logpush bot fields, and the forms this suite has no string of,
    // are tested in `classes.rs` on the forms other corpora and the sources hold.)
    let documented = [
        "not-eyeball",
        "worker-subrequest",
        "verified-bot",
        "automated",
        "apple-crawler",
        "mac-powerpc",
        "chrome-reduced-user-agent",
        "android-7.1-no-patch",
        "uphold-sdk-before-7.1",
        "android-nougat-codename",
        "android-api-level-before-25",
        "android-api-level-25",
        "cubot-phone",
        "okhttp-tls-1.3",
    ];
    for row in &table.rows {
        assert!(
            by_row.contains_key(&row.id) || documented.contains(&row.id.as_str()),
            "row {} is met by a real string: {by_row:?}",
            row.id
        );
    }
}

/// The rows the suite has no string for, on the forms their sources document.
#[test]
fn the_rows_without_a_real_string_hold_on_their_sources_forms() {
    let table = Table::builtin().expect("the table");
    let class = |ua: &str, tls: &str, not_eyeball: bool, worker_subrequest: bool| {
        table.classify(&Request {
            user_agent: ua,
            tls,
            not_eyeball,
            worker_subrequest,
            ..Request::default()
        })
    };
    // Chromium's reduced user agent: `Android 10; K` and `<major>.0.0.0` whatever the device.
    let reduced = |major: u32| {
        format!("Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{major}.0.0.0 Mobile Safari/537.36")
    };
    assert_eq!(
        class(&reduced(109), "", false, false),
        Class::NotImpacted,
        "Chrome 109 still sent the real version"
    );
    assert_eq!(class(&reduced(110), "", false, false), Class::Unknown);
    assert_eq!(class(&reduced(114), "", false, false), Class::Unknown);
    assert_eq!(
        class(&reduced(115), "", false, false),
        Class::NotImpacted,
        "Chrome's own root store"
    );
    let android71 =
        "Mozilla/5.0 (Linux; Android 7.1; Nexus 5X) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/58.0.3029.83 Mobile Safari/537.36";
    assert_eq!(class(android71, "", false, false), Class::Unknown);
    assert_eq!(class(&android71.replace("7.1", "7.1.1"), "", false, false), Class::NotImpacted);
    assert_eq!(class("okhttp/3.12.1", "TLSv1.3", false, false), Class::NotImpacted);
    assert_eq!(class("okhttp/3.12.1", "TLSv1.2", false, false), Class::Unknown);
    let dalvik = "Dalvik/2.1.0 (Linux; U; Android 7.0; SM-G930F Build/NRD90M)";
    assert_eq!(class(dalvik, "TLSv1.2", false, false), Class::Impacted);
    assert_eq!(class(dalvik, "TLSv1.2", true, false), Class::Excluded, "not an eyeball request");
    assert_eq!(class(dalvik, "TLSv1.2", false, true), Class::Excluded, "a Worker subrequest");
    assert_eq!(version("7.1.1"), Some(vec![7, 1, 1]));
}

const EXPORT: &str = r#"zones:
  - zone_id: 5b3c1f6a8e2d4c7b9a0e1f2d3c4b5a69
    name: saas-provider.example
    custom_hostnames:
      success: true
      errors: []
      result:
        - id: 24c8c68e-bec2-49b6-868e-f06373780630
          hostname: shop.customer-one.org
          status: active
          ssl: {id: 6a2d3b4c-5e6f-4a7b-8c9d-0e1f2a3b4c5d, type: dv, method: txt, status: active, certificate_authority: lets_encrypt}
        - id: 5f0d2c1b-3a4e-4b5c-9d6e-7f8a9b0c1d2e
          hostname: quiet.customer-two.net
          status: active
          ssl: {id: 7b3e4c5d-6f70-4b8c-9dae-1f2a3b4c5d6e, type: dv, method: http, status: active, certificate_authority: lets_encrypt}
    certificate_packs:
      success: true
      errors: []
      result:
        - id: 8c2a4e1f-6d3b-4a5c-9e7f-0b1c2d3e4f50
          type: advanced
          hosts: [saas-provider.example, "*.saas-provider.example"]
          status: active
          certificate_authority: lets_encrypt
          validation_method: txt
          validity_days: 90
"#;

const OLD: &str = "Mozilla/5.0 (Linux; Android 7.0; SM-G930F Build/NRD90M) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/64.0.3282.137 Mobile Safari/537.36";
const NEW: &str = "Mozilla/5.0 (Linux; Android 13; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";
const REDUCED: &str = "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/112.0.0.0 Mobile Safari/537.36";

/// (host, user agent, TLS, requests): the same traffic for every shape.
const TRAFFIC: [(&str, &str, &str, u64); 6] = [
    ("shop.customer-one.org", OLD, "TLSv1.2", 30),
    ("Shop.Customer-One.org:443", NEW, "TLSv1.3", 60),
    ("shop.customer-one.org.", REDUCED, "TLSv1.3", 10),
    ("eu.saas-provider.example", OLD, "TLSv1.2", 5),
    ("saas-provider.example", NEW, "TLSv1.3", 15),
    // Two labels below the wildcard: not the pack's.
    ("a.eu.saas-provider.example", OLD, "TLSv1.2", 1000),
];

fn logpush(rows: &[(&str, &str, &str, u64)]) -> Vec<u8> {
    let mut out = String::new();
    for (i, (host, ua, tls, n)) in rows.iter().enumerate() {
        for k in 0..*n {
            let line = serde_json::json!({
                "ClientRequestHost": host, "ClientRequestUserAgent": ua, "ClientSSLProtocol": tls,
                "ClientRequestSource": "eyeball", "EdgeStartTimestamp": 1_725_955_200_000_000_000i64 + (i as i64) * 1_000_000_000 + k as i64,
                "ParentRayID": "00", "WorkerSubrequest": false, "RayID": format!("{i:x}{k:x}"),
            });
            out.push_str(&line.to_string());
            out.push('\n');
        }
    }
    // Not an end user's: the service's own, and a Worker's subrequest.
    out.push_str(&serde_json::json!({"ClientRequestHost": "shop.customer-one.org", "ClientRequestUserAgent": OLD, "ClientRequestSource": "edgeWorkerFetch"}).to_string());
    out.push('\n');
    out.push_str(&serde_json::json!({"ClientRequestHost": "shop.customer-one.org", "ClientRequestUserAgent": OLD, "WorkerSubrequest": true, "ParentRayID": "8c1b2a"}).to_string());
    out.push('\n');
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, out.as_bytes()).unwrap();
    gz.finish().unwrap()
}

fn graphql(rows: &[(&str, &str, &str, u64)]) -> Vec<u8> {
    let groups: Vec<serde_json::Value> = rows
        .iter()
        .map(|(host, ua, tls, n)| serde_json::json!({"count": n, "dimensions": {"clientRequestHTTPHost": host, "userAgent": ua, "clientSSLProtocol": tls, "datetimeHour": "2024-09-10T08:00:00Z"}}))
        .collect();
    serde_json::to_vec_pretty(&serde_json::json!({"data": {"viewer": {"zones": [{"byHostAndAgent": groups}]}}, "errors": null})).unwrap()
}

fn csv_aggregate(rows: &[(&str, &str, &str, u64)]) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["host", "user_agent", "requests", "tls"]).unwrap();
    for (host, ua, tls, n) in rows {
        w.write_record([*host, *ua, &n.to_string(), *tls]).unwrap();
    }
    w.into_inner().unwrap()
}

/// Every finding's impact (rule, resource id → impact).
fn impacts(doc: &serde_json::Value) -> BTreeMap<(String, String), serde_json::Value> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f.get("impact").is_some())
        .map(|f| {
            let mut impact = f["impact"].clone();
            // GraphQL groups by the hour: its window is the hour's.
            impact.as_object_mut().unwrap().remove("window");
            (
                (
                    f["rule"].as_str().unwrap().to_string(),
                    f["resource"]["id"].as_str().unwrap().to_string(),
                ),
                impact,
            )
        })
        .collect()
}

fn check_with(dir: &std::path::Path, traffic: &str, extra: &[&str]) -> common::Run {
    let mut args = vec!["--format", "json"];
    args.extend_from_slice(extra);
    check_in(dir, traffic, &args, &[])
}

/// `check` of the export with this traffic, as of 2024-10-01, no config.
fn check_in(dir: &std::path::Path, traffic: &str, extra: &[&str], env: &[(&str, &str)]) -> common::Run {
    let mut args = vec!["check", "export.yaml", "--no-config", "--as-of", "2024-10-01", "--traffic", traffic];
    args.extend_from_slice(extra);
    common::run_in_with_env(dir, &args, env)
}

/// The three shapes of the same traffic give the same impact on every
/// finding; a host without a request has `requests: 0` and no share; a
/// wildcard covers one label; the service's own requests and Worker
/// subrequests are not counted; the report is valid against its schema.
#[test]
fn the_three_shapes_of_one_traffic_give_the_same_impact() {
    let dir = common::temp_dir(&[
        ("export.yaml", EXPORT.as_bytes()),
        ("logs/20240910/20240910T080000Z_20240910T080100Z_a1b2.log.gz", &logpush(&TRAFFIC)),
        ("logs/20240910/ownership-challenge.txt", b"challenge"),
        ("graphql.json", &graphql(&TRAFFIC)),
        ("traffic.csv", &csv_aggregate(&TRAFFIC)),
    ]);
    let mut seen = Vec::new();
    for traffic in ["logs", "graphql.json", "traffic.csv"] {
        let r = check_with(dir.path(), traffic, &[]);
        assert_eq!(r.code, 1, "{traffic}: {}", r.stderr);
        let doc = common::json(&r);
        let schema: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(common::root().join("docs/schemas/check.schema.json")).unwrap()).unwrap();
        let validator = jsonschema::validator_for(&schema).expect("schema");
        let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{traffic}: {errors:#?}");
        seen.push((traffic, impacts(&doc), doc));
    }
    let (_, logs, doc) = &seen[0];
    // An aggregate has no timestamps: no window, so no lower bound can be told.
    let without_bound = |m: &BTreeMap<(String, String), serde_json::Value>| {
        let mut m = m.clone();
        for v in m.values_mut() {
            v.as_object_mut().unwrap().remove("lower_bound");
        }
        m
    };
    assert_eq!(&seen[1].1, logs, "the GraphQL answer against the logs");
    assert_eq!(without_bound(&seen[2].1), without_bound(logs), "the aggregate against the logs");
    assert!(seen[2].1.values().all(|i| i["lower_bound"] == false));
    assert!(seen[2].2["summary"]["traffic"]["window"].is_null());
    let of = |rule: &str, id: &str| {
        logs.get(&(rule.to_string(), id.to_string()))
            .unwrap_or_else(|| panic!("{rule} {id}: {logs:#?}"))
    };
    let shop = of("CA004", "24c8c68e-bec2-49b6-868e-f06373780630");
    assert_eq!(
        shop["requests"], 100,
        "case, port and trailing dot removed; the service's own and the Worker's left out"
    );
    assert_eq!(shop["impacted"], 30);
    assert_eq!(shop["unknown"], 10);
    assert_eq!(shop["share"], 0.3);
    assert_eq!(shop["upper_share"], 0.4);
    assert_eq!(shop["lower_bound"], true, "the window starts after 2024-09-09");
    let quiet = of("CA004", "5f0d2c1b-3a4e-4b5c-9d6e-7f8a9b0c1d2e");
    assert_eq!(quiet["requests"], 0);
    assert!(quiet["share"].is_null() && quiet["upper_share"].is_null(), "{quiet}");
    let pack = of("CA002", "8c2a4e1f-6d3b-4a5c-9e7f-0b1c2d3e4f50");
    assert_eq!(
        pack["requests"], 20,
        "one label below the wildcard, and the apex; not two labels below"
    );
    assert_eq!(pack["impacted"], 5);
    assert_eq!(doc["summary"]["traffic"]["excluded"], 2);
    assert_eq!(doc["summary"]["traffic"]["requests"], 1120);
    // SARIF carries it too, and the survivorship notice is in every format.
    let sarif = common::run_in(
        dir.path(),
        &[
            "check",
            "export.yaml",
            "--no-config",
            "--as-of",
            "2024-10-01",
            "--format",
            "sarif",
            "--traffic",
            "logs",
        ],
    );
    assert!(sarif.stdout.contains("\"impact\""), "{}", sarif.stdout);
    assert!(doc["notices"].to_string().contains("impact-lower-bound"), "{}", doc["notices"]);
    // What the folder holds besides logs is listed, with why.
    assert!(
        doc["summary"]["skipped"].to_string().contains("ownership-challenge.txt"),
        "{}",
        doc["summary"]["skipped"]
    );
    assert!(!seen[1].2["summary"]["skipped"].to_string().contains("ownership-challenge"));
}

/// The sample rate scales the logs' counts; `--fail-on-impact` fails the run
/// on a share at or above it; the human report ranks the certificate findings
/// by impacted requests.
#[test]
fn the_sample_rate_scales_and_fail_on_impact_fails() {
    let dir = common::temp_dir(&[("export.yaml", EXPORT.as_bytes()), ("a.log.gz", &logpush(&TRAFFIC))]);
    let sampled = common::json(&check_with(dir.path(), "a.log.gz", &["--traffic-sample-rate", "0.1"]));
    let shop = &impacts(&sampled)[&("CA004".to_string(), "24c8c68e-bec2-49b6-868e-f06373780630".to_string())];
    assert_eq!((shop["requests"].as_u64(), shop["impacted"].as_u64()), (Some(1000), Some(300)));
    assert_eq!(shop["sample_rate"], 0.1);
    for (at, code) in [("0.3", 1), ("0.31", 0)] {
        let r = check_with(dir.path(), "a.log.gz", &["--fail-on", "never", "--fail-on-impact", at]);
        assert_eq!(r.code, code, "--fail-on-impact {at}: {}", r.stderr);
    }
    let human = check_in(dir.path(), "a.log.gz", &[], &[]);
    let shop = human.stdout.find("Traffic: 30 of 100 requests").expect("the shop's traffic");
    let pack = human.stdout.find("Traffic: 5 of 20 requests").expect("the pack's traffic");
    let quiet = human.stdout.find("Traffic: no request").expect("the quiet hostname");
    assert!(shop < pack && pack < quiet, "ranked by impacted requests:\n{}", human.stdout);
    assert!(human.stdout.contains("Traffic: 1,120 requests from end users"), "{}", human.stdout);
    // The HTML report's table of who is hurt: one row a resource with requests, the same ranking.
    let html = check_in(dir.path(), "a.log.gz", &["--fail-on", "never", "--format", "html"], &[]);
    assert_eq!(html.code, 0, "{}", html.stderr);
    let table = &html.stdout[html.stdout.find("<section id=\"hurt\"").expect("the table of who is hurt")..];
    let table = &table[..table.find("</section>").unwrap()];
    let ranks: Vec<&str> = table
        .split("<tr data-impacted=\"")
        .skip(1)
        .map(|r| &r[..r.find('"').unwrap()])
        .collect();
    assert_eq!(ranks.first(), Some(&"30"), "{table}");
    let numbers: Vec<u64> = ranks.iter().map(|r| r.parse().unwrap()).collect();
    assert!(numbers.windows(2).all(|w| w[0] >= w[1]), "{table}");
    assert!(
        !table.contains("quiet.customer-two.net"),
        "a resource without a request has no row: {table}"
    );
    assert!(html.stdout.contains("<a href=\"#hurt\">"));
}

/// A malformed line is exit 2 naming file, line and column; so is a GraphQL
/// answer with errors, and an aggregate row that is no count.
#[test]
fn bad_traffic_is_an_input_error_at_its_place() {
    let mut lines = String::new();
    flate2::read::GzDecoder::new(&logpush(&TRAFFIC[..1])[..])
        .read_to_string(&mut lines)
        .unwrap();
    lines.push_str("{\"ClientRequestHost\": \"x\", \"ClientRequestUserAgent\": 7}\n");
    let line = lines.lines().count();
    let broken_graphql = br#"{"data": null, "errors": [{"message": "zone not found"}]}"#;
    let dir = common::temp_dir(&[
        ("export.yaml", EXPORT.as_bytes()),
        ("bad.log", lines.as_bytes()),
        ("missing.log", b"{\"ClientRequestUserAgent\": \"curl/8\"}\n"),
        ("errors.json", broken_graphql),
        ("bad.csv", b"host,user_agent,requests\nshop.customer-one.org,curl/8,many\n"),
        ("wrong.csv", b"hostname,agent,count\n"),
        (
            "bad-time.json",
            br#"{"data": {"viewer": {"zones": [{"g": [{"count": 3, "dimensions": {"clientRequestHTTPHost": "x", "userAgent": "curl/8", "datetimeHour": "yesterday"}}]}]}}}"#,
        ),
    ]);
    for (file, place, words) in [
        ("bad.log", format!("bad.log:{line}:"), "not a Logpush"),
        ("missing.log", "missing.log:1:1".to_string(), "ClientRequestHost"),
        ("errors.json", "errors.json:1:".to_string(), "zone not found"),
        ("bad.csv", "bad.csv:2:".to_string(), "not a whole number"),
        ("wrong.csv", "wrong.csv:1:1".to_string(), "host,user_agent,requests"),
        ("bad-time.json", "bad-time.json:1:".to_string(), "not a time"),
    ] {
        let r = check_with(dir.path(), file, &[]);
        assert_eq!(r.code, 2, "{file}: {}", r.stderr);
        assert!(r.stderr.contains(&place) && r.stderr.contains(words), "{file}: {}", r.stderr);
    }
    let rate = check_with(dir.path(), "bad.csv", &["--traffic-sample-rate", "0"]);
    assert_eq!(rate.code, 2, "{}", rate.stderr);
}

/// Threads share the files as they come: whichever thread reads which file,
/// the figures are the same to the last digit (a rate like 0.3 makes every
/// line count a fraction), GraphQL's counts are not scaled, and a bad file
/// among many is the one named.
#[test]
fn the_figures_do_not_depend_on_which_thread_read_which_file() {
    let mut files: Vec<(String, Vec<u8>)> = vec![("export.yaml".into(), EXPORT.as_bytes().to_vec())];
    for (i, row) in TRAFFIC.iter().enumerate() {
        files.push((
            format!("logs/20240910/20240910T08{i:02}00Z_20240910T08{i:02}59Z_{i:04x}.log.gz"),
            logpush(&[*row]),
        ));
    }
    files.push(("logs/graphql.json".into(), graphql(&TRAFFIC[..2])));
    let named: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
    let dir = common::temp_dir(&named);
    let run = |threads: &str, traffic: &str| {
        check_in(
            dir.path(),
            traffic,
            &["--format", "json", "--traffic-sample-rate", "0.3"],
            &[("EDGEAUDIT_THREADS", threads)],
        )
    };
    let one = run("1", "logs");
    assert_eq!(one.code, 1, "{}", one.stderr);
    let doc = common::json(&one);
    let shop = &impacts(&doc)[&("CA004".to_string(), "24c8c68e-bec2-49b6-868e-f06373780630".to_string())];
    assert!(shop["requests"].as_u64().is_some_and(|n| n > 100), "{shop}");
    for threads in ["2", "3", "8"] {
        let many = run(threads, "logs");
        assert_eq!(many.stdout, one.stdout, "EDGEAUDIT_THREADS={threads}");
    }
    // A GraphQL count that is not whole, among the logs: named, whatever the threads.
    std::fs::write(dir.path().join("logs/graphql.json"), br#"{"data": {"viewer": {"zones": [{"g": [{"count": 2.5, "dimensions": {"clientRequestHTTPHost": "a.example", "userAgent": "curl/8"}}]}]}}, "errors": null}"#).unwrap();
    for threads in ["1", "2", "8"] {
        let r = run(threads, "logs");
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(
            r.stderr.contains("graphql.json") && r.stderr.contains("not a whole number of requests"),
            "{}",
            r.stderr
        );
    }
}

/// Crawlers are not users, whatever platform they name: the service's own
/// bot verdict where Logpush carries it (`BotScoreSrc`, `VerifiedBotCategory`,
/// `BotScore` 1), and crawler tokens otherwise. They are left out of every
/// share and counted in the summary. `WorkerSubrequest: false` wins over a
/// `ParentRayID`; a timestamp in the space-separated form is read as UTC.
#[test]
fn crawlers_are_left_out_and_counted() {
    let line = |ua: &str, extra: &str| {
        format!(
            "{{\"ClientRequestHost\": \"shop.customer-one.org\", \"ClientRequestUserAgent\": {}, \"EdgeStartTimestamp\": \"2022-05-07 18:53:12\"{extra}}}\n",
            serde_json::json!(ua)
        )
    };
    let googlebot = "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/41.0.2272.96 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
    let android_6 = "Mozilla/5.0 (Linux; Android 6.0.1; SM-G920F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/99.0 Mobile Safari/537.36";
    let logs = [
        line(googlebot, ""),
        line(
            android_6,
            ", \"BotScoreSrc\": \"Verified Bot\", \"VerifiedBotCategory\": \"Search Engine Crawler\"",
        ),
        line(android_6, ", \"BotScore\": 1"),
        line(android_6, ", \"BotScore\": 2"),
        line(android_6, ", \"WorkerSubrequest\": false, \"ParentRayID\": \"8a1b2c3d4e5f6a7b\""),
        line(android_6, ", \"WorkerSubrequest\": true"),
    ]
    .concat();
    let dir = common::temp_dir(&[("export.yaml", EXPORT.as_bytes()), ("requests.log", logs.as_bytes())]);
    let r = check_with(dir.path(), "requests.log", &["--fail-on", "never"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    let traffic = &doc["summary"]["traffic"];
    assert_eq!(traffic["crawlers"], 3, "{traffic}");
    assert_eq!(traffic["excluded"], 1, "{traffic}");
    assert_eq!(traffic["requests"], 2, "{traffic}");
    assert_eq!(traffic["impacted"], 2, "{traffic}");
    assert_eq!(traffic["window"]["from"], "2022-05-07T18:53:12Z", "{traffic}");
    let human = check_in(dir.path(), "requests.log", &["--fail-on", "never"], &[]);
    assert!(human.stdout.contains("3 requests from crawlers left out"), "{}", human.stdout);
    // A time Logpush never writes is an error at its place, not a request without a time.
    let bad = line(android_6, "").replace("2022-05-07 18:53:12", "yesterday");
    std::fs::write(dir.path().join("requests.log"), format!("{}{bad}", line(android_6, ""))).unwrap();
    let r = check_with(dir.path(), "requests.log", &[]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let column = bad.find("\"EdgeStartTimestamp\"").unwrap() + 1;
    assert!(
        r.stderr.contains(&format!("requests.log:2:{column}:")) && r.stderr.contains("EdgeStartTimestamp"),
        "{}",
        r.stderr
    );
}

/// The class a corpus's own parse gives a string (the parser's test file
/// says its OS family and version, its browser, and whether it is a
/// crawler), by DESIGN's classes; `None` where it cannot decide: no OS, an
/// Android or Apple OS without a (whole) version, or an Android derivative
/// the parser names by its own name and version (YunOS, Nokia X, Google TV,
/// Baidu Yi, Glass, Sailfish), whose trust store is the Android release it
/// is built on, which the parse does not give.
fn by_corpus(os: &str, os_version: &str, browser: &str, browser_version: &str, crawler: bool) -> Option<Class> {
    let browser = browser.to_ascii_lowercase();
    if browser == "okhttp" {
        return Some(Class::Unknown);
    }
    // The corpora call every HTTP library and runtime a robot; DESIGN classes
    // one by its trust store (Java 8 before update 141 is already broken), and
    // whether its requests are a crawler's the corpus does not say.
    let library = [
        "java",
        "apache-httpclient",
        "apache beam",
        "node.js",
        "node fetch",
        "postman runtime",
        "hackney",
        "lwp-request",
        "wget",
        "curl",
        "go http client",
        "python requests",
        "python urllib",
        "apple icloud",
    ];
    if crawler && library.contains(&browser.as_str()) {
        return None;
    }
    if crawler {
        return Some(Class::Crawler);
    }
    if os_version.contains('?') {
        return None;
    }
    let v: Vec<u64> = os_version
        .split(['.', '_'])
        .map_while(|part| part.trim().parse::<u64>().ok())
        .collect();
    let below = |bound: &[u64]| version_below(&v, bound);
    let family = os.to_ascii_lowercase();
    let android = matches!(family.as_str(), "android" | "android tv" | "android wear");
    let derivative = [
        "aliyun os",
        "yunos",
        "nokia x platform",
        "google tv",
        "baidu yi",
        "glass os",
        "sailfish",
    ];
    if derivative.contains(&family.as_str()) {
        return None;
    }
    // tvOS's releases are iOS's, trust store included.
    let ios = matches!(family.as_str(), "ios" | "iphone" | "ipad" | "ipod" | "iphone os" | "tvos");
    let mac = matches!(family.as_str(), "os x" | "mac os x" | "mac os" | "macos" | "mac osx");
    // Mac OS before X never trusted ISRG Root X1.
    if family == "mac os classic" {
        return Some(Class::AlreadyBroken);
    }
    if family.is_empty() || family == "unknown" || family == "??" || family == "hacker" || family == "fireos" {
        return None;
    }
    if (android || ios || mac) && v.is_empty() {
        return None;
    }
    let major = browser_version.split('.').next().and_then(|m| m.parse::<u64>().ok());
    Some(match () {
        // Firefox and the browsers built on its Gecko engine keep their own trust store.
        _ if android && ["firefox", "waterfox", "qwant", "fennec"].iter().any(|g| browser.contains(g)) => Class::NotImpacted,
        _ if android && v == [10] && browser.contains("chrome") && major.is_some_and(|m| (110..=114).contains(&m)) => Class::Unknown,
        _ if android && below(&[7, 1]) => Class::Impacted,
        _ if android && (v == [7, 1] || v == [7, 1, 0]) => Class::Unknown,
        _ if ios && below(&[10]) => Class::AlreadyBroken,
        _ if mac && below(&[10, 12, 1]) => Class::AlreadyBroken,
        _ => Class::NotImpacted,
    })
}

/// Every decidable string of three more corpora — the test files of
/// WhichBrowser, yauaa and woothee, parsers independent of uap-core and of
/// each other — gets the class the corpus's own parse gives it, at least 99
/// % of each, and each string where they differ is listed with why
/// (`*-disagreements.csv`); the test fails when a list changes either way.
#[test]
fn the_client_classes_agree_with_three_more_corpora() {
    let table = Table::builtin().expect("the table");
    let root = common::root().join("tests/fixtures/user-agents");
    for corpus in ["whichbrowser", "yauaa", "woothee"] {
        let mut known: BTreeSet<(String, Class, Class)> = BTreeSet::new();
        let listed = root.join(format!("{corpus}-disagreements.csv"));
        if let Ok(mut listed) = csv::Reader::from_path(&listed) {
            for row in listed.records() {
                let row = row.expect("a row");
                assert!(!row[3].is_empty() && !row[3].contains('?'), "each listed string says why: {row:?}");
                known.insert((row[0].to_string(), parse_class(&row[1]), parse_class(&row[2])));
            }
        }
        let mut cases = csv::Reader::from_path(root.join(format!("{corpus}.csv"))).expect("the corpus");
        let (mut decidable, mut found) = (0usize, BTreeSet::new());
        for row in cases.records() {
            let row = row.expect("a row");
            let Some(expected) = by_corpus(&row[1], &row[2], &row[3], &row[4], &row[5] == "crawler") else {
                continue;
            };
            decidable += 1;
            let class = table.classify(&Request {
                user_agent: &row[0],
                ..Request::default()
            });
            if class != expected {
                found.insert((row[0].to_string(), expected, class));
            }
        }
        write_found(corpus, &found);
        let new: Vec<_> = found.difference(&known).collect();
        let gone: Vec<_> = known.difference(&found).collect();
        assert!(
            new.is_empty() && gone.is_empty(),
            "{corpus}: disagreements changed:\nnew {new:#?}\ngone {gone:#?}"
        );
        let agreement = 1.0 - found.len() as f64 / decidable as f64;
        assert!(
            decidable > 50 && agreement >= 0.99,
            "{corpus}: {:.2} % of {decidable} decidable strings agree",
            agreement * 100.0
        );
    }
}

/// A traffic file's shape is told by its content: the same Logpush line is
/// read named `.txt`, `.json` or `.log`, in a folder too; a stream on
/// standard input (`--traffic -`, gzip'd as `rclone cat` gives it) is read;
/// a GraphQL answer whose groups lack `count` (grouped by hour only, as the
/// service's docs show one) is an error naming what is missing, never a run
/// that read no request.
#[test]
fn a_traffic_files_content_decides_its_shape() {
    let line = format!(
        "{{\"ClientRequestHost\": \"shop.customer-one.org\", \"ClientRequestUserAgent\": {}, \"EdgeStartTimestamp\": 1725955200}}\n",
        serde_json::json!(OLD)
    );
    let by_hour = br#"{"data": {"viewer": {"zones": [{"httpRequestsAdaptiveGroups": [{"dimensions": {"datetimeHour": "2024-09-10T08:00:00Z"}, "sum": {"visits": 3}}]}]}}, "errors": null}"#;
    let dir = common::temp_dir(&[
        ("export.yaml", EXPORT.as_bytes()),
        ("line.txt", line.as_bytes()),
        ("line.json", line.as_bytes()),
        ("folder/requests.txt", line.as_bytes()),
        ("folder/ownership-challenge.txt", b"b3d9d1e6a2"),
        ("by-hour.json", by_hour),
    ]);
    for traffic in ["line.txt", "line.json", "folder"] {
        let r = check_with(dir.path(), traffic, &["--fail-on", "never"]);
        assert_eq!(r.code, 0, "{traffic}: {}", r.stderr);
        let doc: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
        assert_eq!(doc["summary"]["traffic"]["impacted"], 1, "{traffic}: {}", doc["summary"]["traffic"]);
        if traffic == "folder" {
            let skipped = doc["summary"]["skipped"].to_string();
            assert!(
                skipped.contains("ownership-challenge.txt") && !skipped.contains("requests.txt"),
                "{skipped}"
            );
        }
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, line.repeat(3).as_bytes()).unwrap();
    let export = dir.path().join("export.yaml");
    let r = common::run_with_stdin(
        &[
            "check",
            &common::path_str(&export),
            "--no-config",
            "--as-of",
            "2024-10-01",
            "--format",
            "json",
            "--fail-on",
            "never",
            "--traffic",
            "-",
        ],
        Some(&gz.finish().unwrap()),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(doc["summary"]["traffic"]["impacted"], 3, "{}", doc["summary"]["traffic"]);
    let r = check_with(dir.path(), "by-hour.json", &[]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("by-hour.json:1:") && r.stderr.contains("`count`") && r.stderr.contains("`dimensions.userAgent`"),
        "{}",
        r.stderr
    );
}

/// The book's DuckDB query (docs/src/traffic.md), run by DuckDB where it is
/// installed (`python3 -c "import duckdb"`; skipped with a notice where it is
/// not), writes an aggregate that gives every finding the impact edgeaudit
/// reads from the same Logpush files: what it folds into `(other)` is never
/// what the table would count, and what it leaves out (the service's own
/// requests, Worker subrequests, verified bots) edgeaudit leaves out too.
#[test]
fn the_books_duckdb_query_gives_the_impact_of_the_logs() {
    let has_duckdb = std::process::Command::new("python3")
        .args(["-c", "import duckdb"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_duckdb {
        eprintln!("NOTICE: DuckDB (python3 -m pip install duckdb) is absent; the book's query is not run");
        return;
    }
    let book = std::fs::read_to_string(common::root().join("docs/src/traffic.md")).expect("the book's traffic page");
    let query = common::fenced_after(&book, "<!-- duckdb-query -->", "sql\n");
    let mut rows = TRAFFIC.to_vec();
    let googlebot = "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/41.0 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
    rows.push(("shop.customer-one.org", googlebot, "TLSv1.3", 7));
    let mut logs = Vec::new();
    flate2::read::GzDecoder::new(&logpush(&rows)[..]).read_to_end(&mut logs).unwrap();
    // A bot the service verified, naming an old Android.
    logs.extend_from_slice(
        format!(
            "{}\n",
            serde_json::json!({"ClientRequestHost": "shop.customer-one.org", "ClientRequestUserAgent": OLD, "BotScoreSrc": "Verified Bot", "BotScore": 1})
        )
        .as_bytes(),
    );
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, &logs).unwrap();
    let dir = common::temp_dir(&[
        ("export.yaml", EXPORT.as_bytes()),
        ("logs/20240910/20240910T080000Z_20240910T080059Z_a1b2.log.gz", &gz.finish().unwrap()),
    ]);
    let run = std::process::Command::new("python3")
        .args(["-c", "import duckdb, sys; duckdb.sql(sys.stdin.read())"])
        .current_dir(dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            std::io::Write::write_all(child.stdin.as_mut().expect("stdin"), query.as_bytes())?;
            drop(child.stdin.take());
            child.wait_with_output()
        })
        .expect("python3 runs");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let impact_of = |traffic: &str| {
        let r = check_with(dir.path(), traffic, &["--fail-on", "never"]);
        assert_eq!(r.code, 0, "{traffic}: {}", r.stderr);
        let doc: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
        impacts(&doc)
            .into_iter()
            .map(|(k, v)| {
                (
                    k,
                    [
                        v["requests"].clone(),
                        v["impacted"].clone(),
                        v["unknown"].clone(),
                        v["already_broken"].clone(),
                    ],
                )
            })
            .collect::<BTreeMap<_, _>>()
    };
    let (from_logs, from_query) = (impact_of("logs"), impact_of("traffic.csv"));
    assert!(!from_logs.is_empty());
    assert_eq!(from_query, from_logs);
}

/// In a walked folder, a file whose name is no traffic shape's is read to
/// tell what it holds: one that cannot be read (a broken gzip stream) is an
/// error naming it, never "not traffic" and skipped; a readable file that is
/// not traffic is skipped, as before.
#[test]
fn a_walked_file_that_cannot_be_read_is_an_error_not_skipped() {
    // gzip's magic, then a compression method gzip does not have.
    let mut broken = vec![0x1f, 0x8b, 0x07, 0x00];
    broken.extend_from_slice(&[0xff; 64]);
    let dir = common::temp_dir(&[
        ("export.yaml", EXPORT.as_bytes()),
        ("logs/a.log.gz", &logpush(&TRAFFIC)),
        ("logs/notes.txt", b"not a log"),
        ("logs/part-0001", &broken),
    ]);
    let r = check_with(dir.path(), "logs", &[]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("part-0001") && r.stderr.contains("cannot read"), "{}", r.stderr);
    std::fs::remove_file(dir.path().join("logs/part-0001")).unwrap();
    let r = check_with(dir.path(), "logs", &["--fail-on", "never"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}
