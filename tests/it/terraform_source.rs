//! Terraform source (`.tf`, docs/src/terraform.md): a directory's files are one
//! configuration; literal values, variables with literal defaults, literal
//! locals and references to a resource's `id` are resolved; anything else is
//! unknown, never guessed. Findings point at the attribute's line and column
//! in the `.tf` file.

use crate::common;

use std::collections::BTreeSet;

use common::{json, run, temp_dir};

const DIR: &str = "tests/fixtures/terraform";

fn check(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["check", "--format", "json", "--as-of", "2024-10-01", "--no-config"];
    all.extend_from_slice(args);
    let r = run(&all);
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    json(&r)
}

/// Every finding as (rule, file:line:column, the source text there), the
/// text cut at the end of its line.
fn located(doc: &serde_json::Value) -> BTreeSet<(String, String, String)> {
    doc["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            let loc = &f["location"];
            let file = loc["file"].as_str().expect("file");
            let (line, column) = (loc["line"].as_u64().expect("line"), loc["column"].as_u64().expect("column"));
            let text = std::fs::read_to_string(common::root().join(file)).expect("read");
            let there = common::text_at(&text, line as usize, column as usize)
                .lines()
                .next()
                .unwrap_or_default()
                .to_string();
            (
                f["rule"].as_str().expect("rule").to_string(),
                format!("{}:{line}:{column}", file.rsplit('/').next().unwrap_or(file)),
                there,
            )
        })
        .collect()
}

use common::triples as set;

