//! Terraform as an input (docs/src/terraform.md): `terraform show -json` state and
//! plan, and raw `.tfstate`, with both provider generations' shapes, fill
//! the same model as the API exports; findings name the resource address.

use crate::common;

use std::collections::BTreeSet;

use common::{json, run, temp_dir};

const DIR: &str = "tests/fixtures/terraform";

/// (rule, pointer, address) of every finding of one fixture.
fn findings(file: &str) -> BTreeSet<(String, String, String)> {
    let r = run(&[
        "check",
        &format!("{DIR}/{file}"),
        "--format",
        "json",
        "--as-of",
        "2024-10-01",
        "--no-config",
    ]);
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    json(&r)["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap_or_default().to_string(),
                f["location"]["pointer"].as_str().unwrap_or_default().to_string(),
                f["resource"]["address"].as_str().unwrap_or("(none)").to_string(),
            )
        })
        .collect()
}

use common::triples as set;

#[test]
fn a_v4_state_fires_every_applicable_rule_at_its_attribute() {
    let root = "/values/root_module/resources";
    assert_eq!(
        findings("v4-show-state.json"),
        set(&[
            ("LB004", &format!("{root}/0"), "(none)"),
            (
                "LB002",
                &format!("{root}/0/values/notification_email"),
                "cloudflare_load_balancer_pool.web"
            ),
            (
                "LB003",
                &format!("{root}/1/values/notification_email"),
                "cloudflare_load_balancer_pool.api"
            ),
            (
                "LB005",
                &format!("{root}/4/values/filters/0/new_health/0"),
                "cloudflare_notification_policy.api"
            ),
            ("LB007", &format!("{root}/5/values/enabled"), "cloudflare_notification_policy.old"),
            (
                "LB006",
                &format!("{root}/5/values/filters/0/pool_id/0"),
                "cloudflare_notification_policy.old"
            ),
            (
                "CA002",
                &format!("{root}/7/values/certificate_authority"),
                "cloudflare_certificate_pack.advanced"
            ),
            (
                "CA003",
                &format!("{root}/8/values/certificate_authority"),
                "cloudflare_total_tls.example"
            ),
            (
                "CA004",
                &format!("{root}/9/values/ssl/0/certificate_authority"),
                "cloudflare_custom_hostname.shop"
            ),
            (
                "LB001",
                "/values/root_module/child_modules/0/resources/0/values/notification_email",
                "module.batch.cloudflare_load_balancer_pool.workers"
            ),
        ])
    );
}

