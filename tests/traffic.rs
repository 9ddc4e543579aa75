//! Traffic impact (docs/src/traffic.md): the client classes on real user agents with
//! known versions, the three input shapes, the join with the resources and the
//! output in every format.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use edgeaudit::traffic::classes::{Class, Request, Table, version};

/// The class DESIGN gives a client, from its versions as an independent
/// parser (uap-core's regexes) reads them.
fn by_versions(os: &str, os_version: &str, browser: &str, browser_major: &str) -> Class {
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
    let below = |bound: &[u64]| {
        let n = v.len().max(bound.len());
        (0..n)
            .map(|i| v.get(i).copied().unwrap_or(0).cmp(&bound.get(i).copied().unwrap_or(0)))
            .find(|o| o.is_ne())
            == Some(std::cmp::Ordering::Less)
    };
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
        let expected = by_versions(&row[1], &row[2], &row[3], &row[4]);
        if class != expected {
            found.insert((row[0].to_string(), expected, class));
        }
    }
    assert!(n > 10_000, "{n} strings");
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
    let documented = [
        "not-eyeball",
        "worker-subrequest",
        "chrome-reduced-user-agent",
        "android-7.1-no-patch",
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