#[test]
fn a_v4_configuration_fires_every_applicable_rule_at_the_tf_line() {
    let doc = check(&[&format!("{DIR}/hcl-v4")]);
    assert_eq!(
        located(&doc),
        set(&[
            ("LB001", "main.tf:19:24", "\"ops@example.com, ${local.sre}\""),
            ("LB003", "main.tf:38:24", "local.api_alerts"),
            ("LB002", "main.tf:49:24", "\"ops@example.com\""),
            ("LB004", "main.tf:16:1", "resource \"cloudflare_load_balancer_pool\" \"web\" {"),
            ("LB005", "alerts.tf:39:19", "\"unhealthy\"]"),
            ("LB006", "alerts.tf:38:19", "\"17b5962d775c646f3f9725cbc7a53df4\"]"),
            ("LB007", "alerts.tf:48:16", "false"),
            ("CA004", "certificates.tf:8:29", "\"lets_encrypt\""),
            ("CA005", "certificates.tf:30:29", "\"\""),
            ("CA002", "certificates.tf:52:27", "\"lets_encrypt\""),
            ("CA003", "certificates.tf:59:27", "\"lets_encrypt\""),
            // What a variable without a value or a function leaves open.
            ("EX005", "main.tf:70:24", "var.oncall_email"),
            ("EX005", "certificates.tf:66:21", "file(\"${path.module}/chain.pem\")"),
        ])
    );
    let findings = doc["findings"].as_array().unwrap();
    let lb001 = findings.iter().find(|f| f["rule"] == "LB001").unwrap();
    assert_eq!(lb001["resource"]["address"], "cloudflare_load_balancer_pool.web");
    assert!(
        lb001["message"].as_str().unwrap().contains("ops@example.com, sre@example.com"),
        "a template of a literal local is resolved: {}",
        lb001["message"]
    );
    let lb003 = findings.iter().find(|f| f["rule"] == "LB003").unwrap();
    assert!(
        lb003["message"].as_str().unwrap().contains("origin Healthy"),
        "the policy's `pool_id` reference names the pool of another file"
    );
    // Unknown values are said where they are, with why (EX005).
    let ex005 = |file: &str| {
        findings
            .iter()
            .filter(|f| f["rule"] == "EX005" && f["location"]["file"].as_str().unwrap().ends_with(file))
            .map(|f| f["message"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let main = ex005("main.tf");
    assert_eq!(main.len(), 1, "{main:?}");
    assert!(main[0].contains("`var.oncall_email` has no default"), "{main:?}");
    let certificates = ex005("certificates.tf");
    assert!(certificates[0].contains("`file(…)`"), "{certificates:?}");
    assert!(!certificates[0].contains("private_key"), "a key is never read: {certificates:?}");
    let skipped = doc["summary"]["skipped"].as_array().expect("skipped");
    let reason = |file: &str| {
        skipped
            .iter()
            .filter(|s| s["file"].as_str().unwrap().ends_with(file))
            .map(|s| s["reason"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    // Files of the configuration without resources of ours are listed, not errors.
    assert_eq!(reason("variables.tf").len(), 1);
    assert_eq!(
        doc["summary"]["skipped_resources"], 0,
        "every resource is judged as far as it is known"
    );
}

#[test]
fn a_v5_configuration_fires_every_applicable_rule_at_the_tf_line() {
    let doc = check(&[&format!("{DIR}/hcl-v5")]);
    assert_eq!(
        located(&doc),
        set(&[
            ("LB001", "main.tf:40:24", "\"api@example.org\""),
            ("LB002", "main.tf:28:24", "local.ops"),
            ("LB004", "main.tf:24:1", "resource \"cloudflare_load_balancer_pool\" \"web\" {"),
            ("LB005", "main.tf:62:29", "\"Origin\"]"),
            ("LB007", "main.tf:67:1", "resource \"cloudflare_notification_policy\" \"nobody\" {"),
            ("CA004", "main.tf:83:29", "\"lets_encrypt\""),
            ("CA005", "main.tf:94:29", "\"\""),
            ("CA002", "main.tf:126:27", "\"lets_encrypt\""),
        ]),
        "the static pool (`\"\"`), the A record and Total TLS on Google are near misses"
    );
    assert_eq!(doc["summary"]["skipped_resources"], 0);
}

#[test]
fn a_policy_unknown_before_apply_leaves_the_pools_it_may_cover_unjudged() {
    let doc = check(&[&format!("{DIR}/hcl-unknown")]);
    let rules: BTreeSet<&str> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(
        rules,
        BTreeSet::from(["EX005", "LB002", "LB004"]),
        "no LB001 for `web`: the unknown policy may cover it (EX005 says so); `api` is covered whatever it is"
    );
    assert_eq!(doc["summary"]["skipped"], serde_json::json!([]), "judged as far as it is known");
    let web = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "EX005" && f["resource"]["name"] == "web")
        .expect("EX005 for web");
    let message = web["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "LB001, LB002 and LB003 could not judge this resource: they read `mechanisms.email` of notification_policy on-call"
        ) && message.contains("`var.oncall` has no default"),
        "{message}"
    );
    assert_eq!(
        web["location"]["line"], 17,
        "at the policy's unknown value itself (`email = var.oncall`), not the block around it"
    );
    // What was not judged, by which rules: in the JSON summary and with --statistics.
    assert_eq!(
        doc["summary"]["not_judged"],
        serde_json::json!([
            common::not_judged(&["LB001", "LB002", "LB003"], "pool", 1),
            common::not_judged(&["LB007"], "notification_policy", 1),
        ])
    );
    let statistics = run(&[
        "check",
        &format!("{DIR}/hcl-unknown"),
        "--statistics",
        "--as-of",
        "2024-10-01",
        "--no-config",
        "--quiet",
    ]);
    assert!(
        statistics
            .stdout
            .contains("     1  pool not judged by LB001, LB002, LB003: a value these rules read is not known before apply"),
        "{}",
        statistics.stdout
    );
    // A fully known configuration has nothing unjudged.
    assert!(check(&[&format!("{DIR}/hcl-v5")])["summary"].get("not_judged").is_none());
    // Every format says so.
    every_format_says(&format!("{DIR}/hcl-unknown"), "cloudflare_notification_policy.oncall");
}

#[test]
fn a_named_tf_file_is_checked_with_the_rest_of_its_configuration_and_reports_its_own_findings() {
    let dir = format!("{DIR}/hcl-v4");
    let whole = located(&check(&[&dir]));
    let doc = check(&[&format!("{dir}/alerts.tf")]);
    let named = located(&doc);
    // Its pools (main.tf) and variables (variables.tf) are read, so coverage and LB006 are the
    // configuration's; only the findings in the named file are reported (pre-commit names the
    // files that changed), the others counted in one notice.
    let in_named: BTreeSet<_> = whole.iter().filter(|(_, at, _)| at.contains("alerts.tf:")).cloned().collect();
    assert!(!in_named.is_empty() && in_named.len() < whole.len(), "{whole:?}");
    assert_eq!(named, in_named);
    let notices = doc["notices"].to_string();
    let others = whole.len() - in_named.len();
    assert!(
        notices.contains("outside-named-files") && notices.contains(&format!("{others} findings in the other files")),
        "{notices}"
    );
    // Named too, a neighbour's findings are its own again.
    let both = located(&check(&[&format!("{dir}/alerts.tf"), &format!("{dir}/main.tf")]));
    assert!(both.iter().any(|(_, at, _)| at.contains("main.tf:")), "{both:?}");
    // A configuration file without resources of ours, named (as pre-commit
    // names changed files), is listed, not an error; its neighbours' findings are counted.
    let r = run(&["check", &format!("{dir}/variables.tf"), "--no-config", "--as-of", "2024-10-01"]);
    assert_eq!(r.code, 0, "nothing located in variables.tf: {}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("outside-named-files"), "{}", r.stdout);
}

#[test]
fn same_addresses_in_two_configurations_stay_two_resources() {
    let pool = br#"resource "cloudflare_load_balancer_pool" "web" {
  name               = "web"
  notification_email = "ops@example.com"
}
"#;
    let dir = temp_dir(&[("prod/main.tf", pool), ("staging/main.tf", pool)]);
    let r = common::run_in(
        dir.path(),
        &["check", ".", "--format", "sarif", "--as-of", "2024-10-01", "--no-config"],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    let sarif = json(&r);
    common::assert_valid_sarif(&sarif);
    let lb001: Vec<&serde_json::Value> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["ruleId"] == "LB001")
        .collect();
    assert_eq!(lb001.len(), 2, "one per configuration, no duplicate (EX002)");
    assert_ne!(
        lb001[0]["partialFingerprints"], lb001[1]["partialFingerprints"],
        "code scanning and baselines tell them apart"
    );
    let lb004 = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["ruleId"] == "LB004")
        .count();
    assert_eq!(lb004, 2, "each configuration is its own account");
}

#[test]
fn repeated_blocks_dynamic_blocks_and_broken_files_are_never_guessed() {
    let counted = br#"resource "cloudflare_load_balancer_pool" "web" {
  count              = 2
  name               = "web-${count.index}"
  notification_email = "ops@example.com"
}

resource "cloudflare_notification_policy" "dyn" {
  name       = "dyn"
  alert_type = "load_balancing_health_alert"
  enabled    = true
  dynamic "email_integration" {
    for_each = ["a@example.com"]
    content {
      id = email_integration.value
    }
  }
}
"#;
    let none = br#"resource "cloudflare_load_balancer_pool" "off" {
  count              = 0
  name               = "off"
  notification_email = "ops@example.com"
}
"#;
    let dir = temp_dir(&[("main.tf", counted), ("off.tf", none)]);
    let r = common::run_in(
        dir.path(),
        &["check", ".", "--format", "json", "--as-of", "2024-10-01", "--no-config"],
    );
    assert_eq!(r.code, 1, "what could not be judged fails the run: {}", r.stderr);
    let doc = json(&r);
    // The block of `count = 0` is no resource, and said so.
    let skipped = doc["summary"]["skipped"].to_string();
    assert!(
        skipped.contains("off.tf") && skipped.contains("`count = 0` makes no instance"),
        "{skipped}"
    );
    let located: BTreeSet<(String, u64, String)> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["location"]["line"].as_u64().unwrap(),
                f["resource"]["address"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(
        located,
        BTreeSet::from([
            // Judged once for every instance: its e-mail does not differ per
            // instance, but whether the policy with a dynamic block covers it is unknown.
            ("EX005".to_string(), 11, "cloudflare_load_balancer_pool.web".to_string()),
            ("EX005".to_string(), 11, "cloudflare_notification_policy.dyn".to_string()),
            ("LB004".to_string(), 1, String::new()),
        ]),
        "a block of `count = 0` makes no pool: {located:?}"
    );
    let messages: Vec<&str> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["message"].as_str())
        .collect();
    assert!(messages.iter().any(|m| m.contains("dynamic \"email_integration\"")), "{messages:?}");
    // A resource block without its two labels is no resource to pass over.
    let unnamed = temp_dir(&[(
        "main.tf",
        b"resource \"cloudflare_load_balancer_pool\" {\n  notification_email = \"ops@example.com\"\n}\n",
    )]);
    let r = common::run_in(unnamed.path(), &["check", ".", "--no-config"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("main.tf:1:1") && r.stderr.contains("two labels"), "{}", r.stderr);

    let broken = temp_dir(&[("main.tf", b"resource \"cloudflare_load_balancer_pool\" \"web\" {\n  name = \n}\n")]);
    let r = common::run_in(broken.path(), &["check", "main.tf", "--no-config"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("main.tf:2:") || r.stderr.contains("main.tf:3:"), "{}", r.stderr);
    assert!(r.stderr.contains("not valid Terraform (HCL)"), "{}", r.stderr);
}

#[test]
fn remedies_of_a_configuration_are_terraform_edits() {
    let doc = check(&[&format!("{DIR}/hcl-v4")]);
    let findings = doc["findings"].as_array().unwrap();
    let by_rule = |rule: &str| findings.iter().find(|f| f["rule"] == rule).unwrap();
    let lb001 = by_rule("LB001");
    assert!(
        lb001["message"]
            .as_str()
            .unwrap()
            .contains("`pool_id = [cloudflare_load_balancer_pool.web.id]`"),
        "{}",
        lb001["message"]
    );
    let actions = lb001["actions"].as_array().unwrap();
    assert_eq!(actions.len(), 2, "{actions:?}");
    let block = actions[0]["terraform"]["add_resource"].as_str().unwrap();
    let parsed = hcl_edit::parser::parse_body(block).expect("the block is valid HCL");
    assert_eq!(parsed.blocks().count(), 1);
    assert!(
        block.contains("email_integration {"),
        "the configuration's generation (v4): {block}"
    );
    assert!(block.contains("pool_id      = [cloudflare_load_balancer_pool.web.id]"), "{block}");
    assert_eq!(actions[1]["terraform"]["address"], "cloudflare_load_balancer_pool.web");
    assert_eq!(actions[1]["terraform"]["remove_attribute"], "notification_email");
    assert_eq!(actions[1]["depends_on"], serde_json::json!([0]));
    assert!(actions.iter().all(|a| a.get("method").is_none()), "no API call for a configuration");
    let lb003 = by_rule("LB003");
    assert!(
        lb003["message"]
            .as_str()
            .unwrap()
            .contains("`pool_id = [cloudflare_load_balancer_pool.api.id]`"),
        "{}",
        lb003["message"]
    );
    assert_eq!(lb003["actions"][1]["terraform"]["address"], "cloudflare_load_balancer_pool.api");
    // `api` has no `notification_filter` block to show its generation: its
    // configuration's blocks do.
    let api_block = lb003["actions"][0]["terraform"]["add_resource"].as_str().unwrap();
    assert!(
        api_block.contains("email_integration {") && !api_block.contains("mechanisms"),
        "{api_block}"
    );
    assert!(
        by_rule("LB004")["message"]
            .as_str()
            .unwrap()
            .contains("Remove the attribute from each pool resource"),
        "{}",
        by_rule("LB004")["message"]
    );
    let lb002 = by_rule("LB002");
    assert!(
        lb002["message"]
            .as_str()
            .unwrap()
            .ends_with("Remove `notification_email` from cloudflare_load_balancer_pool.batch.")
    );
    assert_eq!(lb002["actions"][0]["terraform"]["remove_attribute"], "notification_email");
    assert!(by_rule("LB004").get("actions").is_none_or(|a| a.is_null()));
    // v5 blocks for a v5 configuration.
    let v5 = check(&[&format!("{DIR}/hcl-v5")]);
    let lb001 = common::finding(&v5, "LB001");
    let block = lb001["actions"][0]["terraform"]["add_resource"].as_str().unwrap();
    assert!(block.contains("mechanisms = {") && block.contains("filters = {"), "{block}");
}

#[test]
fn plan_format_terraform_applied_to_the_configuration_migrates_it() {
    let src = common::root().join(DIR).join("hcl-v4");
    let r = run(&["plan", src.to_str().unwrap(), "--format", "terraform", "--as-of", "2024-10-01"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stderr.contains("drift"), "no API calls, no drift warning: {}", r.stderr);
    let blocks = &r.stdout;
    assert_eq!(
        hcl_edit::parser::parse_body(blocks).expect("valid HCL").blocks().count(),
        2,
        "{blocks}"
    );
    assert!(blocks.contains("#   cloudflare_load_balancer_pool.web\n"), "{blocks}");
    // Do what it says: add the blocks, remove the listed pools' e-mails.
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let mut text = std::fs::read_to_string(&path).unwrap();
        if name == "main.tf" {
            text = text
                .lines()
                .filter(|l| !l.trim_start().starts_with("notification_email") || l.contains("var.oncall_email"))
                .map(|l| format!("{l}\n"))
                .collect();
        }
        files.push((name, text.into_bytes()));
    }
    files.push(("migration.tf".into(), blocks.clone().into_bytes()));
    let named: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
    let dir = temp_dir(&named);
    let after = json(&common::run_in(
        dir.path(),
        &["check", ".", "--format", "json", "--as-of", "2024-10-01", "--no-config"],
    ));
    let rules: BTreeSet<&str> = after["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(
        rules
            .iter()
            .all(|r| !r.starts_with("LB00") || ["LB005", "LB006", "LB007"].contains(r)),
        "no pool left to migrate: {rules:?}"
    );
}

#[test]
fn module_calls_are_listed_as_not_followed_in_every_format() {
    let dir = format!("{DIR}/hcl-modules");
    let doc = check(&[&dir]);
    let skipped = doc["summary"]["skipped"].as_array().unwrap();
    let at = |file: &str| {
        skipped
            .iter()
            .find(|s| s["file"] == format!("{dir}/{file}"))
            .unwrap_or_else(|| panic!("{file} not listed: {skipped:?}"))
    };
    let call = at("main.tf");
    assert_eq!((call["line"].as_u64(), call["column"].as_u64()), (Some(10), Some(1)));
    let reason = call["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("module.alerts (source `./modules/alerts`): module calls are not followed")
            && reason.contains("judged as if it created none"),
        "{reason}"
    );
    // A file of module calls only is skipped, and says which calls it holds.
    let only_calls = at("dns.tf")["reason"].as_str().unwrap();
    assert!(
        only_calls.contains("its module calls (module.dns) are not followed"),
        "{only_calls}"
    );
    // The module's directory is a configuration of its own: its policy's
    // pool comes from the caller, so it is unknown there — but no pool is
    // loaded there, so the only rule that reads it (LB006) does not apply,
    // and nothing is "not judged".
    let module_policy: Vec<&serde_json::Value> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "EX005" && f["resource"]["address"] == "cloudflare_notification_policy.web")
        .collect();
    assert!(module_policy.is_empty(), "{module_policy:?}");
    // The caller's pool is judged as if the module created no policy.
    let rules: BTreeSet<&str> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| !f["location"]["file"].as_str().unwrap().contains("/modules/"))
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, BTreeSet::from(["LB001", "LB004"]));
    every_format_says(&dir, "module.alerts (source `./modules/alerts`)");
}

