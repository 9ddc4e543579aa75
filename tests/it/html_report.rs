//! The HTML report and the HTML plan in a real browser (Debian's Chromium,
//! headless, driven by ChromeDriver: tests/it/browser): the timeline's bars and
//! date lines where their dates put them, the coverage matrix's cells,
//! filtering by severity and kind, no network request, and nothing from an
//! export executing. A screenshot of the demo report is kept in
//! `target/browser-artifacts/`.

use crate::browser;
use crate::common;

use std::collections::BTreeMap;

use common::{json, path_str, run, temp_dir};
use serde_json::{Value, json};

const AS_OF: &str = "2024-10-01";

/// Writes `check`'s HTML and JSON reports of `paths` into `dir`.
fn reports(dir: &std::path::Path, paths: &[&str]) -> (std::path::PathBuf, Value) {
    let page = dir.join("report.html");
    let report = dir.join("report.json");
    let mut args = vec!["check"];
    args.extend(paths);
    let html = format!("html={}", path_str(&page));
    let js = format!("json={}", path_str(&report));
    args.extend(["--as-of", AS_OF, "--no-config", "--format", &html, "--format", &js]);
    let r = run(&args);
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    let report = serde_json::from_str(&std::fs::read_to_string(report).expect("json report")).expect("json");
    (page, report)
}

const TIMELINE: &str = r#"
const dates = [...document.querySelectorAll('svg.timeline g.date')].map(g => ({
  date: g.dataset.date, x: +g.querySelector('line').getAttribute('x1'), label: g.querySelector('text').textContent}));
const bars = [...document.querySelectorAll('svg.timeline g.cert')].map(g => {
  const r = g.querySelector('rect');
  const state = g.querySelector('text.state');
  return {from: g.dataset.from, until: g.dataset.until, ca: g.dataset.ca, classes: g.getAttribute('class'),
    x: +r.getAttribute('x'), width: +r.getAttribute('width'), label: g.querySelector('text').textContent,
    state: state ? state.textContent : '', drawn: r.getBoundingClientRect().width};
});
return {dates, bars};
"#;

const MATRIX: &str = r#"
const table = document.querySelector('table.matrix');
const headers = [...table.querySelectorAll('thead th')].map(th => th.textContent);
const rows = [...table.querySelectorAll('tbody tr')].map(tr => ({
  pool: tr.dataset.pool, classes: tr.getAttribute('class'), coverage: tr.dataset.coverage,
  cells: [...tr.children].map(td => td.textContent), highlighted: [...tr.querySelectorAll('td.gap')].length}));
return {headers, rows};
"#;

const VISIBLE: &str = r#"
return {visible: [...document.querySelectorAll('li.finding')].filter(li => !li.hidden && li.offsetParent !== null).length,
        listed: document.querySelectorAll('li.finding').length,
        shown: document.getElementById('shown').textContent};
"#;

fn days(d: &str) -> i64 {
    let d = chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").expect("a date");
    (d - chrono::NaiveDate::from_ymd_opt(2024, 1, 1).expect("day")).num_days()
}