#[test]
fn a_v5_plan_is_judged_as_it_will_be_and_says_what_it_changes() {
    let filters = "/resource_changes/5/change/after/filters";
    assert_eq!(
        findings("v5-plan.json"),
        set(&[
            ("LB004", "/resource_changes/0/change", "(none)"),
            ("EX005", filters, "cloudflare_load_balancer_pool.edge (planned: update)"),
            ("EX005", filters, "cloudflare_load_balancer_pool.fresh (planned: create)"),
            ("EX005", filters, "cloudflare_notification_policy.fresh (planned: create)"),
        ]),
        "the pool the plan deletes is gone, no LB001 for it; the pool the plan creates is judged by \
         its address; the planned policy whose pool_id is unknown may cover both, so neither is \
         called uncovered or partly covered: EX005 at the policy's filters says so, and fails the run"
    );
    // Without that policy, the pool's coverage is known: partly covered.
    let mut plan: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(format!("{DIR}/v5-plan.json")).unwrap()).unwrap();
    plan["resource_changes"].as_array_mut().unwrap().pop();
    let dir = temp_dir(&[("plan.json", plan.to_string().as_bytes())]);
    let known = dir.path().join("plan.json");
    let doc = json(&run(&[
        "check",
        known.to_str().unwrap(),
        "--format",
        "json",
        "--as-of",
        "2024-10-01",
        "--no-config",
    ]));
    let lb003 = doc["findings"].as_array().unwrap().iter().find(|f| f["rule"] == "LB003").unwrap();
    let message = lb003["message"].as_str().unwrap();
    assert!(
        message.contains("origin Healthy") && message.contains("net@example.com"),
        "{message}"
    );
    assert_eq!(lb003["resource"]["address"], "cloudflare_load_balancer_pool.edge (planned: update)");
    let r = run(&[
        "check",
        &format!("{DIR}/v5-plan.json"),
        "--format",
        "json",
        "--as-of",
        "2024-10-01",
        "--no-config",
    ]);
    let doc = json(&r);
    assert_eq!(doc["summary"]["records"]["pool"], 2, "the pool the plan creates is one");
    assert_eq!(doc["summary"]["records"]["dns_record"], 1);
    // Nothing is skipped: a planned pool's id is its address until apply,
    // and a policy's filters known only after apply stop only the rules
    // that read them, each said by EX005 and counted in the summary.
    assert_eq!(doc["summary"]["skipped"], serde_json::json!([]));
    assert_eq!(
        doc["summary"]["not_judged"],
        serde_json::json!([
            common::not_judged(&["LB001", "LB002", "LB003"], "pool", 2),
            common::not_judged(&["LB006"], "notification_policy", 1),
        ])
    );
    let ex005 = doc["findings"].as_array().unwrap().iter().find(|f| f["rule"] == "EX005").unwrap();
    assert!(
        ex005["message"]
            .as_str()
            .unwrap()
            .contains("`filters.pool_id` of notification_policy"),
        "{ex005}"
    );
    // What only apply gives is in the applied state, not in another plan.
    assert!(ex005["message"].as_str().unwrap().contains("on the state once applied"), "{ex005}");
    assert_eq!(r.code, 1, "EX005 is a warning: the default --fail-on fails the run");
    let sarif = json(&run(&[
        "check",
        &format!("{DIR}/v5-plan.json"),
        "--format",
        "sarif",
        "--as-of",
        "2024-10-01",
        "--no-config",
    ]));
    assert!(sarif.to_string().contains("cloudflare_notification_policy.fresh (planned: create)"));
}

#[test]
fn a_raw_tfstate_names_module_and_index_in_the_address() {
    let module = "/resources/1/instances";
    assert_eq!(
        findings("v4.tfstate"),
        set(&[
            ("LB004", &format!("{module}/0"), "(none)"),
            (
                "LB002",
                &format!("{module}/0/attributes/notification_email"),
                "module.lb.cloudflare_load_balancer_pool.regional[\"eu\"]"
            ),
            (
                "LB001",
                &format!("{module}/1/attributes/notification_email"),
                "module.lb.cloudflare_load_balancer_pool.regional[\"us\"]"
            ),
            (
                "CA006",
                "/resources/3/instances/0/attributes/uploaded_on",
                "cloudflare_custom_ssl.shop"
            ),
        ]),
        "an unset PEM (\"\" in SDKv2 state) is no unreadable PEM (no EX003)"
    );
}

#[test]
fn sarif_names_terraform_resources_by_address_and_stays_valid() {
    let r = run(&["check", DIR, "--format", "sarif", "--as-of", "2024-10-01", "--no-config"]);
    let sarif = json(&r);
    common::assert_valid_sarif(&sarif);
    let names: BTreeSet<&str> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"].as_str().unwrap())
        .collect();
    assert!(
        names.contains("module.lb.cloudflare_load_balancer_pool.regional[\"eu\"]"),
        "{names:?}"
    );
    assert!(names.contains("cloudflare_custom_ssl.shop"), "{names:?}");
}

