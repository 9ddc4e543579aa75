//! The Markdown report (job summary, pull-request comment): its five-line
//! summary by migration and by action, the per-pool coverage table and the
//! Mermaid timeline of certificates, read from the same facts as the rules.

use crate::common;

use common::{path_str, run, temp_dir};

fn demo() -> String {
    let r = run(&["check", "fixtures/demo", "--format", "markdown", "--as-of", "2024-10-01"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    r.stdout
}

/// The lines of the section that starts with `heading`, to the next `## `.
fn section<'a>(page: &'a str, heading: &str) -> Vec<&'a str> {
    page.lines()
        .skip_while(|l| *l != heading)
        .skip(1)
        .take_while(|l| !l.starts_with("## "))
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn the_report_opens_with_five_lines_by_migration_and_by_action() {
    let page = demo();
    let lines: Vec<&str> = page.lines().skip(4).take(6).collect();
    assert_eq!(
        lines,
        [
            "- **Pool notifications**: 8 findings (2 errors, 5 warnings, 1 note) on 1 account, 4 pools and 3 notification policies",
            "- **Let's Encrypt chain**: 13 findings (4 errors, 6 warnings, 3 notes) on 3 certificate packs, 4 custom certificates, 2 custom hostnames and 1 Total TLS setting",
            "- **Clear now**: 1 pool — every legacy e-mail is delivered by a policy; clear `notification_email` (LB002)",
            "- **Create a policy first**: 3 pools — create the policy that delivers the legacy e-mails, then clear; `edgeaudit plan` writes both (LB001, LB003)",
            "- **Choose a CA**: 2 certificate packs, 2 custom hostnames and 1 Total TLS setting — stay on Let's Encrypt unless another CA is chosen, or allowed by CAA (CA002, CA003, CA004, CA005, CA011, CA012)",
            "",
        ],
        "{page}"
    );
}

/// Counted per resource, from the findings that count: a waived finding is
/// not something to act on, and an empty group says so.
#[test]
fn the_five_lines_count_what_remains_to_do() {
    let pools = br#"pools:
  - {id: aaaa0000000000000000000000000001, name: web, notification_email: noc@example.com}
  - {id: aaaa0000000000000000000000000002, name: api, notification_email: api@example.com}
"#;
    let config = b"waivers:\n  - {rule: LB001, resource: pool/web, reason: later}\n";
    let dir = temp_dir(&[("exports/lb.yaml", pools), (".edgeaudit.yaml", config)]);
    let r = common::run_in(dir.path(), &["check", "exports", "--format", "markdown", "--as-of", "2024-10-01"]);
    let lines: Vec<&str> = r.stdout.lines().skip(4).take(5).collect();
    assert_eq!(
        lines,
        [
            "- **Pool notifications**: 2 findings (1 error, 1 note) on 1 account and 1 pool",
            "- **Let's Encrypt chain**: no findings",
            "- **Clear now**: none",
            "- **Create a policy first**: 1 pool — create the policy that delivers the legacy e-mails, then clear; `edgeaudit plan` writes both (LB001)",
            "- **Choose a CA**: none",
        ],
        "{}",
        r.stdout
    );
    // The table keeps the waived pool, and says it was accepted.
    assert!(
        r.stdout.lines().any(|l| l.starts_with("| `web` | `noc@example.com` |")
            && l.contains("| **no**: create a policy first (accepted: a waiver or the baseline) |")),
        "{}",
        r.stdout
    );
}

#[test]
fn each_pool_with_a_legacy_email_has_a_coverage_row_gaps_first() {
    let page = demo();
    let rows = section(&page, "## Pools with a legacy e-mail: who gets which alert");
    assert_eq!(
        rows[0],
        "| Pool | Legacy recipients | Events | Covered | Delivered by | Not delivered by any policy |"
    );
    let pools: Vec<&str> = rows[2..].iter().filter_map(|r| r.split(" | ").next()).collect();
    assert_eq!(pools, ["| `legacy-eu`", "| `api-primary`", "| `batch-workers`", "| `web-primary`"]);
    // The cells say what the LB findings say.
    assert!(rows[2].contains("| **no**: create a policy first | — | events: `pool Healthy`, `pool Unhealthy`, `origin Healthy`, `origin Unhealthy`; recipients: `eu-ops@example.com` |"), "{}", rows[2]);
    assert!(rows[4].contains("| `pool Unhealthy` | **partly**: create a policy first | `Batch pool webhook (3c9d4e2f-8a5b-4c7d-0e1f-2a3b4c5d6e7f)` | recipients: `batch-team@example.com` |"), "{}", rows[4]);
    assert!(
        rows[5].contains("| `noc@example.com`, `oncall@example.com` |")
            && rows[5].contains("| yes: clear now | `Web pool health (0da2b59e-f118-439d-8097-bdfb215203c9)` | — |"),
        "{}",
        rows[5]
    );
}

#[test]
fn the_timeline_draws_certificates_against_the_changes_dates() {
    let page = demo();
    let lines = section(&page, "## Certificates against the chain change");
    let chart: Vec<&str> = lines
        .iter()
        .skip_while(|l| **l != "```mermaid")
        .skip(1)
        .take_while(|l| **l != "```")
        .copied()
        .collect();
    assert_eq!(chart[..3], ["gantt", "    dateFormat YYYY-MM-DD", "    axisFormat %Y-%m"]);
    // The named dates, from the one place they are named, and the as-of date.
    for milestone in [
        "    automatic switch June 2024 : milestone, 2024-06-01, 0d",
        "    cross sign unused 2024-09-09 : milestone, 2024-09-09, 0d",
        "    cross sign expiry 2024-09-30 : milestone, 2024-09-30, 0d",
        "    As of 2024-10-01 : milestone, 2024-10-01, 0d",
    ] {
        assert!(chart.contains(&milestone), "{milestone}\n{}", chart.join("\n"));
    }
    // A bar per dated certificate: the cross-signed chain first and marked.
    let bars: Vec<&&str> = chart.iter().filter(|l| l.contains(", 20") && !l.contains("milestone")).collect();
    assert_eq!(bars.len(), 8, "{}", chart.join("\n"));
    assert_eq!(
        *bars[0],
        "    shop.example.com (custom certificate cross-signed chain) : crit, done, 2024-06-02, 2024-08-31"
    );
    assert!(chart.contains(&"    api.example.com (custom certificate) : active, 2024-09-20, 2024-12-19"));
    assert!(chart.contains(&"    section Let's Encrypt"));
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("8 of 13 certificates drawn (not drawn: 5 without an upload and an expiry date in the export).")),
        "{lines:?}"
    );
}

