//! The certificate rules over time (`--as-of` replays) and bad certificate input.

use crate::common;

use common::{json, path_str, run, temp_dir};

/// The JSON report of one rule on one fixture at a date.
fn report(path: &str, rule: &str, as_of: &str) -> serde_json::Value {
    json(&run(&[
        "check",
        path,
        "--select",
        rule,
        "--format",
        "json",
        "--as-of",
        as_of,
        "--fail-on",
        "never",
    ]))
}

fn severities(path: &str, rule: &str, as_of: &str) -> Vec<String> {
    report(path, rule, as_of)["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["severity"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn a_user_defined_cross_sign_is_a_warning_until_it_expires_then_an_error() {
    let path = "tests/fixtures/rules/CA008.json";
    assert_eq!(severities(path, "CA008", "2024-09-29"), vec!["warning", "warning"]);
    assert_eq!(severities(path, "CA008", "2024-09-30"), vec!["error", "error"]);
    let before = report(path, "CA008", "2024-06-01");
    let after = report(path, "CA008", "2024-10-01");
    let before = before["findings"][0]["message"].as_str().unwrap_or_default().to_string();
    let after = after["findings"][0]["message"].as_str().unwrap_or_default().to_string();
    assert!(before.contains("expires on 2024-09-30; from then on"), "{before}");
    assert!(after.contains("expired on 2024-09-30, and clients"), "{after}");
    assert!(
        after.contains("ISRG Root X1 cross-signed by DST Root CA X3 (valid until 2024-09-30)"),
        "{after}"
    );
}

#[test]
fn expiry_is_judged_at_the_as_of_date() {
    let path = "tests/fixtures/rules/CA010.json";
    // fires-expired-yesterday expires 2024-09-30T23:59:59Z.
    assert_eq!(severities(path, "CA010", "2024-09-30").len(), 1, "only the long-expired one");
    assert_eq!(severities(path, "CA010", "2024-10-01").len(), 2);
    assert_eq!(severities(path, "CA010", "2022-12-31").len(), 0);
}

fn export(field: &str, value: &str) -> String {
    let mut cert = serde_json::json!({
        "id": "c1", "hosts": ["example.com"], "issuer": "LetsEncrypt", "signature": "SHA256WithRSA",
        "bundle_method": "force", "uploaded_on": "2024-01-01T00:00:00Z", "expires_on": "2024-04-01T00:00:00Z", "status": "active"
    });
    cert[field] = serde_json::Value::String(value.to_string());
    serde_json::to_string_pretty(&serde_json::json!({"zones": [{"custom_certificates": [cert]}]})).expect("json")
}

#[test]
fn malformed_certificate_fields_are_input_errors_at_the_field() {
    for (field, value, says) in [
        ("uploaded_on", "2024-13-01", "not an RFC 3339 timestamp"),
        ("expires_on", "soon", "not an RFC 3339 timestamp"),
        ("bundle_method", "shortest", "unknown bundle method"),
    ] {
        let text = export(field, value);
        let line = text.lines().position(|l| l.contains(&format!("\"{field}\""))).expect("field line") + 1;
        let dir = temp_dir(&[("zone.json", text.as_bytes())]);
        let file = path_str(&dir.path().join("zone.json"));
        let r = run(&["check", &file]);
        assert_eq!(r.code, 2, "{field}: {}", r.stderr);
        assert!(
            r.stderr.contains(&format!("zone.json:{line}:")),
            "{field} at line {line}: {}",
            r.stderr
        );
        assert!(r.stderr.contains(says), "{field}: {}", r.stderr);
    }
}

/// An unreadable PEM is a finding at the PEM (EX003), not an input error: the
/// rest of the file is analysed, and the rules that need the chain stay silent.
#[test]
fn an_unreadable_pem_is_a_located_finding_and_the_rest_is_analysed() {
    for (value, says) in [
        (
            "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n",
            "does not decode",
        ),
        ("just text", "no PEM certificate block"),
    ] {
        let text = export("certificate", value);
        let line = text.lines().position(|l| l.contains("\"certificate\"")).expect("field line") + 1;
        let dir = temp_dir(&[("zone.json", text.as_bytes())]);
        let file = path_str(&dir.path().join("zone.json"));
        let r = run(&["check", &file, "--format", "json", "--as-of", "2024-10-01"]);
        assert_eq!(r.code, 1, "{}", r.stderr);
        let doc = json(&r);
        let rules: Vec<&str> = doc["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|f| f["rule"].as_str().unwrap_or(""))
            .collect();
        let ex003 = doc["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .find(|f| f["rule"] == "EX003")
            .expect("EX003");
        assert_eq!(ex003["location"]["pointer"], "/zones/0/custom_certificates/0/certificate");
        assert_eq!(ex003["location"]["line"], line);
        assert!(ex003["message"].as_str().unwrap_or("").contains(says), "{ex003}");
        assert!(!rules.contains(&"CA009"), "a PEM is there, only unreadable: not CA009 ({rules:?})");
        assert!(rules.contains(&"CA010"), "the rest of the record is still analysed: {rules:?}");
    }
}

#[test]
fn total_tls_on_lets_encrypt_is_flagged_only_when_enabled() {
    let zones = br#"{"zones": [
  {"zone_id": "a", "total_tls": {"result": {"enabled": true, "certificate_authority": "lets_encrypt", "validity_period": 90}}},
  {"zone_id": "b", "total_tls": {"enabled": false, "certificate_authority": "lets_encrypt"}},
  {"zone_id": "c", "total_tls": {"enabled": true, "certificate_authority": "google"}},
  {"zone_id": "d", "total_tls": {"enabled": true}}
]}"#;
    let dir = temp_dir(&[("zones.json", zones)]);
    let doc = json(&run(&[
        "check",
        &path_str(&dir.path().join("zones.json")),
        "--select",
        "CA003",
        "--format",
        "json",
    ]));
    let findings = doc["findings"].as_array().expect("findings");
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(
        findings[0]["location"]["pointer"],
        "/zones/0/total_tls/result/certificate_authority"
    );
    assert_eq!(findings[0]["resource"]["kind"], "total_tls");
    assert!(
        findings[0]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("SSL/TLS > Edge Certificates > Total TLS")
    );
}

#[test]
fn the_universal_switch_is_announced_before_june_2024_and_reported_after() {
    let path = "tests/fixtures/rules/CA001.json";
    let message = |as_of: &str| {
        let doc = json(&run(&["check", path, "--select", "CA001", "--format", "json", "--as-of", as_of]));
        doc["findings"][0]["message"].as_str().unwrap_or_default().to_string()
    };
    assert!(
        message("2024-05-31").contains("will switch it automatically"),
        "{}",
        message("2024-05-31")
    );
    assert!(
        message("2024-06-01").contains("is switching such certificates automatically"),
        "{}",
        message("2024-06-01")
    );
    assert!(
        message("2024-09-09").contains("has been switching such certificates automatically"),
        "{}",
        message("2024-09-09")
    );
}

#[test]
fn a_malformed_caa_record_is_an_input_error_at_its_content() {
    let zone = br#"{"zones": [{"dns_records": [
  {"type": "CAA", "name": "example.com", "content": "zero issue \"letsencrypt.org\""}
]}]}"#;
    let dir = temp_dir(&[("zone.json", zone)]);
    let r = run(&["check", &path_str(&dir.path().join("zone.json"))]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("zone.json:2:53") && r.stderr.contains("CAA flags"),
        "{}",
        r.stderr
    );
}