#[test]
fn a_directory_walk_reads_tfstate_and_skips_terraform_documents_without_our_resources() {
    let other = br#"{"format_version": "1.0", "terraform_version": "1.5.7", "values": {"root_module": {"resources": [
      {"address": "aws_s3_bucket.b", "mode": "managed", "type": "aws_s3_bucket", "name": "b", "values": {"bucket": "b"}}]}}}"#;
    let state = std::fs::read(common::root().join(DIR).join("v4.tfstate")).unwrap();
    let dir = temp_dir(&[("aws.json", other), ("terraform.tfstate", &state)]);
    let r = common::run_in(dir.path(), &["check", ".", "--format", "json", "--as-of", "2024-10-01"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let doc = json(&r);
    assert_eq!(doc["summary"]["records"]["pool"], 2, "the .tfstate was read");
    let skipped = doc["summary"]["skipped"].as_array().expect("skipped");
    assert!(
        skipped
            .iter()
            .any(|s| s["file"] == "aws.json" && s["reason"].as_str().unwrap().contains("Terraform document with no resource")),
        "{skipped:?}"
    );
    // Named explicitly, the same document is an input error.
    let explicit = common::run_in(dir.path(), &["check", "aws.json"]);
    assert_eq!(explicit.code, 2);
    assert!(explicit.stderr.contains("aws.json:1:1"), "{}", explicit.stderr);
}

#[test]
fn broken_terraform_documents_are_located_input_errors() {
    let truncated = br#"{"format_version": "1.0", "terraform_version": "1.5.7", "values": {"root_module": {"resources": ["#;
    let old_state = br#"{"version": 3, "terraform_version": "0.11.14", "resources": []}"#;
    // Format 4 with Terraform 0.11's flat strings left in (63 of 65 instances in a real one).
    let flat_state = br#"{"version": 4, "terraform_version": "0.12.31", "resources": [
  {"mode": "managed", "type": "cloudflare_load_balancer_pool", "name": "web", "instances": [
    {"schema_version": 0, "attributes": {"id": "p0", "name": "api", "notification_email": ""}},
    {"schema_version": 0, "attributes_flat": {"id": "p1", "name": "web", "notification_email": "noc@example.com", "origins.#": "1"}},
    {"schema_version": 0, "attributes_flat": {"id": "p2", "name": "www", "notification_email": "noc@example.com", "origins.#": "1"}}]}]}"#;
    let dir = temp_dir(&[("plan.json", truncated), ("old.tfstate", old_state), ("flat.tfstate", flat_state)]);
    let r = common::run_in(dir.path(), &["check", "plan.json", "old.tfstate", "flat.tfstate"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("plan.json:1:"), "{}", r.stderr);
    assert!(
        r.stderr.contains("old.tfstate:1:1") && r.stderr.contains("format version 3") && r.stderr.contains("terraform state pull"),
        "{}",
        r.stderr
    );
    // Named as what it is, with how many, at the first flat instance, and how to get a readable one.
    assert!(
        r.stderr.contains("flat.tfstate:4:46:")
            && r.stderr.contains("2 of its 3 instances carry `attributes_flat`")
            && r.stderr.contains("terraform show -json"),
        "{}",
        r.stderr
    );
}

