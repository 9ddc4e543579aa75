//! `--as-of` replays the account as it stood on that day: what was made
//! later is not judged (and is counted), each certificate rule speaks in the
//! tense and severity of the phase the day falls in — before June 2024, June
//! to 2024-09-08, 2024-09-09 to 2024-09-29, from 2024-09-30 — and a day
//! earlier than the export's newest timestamp is pointed out.
//!
//! tests/fixtures/as-of/account.json holds one resource per rule CA001–CA009
//! (`ca00N…`), and resources made on the boundary days: a certificate
//! uploaded at 2024-09-09T00:00:00Z (CA007), a pack and a hostname made at
//! 2024-09-10T00:00:00Z.

use crate::common;

use common::{json, run};

const FIXTURE: &str = "tests/fixtures/as-of";

fn check(day: &str) -> serde_json::Value {
    let r = run(&[
        "check",
        FIXTURE,
        "--as-of",
        day,
        "--format",
        "json",
        "--fail-on",
        "never",
        "--no-config",
    ]);
    assert_eq!(r.code, 0, "{day}: {}", r.stderr);
    json(&r)
}

/// The finding of `rule` about the resource named `name`, if any.
fn finding<'d>(doc: &'d serde_json::Value, rule: &str, name: &str) -> Option<&'d serde_json::Value> {
    doc["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["rule"] == rule && f["resource"]["name"] == name)
}

/// The first and the last day of each phase.
const PHASES: [(&str, [&str; 2]); 4] = [
    ("before June 2024", ["2024-05-01", "2024-05-31"]),
    ("June to 2024-09-08", ["2024-06-01", "2024-09-08"]),
    ("2024-09-09 to 2024-09-29", ["2024-09-09", "2024-09-29"]),
    ("from 2024-09-30", ["2024-09-30", "2025-01-01"]),
];

/// A rule's severity and words in each phase (`("", "")`: it does not fire).
type InPhases = [(&'static str, &'static str); 4];

/// Per rule, its subject and, per phase, the severity and words its message
/// must have (each phase's words are absent from the other phases' messages
/// unless they are the same).
const EXPECTED: [(&str, &str, InPhases); 9] = [
    (
        "CA001",
        "ca001-universal.example.com",
        [
            ("note", "will switch it automatically to a more compatible CA from June 2024"),
            ("note", "since June 2024 the service is switching such certificates"),
            ("note", "has been switching such certificates automatically"),
            ("note", "has been switching such certificates automatically"),
        ],
    ),
    (
        "CA002",
        "ca002-advanced.example.com",
        [
            (
                "warning",
                "from 2024-09-09 its RSA certificates will chain to the self-signed ISRG Root X1",
            ),
            (
                "warning",
                "from 2024-09-09 its RSA certificates will chain to the self-signed ISRG Root X1",
            ),
            (
                "warning",
                "since 2024-09-09 its RSA certificates chain to the self-signed ISRG Root X1",
            ),
            (
                "warning",
                "since 2024-09-09 its RSA certificates chain to the self-signed ISRG Root X1",
            ),
        ],
    ),
    (
        "CA003",
        "example.com",
        [
            ("warning", "from 2024-09-09 every certificate it issues will chain"),
            ("warning", "from 2024-09-09 every certificate it issues will chain"),
            ("warning", "since 2024-09-09 every certificate it issues chains"),
            ("warning", "since 2024-09-09 every certificate it issues chains"),
        ],
    ),
    (
        "CA004",
        "ca004.customer.org",
        [
            ("warning", "from 2024-09-09 its RSA certificate will chain"),
            ("warning", "from 2024-09-09 its RSA certificate will chain"),
            ("warning", "since 2024-09-09 its RSA certificate chains"),
            ("warning", "since 2024-09-09 its RSA certificate chains"),
        ],
    ),
    (
        "CA005",
        "ca005.le-only.customer.org",
        [
            ("warning", "will fail on Android 7.0 and earlier"),
            ("warning", "will fail on Android 7.0 and earlier"),
            ("warning", "without ISRG Root X1 since 2024-09-09"),
            ("warning", "without ISRG Root X1 since 2024-09-09"),
        ],
    ),
    (
        "CA006",
        "ca006.example.com",
        [
            ("warning", "as every Compatible or Modern upload before 2024-09-09 is"),
            ("warning", "as every Compatible or Modern upload before 2024-09-09 is"),
            ("warning", "That cross-sign expires on 2024-09-30"),
            ("warning", "That cross-sign expired on 2024-09-30"),
        ],
    ),
    (
        "CA007",
        "ca007.example.com",
        [
            // Uploaded on 2024-09-09: not in the account before.
            ("", ""),
            ("", ""),
            (
                "note",
                "was uploaded on 2024-09-09: the service bundles it with the self-signed ISRG Root X1 chain",
            ),
            (
                "note",
                "was uploaded on 2024-09-09: the service bundles it with the self-signed ISRG Root X1 chain",
            ),
        ],
    ),
    (
        "CA008",
        "ca008.example.com",
        [
            ("warning", "The cross-signed ISRG Root X1 expires on 2024-09-30"),
            ("warning", "The cross-signed ISRG Root X1 expires on 2024-09-30"),
            ("warning", "The cross-signed ISRG Root X1 expires on 2024-09-30"),
            ("error", "the cross-signed ISRG Root X1 expired on 2024-09-30"),
        ],
    ),
    (
        "CA009",
        "ca009.example.com",
        [
            ("note", "the cross-sign that expires on 2024-09-30"),
            ("note", "the cross-sign that expires on 2024-09-30"),
            ("note", "the cross-sign that expires on 2024-09-30"),
            ("note", "the cross-sign that expired on 2024-09-30"),
        ],
    ),
];

