//! `edgeaudit inventory`: every certificate, filtered by CA, as a table, JSON or CSV.

use crate::common;

use common::{json, run};

#[test]
fn every_certificate_of_the_demo_is_listed_with_its_chain_status() {
    let doc = json(&run(&["inventory", "fixtures/demo", "--format", "json"]));
    let rows = doc["certificates"].as_array().expect("certificates");
    assert_eq!(rows.len(), 13);
    let by_host = |host: &str| {
        rows.iter()
            .find(|r| r["hosts"].as_str().unwrap_or_default().contains(host))
            .unwrap_or_else(|| panic!("{host}"))
    };
    let shop = by_host("shop.example.com");
    assert_eq!(shop["kind"], "custom_certificate");
    assert_eq!(shop["chain"], "cross_signed");
    assert_eq!(shop["bundle_method"], "user_defined");
    assert_eq!(shop["explicit"], "uploaded");
    assert_eq!(by_host("static.example.com")["key_type"], "ecdsa");
    assert_eq!(by_host("api.example.com")["uploaded"], "2024-09-20");
    assert_eq!(by_host("app.customer-two.net")["ca"], "default");
    assert_eq!(by_host("app.customer-two.net")["explicit"], "no");
    let universal = by_host("*.example.com");
    assert_eq!(
        (
            universal["kind"].as_str(),
            universal["explicit"].as_str(),
            universal["chain"].as_str()
        ),
        (Some("certificate_pack"), Some("no"), Some("managed"))
    );
    assert_eq!(universal["pointer"], "/zones/0/certificate_packs/result/0/certificates/0");
}

#[test]
fn the_ca_filter_keeps_the_free_public_ca() {
    let doc = json(&run(&["inventory", "fixtures/demo", "--ca", "lets_encrypt", "--format", "json"]));
    let rows = doc["certificates"].as_array().expect("certificates");
    assert_eq!(
        rows.len(),
        10,
        "13 less the google pack, the google hostname and the default-CA hostname"
    );
    assert!(rows.iter().all(|r| r["ca"] == "lets_encrypt"));
    let google = json(&run(&["inventory", "fixtures/demo", "--ca", "GOOGLE", "--format", "json"]));
    assert_eq!(google["certificates"].as_array().map(Vec::len), Some(2));
}

#[test]
fn csv_and_table_render_the_same_rows() {
    let csv = run(&["inventory", "fixtures/demo", "--format", "csv"]);
    assert_eq!(csv.code, 0);
    let lines: Vec<&str> = csv.stdout.split("\r\n").filter(|l| !l.is_empty()).collect();
    assert_eq!(
        lines[0],
        "kind,id,hosts,ca,explicit,bundle_method,key_type,uploaded,expires,chain,file,pointer"
    );
    assert_eq!(lines.len(), 14);
    assert!(lines.iter().all(|l| l.split(',').count() == 12), "no field needs quoting here");
    let table = run(&["inventory", "fixtures/demo"]);
    assert!(table.stdout.starts_with("kind "));
    assert!(table.stdout.trim_end().ends_with("13 certificate(s)"));
}

#[test]
fn inventory_inputs_fail_like_check() {
    assert_eq!(run(&["inventory", "does/not/exist"]).code, 2);
}

#[test]
fn a_pack_ordered_but_not_issued_is_listed_without_a_guessed_certificate() {
    let doc = json(&run(&[
        "inventory",
        "tests/fixtures/real/certificate-packs.json",
        "--format",
        "json",
    ]));
    let rows = doc["certificates"].as_array().expect("certificates");
    let ordered = rows
        .iter()
        .find(|r| r["hosts"] == "ordered.example.com")
        .expect("the dedicated_custom pack with only id, type and hosts is a pack");
    assert_eq!(ordered["kind"], "certificate_pack");
    assert_eq!(ordered["chain"], "not_issued");
    assert_eq!((ordered["ca"].as_str(), ordered["expires"].as_str()), (Some("unknown"), Some("")));
}