/// A single object whose kind its fields do not tell, named on the command
/// line, is refused naming `--kind` and every kind it takes (a zone setting
/// such as SSL's is none).
#[test]
fn a_single_object_of_no_known_kind_names_kind_and_the_kinds() {
    let dir = temp_dir(&[("ssl.json", br#"{"id": "ssl", "value": "off"}"#)]);
    let r = common::run_in(dir.path(), &["check", "ssl.json", "--no-config"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    for kind in edgeaudit::model::Kind::RECORD_KINDS {
        assert!(r.stderr.contains(&format!("`{}`", kind.as_str())), "{kind:?}: {}", r.stderr);
    }
    assert!(r.stderr.contains("ssl.json:1:1") && r.stderr.contains("`--kind`"), "{}", r.stderr);
}

#[test]
fn plan_on_terraform_input_warns_of_drift_and_never_updates_a_terraform_policy() {
    let r = run(&[
        "plan",
        &format!("{DIR}/v4-show-state.json"),
        "--format",
        "json",
        "--as-of",
        "2024-10-01",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("come from Terraform"), "{}", r.stderr);
    let doc = json(&r);
    assert_eq!(doc["summary"]["policy_updates"], 0);
    let steps = doc["accounts"][0]["steps"].as_array().unwrap();
    assert!(steps.iter().all(|s| s["method"] != "PUT"));
    // The typo'd policy stays a manual step instead.
    assert!(steps.iter().any(|s| s["reason"].as_str().unwrap().starts_with("LB005")));
}

#[test]
fn plan_never_counts_on_a_policy_whose_delivery_is_unknown() {
    // The policy e-mails web's recipient, but which pools it names comes
    // from a variable: left out, its pool_id would read as *all pools*, and
    // web would be cleared on its strength.
    let tf = br#"variable "pools" {
  type = list(string)
}

resource "cloudflare_notification_policy" "open" {
  name       = "open"
  alert_type = "load_balancing_health_alert"
  enabled    = true
  mechanisms = { email = [{ id = "ops@example.com" }] }
  filters    = { pool_id = var.pools }
}

resource "cloudflare_load_balancer_pool" "web" {
  name               = "web"
  origins            = [{ name = "w", address = "192.0.2.1" }]
  notification_email = "ops@example.com"
}
"#;
    let dir = temp_dir(&[("main.tf", tf)]);
    let r = common::run_in(dir.path(), &["plan", ".", "--format", "json", "--as-of", "2024-10-01"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let doc = json(&r);
    let account = &doc["accounts"][0];
    assert!(
        account["warnings"].as_array().unwrap().iter().any(|w| w
            .as_str()
            .unwrap()
            .starts_with("cloudflare_notification_policy.open not counted on")),
        "{account}"
    );
    let creates = account["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["kind"] == "create_policy")
        .count();
    assert_eq!(creates, 1, "web gets a policy of its own before it is cleared: {account}");
}

#[test]
fn a_resource_of_ours_without_readable_attributes_is_an_error_at_the_resource() {
    let state = |values: &str| {
        format!(
            r#"{{"format_version": "1.0", "terraform_version": "1.5.7", "values": {{"root_module": {{"resources": [
  {{"address": "cloudflare_load_balancer_pool.web", "mode": "managed", "type": "cloudflare_load_balancer_pool", "name": "web",
    "values": {values}}}]}}}}}}"#
        )
    };
    let missing = state("null");
    let mistyped = state(r#"{"id": "p1", "name": "web", "notification_email": 5}"#);
    let dir = temp_dir(&[("missing.json", missing.as_bytes()), ("mistyped.json", mistyped.as_bytes())]);
    for (file, says) in [
        ("missing.json", "attributes are not an object"),
        ("mistyped.json", "cloudflare_load_balancer_pool.web"),
    ] {
        let r = common::run_in(dir.path(), &["check", file]);
        assert_eq!(r.code, 2, "{file}: {}", r.stderr);
        // Line 3: the resource's values, not the top of the file.
        assert!(
            r.stderr.contains(&format!("{file}:3:")) && r.stderr.contains(says),
            "{file}: {}",
            r.stderr
        );
    }
}

#[test]
fn a_resource_a_plan_creates_is_judged_by_its_address_until_apply_gives_it_an_id() {
    let plan = br#"{"format_version": "1.2", "terraform_version": "1.9.8", "resource_changes": [
  {"address": "cloudflare_load_balancer_pool.fresh", "mode": "managed", "type": "cloudflare_load_balancer_pool", "name": "fresh",
   "change": {"actions": ["create"], "after": {"name": "fresh", "notification_email": "a@example.com"}, "after_unknown": {"id": true}}}]}"#;
    let dir = temp_dir(&[("plan.json", plan)]);
    let r = common::run_in(dir.path(), &["check", "plan.json", "--format", "json", "--as-of", "2024-10-01"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let doc = json(&r);
    assert_eq!(doc["summary"]["skipped"], serde_json::json!([]));
    let lb001 = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "LB001")
        .expect("LB001");
    assert_eq!(
        lb001["resource"]["address"],
        "cloudflare_load_balancer_pool.fresh (planned: create)"
    );
    assert_eq!(lb001["resource"]["id"], "${cloudflare_load_balancer_pool.fresh.id}");
    assert_eq!(lb001["location"]["line"], 3);
}

/// A plan's `after_unknown` marks an element of a list (a pool the plan
/// creates beside one that exists): the known element after it is judged at
/// its own place, and the unknown one is EX005.
#[test]
fn a_plans_unknown_list_element_leaves_the_known_ones_judged_at_their_places() {
    let plan = br#"{"format_version": "1.2", "terraform_version": "1.9.8", "resource_changes": [
  {"address": "cloudflare_notification_policy.health", "mode": "managed", "type": "cloudflare_notification_policy", "name": "health",
   "change": {"actions": ["create"],
    "after": {"account_id": "023e105f4ecef8ad9ca31a8372d0c353", "name": "pool health", "alert_type": "load_balancing_health_alert", "enabled": true,
              "mechanisms": {"email": [{"id": "noc@example.com"}]},
              "filters": {"pool_id": [null, "17b5962d775c646f3f9725cbc7a53df4"], "new_health": [null, "unhealthy"]}},
    "after_unknown": {"id": true, "filters": {"pool_id": [true, false], "new_health": [true, false]}}}}]}"#;
    let dir = temp_dir(&[("plan.json", plan)]);
    let r = common::run_in(dir.path(), &["check", "plan.json", "--format", "json", "--as-of", "2024-10-01"]);
    let doc = json(&r);
    let findings = doc["findings"].as_array().unwrap();
    let lb005 = findings
        .iter()
        .find(|f| f["rule"] == "LB005")
        .unwrap_or_else(|| panic!("LB005: {}", r.stdout));
    assert!(
        lb005["location"]["pointer"].as_str().unwrap().ends_with("/filters/new_health/1"),
        "the second element: {lb005}"
    );
    let ex005: Vec<&str> = findings
        .iter()
        .filter(|f| f["rule"] == "EX005")
        .map(|f| f["location"]["pointer"].as_str().unwrap())
        .collect();
    assert!(ex005.iter().any(|p| p.ends_with("/filters/new_health/0")), "{ex005:?}");
}