/// Each report format of a check of `path` says `text` somewhere (output or standard error).
fn every_format_says(path: &str, text: &str) {
    for format in common::report_formats() {
        let format = format.as_str();
        let r = run(&[
            "check",
            path,
            "--format",
            format,
            "--as-of",
            "2024-10-01",
            "--no-config",
            "--color",
            "never",
        ]);
        assert!(format!("{}{}", r.stdout, r.stderr).contains(text), "{format}: {}", r.stdout);
    }
}

#[test]
fn variables_files_terraform_loads_by_itself_override_defaults() {
    let main = br#"variable "email" {
  default = ""
}

resource "cloudflare_load_balancer_pool" "web" {
  name               = "web"
  notification_email = var.email
}
"#;
    let judged = |files: &[(&str, &[u8])]| {
        let dir = temp_dir(files);
        let r = common::run_in(
            dir.path(),
            &["check", ".", "--format", "json", "--as-of", "2024-10-01", "--no-config"],
        );
        assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
        json(&r)
    };
    // The default alone: no legacy e-mail, nothing to find (the near miss).
    let default = judged(&[("main.tf", main)]);
    assert_eq!(default["findings"].as_array().unwrap().len(), 0, "{default}");
    // terraform.tfvars sets it, and *.auto.tfvars.json sets it again, later.
    let set = judged(&[
        ("main.tf", main),
        ("terraform.tfvars", b"email = \"base@example.com\"\n"),
        ("prod.auto.tfvars.json", br#"{"email": "ops@example.com"}"#),
        ("staging.tfvars", b"email = \"only with -var-file\"\n"),
    ]);
    let lb001 = common::finding(&set, "LB001");
    assert!(lb001["message"].as_str().unwrap().contains("ops@example.com"), "{lb001}");
    // A variables file that cannot be read may set anything: not judged, and said (EX005).
    let not_judged = |doc: &serde_json::Value| -> String {
        let findings = doc["findings"].as_array().unwrap();
        // The pool's coverage rules, and the account's LB004: no pool is known to carry an e-mail.
        assert_eq!(findings.len(), 2, "{doc}");
        assert!(findings.iter().all(|f| f["rule"] == "EX005"), "{doc}");
        findings[0]["message"].as_str().unwrap().to_string()
    };
    let unread = judged(&[("main.tf", main), ("terraform.tfvars", b"email = \n")]);
    let reason = not_judged(&unread);
    assert!(
        reason.contains("`var.email` may be set by a variables file: terraform.tfvars cannot be read"),
        "{reason}"
    );
    // Read after a file that sets it, an unreadable one may set it again: not judged either.
    let overridden = judged(&[
        ("main.tf", main),
        ("terraform.tfvars", b"email = \"base@example.com\"\n"),
        ("z.auto.tfvars", b"email = \n"),
    ]);
    let reason = not_judged(&overridden);
    assert!(reason.contains("z.auto.tfvars cannot be read"), "{reason}");
}