const HOSTNAMES: &[u8] = br#"{"custom_hostnames": [
  {"id": "h1", "hostname": "a.one.org", "ssl": {"certificate_authority": ""}},
  {"id": "h2", "hostname": "b.two.org", "ssl": {"certificate_authority": ""}},
  {"id": "h3", "hostname": "c.three.org", "ssl": {"certificate_authority": ""}},
  {"id": "h4", "hostname": "d.four.org", "ssl": {"certificate_authority": ""}}
]}"#;

#[test]
fn caa_records_come_from_bind_zone_exports() {
    let zone = b";; CAA Records
$ORIGIN one.org.
$TTL 300
@\t3600\tIN\tCAA\t0 issue \"letsencrypt.org\"
b.two.org.  IN 60  CAA 0 issue \"letsencrypt.org; account=12\" ; a comment \"with quotes\"
c.three\t3600\tIN\tCAA\t0 issue \"pki.goog\"
\t\tIN\tCAA\t0 issue \"letsencrypt.org\"
four.org.\tSOA\tns1.example. host.example. (
   1 2 3
   4 5 )
four.org.\tTXT\t\"v=spf1 -all; ;\"
";
    let dir = temp_dir(&[("hosts.json", HOSTNAMES), ("names.zone", zone)]);
    let doc = json(&common::run_in(
        dir.path(),
        &["check", ".", "--select", "CA005", "--format", "json"],
    ));
    let fired: Vec<&str> = doc["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["resource"]["name"].as_str().unwrap_or_default())
        .collect();
    // one.org (@) and two.org allow only Let's Encrypt; c.three.one.org (relative) is not c.three.org;
    // the inherited owner c.three.one.org also allows Let's Encrypt but does not apply to c.three.org.
    assert_eq!(fired, vec!["a.one.org", "b.two.org"]);
    assert_eq!(doc["summary"]["records"]["dns_record"], 4);
}

#[test]
fn a_zone_file_is_recognised_without_its_extension() {
    let zone = b";; exported\n$ORIGIN four.org.\nd\tIN\tCAA\t0 issue \"letsencrypt.org\"\n";
    let dir = temp_dir(&[("hosts.json", HOSTNAMES), ("four.org.txt", zone)]);
    let doc = json(&common::run_in(
        dir.path(),
        &["check", "hosts.json", "four.org.txt", "--select", "CA005", "--format", "json"],
    ));
    assert_eq!(doc["findings"][0]["resource"]["name"], "d.four.org");
}

#[test]
fn malformed_zone_files_are_input_errors_with_line_and_column() {
    for (zone, at, says) in [
        (&b"$ORIGIN x.org.\na\tIN\tCAA\t0 issue \"open\n"[..], "z.zone:2:10:", "unterminated"),
        (&b"a\tIN\tCAA\t0 issue \"x\"\n"[..], "z.zone:1:1:", "$ORIGIN"),
        (&b"\tIN\tCAA\t0 issue \"x\"\n"[..], "z.zone:1:1:", "inherits"),
        (&b"x.org.\tIN\tCAA\t(0 issue\n \"x\")\n"[..], "z.zone:1:11:", "multi-line"),
        (&b"x.org.\t3600\tIN\tCAA\n"[..], "z.zone:1:", "CAA flags"),
        (
            &b"a.x.org.\tIN\tTXT\t( \"x\"\nb.x.org.\tIN\tCAA\t0 issue \"y\"\n"[..],
            "z.zone:1:1:",
            "never closed",
        ),
    ] {
        let dir = temp_dir(&[("z.zone", zone)]);
        let r = run(&["check", &path_str(&dir.path().join("z.zone"))]);
        assert_eq!(r.code, 2, "{}", String::from_utf8_lossy(zone));
        assert!(
            r.stderr.contains(at) && r.stderr.contains(says),
            "expected {at} … {says}: {}",
            r.stderr
        );
    }
}

/// CA004's body sends the hostname's own `ssl.method` and `ssl.type` back
/// (the API replaces `ssl` whole: another method would change how the
/// hostname is validated), and says so where the export lacks them.
#[test]
fn ca004_body_keeps_the_hostnames_own_validation_method() {
    let report = report("tests/fixtures/rules/CA004.json", "CA004", "2024-10-01");
    let body_of = |hostname: &str| -> String {
        let findings = report["findings"].as_array().expect("findings");
        let f = findings
            .iter()
            .find(|f| f["resource"]["name"] == hostname)
            .unwrap_or_else(|| panic!("no CA004 on {hostname}: {report}"));
        let message = f["message"].as_str().unwrap_or_default();
        let start = message.find("{\"ssl\"").expect("a body");
        let end = message[start..].find("}}").expect("its end") + start + 2;
        message[start..end].to_string()
    };
    assert_eq!(
        body_of("fires-explicit-le"),
        r#"{"ssl":{"method":"txt","type":"dv","certificate_authority":"google"}}"#
    );
    assert_eq!(
        body_of("fires-explicit-le-upper-case"),
        r#"{"ssl":{"method":"http","type":"dv","certificate_authority":"google"}}"#
    );
    assert_eq!(
        body_of("fires-explicit-le-no-method"),
        r#"{"ssl":{"method":"<its ssl.method: not in the export>","type":"<its ssl.type: not in the export>","certificate_authority":"google"}}"#
    );
}

/// The actions follow: a request with the hostname's own validation, and no
/// request built on a guess where the export lacks it (a person's step that
/// says what to read first).
#[test]
fn ca004_sends_no_request_without_the_hostnames_validation() {
    let report = report("tests/fixtures/rules/CA004.json", "CA004", "2024-10-01");
    let actions_of = |hostname: &str| -> serde_json::Value {
        report["findings"]
            .as_array()
            .and_then(|f| f.iter().find(|f| f["resource"]["name"] == hostname))
            .map(|f| f["actions"].clone())
            .unwrap_or_else(|| panic!("no CA004 on {hostname}: {report}"))
    };
    let known = actions_of("fires-explicit-le");
    assert_eq!(known[0]["method"], "PATCH");
    assert_eq!(
        known[0]["body"],
        serde_json::json!({"ssl": {"method": "txt", "type": "dv", "certificate_authority": "google"}})
    );
    let unknown = actions_of("fires-explicit-le-no-method");
    assert_eq!(unknown.as_array().map(Vec::len), Some(1), "{unknown}");
    assert_eq!(unknown[0]["manual"], true, "{unknown}");
    assert!(unknown[0].get("method").is_none(), "{unknown}");
    assert!(
        unknown[0]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("does not give the hostname's ssl.method and ssl.type")),
        "{unknown}"
    );
}