/// Export strings are code in a table and text in a chart: a pool's name
/// cannot break the table or add HTML, a host cannot end a Mermaid task's name.
#[test]
fn export_strings_cannot_break_the_table_or_the_chart() {
    let export = br#"{"pools": [{"id": "aaaa0000000000000000000000000001", "name": "<img src=x onerror=alert(1)>|x", "notification_email": "a@example.com"}],
"zones": [{"zone_id": "9a7806061c88ada191ed06f989cc3dac", "custom_certificates": {"result": [
 {"id": "c1", "hosts": ["evil: crit, 2020-01-01, 2030-01-01 #x;y\nsection z"], "issuer": "LetsEncrypt", "bundle_method": "ubiquitous",
  "uploaded_on": "2024-07-01T00:00:00Z", "expires_on": "2024-12-01T00:00:00Z", "status": "active"}]}}]}"#;
    let dir = temp_dir(&[("account.json", export)]);
    let file = path_str(&dir.path().join("account.json"));
    let r = run(&["check", &file, "--format", "markdown", "--as-of", "2024-10-01", "--no-config"]);
    assert!(r.code <= 1, "{}", r.stderr);
    let row = r
        .stdout
        .lines()
        .find(|l| l.starts_with("| ") && l.contains("onerror"))
        .expect("the pool's row");
    assert!(row.starts_with("| `<img src=x onerror=alert(1)>\\|x` | `a@example.com` |"), "{row}");
    let bar = r.stdout.lines().find(|l| l.contains("(custom certificate)")).expect("the bar");
    // (The inventory joins hosts with spaces: the rest count as more hosts.)
    assert_eq!(bar, "    evil_ +6 (custom certificate) : active, 2024-07-01, 2024-12-01");
    assert!(!r.stdout.contains("\nsection z"));
}

/// A large account: a bounded number of rows and bars, the rest counted,
/// and the page still fits a pull-request comment.
#[test]
fn the_pictures_stay_bounded_on_a_large_account() {
    let pools: Vec<String> = (0..300)
        .map(|i| format!(r#"{{"id": "p{i:04}", "name": "pool-{i:04}", "notification_email": "ops@example.com"}}"#))
        .collect();
    let certificates: Vec<String> = (0..200)
        .map(|i| {
            format!(
                r#"{{"id": "c{i}", "hosts": ["h{i:03}.example.com"], "issuer": "LetsEncrypt", "bundle_method": "ubiquitous", "uploaded_on": "2024-07-01T00:00:00Z", "expires_on": "2024-{:02}-01T00:00:00Z", "status": "active"}}"#,
                10 + i % 3
            )
        })
        .collect();
    let export = format!(
        r#"{{"pools": [{}], "zones": [{{"zone_id": "9a7806061c88ada191ed06f989cc3dac", "custom_certificates": {{"result": [{}]}}}}]}}"#,
        pools.join(","),
        certificates.join(",")
    );
    let dir = temp_dir(&[("account.json", export.as_bytes())]);
    let file = path_str(&dir.path().join("account.json"));
    let r = run(&["check", &file, "--format", "markdown", "--as-of", "2024-10-01", "--no-config"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let page = &r.stdout;
    assert!(page.chars().count() < 65_536, "{} characters", page.chars().count());
    let rows = section(page, "## Pools with a legacy e-mail: who gets which alert");
    assert_eq!(rows.iter().filter(|l| l.starts_with("| `pool-")).count(), 50);
    assert!(
        rows.contains(&"250 more pools not shown (the gaps come first); `--format json` has every finding."),
        "{rows:?}"
    );
    let bars = page.lines().filter(|l| l.contains("(custom certificate)")).count();
    assert_eq!(bars, 30);
    assert!(
        page.contains("30 of 200 certificates drawn (not drawn: 170 more with both dates)."),
        "{page}"
    );
    // The soonest expiries are the ones drawn.
    assert!(
        page.lines()
            .filter(|l| l.contains("(custom certificate)"))
            .all(|l| l.ends_with("2024-10-01")),
        "{page}"
    );
}