#[test]
fn an_empty_tf_file_is_listed_like_one_without_resources() {
    let dir = temp_dir(&[
        (
            "main.tf",
            b"resource \"cloudflare_load_balancer_pool\" \"web\" {\n  name = \"web\"\n}\n",
        ),
        ("outputs.tf", b""),
    ]);
    let r = common::run_in(dir.path(), &["check", "outputs.tf", "--format", "json", "--no-config"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let doc = json(&r);
    let skipped = &doc["summary"]["skipped"][0];
    assert_eq!(skipped["file"], "outputs.tf");
    assert!(
        skipped["reason"].as_str().unwrap().contains("no resource edgeaudit reads"),
        "{skipped}"
    );
}

#[test]
fn blocks_follow_each_configurations_provider_generation() {
    // v4 by `required_providers` alone: no resource shows a block.
    let pinned = br#"terraform {
  required_providers {
    cloudflare = {
      source  = "cloudflare/cloudflare"
      version = "~> 4.52"
    }
  }
}

resource "cloudflare_load_balancer_pool" "web" {
  name               = "web"
  notification_email = "ops@example.com"
}
"#;
    let dir = temp_dir(&[("v4/main.tf", pinned)]);
    let v4 = dir.path().join("v4");
    let r = common::run_in(&v4, &["check", ".", "--format", "json", "--as-of", "2024-10-01", "--no-config"]);
    let doc = json(&r);
    let lb001 = common::finding(&doc, "LB001");
    let block = lb001["actions"][0]["terraform"]["add_resource"].as_str().unwrap();
    assert!(block.contains("email_integration {") && block.contains("filters {"), "{block}");

    // Two configurations of two generations in one plan: each its own.
    let r = run(&[
        "plan",
        &format!("{DIR}/hcl-v4"),
        &format!("{DIR}/hcl-v5"),
        "--format",
        "terraform",
        "--as-of",
        "2024-10-01",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let section = |dir: &str| {
        let start = r.stdout.find(&format!("# Account terraform:{DIR}/{dir}")).expect("section");
        let rest = &r.stdout[start + 1..];
        rest[..rest.find("\n# Account ").unwrap_or(rest.len())].to_string()
    };
    let (v4, v5) = (section("hcl-v4"), section("hcl-v5"));
    assert!(v4.contains("email_integration {") && !v4.contains("mechanisms = {"), "{v4}");
    assert!(v5.contains("mechanisms = {") && !v5.contains("email_integration {"), "{v5}");
}

/// One address declared twice (Terraform refuses it): EX002 at each block's
/// own line, and each block judged at its own attributes — the second
/// block's Let's Encrypt CA is CA002 at its line, the first's Google CA is not.
#[test]
fn an_address_declared_twice_is_reported_and_judged_at_each_block() {
    let doc = check(&[&format!("{DIR}/duplicate-address")]);
    assert_eq!(
        located(&doc),
        set(&[
            ("EX002", "main.tf:9:1", "resource \"cloudflare_certificate_pack\" \"edge\" {"),
            ("EX002", "main.tf:27:1", "resource \"cloudflare_certificate_pack\" \"edge\" {"),
            ("CA002", "main.tf:33:27", "\"lets_encrypt\""),
        ])
    );
    let pointers: BTreeSet<&str> = doc["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["location"]["pointer"].as_str())
        .collect();
    assert_eq!(
        pointers,
        BTreeSet::from([
            "/resource/cloudflare_certificate_pack/edge/0",
            "/resource/cloudflare_certificate_pack/edge/1",
            "/resource/cloudflare_certificate_pack/edge/1/certificate_authority",
        ])
    );
    let ex002 = common::finding(&doc, "EX002")["message"].as_str().expect("message");
    assert!(
        ex002.contains("Terraform refuses a configuration that declares one address twice"),
        "{ex002}"
    );
}

/// A CAA record whose value is not known before apply is read by custom
/// hostnames' CAA verdicts, which cannot say "not known": it is listed as
/// not analysed at the value, never read with the value left out. An A
/// record with the same unknown value is never read, so nothing is said.
#[test]
fn a_caa_record_with_an_unknown_value_is_listed_not_guessed() {
    let doc = check(&[&format!("{DIR}/unknown-caa")]);
    let skipped = doc["summary"]["skipped"].as_array().expect("skipped");
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    let reason = skipped[0]["reason"].as_str().expect("reason");
    assert!(
        reason.starts_with("cloudflare_record.caa: `data.0.value` is not known before apply"),
        "{reason}"
    );
    assert_eq!((skipped[0]["line"].as_u64(), skipped[0]["column"].as_u64()), (Some(15), Some(13)));
}

/// A policy whose `count` makes it absent with the configuration's own
/// values is not loaded (and said so), so it covers no pool; one whose
/// `count` is not known before a run is EX005 naming the expression, never
/// counted as existing.
#[test]
fn a_resource_that_may_not_exist_is_not_counted_as_existing() {
    let absent = run(&[
        "check",
        "tests/fixtures/verdicts/count-absent",
        "--format",
        "json",
        "--as-of",
        "2024-10-01",
        "--no-config",
    ]);
    let doc = json(&absent);
    let rules: Vec<&str> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["LB004", "LB001"], "no policy covers the pool");
    let skipped = doc["summary"]["skipped"].to_string();
    assert!(
        skipped.contains("cloudflare_notification_policy.lb")
            && skipped.contains(r#"`count = var.alert_email != \"\" ? 1 : 0` makes no instance"#),
        "{skipped}"
    );
    let unknown = run(&[
        "check",
        "tests/fixtures/verdicts/count-unknown",
        "--format",
        "json",
        "--as-of",
        "2024-10-01",
        "--no-config",
    ]);
    let doc = json(&unknown);
    let ex005: Vec<&serde_json::Value> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "EX005")
        .collect();
    assert!(!ex005.is_empty(), "{doc:#}");
    for f in &ex005 {
        let message = f["message"].as_str().unwrap();
        assert!(
            message.contains("`count = var.enable_alerts ? 1 : 0` decides whether it exists"),
            "{message}"
        );
        assert_eq!(f["location"]["line"], 17, "at the count: {f}");
    }
    assert!(
        !doc["findings"].as_array().unwrap().iter().any(|f| f["rule"] == "LB002"),
        "the pool is not read as covered by a policy that may never exist"
    );
}

/// A pre-commit run names the one `.tf` file a change touched: its module
/// is read whole (its pools decide LB006), but an untouched neighbour's
/// findings are only counted.
#[test]
fn naming_one_tf_file_reports_no_finding_of_an_untouched_neighbour() {
    let doc = check(&["tests/fixtures/verdicts/module-files/alerts.tf"]);
    let rules: Vec<&str> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["LB006"], "{doc:#}");
    assert_eq!(doc["notices"][0]["code"], "outside-named-files");
    assert!(doc["notices"][0]["message"].as_str().unwrap().contains("pools.tf: 2"), "{doc:#}");
}

/// A pre-commit run names the file of a pool whose coverage a value in a
/// neighbour's policy leaves open: the pool's EX005 is reported (at that
/// value), since the pool is the named file's; the neighbour's own finding
/// (the policy's) is only counted.
#[test]
fn a_named_files_pool_left_open_by_a_neighbours_value_is_reported() {
    let main = r#"resource "cloudflare_load_balancer_pool" "web" {
  account_id         = "023e105f4ecef8ad9ca31a8372d0c353"
  name               = "web"
  notification_email = "noc@example.com"
  origins {
    name    = "o1"
    address = "192.0.2.1"
  }
}
resource "cloudflare_load_balancer_pool" "api" {
  account_id         = "023e105f4ecef8ad9ca31a8372d0c353"
  name               = "api"
  notification_email = "noc@example.com"
  origins {
    name    = "o1"
    address = "192.0.2.2"
  }
}
"#;
    let policy = r#"variable "extra" {}
resource "cloudflare_notification_policy" "health" {
  account_id = "023e105f4ecef8ad9ca31a8372d0c353"
  name       = "pool health"
  alert_type = "load_balancing_health_alert"
  enabled    = true
  email_integration { id = "noc@example.com" }
  filters {
    pool_id = [cloudflare_load_balancer_pool.web.id, var.extra]
  }
}
"#;
    let dir = temp_dir(&[("main.tf", main.as_bytes()), ("policy.tf", policy.as_bytes())]);
    let r = common::run_in(
        dir.path(),
        &["check", "main.tf", "--format", "json", "--as-of", "2024-10-01", "--no-config"],
    );
    let doc = json(&r);
    let found: Vec<(String, String, String)> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["resource"]["name"].as_str().unwrap().to_string(),
                f["location"]["file"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let ex005 = ("EX005".to_string(), "api".to_string(), "policy.tf".to_string());
    assert!(found.contains(&ex005), "{found:?}");
    assert!(
        !found.iter().any(|(_, name, _)| name == "pool health"),
        "the neighbour's own findings are counted, not reported: {found:?}"
    );
    assert!(doc["notices"].to_string().contains("(policy.tf: 1)"), "{:#}", doc["notices"]);
}

/// A state committed beside the `.tf` source it was applied from: one
/// resource per address, judged on the state's values (its real ids) and
/// located at the source's blocks; the summary says they were joined. Two
/// states of one address that differ are EX002, as ever.
#[test]
fn a_state_beside_its_source_is_one_resource_per_address() {
    let dir = "tests/fixtures/verdicts/state-beside-source";
    let doc = check(&[dir]);
    assert_eq!(
        doc["summary"]["records"],
        serde_json::json!({"pool": 1, "notification_policy": 1, "certificate_pack": 2}),
        "{doc:#}"
    );
    assert_eq!(doc["summary"]["joined_with_source"], 4);
    let found: Vec<(String, String, String)> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                format!(
                    "{}:{}",
                    f["location"]["file"].as_str().unwrap().rsplit('/').next().unwrap(),
                    f["location"]["line"]
                ),
                f["resource"]["id"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let expected = [
        ("LB004", "main.tf:10", "terraform:tests/fixtures/verdicts/state-beside-source"),
        ("LB003", "main.tf:13", "17b5962d775c646f3f9725cbc7a53df4"),
        ("CA002", "main.tf:39", "3822ff90-ea29-44df-9e55-21300bb9419b"),
        ("CA002", "main.tf:49", "5a7805061c76ada191ed06f989cc3dad"),
    ];
    let expected: Vec<(String, String, String)> = expected
        .iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect();
    assert_eq!(found, expected);
    // Each file alone is the same resources, once.
    for file in ["main.tf", "terraform.tfstate"] {
        let alone = check(&[&format!("{dir}/{file}")]);
        assert_eq!(alone["summary"]["records"]["certificate_pack"], 2, "{file}");
        assert_eq!(alone["summary"]["joined_with_source"], 0, "{file}");
    }
    // A second state whose pool differs: EX002 at both places.
    let state = std::fs::read_to_string(format!("{dir}/terraform.tfstate")).unwrap();
    let main = std::fs::read(format!("{dir}/main.tf")).unwrap();
    let older = state.replace("\"ops@example.com\"", "\"ops@example.com,oncall@example.com\"");
    let two = temp_dir(&[
        ("main.tf", &main),
        ("terraform.tfstate", state.as_bytes()),
        ("older.tfstate", older.as_bytes()),
    ]);
    let r = common::run_in(
        two.path(),
        &["check", ".", "--format", "json", "--as-of", "2024-10-01", "--no-config"],
    );
    let doc = json(&r);
    let ex002: Vec<String> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "EX002")
        .map(|f| f["location"]["file"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ex002.len(), 2, "{doc:#}");
    assert!(ex002.contains(&"main.tf".to_string()), "{ex002:?}");
    assert_eq!(doc["summary"]["records"]["certificate_pack"], 2, "still counted once");
}

/// A certificate-pack module as real ones are written: `for_each` over a
/// local that `merge`s a conditional on a variable whose default is `true`
/// and a `for` with `if` over a map whose default is `{}`, the CA a variable
/// defaulting to `lets_encrypt`. Terraform plans one instance (`main_domain`)
/// on Let's Encrypt from the defaults: CA002, and no word of an unknown.
#[test]
fn a_module_of_merge_and_for_is_judged_as_terraform_plans_it() {
    let source = r#"
variable "zone_id" { default = "023e105f4ecef8ad9ca31a8372d0c353" }
variable "main_certificate" { default = true }
variable "certificate_authority" { default = "lets_encrypt" }
variable "records" {
  type    = map(object({ host = string, certificate = bool }))
  default = {}
}

locals {
  base_cert = var.main_certificate ? { main_domain = ["example.com", "*.example.com"] } : {}
  record_certs = { for name, record in var.records : name => [record.host] if record.certificate }
  all_certificate_hosts = merge(local.base_cert, local.record_certs)
}

resource "cloudflare_certificate_pack" "this" {
  for_each              = local.all_certificate_hosts
  zone_id               = var.zone_id
  type                  = "advanced"
  hosts                 = each.value
  validation_method     = "txt"
  validity_days         = 90
  certificate_authority = var.certificate_authority
}
"#;
    let (doc, r) = check_one_file(source);
    let rules: BTreeSet<&str> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["rule"].as_str())
        .collect();
    assert!(rules.contains("CA002"), "{rules:?}\n{}", r.stdout);
    assert!(!rules.contains("EX005"), "no unknown: {}", r.stdout);
}

/// A policy as real configurations write it: literal, valid `new_health`
/// and `event_source`, a `pool_id` from a remote state, `mechanisms` from a
/// `for` over a variable without a default, and no pool in the
/// configuration. LB005 reads only the literal values and judges them; LB006
/// applies only where a pool is loaded, so it is not "not judged"; LB007 is
/// blocked by `mechanisms` — one EX005, there, naming LB007 alone, with the
/// advice for a variable.
#[test]
fn ex005_names_exactly_the_rules_a_value_blocked() {
    let source = r#"
variable "alert_emails" { type = list(string) }

data "terraform_remote_state" "lb" {
  backend = "local"
  config  = { path = "../lb/terraform.tfstate" }
}

resource "cloudflare_notification_policy" "health" {
  account_id = "023e105f4ecef8ad9ca31a8372d0c353"
  name       = "pool health"
  alert_type = "load_balancing_health_alert"
  enabled    = true
  mechanisms = {
    email = [for e in var.alert_emails : { id = e }]
  }
  filters = {
    pool_id      = values(data.terraform_remote_state.lb.outputs.pool_ids)
    new_health   = ["Unhealthy"]
    event_source = ["pool"]
  }
}
"#;
    let (doc, _) = check_one_file(source);
    let findings = doc["findings"].as_array().unwrap();
    let ex005: Vec<&serde_json::Value> = findings.iter().filter(|f| f["rule"] == "EX005").collect();
    assert_eq!(ex005.len(), 1, "{ex005:#?}");
    let message = ex005[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("LB007 could not judge this resource: it reads `mechanisms.email`"),
        "{message}"
    );
    assert!(
        message.contains("`var.alert_emails` has no default") && message.contains("`-var`"),
        "{message}"
    );
    assert_eq!(ex005[0]["location"]["line"], 15, "at `email = [for …]`");
    assert!(
        !findings.iter().any(|f| f["rule"] == "LB005" || f["rule"] == "LB006"),
        "{findings:#?}"
    );
}

/// With a pool in the configuration, the same policy's `pool_id` from a
/// remote state blocks LB006: its EX005 is at `pool_id`, and its advice is a
/// plan's JSON (no `-var` sets a data source's output).
#[test]
fn ex005_advice_fits_where_the_unknown_comes_from() {
    let source = r#"
data "terraform_remote_state" "lb" {
  backend = "local"
  config  = { path = "../lb/terraform.tfstate" }
}

resource "cloudflare_load_balancer_pool" "web" {
  account_id = "023e105f4ecef8ad9ca31a8372d0c353"
  name       = "web"
  notification_email = "noc@example.com"
  origins {
    name    = "o1"
    address = "192.0.2.1"
  }
}

resource "cloudflare_notification_policy" "health" {
  account_id = "023e105f4ecef8ad9ca31a8372d0c353"
  name       = "pool health"
  alert_type = "load_balancing_health_alert"
  enabled    = true
  email_integration { id = "noc@example.com" }
  filters {
    pool_id      = values(data.terraform_remote_state.lb.outputs.pool_ids)
    new_health   = ["Unhealthy"]
    event_source = ["pool"]
  }
}
"#;
    let (doc, r) = check_one_file(source);
    let lb006 = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "EX005" && f["message"].as_str().unwrap_or("").starts_with("LB006"))
        .unwrap_or_else(|| panic!("an EX005 naming LB006: {}", r.stdout));
    let message = lb006["message"].as_str().unwrap();
    assert!(
        message.contains("data source") && message.contains("`terraform show -json` of a plan") && !message.contains("`-var`"),
        "{message}"
    );
    assert_eq!(lb006["location"]["line"], 24, "at `pool_id`");

    // A variable without a value is given one; a value a `for` makes of
    // such a variable too (the source is kept through what holds it).
    let source = source.replace(
        "values(data.terraform_remote_state.lb.outputs.pool_ids)",
        "[for id in var.pool_ids : lower(id)]",
    ) + "variable \"pool_ids\" {}\n";
    let (doc, r) = check_one_file(&source);
    let ex005 = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "EX005" && f["message"].as_str().unwrap_or("").starts_with("LB006"))
        .unwrap_or_else(|| panic!("an EX005 naming LB006: {}", r.stdout));
    let message = ex005["message"].as_str().unwrap();
    assert!(
        message.contains("give the variable a value (`-var`") && !message.contains("of a plan"),
        "{message}"
    );
}

