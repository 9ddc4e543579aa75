//! The rule vocabulary, exercised through a custom pack on the demo account:
//! effective windows, as-of conditions, combinators and for_each.

use crate::common;

use common::{json, path_str, run, temp_dir};

const PACK: &str = r#"rules:
  - id: T001
    name: only-in-2024
    subject: account
    severity: note
    summary: s
    effective_from: 2024-01-01
    effective_until: 2025-01-01
    when:
      - fact: pools_total
        greater_than: 0
    message: "{pools_total} pools"
    rationale: r
    remediation: r
  - id: T002
    name: from-september
    subject: pool
    severity: warning
    summary: s
    when:
      - as_of_on_or_after: 2024-09-09
      - fact: coverage
        in: [none, partial]
      - not:
          fact: name
          equals: batch-workers
    at: legacy_recipients
    message: "{name} after the switch"
    rationale: r
    remediation: r
  - id: T003
    name: any-of
    subject: notification_policy
    severity: note
    summary: s
    when:
      - any:
          - {fact: enabled, equals: false}
          - {fact: mechanism_count, less_than: 1}
          - {fact: alert_type, equals: universal_ssl_event_type}
    at: alert_type
    message: "{name}"
    rationale: r
    remediation: r
  - id: T004
    name: each-recipient
    subject: pool
    severity: note
    summary: s
    when:
      - fact: legacy_recipients
        empty: false
    for_each: legacy_recipients
    message: "{name} mails {item}"
    rationale: r
    remediation: r
"#;

fn findings(as_of: &str) -> Vec<(String, String, String)> {
    let dir = temp_dir(&[("pack.yaml", PACK.as_bytes())]);
    let r = run(&[
        "check",
        "fixtures/demo",
        "--rules",
        &path_str(&dir.path().join("pack.yaml")),
        "--select",
        "T",
        "--format",
        "json",
        "--as-of",
        as_of,
    ]);
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    json(&r)["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap_or_default().to_string(),
                f["message"].as_str().unwrap_or_default().to_string(),
                f["location"]["pointer"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

fn messages(all: &[(String, String, String)], rule: &str) -> Vec<String> {
    all.iter().filter(|(r, ..)| r == rule).map(|(_, m, _)| m.clone()).collect()
}

#[test]
fn effective_windows_follow_the_as_of_date() {
    assert_eq!(messages(&findings("2023-12-31"), "T001"), Vec::<String>::new(), "not yet effective");
    assert_eq!(messages(&findings("2024-01-01"), "T001"), vec!["6 pools"]);
    assert_eq!(messages(&findings("2024-12-31"), "T001"), vec!["6 pools"]);
    assert_eq!(
        messages(&findings("2025-01-01"), "T001"),
        Vec::<String>::new(),
        "no longer effective"
    );
}

#[test]
fn as_of_conditions_and_combinators() {
    assert_eq!(messages(&findings("2024-09-08"), "T002"), Vec::<String>::new());
    let after = messages(&findings("2024-09-09"), "T002");
    // api-primary (partial) and legacy-eu (none); batch-workers is excluded by `not`.
    assert_eq!(after, vec!["api-primary after the switch", "legacy-eu after the switch"]);
    let any = messages(&findings("2024-10-01"), "T003");
    assert_eq!(
        any,
        vec!["Old EU health alerts", "Certificate expiry"],
        "disabled, and the non-health alert type"
    );
}

#[test]
fn for_each_gives_one_finding_per_element() {
    let all = findings("2024-10-01");
    let each = messages(&all, "T004");
    assert!(each.contains(&"web-primary mails noc@example.com".to_string()), "{each:?}");
    assert!(each.contains(&"web-primary mails oncall@example.com".to_string()), "{each:?}");
    assert_eq!(each.len(), 6, "2 + 2 + 1 + 1 recipients: {each:?}");
}