#[test]
fn the_demo_report_draws_filters_and_loads_nothing_in_a_browser() {
    let Some(browser) = browser::start() else { return };
    let dir = temp_dir(&[]);
    let (page, report) = reports(dir.path(), &["fixtures/demo"]);
    browser.open(&browser::file_url(&page));
    // Nothing but the file itself was asked for.
    let urls = browser.requested_by(&browser::file_url(&page));
    assert!(!urls.is_empty(), "the performance log records the page's own load");
    assert!(urls.iter().all(|u| u.starts_with("file://")), "{urls:?}");
    let resources = browser.script("return performance.getEntriesByType('resource').length;", json!([]));
    assert_eq!(resources, 0);

    // The timeline: the change's three dates and the as-of date, in order,
    // and a bar per dated certificate from its upload to its expiry on the
    // scale the date lines set.
    let timeline = browser.script(TIMELINE, json!([]));
    let dates: Vec<(&str, f64)> = timeline["dates"]
        .as_array()
        .expect("dates")
        .iter()
        .map(|d| (d["date"].as_str().unwrap_or(""), d["x"].as_f64().unwrap_or(0.0)))
        .collect();
    assert_eq!(
        dates.iter().map(|d| d.0).collect::<Vec<_>>(),
        ["2024-06-01", "2024-09-09", "2024-09-30", AS_OF],
        "{timeline:#}"
    );
    assert!(dates.windows(2).all(|w| w[0].1 < w[1].1), "date lines left to right: {dates:?}");
    let (d0, x0) = (days(dates[0].0), dates[0].1);
    let per_day = (dates[2].1 - x0) / (days(dates[2].0) - d0) as f64;
    let x_of = |d: &str| x0 + per_day * (days(d) - d0) as f64;
    assert!(
        (x_of(dates[1].0) - dates[1].1).abs() < 0.6,
        "one scale for every date line: {dates:?}"
    );
    let inventory = json(&run(&["inventory", "fixtures/demo", "--format", "json"]));
    let dated: Vec<&Value> = inventory["certificates"]
        .as_array()
        .expect("rows")
        .iter()
        .filter(|r| r["uploaded"] != "" && r["expires"] != "")
        .collect();
    let bars = timeline["bars"].as_array().expect("bars");
    assert_eq!(bars.len(), dated.len(), "a bar per certificate with both dates: {timeline:#}");
    for bar in bars {
        let (from, until) = (bar["from"].as_str().unwrap_or(""), bar["until"].as_str().unwrap_or(""));
        let (x, width) = (bar["x"].as_f64().unwrap_or(0.0), bar["width"].as_f64().unwrap_or(0.0));
        assert!((x - x_of(from)).abs() < 0.6, "bar starts at its upload: {bar}");
        assert!((x + width - x_of(until)).abs() < 0.6, "bar ends at its expiry: {bar}");
        assert!(bar["drawn"].as_f64().unwrap_or(0.0) > 1.0, "the browser draws it: {bar}");
        let expired = until < AS_OF;
        assert_eq!(bar["classes"].as_str().unwrap_or("").contains("expired"), expired, "{bar}");
        assert_eq!(
            bar["state"].as_str().unwrap_or("").contains("expired"),
            expired,
            "said in words: {bar}"
        );
    }
    let crossed: Vec<&Value> = bars
        .iter()
        .filter(|b| b["classes"].as_str().is_some_and(|c| c.contains("cross-signed")))
        .collect();
    let chains: Vec<&Value> = dated.iter().filter(|r| r["chain"] == "cross_signed").copied().collect();
    assert_eq!(crossed.len(), chains.len(), "{timeline:#}");
    assert!(
        crossed
            .iter()
            .all(|b| b["state"].as_str().is_some_and(|s| s.contains("cross-signed chain"))
                && b["label"].as_str().is_some_and(|l| l.starts_with("shop.example.com"))),
        "the cross-signed chain is labelled, not only coloured: {crossed:?}"
    );

    // The matrix: the pools with a legacy e-mail, gaps first, each policy
    // that covers a pool ticked in its column, the gaps named and highlighted.
    let matrix = browser.script(MATRIX, json!([]));
    let headers: Vec<&str> = matrix["headers"]
        .as_array()
        .expect("headers")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let rows: BTreeMap<&str, &Value> = matrix["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| (r["cells"][0].as_str().unwrap_or(""), r))
        .collect();
    let order: Vec<&str> = matrix["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .filter_map(|r| r["coverage"].as_str())
        .collect();
    assert_eq!(order, ["none", "partial", "partial", "full"], "{matrix:#}");
    let cell = |pool: &str, column_starts: &str| -> String {
        let row = rows
            .iter()
            .find(|(name, _)| name.starts_with(pool))
            .map(|(_, r)| *r)
            .unwrap_or(&Value::Null);
        let column = headers.iter().position(|h| h.starts_with(column_starts)).unwrap_or(usize::MAX);
        row["cells"][column].as_str().unwrap_or("").to_string()
    };
    assert_eq!(cell("api-primary", "API pool health"), "✓ covers", "{matrix:#}");
    assert_eq!(cell("api-primary", "Batch pool webhook"), "—");
    assert_eq!(cell("batch-workers", "Batch pool webhook"), "✓ covers");
    assert_eq!(cell("web-primary", "Web"), "✓ covers");
    assert!(
        cell("legacy-eu", "Not delivered").contains("recipients: eu-ops@example.com"),
        "{matrix:#}"
    );
    assert!(cell("api-primary", "Not delivered").starts_with("gap:"), "{matrix:#}");
    assert_eq!(cell("web-primary", "Not delivered"), "—");
    for row in matrix["rows"].as_array().expect("rows") {
        let gap = row["coverage"] != "full";
        assert_eq!(row["classes"] == "gap", gap, "{row}");
        assert_eq!(row["highlighted"] == 1, gap, "highlighted and named: {row}");
    }

    // Filtering, by the boxes a person ticks; the counts come from the JSON report.
    let findings = report["findings"].as_array().expect("findings");
    let count = |keep: &dyn Fn(&Value) -> bool| findings.iter().filter(|f| keep(f)).count() as u64;
    let state = browser.script(VISIBLE, json!([]));
    assert_eq!(state["visible"], findings.len() as u64, "{state}");
    assert_eq!(state["shown"], format!("{0} of {0} listed findings shown", findings.len()));
    browser.click("input[name=severity][value=warning]");
    let state = browser.script(VISIBLE, json!([]));
    assert_eq!(state["visible"], count(&|f| f["severity"] != "warning"), "{state}");
    browser.click("input[name=kind][value=pool]");
    let state = browser.script(VISIBLE, json!([]));
    let expected = count(&|f| f["severity"] != "warning" && f["resource"]["kind"] != "pool");
    assert_eq!(state["visible"], expected, "{state}");
    assert_eq!(state["shown"], format!("{expected} of {} listed findings shown", findings.len()));
    // A rule with nothing left to show is hidden whole.
    let hidden_rules = browser.script(
        "return [...document.querySelectorAll('section.rule')].filter(s => s.hidden).map(s => s.dataset.rule);",
        json!([]),
    );
    assert!(
        hidden_rules.as_array().is_some_and(|r| r.iter().any(|id| id == "LB001")),
        "{hidden_rules}"
    );
    // The address can carry the filter: a link to the errors alone.
    browser.open(&format!("{}#severity=error&kind=pool,custom_certificate", browser::file_url(&page)));
    let state = browser.script(VISIBLE, json!([]));
    let expected =
        count(&|f| f["severity"] == "error" && (f["resource"]["kind"] == "pool" || f["resource"]["kind"] == "custom_certificate"));
    assert!(expected > 0);
    assert_eq!(state["visible"], expected, "{state}");

    // The screenshot kept for people (and the README's picture made the same way).
    let png = browser.screenshot();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000, "a picture of the page");
    let artifacts = common::root().join("target/browser-artifacts");
    std::fs::create_dir_all(&artifacts).expect("artifacts dir");
    std::fs::write(artifacts.join("demo-report.png"), &png).expect("write screenshot");
}

/// Export strings are text: a pool, a policy and a hostname named as markup
/// and script show as their names, create no element and run nothing.
#[test]
fn nothing_from_an_export_executes_in_the_report() {
    let Some(browser) = browser::start() else { return };
    let hostile = br#"{"pools": [
  {"id": "aaaa0000000000000000000000000001", "name": "<script>document.title='pwned';window.pwned=1</script>", "notification_email": "a@example.com"},
  {"id": "aaaa0000000000000000000000000002", "name": "<img src=x onerror=\"window.pwned=2\">", "notification_email": "b@example.com"}],
 "notification_policies": [{"id": "p1", "name": "</title><svg onload=\"window.pwned=3\">", "alert_type": "load_balancing_health_alert", "enabled": true,
   "mechanisms": {"email": [{"id": "a@example.com"}]}, "filters": {"pool_id": ["aaaa0000000000000000000000000001"], "new_health": ["Unhealthy"]}}],
 "zones": [{"zone_id": "9a7806061c88ada191ed06f989cc3dac", "custom_hostnames": [
   {"id": "h1", "hostname": "x.example\"><script>window.pwned=4</script>", "ssl": {"method": "txt", "type": "dv", "certificate_authority": "lets_encrypt"}}],
  "custom_certificates": [{"id": "c1", "hosts": ["<b onmouseover=\"window.pwned=5\">y.example</b>"], "issuer": "R3", "signature": "SHA256WithRSA",
   "bundle_method": "ubiquitous", "uploaded_on": "2024-06-02T00:00:00Z", "expires_on": "2024-08-31T00:00:00Z", "status": "active"}]}]}"#;
    let dir = temp_dir(&[("hostile.json", hostile)]);
    let export = path_str(&dir.path().join("hostile.json"));
    let (page, report) = reports(dir.path(), &[&export]);
    assert!(report["findings"].as_array().is_some_and(|f| f.len() >= 4), "{report:#}");
    browser.open(&browser::file_url(&page));
    let seen = browser.script(
        r#"return {pwned: window.pwned === undefined ? null : window.pwned, title: document.title,
                   scripts: document.scripts.length, images: document.images.length,
                   foreign: document.querySelectorAll('b, svg [onload], [onerror], [onmouseover]').length,
                   text: document.body.textContent};"#,
        json!([]),
    );
    assert_eq!(seen["pwned"], Value::Null, "{seen:#}");
    assert!(
        seen["title"].as_str().is_some_and(|t| t.starts_with("edgeaudit report")),
        "{seen:#}"
    );
    assert_eq!(seen["scripts"], 1, "the page's own script only");
    assert_eq!(seen["images"], 0);
    assert_eq!(seen["foreign"], 0);
    let text = seen["text"].as_str().unwrap_or("");
    for shown in [
        "<script>document.title='pwned';window.pwned=1</script>",
        "<img src=x onerror=\"window.pwned=2\">",
        "x.example\"><script>window.pwned=4</script>",
    ] {
        assert!(text.contains(shown), "shown as text: {shown}");
    }
    let urls = browser.requested_by(&browser::file_url(&page));
    assert!(!urls.is_empty() && urls.iter().all(|u| u.starts_with("file://")), "{urls:?}");
}