#[test]
fn an_api_export_whose_records_carry_a_terraform_version_key_stays_an_export() {
    let export = br#"{"success": true, "errors": [], "messages": [], "result": [
  {"id": "h1", "hostname": "shop.example.org", "custom_metadata": {"terraform_version": "1.5.7"},
   "ssl": {"method": "txt", "type": "dv", "certificate_authority": "lets_encrypt"}}]}"#;
    let dir = temp_dir(&[("custom-hostnames.json", export)]);
    let r = common::run_in(
        dir.path(),
        &["check", "custom-hostnames.json", "--format", "json", "--as-of", "2024-10-01"],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    let doc = json(&r);
    assert_eq!(doc["summary"]["records"]["custom_hostname"], 1);
    assert!(doc["findings"].as_array().unwrap().iter().any(|f| f["rule"] == "CA004"));
}

#[test]
fn a_raw_tfstate_without_mode_holds_managed_resources_and_data_sources_are_named() {
    // Hand-written and older states leave `mode` out: such a resource is managed.
    let no_mode = br#"{"version": 4, "terraform_version": "1.5.7", "resources": [
      {"type": "cloudflare_load_balancer_pool", "name": "web", "instances": [{"attributes": {
        "id": "17b5962d775c646f3f9725cbc7a53df4", "name": "web", "notification_email": "ops@example.com",
        "origins": [{"address": "192.0.2.1"}]}}]}]}"#;
    // A state of data sources only configures nothing: the skip says so
    // rather than claim no resource of ours is there.
    let data_only = br#"{"version": 4, "terraform_version": "1.5.7", "resources": [
      {"mode": "data", "type": "cloudflare_zone", "name": "lookup", "instances": [{"attributes": {"id": "z", "name": "example.com"}}]}]}"#;
    let dir = temp_dir(&[("no-mode.tfstate", no_mode), ("data.tfstate", data_only)]);
    let r = common::run_in(
        dir.path(),
        &[
            "check",
            "no-mode.tfstate",
            "--format",
            "json",
            "--as-of",
            "2024-10-01",
            "--no-config",
        ],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    let doc = json(&r);
    let rules: BTreeSet<&str> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains("LB001"), "the pool is judged: {rules:?}");
    let lb001 = doc["findings"].as_array().unwrap().iter().find(|f| f["rule"] == "LB001").unwrap();
    assert_eq!(lb001["resource"]["address"], "cloudflare_load_balancer_pool.web");

    let data = common::run_in(dir.path(), &["check", "data.tfstate", "--no-config"]);
    assert_eq!(data.code, 2, "{}", data.stderr);
    assert!(
        data.stderr
            .contains("only resources edgeaudit reads are data sources (data.cloudflare_zone.lookup)"),
        "{}",
        data.stderr
    );
    assert!(!data.stderr.contains("no resource edgeaudit reads"), "{}", data.stderr);
}