/// CA011's remedy is one PATCH of the zone's Universal SSL settings, planned
/// once however many universal packs the zone has, with what `apply` checks
/// first; a zone the export does not name gets a person's step.
#[test]
fn a_zones_universal_ssl_is_moved_once_for_all_its_packs() {
    let export = br#"zones:
  - zone_id: 11111111111111111111111111111111
    universal_ssl: {enabled: true, certificate_authority: lets_encrypt}
    certificate_packs:
      - {id: p1, type: universal, hosts: [a.example], status: active, certificate_authority: lets_encrypt, certificates: []}
      - {id: p2, type: universal, hosts: [b.example], status: active, certificate_authority: lets_encrypt, certificates: []}
  - universal_ssl: {enabled: true, certificate_authority: lets_encrypt}
    certificate_packs:
      - {id: p3, type: universal, hosts: [c.example], status: active, certificate_authority: lets_encrypt, certificates: []}
"#;
    let dir = temp_dir(&[("zones.yaml", export)]);
    let path = path_str(&dir.path().join("zones.yaml"));
    let findings = report(&path, "CA011", "2024-10-01");
    assert_eq!(findings["findings"].as_array().map(Vec::len), Some(3), "{findings:#}");
    let r = run(&["plan", &path, "--format", "json", "--as-of", "2024-10-01", "--no-config"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let plan = json(&r);
    let steps = plan["accounts"][0]["steps"].as_array().expect("steps");
    let sets: Vec<&serde_json::Value> = steps.iter().filter(|s| s["kind"] == "set_universal_ssl").collect();
    assert_eq!(sets.len(), 1, "one request for the zone: {steps:#?}");
    assert_eq!(sets[0]["method"], "PATCH");
    assert_eq!(sets[0]["path"], "/zones/11111111111111111111111111111111/ssl/universal/settings");
    assert_eq!(sets[0]["body"], serde_json::json!({"certificate_authority": "google"}));
    assert_eq!(sets[0]["expects"], serde_json::json!({"certificate_authority": "lets_encrypt"}));
    let manual: Vec<&str> = steps
        .iter()
        .filter(|s| s["kind"] == "manual")
        .filter_map(|s| s["reason"].as_str())
        .collect();
    assert!(
        manual.len() == 1 && manual[0].contains("CA011: the export does not give the zone id"),
        "{manual:?}"
    );
}