/// `plan --format html`: a row per step, in the plan's order, each request
/// as the JSON plan has it.
#[test]
fn the_plan_page_lists_every_step_in_order() {
    let Some(browser) = browser::start() else { return };
    let dir = temp_dir(&[]);
    let page = dir.path().join("plan.html");
    let r = run(&[
        "plan",
        "fixtures/demo",
        "--as-of",
        AS_OF,
        "--no-config",
        "--format",
        "html",
        "-o",
        &path_str(&page),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let plan = json(&run(&[
        "plan",
        "fixtures/demo",
        "--as-of",
        AS_OF,
        "--no-config",
        "--format",
        "json",
    ]));
    let steps = plan["accounts"][0]["steps"].as_array().expect("steps");
    browser.open(&browser::file_url(&page));
    let rows = browser.script(
        "return [...document.querySelectorAll('table.steps tbody tr')].map(tr => ({kind: tr.dataset.kind, n: tr.cells[0].textContent, request: tr.cells[1].textContent}));",
        json!([]),
    );
    let rows = rows.as_array().expect("rows");
    assert_eq!(rows.len(), steps.len());
    for (i, (row, step)) in rows.iter().zip(steps).enumerate() {
        assert_eq!(row["n"], (i + 1).to_string());
        assert_eq!(row["kind"], step["kind"]);
        if let (Some(method), Some(path)) = (step["method"].as_str(), step["path"].as_str()) {
            assert!(
                row["request"].as_str().is_some_and(|r| r.starts_with(&format!("{method} {path}"))),
                "{row} {step}"
            );
        }
    }
    let urls = browser.requested_by(&browser::file_url(&page));
    assert!(!urls.is_empty() && urls.iter().all(|u| u.starts_with("file://")), "{urls:?}");
}