#[test]
fn each_rule_speaks_in_the_phase_of_the_as_of_date_on_its_first_and_last_day() {
    for (phase, (name, days)) in PHASES.iter().enumerate() {
        for day in days {
            let doc = check(day);
            for (rule, subject, expected) in &EXPECTED {
                let (severity, words) = expected[phase];
                let found = finding(&doc, rule, subject);
                if severity.is_empty() {
                    assert!(
                        found.is_none(),
                        "{rule} as of {day} ({name}): the account did not hold {subject} yet"
                    );
                    continue;
                }
                let f = found.unwrap_or_else(|| panic!("{rule} on {subject} as of {day} ({name})"));
                assert_eq!(f["severity"], severity, "{rule} as of {day} ({name})");
                let message = f["message"].as_str().expect("message");
                assert!(message.contains(words), "{rule} as of {day} ({name}): {message}");
                // The other phases' words, where they differ, are not said.
                for (other, (_, their)) in expected.iter().enumerate() {
                    if !their.is_empty() && *their != words {
                        assert!(
                            !message.contains(their),
                            "{rule} as of {day} ({name}) says phase {other}'s words: {message}"
                        );
                    }
                }
            }
        }
    }
}

fn not_judged_made_later(doc: &serde_json::Value) -> Vec<(String, u64)> {
    doc["summary"]["not_judged"]
        .as_array()
        .map(|all| {
            all.iter()
                .filter(|n| n["why"].as_str().is_some_and(|w| w.starts_with("made after the as-of date")))
                .map(|n| {
                    (
                        n["kind"].as_str().expect("kind").to_string(),
                        n["subjects"].as_u64().expect("subjects"),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn what_was_made_after_the_as_of_date_is_not_judged_and_is_counted() {
    // The day before the upload at 2024-09-09T00:00:00Z: not judged, counted.
    let before = check("2024-09-08");
    assert!(finding(&before, "CA007", "ca007.example.com").is_none());
    assert!(
        !before["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .any(|f| f["resource"]["id"].as_str().is_some_and(|id| id.starts_with("c0000007"))),
        "no rule judges a certificate the account did not hold"
    );
    assert_eq!(
        not_judged_made_later(&before),
        [
            ("certificate_pack".to_string(), 1),
            ("custom_certificate".to_string(), 1),
            ("custom_hostname".to_string(), 1)
        ]
    );
    // On its day it is judged; the pack and the hostname made at
    // 2024-09-10T00:00:00Z are not, until that day.
    let on_the_day = check("2024-09-09");
    assert!(finding(&on_the_day, "CA007", "ca007.example.com").is_some());
    assert!(finding(&on_the_day, "CA002", "ordered-2024-09-10.example.com").is_none());
    assert!(finding(&on_the_day, "CA004", "created-2024-09-10.customer.org").is_none());
    assert_eq!(
        not_judged_made_later(&on_the_day),
        [("certificate_pack".to_string(), 1), ("custom_hostname".to_string(), 1)]
    );
    let next_day = check("2024-09-10");
    assert!(finding(&next_day, "CA002", "ordered-2024-09-10.example.com").is_some());
    assert!(finding(&next_day, "CA004", "created-2024-09-10.customer.org").is_some());
    assert!(not_judged_made_later(&next_day).is_empty());
    assert!(next_day["summary"].get("not_judged").is_none(), "nothing left out, nothing said");
}

#[test]
fn an_as_of_date_before_the_exports_newest_timestamp_is_pointed_out_there() {
    let doc = check("2024-09-09");
    let notices = doc["notices"].as_array().expect("notices");
    assert_eq!(notices.len(), 1, "{notices:?}");
    let notice = &notices[0];
    assert_eq!(notice["code"], "as-of-before-export");
    let message = notice["message"].as_str().expect("message");
    assert!(
        message.contains("2024-09-10T00:05:00Z, a certificate_pack's uploaded_on")
            && message.contains("leaves out 2 resources made after 2024-09-09"),
        "{message}"
    );
    // At the timestamp itself: the pack's certificate's `uploaded_on`.
    let text = std::fs::read_to_string(common::root().join(FIXTURE).join("account.json")).expect("fixture");
    let at = &notice["location"];
    assert_eq!(at["file"], "tests/fixtures/as-of/account.json");
    let (line, column) = (at["line"].as_u64().expect("line"), at["column"].as_u64().expect("column"));
    assert!(
        common::text_at(&text, line as usize, column as usize).starts_with("\"2024-09-10T00:05:00Z\""),
        "{notice}"
    );
    // Every format says it, the line formats too.
    for format in common::report_formats() {
        let format = format.as_str();
        let r = run(&[
            "check",
            FIXTURE,
            "--as-of",
            "2024-09-09",
            "--format",
            format,
            "--fail-on",
            "never",
            "--no-config",
        ]);
        assert!(r.stdout.contains("is earlier than this timestamp"), "{format}: {}", r.stdout);
    }
    // From the newest timestamp's day on, nothing to say.
    assert!(check("2024-09-10")["notices"].as_array().expect("notices").is_empty());
}

#[test]
fn explain_lists_each_rule_phases_with_the_named_dates() {
    for (rule, _, _) in &EXPECTED {
        let r = run(&["explain", rule]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        if *rule == "CA007" {
            assert!(!r.stdout.contains("Phases"), "CA007 fires only from its upload date on");
            continue;
        }
        assert!(r.stdout.contains("Phases (by the as-of date):"), "{rule}: {}", r.stdout);
    }
    let ca001 = run(&["explain", "CA001"]).stdout;
    for line in [
        "before 2024-06-01 (automatic_switch): note",
        "from 2024-06-01 (automatic_switch) until 2024-09-09 (cross_sign_unused): note",
        "from 2024-09-09 (cross_sign_unused): note",
    ] {
        assert!(ca001.contains(line), "{line}: {ca001}");
    }
}

/// `--statistics` counts what was made after the as-of date even when no
/// selected rule reads that kind, without an empty list of rules.
#[test]
fn statistics_count_what_was_made_later_whatever_is_selected() {
    let r = run(&[
        "check",
        FIXTURE,
        "--as-of",
        "2024-09-08",
        "--statistics",
        "--select",
        "LB",
        "--no-config",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("1  custom_certificate not judged: made after the as-of date"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("not judged by :"), "{}", r.stdout);
}
