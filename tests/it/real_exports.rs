//! Real exports load in full, and nothing passes silently (docs/src/inputs.md).
//!
//! tests/fixtures/real/ holds one file per real shape the API (and the
//! service's BIND export) writes, made for this project in those shapes:
//! pools with `notification_filter` absent or disabling both sources,
//! policies without `result_info` and with hand-typed mechanism ids, custom
//! hostnames without `ssl` or with `certificate_authority: null`, a PEM
//! escaped twice, packs of type `custom` and `dedicated_custom` (one ordered,
//! with only `id`, `type` and `hosts`), Total TLS on
//! its own, custom certificates with a `type` of their own, CAA records in
//! `data`, a BIND export without `$ORIGIN`, and a YAML file with a byte-order
//! mark.

use crate::common;

use common::{json, path_str, run, temp_dir};

const AS_OF: &str = "2024-10-01";

fn findings(doc: &serde_json::Value) -> Vec<String> {
    doc["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            format!(
                "{} {} {} {}{}",
                f["rule"].as_str().unwrap_or(""),
                f["resource"]["kind"].as_str().unwrap_or(""),
                f["resource"]["name"].as_str().unwrap_or(""),
                f["location"]["file"]
                    .as_str()
                    .unwrap_or("")
                    .trim_start_matches("tests/fixtures/real/"),
                f["location"]["pointer"].as_str().unwrap_or("")
            )
        })
        .collect()
}

#[test]
fn every_real_shape_loads_and_nothing_is_skipped() {
    let r = run(&["check", "tests/fixtures/real", "--format", "json", "--as-of", AS_OF]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.is_empty(), "{}", r.stderr);
    let doc = json(&r);
    assert_eq!(doc["summary"]["skipped"], serde_json::json!([]), "no file was skipped");
    assert_eq!(doc["summary"]["files"], 9);
    assert_eq!(
        doc["summary"]["records"],
        serde_json::json!({
            "pool": 3, "notification_policy": 1, "certificate_pack": 5, "custom_certificate": 1,
            "custom_hostname": 6, "total_tls": 1, "universal_ssl": 1, "dns_record": 6
        })
    );
    assert_eq!(
        findings(&doc),
        [
            // A `dedicated_custom` pack with an expired active certificate.
            "CA010 certificate_pack old.example.com certificate-packs.json/result/1/certificates/0/expires_on",
            // A pending advanced pack (`certificates: []`, `primary_certificate: "0"`).
            "CA002 certificate_pack example.com certificate-packs.json/result/2/certificate_authority",
            // A custom certificate with `type: legacy_custom` is not a pack.
            "CA006 custom_certificate api.example.com custom-certificates.json/result/0/uploaded_on",
            "CA004 custom_hostname pinned.customer-one.org custom-hostnames.json/result/2/ssl/certificate_authority",
            // The PEM escaped twice is read: its chain, and its expiry from the leaf.
            "CA008 custom_hostname uploaded.customer-one.org custom-hostnames.json/result/3/ssl/custom_certificate",
            "CA010 custom_hostname uploaded.customer-one.org custom-hostnames.json/result/3/ssl/custom_certificate",
            // CAA from `data` without `content` ...
            "CA005 custom_hostname shop.customer-one.org custom-hostnames.json/result/4/ssl/certificate_authority",
            // ... and from the BIND export.
            "CA005 custom_hostname app.customer-two.org custom-hostnames.json/result/5/ssl/certificate_authority",
            "LB004 account  pools.json/result",
            // Covered by a policy whose mechanism id is `  NOC@example.com `.
            "LB002 pool web pools.json/result/0/notification_email",
            // A legacy filter that disables both sources delivers nothing.
            "LB002 pool batch pools.json/result/1/notification_email",
            "CA003 total_tls  total-tls.json/result/certificate_authority",
            "CA001 certificate_pack example.com zone-settings.yaml/zones/0/certificate_packs/result/0/certificate_authority",
        ]
    );
    let text = findings(&doc).join("\n");
    assert!(
        !text.contains("null-ca.customer-one.org"),
        "`certificate_authority: null` is not set, not the default CA: no CA005 under a Let's Encrypt-only CAA"
    );
    assert!(
        !text.contains("pending.customer-one.org"),
        "a hostname without ssl has no certificate to judge"
    );
}