/// A list literal is read element by element: a known misspelt filter value
/// or a pool id no loaded pool has is a finding at its own element, whatever
/// the unknown elements beside it are; each unknown element is EX005 at its
/// place, naming the rules it stopped (LB005 and LB006 judged the others).
#[test]
fn a_list_with_an_unknown_element_is_judged_on_its_known_elements() {
    let source = r#"variable "extra" {}

resource "cloudflare_load_balancer_pool" "web" {
  account_id         = "023e105f4ecef8ad9ca31a8372d0c353"
  name               = "web"
  notification_email = "noc@example.com"
  origins {
    name    = "o1"
    address = "192.0.2.1"
  }
}

resource "cloudflare_notification_policy" "health" {
  account_id = "023e105f4ecef8ad9ca31a8372d0c353"
  name       = "pool health"
  alert_type = "load_balancing_health_alert"
  enabled    = true
  email_integration { id = "noc@example.com" }
  filters {
    pool_id      = [var.extra, "absent-pool"]
    new_health   = [var.extra, "unhealthy", var.extra]
    event_source = ["pool"]
  }
}
"#;
    let (doc, r) = check_one_file(source);
    let at = |rule: &str, message_starts: &str| -> Vec<(String, u64, u64)> {
        doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["rule"] == rule && f["message"].as_str().unwrap_or("").starts_with(message_starts))
            .map(|f| {
                (
                    f["location"]["pointer"]
                        .as_str()
                        .unwrap()
                        .rsplit("/filters/0/")
                        .next()
                        .unwrap()
                        .to_string(),
                    f["location"]["line"].as_u64().unwrap(),
                    f["location"]["column"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    // The known elements, each at its place in the document (the second).
    assert_eq!(at("LB005", ""), [("new_health/1".to_string(), 21, 32)], "{}", r.stdout);
    assert_eq!(at("LB006", ""), [("pool_id/1".to_string(), 20, 32)], "{}", r.stdout);
    // The unknown ones, each naming the rules it stopped.
    assert_eq!(
        at("EX005", "LB005 could not"),
        [("new_health/0".to_string(), 21, 21), ("new_health/2".to_string(), 21, 45)],
        "each unknown element: {}",
        r.stdout
    );
    assert_eq!(at("EX005", "LB006 could not"), [("pool_id/0".to_string(), 20, 21)], "{}", r.stdout);
    assert_eq!(
        at("EX005", "LB001, LB002 and LB003 could not"),
        [("pool_id/0".to_string(), 20, 21)],
        "{}",
        r.stdout
    );
}

/// A policy whose `pool_id` names a pool by reference beside an unknown
/// element delivers to that pool as surely as if the list were known: the
/// pool is LB002. Any other pool may be the one the unknown element names,
/// so its coverage is not judged (EX005 at that element).
#[test]
fn a_pool_named_by_a_known_element_is_covered_and_the_others_may_be() {
    let source = r#"variable "extra" {}
resource "cloudflare_load_balancer_pool" "web" {
  account_id         = "023e105f4ecef8ad9ca31a8372d0c353"
  name               = "web"
  notification_email = "noc@example.com"
  origins {
    name    = "o1"
    address = "192.0.2.1"
  }
}
resource "cloudflare_load_balancer_pool" "api" {
  account_id         = "023e105f4ecef8ad9ca31a8372d0c353"
  name               = "api"
  notification_email = "noc@example.com"
  origins {
    name    = "o1"
    address = "192.0.2.2"
  }
}
resource "cloudflare_notification_policy" "health" {
  account_id = "023e105f4ecef8ad9ca31a8372d0c353"
  name       = "pool health"
  alert_type = "load_balancing_health_alert"
  enabled    = true
  email_integration { id = "noc@example.com" }
  filters {
    pool_id = [cloudflare_load_balancer_pool.web.id, var.extra]
  }
}
"#;
    let (doc, r) = check_one_file(source);
    let verdicts: Vec<(String, String)> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["resource"]["kind"] == "pool")
        .map(|f| {
            (
                f["resource"]["name"].as_str().unwrap().to_string(),
                f["rule"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        verdicts,
        [("web".to_string(), "LB002".to_string()), ("api".to_string(), "EX005".to_string())],
        "{}",
        r.stdout
    );
    // The plan counts on it for `web` only, and says it may duplicate it for `api`.
    let dir = temp_dir(&[("main.tf", source.as_bytes())]);
    let plan = common::run_in(
        dir.path(),
        &["plan", "main.tf", "--format", "json", "--as-of", "2024-10-01", "--no-config"],
    );
    assert_eq!(plan.code, 0, "{}", plan.stderr);
    let plan = json(&plan);
    let created: Vec<&serde_json::Value> = plan["accounts"][0]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["kind"] == "create_policy")
        .map(|s| &s["body"]["filters"]["pool_id"])
        .collect();
    assert_eq!(created, [&serde_json::json!(["${cloudflare_load_balancer_pool.api.id}"])]);
    assert!(
        plan["accounts"][0]["warnings"]
            .to_string()
            .contains("counted on only for the pools its known"),
        "{:#}",
        plan["accounts"][0]["warnings"]
    );
}

/// Pools whose `count` is not known before a run may not exist: each is
/// said (EX005 at its `count`), and no total counts it. LB004 counts the
/// pools that exist and names the others: "2 of 2 pools (and 5 that may
/// exist …)", never "7 of 7".
#[test]
fn a_pool_that_may_not_exist_is_counted_nowhere() {
    let mut source = String::from(
        r#"
variable "dns_record_count" {}
locals { enable = 1 }
"#,
    );
    for name in ["always", "always-too"] {
        source.push_str(&format!(
            r#"
resource "cloudflare_load_balancer_pool" "{}" {{
  account_id         = "023e105f4ecef8ad9ca31a8372d0c353"
  name               = "{name}"
  notification_email = "noc@example.com"
  origins {{
    name    = "o1"
    address = "192.0.2.1"
  }}
}}
"#,
            name.replace('-', "_")
        ));
    }
    for n in 1..=5 {
        source.push_str(&format!(
            r#"
resource "cloudflare_load_balancer_pool" "maybe_{n}" {{
  count              = local.enable * (var.dns_record_count == {n} ? 1 : 0)
  account_id         = "023e105f4ecef8ad9ca31a8372d0c353"
  name               = "maybe-{n}"
  notification_email = "noc@example.com"
  origins {{
    name    = "o1"
    address = "192.0.2.1"
  }}
}}
"#
        ));
    }
    let (doc, r) = check_one_file(&source);
    // The summary counts the pool that exists, and says the others may.
    assert_eq!(doc["summary"]["records"], serde_json::json!({"pool": 2}), "{}", r.stdout);
    assert_eq!(doc["summary"]["may_exist"], serde_json::json!({"pool": 5}), "{}", r.stdout);
    let findings = doc["findings"].as_array().unwrap();
    // The pools the run note says are LB001 are those that exist.
    let note = doc["notices"]
        .as_array()
        .and_then(|n| n.iter().find(|n| n["code"] == "no-policies-loaded"));
    assert!(
        note.is_some_and(|n| n["message"].as_str().unwrap_or("").contains("(2 pools)")),
        "{:#?}",
        doc["notices"]
    );
    let lb004 = findings
        .iter()
        .find(|f| f["rule"] == "LB004")
        .unwrap_or_else(|| panic!("LB004: {}", r.stdout));
    let message = lb004["message"].as_str().unwrap();
    assert!(message.contains("2 of 2 pools (and 5 that may exist"), "{message}");
    let at_counts = findings
        .iter()
        .filter(|f| f["rule"] == "EX005" && f["message"].as_str().unwrap_or("").contains("decides whether it exists"))
        .count();
    assert_eq!(at_counts, 5, "{findings:#?}");

    // The human summary line says so too.
    let dir = temp_dir(&[("main.tf", source.as_bytes())]);
    let human = common::run_in(dir.path(), &["check", "main.tf", "--as-of", "2024-10-01", "--no-config"]);
    assert!(
        human.stdout.contains("(2 records: 2 pools); 5 pools that may exist (not counted)"),
        "{}",
        human.stdout
    );
    // The coverage table shows the pools that exist, and no verdict on the others.
    let markdown = common::run_in(
        dir.path(),
        &["check", "main.tf", "--format", "markdown", "--as-of", "2024-10-01", "--no-config"],
    );
    let rows: Vec<&str> = markdown.stdout.lines().filter(|l| l.starts_with("| `")).collect();
    assert!(rows.iter().any(|l| l.starts_with("| `always`")), "{}", markdown.stdout);
    assert!(!rows.iter().any(|l| l.contains("maybe")), "{rows:#?}");
    // The plan replaces and clears the pools that exist, pool by pool (two
    // on one page would be cleared whole otherwise): whether the others
    // exist moves every page boundary.
    let plan = common::run_in(
        dir.path(),
        &["plan", "main.tf", "--format", "json", "--as-of", "2024-10-01", "--no-config"],
    );
    assert_eq!(plan.code, 0, "{}", plan.stderr);
    let plan = json(&plan);
    let account = &plan["accounts"][0];
    let requests: Vec<String> = account["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| format!("{} {}", s["method"].as_str().unwrap(), s["path"].as_str().unwrap()))
        .collect();
    assert_eq!(requests.len(), 3, "a create and two clears: {requests:#?}");
    assert!(
        requests.iter().all(|r| !r.contains("per_page")),
        "no page-wide clear: {requests:#?}"
    );
    let created = &account["steps"][0]["body"]["filters"]["pool_id"];
    assert_eq!(
        created,
        &serde_json::json!([
            "${cloudflare_load_balancer_pool.always.id}",
            "${cloudflare_load_balancer_pool.always_too.id}"
        ]),
        "{account:#}"
    );
    let warnings = account["warnings"].to_string();
    assert!(warnings.contains("5 pools may or may not exist"), "{warnings}");
    assert!(
        plan["accounts"][0]["proof"]["covers"]
            .as_str()
            .is_some_and(|c| c.contains("those that may exist are not modelled")),
        "{:#}",
        plan["accounts"][0]["proof"]
    );
}

/// `check` of one configuration file, `main.tf`, alone in a folder: the
/// JSON report, and the run (for its output in messages).
fn check_one_file(source: &str) -> (serde_json::Value, common::Run) {
    let dir = temp_dir(&[("main.tf", source.as_bytes())]);
    let r = common::run_in(
        dir.path(),
        &["check", "main.tf", "--format", "json", "--as-of", "2024-10-01", "--no-config"],
    );
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    (json(&r), r)
}

/// `for_each` over a map whose keys the configuration gives and whose values
/// come from a data source: Terraform plans one instance a key, so the packs
/// exist and are judged (CA002), and nothing says their existence is unknown.
#[test]
fn for_each_over_known_keys_with_unknown_values_makes_known_instances() {
    let source = r#"
variable "zones" { default = { shop = "shop.example.com", blog = "blog.example.com" } }

data "cloudflare_zone" "z" {
  for_each = var.zones
  name     = each.value
}

resource "cloudflare_certificate_pack" "this" {
  for_each              = { for key, host in var.zones : key => data.cloudflare_zone.z[key].id }
  zone_id               = each.value
  type                  = "advanced"
  hosts                 = ["example.com"]
  validation_method     = "txt"
  validity_days         = 90
  certificate_authority = "lets_encrypt"
}
"#;
    let (doc, r) = check_one_file(source);
    let findings = doc["findings"].as_array().unwrap();
    assert!(findings.iter().any(|f| f["rule"] == "CA002"), "{}", r.stdout);
    assert!(
        !findings
            .iter()
            .any(|f| f["rule"] == "EX005" && f["message"].as_str().unwrap_or("").contains("decides whether it exists")),
        "{}",
        r.stdout
    );
}