#[test]
fn the_policy_body_never_has_an_empty_filter() {
    let pools = br#"{"result": [{"id": "p1", "name": "both-off", "notification_email": "a@example.com", "origins": [],
        "notification_filter": {"pool": {"disable": true}, "origin": {"disable": true}}}]}"#;
    let dir = temp_dir(&[("pools.json", pools)]);
    let doc = json(&run(&["check", &path_str(dir.path()), "--format", "json"]));
    let messages: Vec<&str> = doc["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["message"].as_str())
        .collect();
    assert!(
        messages
            .iter()
            .any(|m| m.contains("delivers nothing and clearing it loses nothing")),
        "{messages:?}"
    );
    assert!(
        messages
            .iter()
            .all(|m| !m.contains("\"new_health\":[]") && !m.contains("\"event_source\":[]"))
    );
    assert!(doc["findings"].as_array().expect("findings").iter().all(|f| f["rule"] != "LB001"));
}

/// Files that are not exports, as a directory of real-world JSON holds them.
const NOT_EXPORTS: &[(&str, &[u8])] = &[
    ("exports/package.json", br#"{"name": "infra", "version": "1.0.0", "private": true}"#),
    ("exports/tsconfig.json", b"{\n  // compiler options\n  \"compilerOptions\": {\"strict\": true}\n}\n"),
    (
        "exports/load-balancers.json",
        br#"{"success": true, "errors": [], "messages": [], "result": [{"id": "699d98642c564d2e855e9661899b7252", "name": "www.example.com", "default_pools": ["17b5962d775c646f3f9725cbc7a53df4"], "fallback_pool": "17b5962d775c646f3f9725cbc7a53df4", "proxied": true}]}"#,
    ),
    (
        "exports/monitors.json",
        br#"{"success": true, "result": [{"id": "f1aba936b94213e5b8dca0c0dbf1f9cc", "type": "https", "expected_codes": "2xx", "interval": 60, "path": "/health"}]}"#,
    ),
    (
        "exports/zones.json",
        br#"{"success": true, "result": [{"id": "023e105f4ecef8ad9ca31a8372d0c353", "name": "example.com", "type": "full", "status": "active", "name_servers": ["bob.ns.cloudflare.com"]}], "result_info": {"page": 1, "per_page": 20, "count": 1, "total_count": 1}}"#,
    ),
    (
        "exports/webhooks.json",
        br#"{"success": true, "result": [{"id": "b115d5ec-15c6-41ee-8b76-92c449b5227b", "name": "Slack", "type": "slack", "url": "https://hooks.slack.com/services/T/B/X"}]}"#,
    ),
    (
        "exports/terraform-resources.json",
        br#"[{"type": "cloudflare_record", "name": "www", "zone_id": "023e105f4ecef8ad9ca31a8372d0c353"}]"#,
    ),
];

const CLEAN_POOLS: (&str, &[u8]) = (
    "exports/pools.json",
    br#"{"result": [{"id": "p1", "name": "web", "notification_email": "", "origins": []}], "result_info": {"page": 1, "per_page": 25, "count": 1, "total_count": 1, "total_pages": 1}}"#,
);

#[test]
fn files_that_are_not_exports_are_skipped_with_their_reason_in_every_format() {
    let mut files = NOT_EXPORTS.to_vec();
    files.push(CLEAN_POOLS);
    let dir = temp_dir(&files);
    let exports = path_str(&dir.path().join("exports"));
    let out = |name: &str| path_str(&dir.path().join(name));
    let formats = [
        format!("json={}", out("r.json")),
        format!("sarif={}", out("r.sarif")),
        format!("github={}", out("r.github")),
        format!("markdown={}", out("r.md")),
        format!("junit={}", out("r.xml")),
    ];
    let mut args = vec!["check", exports.as_str(), "--quiet", "--format", "human"];
    for f in &formats {
        args.extend(["--format", f.as_str()]);
    }
    let r = run(&args);
    assert_eq!(r.code, 0, "nothing failing was found: {}", r.stderr);
    // Every format of the registry, each alone, names every skipped file.
    for format in common::report_formats() {
        let alone = run(&["check", exports.as_str(), "--format", &format]);
        assert_eq!(alone.code, 0, "{format}: {}", alone.stderr);
        for (file, _) in NOT_EXPORTS {
            let name = file.rsplit('/').next().unwrap_or(*file);
            assert!(alone.stdout.contains(name), "{format} names {name}:\n{}", alone.stdout);
        }
    }
    let reasons = [
        ("load-balancers.json", "load balancers"),
        ("monitors.json", "health monitors"),
        ("package.json", "no export structure"),
        ("terraform-resources.json", "Terraform resources"),
        ("tsconfig.json", "JSON with comments"),
        ("webhooks.json", "notification destinations"),
        ("zones.json", "zones"),
    ];
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).expect("report written");
    for (file, why) in reasons {
        assert!(
            r.stdout
                .lines()
                .any(|l| l.contains(file) && l.contains("skipped, not analysed") && l.contains(why)),
            "human, even with --quiet: {file} ({why}): {}",
            r.stdout
        );
        for report in ["r.json", "r.sarif", "r.github", "r.md", "r.xml"] {
            assert!(read(report).contains(file), "{report} names {file}");
        }
    }
    let doc: serde_json::Value = serde_json::from_str(&read("r.json")).expect("json");
    assert_eq!(doc["summary"]["skipped_files"], 7);
    assert_eq!(doc["summary"]["skipped"].as_array().map(Vec::len), Some(7));
    let sarif: serde_json::Value = serde_json::from_str(&read("r.sarif")).expect("sarif");
    let notes = &sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"];
    assert_eq!(notes.as_array().map(Vec::len), Some(7), "{notes}");
    assert_eq!(notes[0]["descriptor"]["id"], "skipped-file");
    common::assert_valid_sarif(&sarif);
    assert_eq!(read("r.github").matches("title=edgeaudit skipped file").count(), 7);
    assert!(read("r.md").contains("## Skipped files (not analysed)"));
    assert!(read("r.xml").contains(r#"<testsuite name="skipped files" tests="7""#));
}

#[test]
fn an_envelope_of_unknown_records_is_exit_2_when_named_and_listed_when_walked() {
    let unknown = br#"{"success": true, "errors": [], "messages": [], "result": [{"id": "x1", "what": 1}, {"id": "x2", "what": 2}]}"#;
    let dir = temp_dir(&[("exports/unknown.json", unknown), CLEAN_POOLS]);
    let named = run(&["check", &path_str(&dir.path().join("exports/unknown.json"))]);
    assert_eq!(named.code, 2);
    assert!(
        named.stderr.contains("unknown.json:1:") && named.stderr.contains("2 records, of no kind edgeaudit reads"),
        "{}",
        named.stderr
    );
    let walked = run(&["check", &path_str(&dir.path().join("exports")), "--format", "json"]);
    assert_eq!(walked.code, 0, "{}", walked.stderr);
    let doc = json(&walked);
    assert_eq!(
        doc["summary"]["skipped"][0]["file"].as_str().map(|f| f.ends_with("unknown.json")),
        Some(true)
    );
    assert!(walked.stderr.contains("unknown.json: skipped, not analysed"), "{}", walked.stderr);
}

#[test]
fn a_directory_of_nothing_analysable_is_an_error_not_a_pass() {
    let dir = temp_dir(NOT_EXPORTS);
    let r = run(&["check", &path_str(&dir.path().join("exports"))]);
    assert_eq!(r.code, 2);
    assert_eq!(r.stderr.lines().count(), 7, "every file is named: {}", r.stderr);
    assert!(
        r.stderr.contains("no file found holds an export edgeaudit analyses"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_list_of_known_and_unknown_records_is_an_error_at_each_unknown_one() {
    let text = b"{\"result\": [\n  {\"id\": \"p1\", \"name\": \"web\", \"origins\": []},\n  {\"id\": \"x1\", \"what\": 1},\n  {\"id\": \"x2\", \"what\": 2}\n]}";
    let dir = temp_dir(&[("exports/pools.json", text)]);
    // Met in a directory or named: never skipped.
    for target in [dir.path().join("exports"), dir.path().join("exports/pools.json")] {
        let r = run(&["check", &path_str(&target), "--format", "json"]);
        assert_eq!(r.code, 2, "{}", r.stderr);
        // The report says the run failed, and has no findings.
        let report = json(&r);
        assert_eq!(
            (report["success"].clone(), report["findings"].clone()),
            (serde_json::json!(false), serde_json::json!([]))
        );
        assert!(
            r.stderr.contains("pools.json:3:3:") && r.stderr.contains("pools.json:4:3:"),
            "{}",
            r.stderr
        );
        assert!(r.stderr.contains("a list comes from one endpoint"), "{}", r.stderr);
    }
    // The first record unknown and the rest known: the same, whatever the order.
    let first = b"[{\"id\": \"x1\", \"what\": 1}, {\"id\": \"p1\", \"name\": \"web\", \"origins\": []}]";
    let dir = temp_dir(&[("pools.json", first)]);
    let r = run(&["check", &path_str(dir.path())]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("pools.json:1:2:"), "{}", r.stderr);
}

#[test]
fn kind_that_contradicts_the_record_is_an_input_error() {
    let policy = br#"{"result": [{"id": "n1", "name": "x", "alert_type": "load_balancing_health_alert", "mechanisms": {}}]}"#;
    let dir = temp_dir(&[("policies.json", policy)]);
    let file = path_str(&dir.path().join("policies.json"));
    let r = run(&["check", &file, "--kind", "pool"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("policies.json:1:13") && r.stderr.contains("those of a notification_policy"),
        "{}",
        r.stderr
    );
    // A bundle key says what its records are, and is held to it too.
    let bundle = br#"{"pools": [{"id": "n1", "alert_type": "load_balancing_health_alert"}]}"#;
    let dir = temp_dir(&[("bundle.json", bundle)]);
    assert_eq!(run(&["check", &path_str(&dir.path().join("bundle.json"))]).code, 2);
}

#[test]
fn a_settings_object_says_which_kinds_it_could_be() {
    let universal = br#"{"success": true, "errors": [], "messages": [], "result": {"enabled": true}}"#;
    let dir = temp_dir(&[("exports/universal.json", universal)]);
    let exports = path_str(&dir.path().join("exports"));
    let r = run(&["check", &exports]);
    assert_eq!(r.code, 2, "not skipped: it may hold what decides CA001");
    for needle in ["--kind universal_ssl", "--kind total_tls", "universal.json:1:"] {
        assert!(r.stderr.contains(needle), "{needle}: {}", r.stderr);
    }
    let r = run(&["check", &exports, "--kind", "universal_ssl", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(json(&r)["summary"]["records"]["universal_ssl"], 1);
}

#[test]
fn a_yaml_export_with_a_byte_order_mark_is_located_like_one_without() {
    let yaml = "pools:\n  - id: p1\n    name: web\n    notification_email: a@example.com\n    origins: []\n";
    let with_mark = format!("\u{feff}{yaml}");
    let dir = temp_dir(&[("a/pools.yaml", yaml.as_bytes()), ("b/pools.yaml", with_mark.as_bytes())]);
    let location = |sub: &str| {
        let doc = json(&run(&[
            "check",
            &path_str(&dir.path().join(sub)),
            "--format",
            "json",
            "--select",
            "LB001",
        ]));
        (
            doc["findings"][0]["location"]["line"].clone(),
            doc["findings"][0]["location"]["column"].clone(),
        )
    };
    assert_eq!(location("a"), (serde_json::json!(4), serde_json::json!(25)));
    assert_eq!(location("b"), location("a"));
}

#[test]
fn a_yaml_block_sequence_is_located_at_its_first_dash() {
    let yaml = b"pools:\n  - id: p1\n    name: web\n    notification_email:\n      - a@example.com\n    origins: []\n";
    let dir = temp_dir(&[("pools.yaml", yaml)]);
    let r = run(&["check", &path_str(&dir.path().join("pools.yaml"))]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("pools.yaml:5:7:"), "{}", r.stderr);
}

fn page(n: u64, ids: &[&str], total: u64, pages: u64) -> String {
    let records: Vec<String> = ids
        .iter()
        .map(|id| format!(r#"{{"id": "{id}", "name": "{id}", "notification_email": "", "origins": []}}"#))
        .collect();
    format!(
        r#"{{"success": true, "result": [{}], "result_info": {{"page": {n}, "per_page": 2, "count": {}, "total_count": {total}, "total_pages": {pages}}}}}"#,
        records.join(", "),
        ids.len()
    )
}

fn ex001(files: &[(&str, &[u8])]) -> Vec<String> {
    let dir = temp_dir(files);
    let r = run(&[
        "check",
        &path_str(dir.path()),
        "--format",
        "json",
        "--select",
        "EX001",
        "--fail-on",
        "never",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    json(&r)["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            let file = f["location"]["file"].as_str().unwrap_or("");
            let name = file.rsplit('/').next().unwrap_or(file);
            format!("{name}{}", f["location"]["pointer"].as_str().unwrap_or(""))
        })
        .collect()
}

#[test]
fn an_incomplete_list_is_ex001_at_the_count_that_shows_it() {
    let (p1, p2, p3) = (page(1, &["a", "b"], 5, 3), page(2, &["c", "d"], 5, 3), page(3, &["e"], 5, 3));
    // Every page, in one file or several: complete.
    assert!(ex001(&[("p1.json", p1.as_bytes()), ("p2.json", p2.as_bytes()), ("p3.json", p3.as_bytes())]).is_empty());
    let pages = format!("[{p1}, {p2}, {p3}]");
    assert!(ex001(&[("all.json", pages.as_bytes())]).is_empty());
    // The first page only: EX001 at its total_count.
    assert_eq!(ex001(&[("p1.json", p1.as_bytes())]), ["p1.json/result_info/total_count"]);
    // A page given twice counts once.
    assert_eq!(
        ex001(&[
            ("p1.json", p1.as_bytes()),
            ("p1-again.json", p1.as_bytes()),
            ("p3.json", p3.as_bytes())
        ])
        .len(),
        1
    );
    // Pages short of total_pages while total_count is met: still incomplete.
    let odd = page(1, &["a", "b"], 2, 2);
    assert_eq!(ex001(&[("odd.json", odd.as_bytes())]), ["odd.json/result_info/total_pages"]);
    // The largest numbers the API writes are numbers like any other.
    let huge = r#"{"result": [{"id": "a", "name": "a", "notification_email": "", "origins": []}], "result_info": {"page": 1, "per_page": 9223372036854775807, "count": 1, "total_count": 1, "total_pages": 1}}"#;
    assert!(ex001(&[("huge.json", huge.as_bytes())]).is_empty());
}

/// Custom hostnames on the default CA, for CAA checks.
fn default_ca_hostnames(names: &[&str]) -> String {
    let records: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            format!(r#"{{"id": "h{i}", "hostname": "{name}", "ssl": {{"method": "http", "type": "dv", "certificate_authority": ""}}}}"#)
        })
        .collect();
    format!(r#"{{"result": [{}]}}"#, records.join(", "))
}

fn ca005_names(files: &[(&str, &[u8])]) -> Result<Vec<String>, String> {
    let dir = temp_dir(files);
    let r = run(&[
        "check",
        &path_str(dir.path()),
        "--format",
        "json",
        "--select",
        "CA005",
        "--fail-on",
        "never",
    ]);
    if r.code != 0 {
        return Err(r.stderr);
    }
    Ok(json(&r)["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["resource"]["name"].as_str().unwrap_or("").to_string())
        .collect())
}

#[test]
fn bind_owners_and_ttls_as_zone_files_write_them() {
    let hosts = default_ca_hostnames(&["www.example.com", "mail.example.com"]);
    // A multi-line record still sets the owner the next line inherits; TTLs take units.
    let zone = b";; Domain:     example.com.\nwww\t1h\tIN\tA\t192.0.2.1\nmail\tIN\tTXT\t( \"a\"\n  \"b\" )\n\tIN\tCAA\t0 issue \"letsencrypt.org\"\n";
    let names = ca005_names(&[("hosts.json", hosts.as_bytes()), ("example.com.zone", zone)]).expect("loads");
    assert_eq!(names, ["mail.example.com"], "the CAA belongs to mail, not www");
    let units = b";; Domain:     example.com.\nwww\t1h30m\tIN\tCAA\t0 issue \"letsencrypt.org\"\n";
    let names = ca005_names(&[("hosts.json", hosts.as_bytes()), ("example.com.zone", units)]).expect("loads");
    assert_eq!(names, ["www.example.com"]);
    // A CAA line that cannot be read is never passed over.
    let odd = b";; Domain:     example.com.\nwww\t1x\tIN\tCAA\t0 issue \"letsencrypt.org\"\n";
    let err = ca005_names(&[("hosts.json", hosts.as_bytes()), ("example.com.zone", odd)]).expect_err("an error");
    assert!(
        err.contains("example.com.zone:2:") && err.contains("this CAA record could not be read"),
        "{err}"
    );
    // An owner named `caa` is just a name.
    let named_caa = b";; Domain:     example.com.\ncaa\tIN\tTXT\t\"x\"\n";
    assert!(
        ca005_names(&[("hosts.json", hosts.as_bytes()), ("example.com.zone", named_caa)])
            .expect("loads")
            .is_empty()
    );
}

#[test]
fn a_bare_total_tls_object_is_recognised_and_an_array_of_strings_is_not_an_export() {
    let total_tls = br#"{"enabled": true, "certificate_authority": "lets_encrypt", "validity_period": 90}"#;
    let dir = temp_dir(&[("exports/total-tls.json", total_tls), ("exports/names.json", br#"["a", "b"]"#)]);
    let r = run(&[
        "check",
        &path_str(&dir.path().join("exports")),
        "--format",
        "json",
        "--as-of",
        AS_OF,
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let doc = json(&r);
    assert_eq!(doc["findings"][0]["rule"], "CA003");
    assert_eq!(doc["summary"]["skipped"].as_array().map(Vec::len), Some(1));
    assert!(
        doc["summary"]["skipped"][0]["reason"]
            .as_str()
            .unwrap_or("")
            .contains("it holds no records")
    );
}

#[test]
fn exclude_patterns_of_a_config_found_upward_and_named_directories() {
    let old_pool = br#"{"result": [{"id": "old", "name": "old", "notification_email": "a@example.com", "origins": []}]}"#;
    let dir = temp_dir(&[
        (".edgeaudit.yaml", b"exclude: [exports/archive/]\n"),
        ("exports/pools.json", CLEAN_POOLS.1),
        ("exports/archive/pools-2023.json", old_pool),
        ("sub/.keep", b""),
    ]);
    let files = |cwd: &std::path::Path, args: &[&str]| {
        let mut all = vec!["check"];
        all.extend(args);
        all.extend(["--format", "json", "--fail-on", "never"]);
        let r = common::run_in(cwd, &all);
        assert_eq!(r.code, 0, "{}", r.stderr);
        json(&r)["summary"]["files"].as_u64()
    };
    // The config is found in the parent directory; its patterns are relative to it.
    assert_eq!(files(&dir.path().join("sub"), &["../exports"]), Some(1));
    // A directory named on the command line is read, even below an excluded one ...
    assert_eq!(files(dir.path(), &["exports/archive"]), Some(1));
    // ... unless --force-exclude says otherwise.
    assert_eq!(
        files(
            dir.path(),
            &["exports/archive/pools-2023.json", "exports/pools.json", "--force-exclude"]
        ),
        Some(1)
    );
}

#[test]
fn inventory_takes_every_ca_name_it_lists() {
    for ca in [
        "lets_encrypt",
        "letsencrypt",
        "LETS_ENCRYPT",
        "google",
        "ssl_com",
        "digicert",
        "default",
        "unknown",
        "other",
    ] {
        let r = run(&["inventory", "fixtures/demo", "--ca", ca, "--format", "json"]);
        assert_eq!(r.code, 0, "--ca {ca}: {}", r.stderr);
    }
    let r = run(&["inventory", "fixtures/demo", "--ca", "comodo"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("expected one of lets_encrypt, google, ssl_com, digicert, default, unknown, other"),
        "{}",
        r.stderr
    );
    let default = json(&run(&["inventory", "fixtures/demo", "--ca", "default", "--format", "json"]));
    assert!(
        default["certificates"]
            .as_array()
            .is_some_and(|rows| !rows.is_empty() && rows.iter().all(|r| r["ca"] == "default"))
    );
}

#[test]
fn unknown_records_beside_records_of_a_bundle_key_are_errors_not_a_skip() {
    // The pools are read by their bundle key; the zone's list holds a record of no kind.
    let bundle = br#"{"pools": [{"id": "p1", "name": "web", "notification_email": "", "origins": []}],
 "zones": [{"zone_id": "z1", "certificate_packs": {"result": [{"hosts": ["a.example.com"], "certificate_authority": "google"}]}, "result": [{"what": 1}]}]}"#;
    let dir = temp_dir(&[("exports/bundle.json", bundle), CLEAN_POOLS]);
    let r = run(&["check", &path_str(&dir.path().join("exports"))]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("bundle.json:2:") && r.stderr.contains("a list comes from one endpoint"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_record_under_dns_records_without_a_dns_type_is_an_error_not_an_unread_record() {
    let bundle = br#"{"zones": [{"zone_id": "z1", "dns_records": [
  {"id": "caa1", "type": "CAA", "name": "example.com", "content": "0 issue \"letsencrypt.org\""},
  {"id": "023e105f4ecef8ad9ca31a8372d0c353", "name": "example.com", "type": "full", "status": "active"}
]}]}"#;
    let dir = temp_dir(&[("zone.json", bundle)]);
    let r = run(&["check", &path_str(&dir.path().join("zone.json"))]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("zone.json:3:3:") && r.stderr.contains("listed as a DNS record"),
        "{}",
        r.stderr
    );
}

const VERDICTS: &str = "tests/fixtures/verdicts";

/// The pools as the service's migration guide lists them (name and e-mail,
/// no id) are judged: findings name them, LB004 counts them, and the plan
/// makes a person's step for each instead of refusing the export.
#[test]
fn the_migration_guides_pool_listing_is_judged() {
    let file = format!("{VERDICTS}/guide-pools.json");
    let r = run(&["check", &file, "--format", "json", "--as-of", AS_OF, "--no-config"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let doc = json(&r);
    let found: Vec<String> = findings(&doc);
    assert_eq!(
        found,
        [
            format!("LB004 account  {file}"),
            format!("LB001 pool primary-dc-1 {file}/0/notification_email"),
            format!("LB001 pool backup-dc-1 {file}/2/notification_email"),
        ]
    );
    let lb004 = doc["findings"][0]["message"].as_str().unwrap();
    assert!(lb004.contains("2 of 3 pools"), "{lb004}");
    let lb001 = doc["findings"][1]["message"].as_str().unwrap();
    assert!(lb001.contains("<the id of pool primary-dc-1: not in the export>"), "{lb001}");
    let sarif = run(&["check", &file, "--format", "sarif", "--as-of", AS_OF, "--no-config"]);
    let sarif: serde_json::Value = serde_json::from_str(&sarif.stdout).expect("sarif");
    let names: Vec<&str> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"pool/name=primary-dc-1") && names.contains(&"pool/name=backup-dc-1"),
        "{names:?}"
    );
    let plan = run(&["plan", &file, "--format", "json", "--as-of", AS_OF, "--no-config"]);
    assert_eq!(plan.code, 0, "{}", plan.stderr);
    let plan = json(&plan);
    assert_eq!(plan["summary"]["requests"], 0);
    let manual: Vec<&str> = plan["accounts"][0]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["reason"].as_str().unwrap())
        .collect();
    assert_eq!(manual.len(), 2, "{manual:?}");
    assert!(manual[0].contains("`primary-dc-1`") && manual[0].contains("no `id`"), "{manual:?}");
}

/// On a pools list that announces 2,000 pools with one loaded, no message
/// states a total the export does not hold.
#[test]
fn counts_on_an_incomplete_list_say_at_least_of_the_pools_announced() {
    let file = format!("{VERDICTS}/incomplete-pools.json");
    let r = run(&["check", &file, "--format", "json", "--as-of", AS_OF, "--no-config"]);
    let doc = json(&r);
    let messages: Vec<&str> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    let lb004 = messages.iter().find(|m| m.starts_with("Migration incomplete")).expect("LB004");
    assert!(lb004.contains("at least 1 of the 2000 pools the export announces"), "{lb004}");
    assert!(lb004.contains("80 requests for the 2000 pools"), "{lb004}");
    for m in &messages {
        assert!(!m.contains("the account has one pool"), "{m}");
    }
    // No page-wide clear of pools the export does not hold: a person's step, after a whole export.
    let lb004 = doc["findings"].as_array().unwrap().iter().find(|f| f["rule"] == "LB004").unwrap();
    let actions = lb004["actions"].as_array().expect("actions");
    assert_eq!(actions.len(), 1, "{lb004:#}");
    assert!(actions[0].to_string().contains("export every pool"), "{lb004:#}");
}

/// One DNS record returned by five recorded answers is one record.
#[test]
fn dns_records_are_counted_once_by_id() {
    let r = run(&[
        "check",
        &format!("{VERDICTS}/dns-answers"),
        "--format",
        "json",
        "--as-of",
        AS_OF,
        "--no-config",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(json(&r)["summary"]["records"], serde_json::json!({"dns_record": 2}));
}

/// A settings answer whose kind its fields cannot tell is skipped in a walk,
/// with its reason and the way to give it; the rest of the folder is judged.
#[test]
fn an_ambiguous_setting_met_while_walking_is_skipped_and_the_rest_judged() {
    let dir = format!("{VERDICTS}/recorded-answers");
    let r = run(&["check", &dir, "--format", "json", "--as-of", AS_OF, "--no-config"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let doc = json(&r);
    let skipped = doc["summary"]["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert!(skipped[0].to_string().contains("--kind universal_ssl"), "{skipped:?}");
    assert!(
        findings(&doc).iter().any(|f| f.starts_with("LB001 pool primary-dc-1")),
        "{:?}",
        findings(&doc)
    );
    let named = run(&["check", &format!("{dir}/universal-ssl-settings.json"), "--no-config"]);
    assert_eq!(named.code, 2, "{}", named.stderr);
    assert!(named.stderr.contains("--kind universal_ssl"), "{}", named.stderr);
}
