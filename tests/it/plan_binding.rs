//! The plan that was reviewed is the plan that runs (DESIGN §2.3): a plan
//! file edited after `edgeaudit plan` wrote it is refused before anything is
//! sent, whichever field was edited; `--expect-plan-id` pins the reviewed
//! plan and `--from` makes it again from the exports.

use crate::common;

use common::{path_str, run, run_with_env};
use proptest::prelude::*;
use serde_json::Value;

const ACCOUNT: &str = "023e105f4ecef8ad9ca31a8372d0c353";

/// The demo's plan, as `plan --format json` writes it.
fn demo_plan() -> String {
    let r = run(&["plan", "fixtures/demo", "--format", "json", "--as-of", "2024-10-01"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    r.stdout
}

/// Every leaf of a JSON value, by pointer.
fn leaves(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                leaves(v, format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")), out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                leaves(v, format!("{at}/{i}"), out);
            }
        }
        _ => out.push(at),
    }
}

/// One edit of a leaf: another value of its type.
fn edited(value: &Value, choice: u8) -> Value {
    match value {
        Value::String(s) if choice.is_multiple_of(2) => Value::String(format!("{s}x")),
        Value::String(s) => Value::String(s.chars().rev().collect::<String>() + "."),
        Value::Number(n) => Value::from(n.as_u64().map_or(1, |n| n + 1 + u64::from(choice))),
        Value::Bool(b) => Value::Bool(!b),
        Value::Null => Value::String("x".into()),
        other => other.clone(),
    }
}

#[test]
fn the_demo_plan_is_read_as_it_was_written() {
    let text = demo_plan();
    let plan = edgeaudit::live::apply::read::plan(&text, "plan.json", Some(ACCOUNT)).expect("the plan as made");
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(plan.plan_id, doc["plan_id"]);
    assert_eq!(plan.plan_id.len(), 32);
    // The id is the one every rendering shows.
    let md = run(&["plan", "fixtures/demo", "--format", "markdown", "--as-of", "2024-10-01"]);
    assert!(md.stdout.contains(&format!("Plan `{}`", plan.plan_id)), "{}", md.stdout);
    assert!(md.stderr.contains(&format!("edgeaudit plan {}:", plan.plan_id)), "{}", md.stderr);
    let html = run(&["plan", "fixtures/demo", "--format", "html", "--as-of", "2024-10-01"]);
    assert!(html.stdout.contains(&format!("Plan <code>{}</code>", plan.plan_id)));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Any one field of the plan edited: refused on reading, before the
    /// first request.
    #[test]
    fn any_single_field_edit_is_refused(pick in any::<proptest::sample::Index>(), choice in any::<u8>()) {
        static PLAN: std::sync::OnceLock<(String, Vec<String>)> = std::sync::OnceLock::new();
        let (text, paths) = PLAN.get_or_init(|| {
            let text = demo_plan();
            let mut paths = Vec::new();
            leaves(&serde_json::from_str(&text).unwrap(), String::new(), &mut paths);
            (text, paths)
        });
        let mut doc: Value = serde_json::from_str(text).unwrap();
        let at = pick.get(paths);
        let leaf = doc.pointer_mut(at).unwrap();
        let before = leaf.clone();
        *leaf = edited(&before, choice);
        prop_assume!(*leaf != before);
        let result = edgeaudit::live::apply::read::plan(&doc.to_string(), "plan.json", Some(ACCOUNT));
        prop_assert!(result.is_err(), "{at}: {before} → {} was accepted", doc.pointer(at).unwrap());
    }
}

/// Against the stand-in: an edited plan, with its id computed again by the
/// attacker, sends nothing and exits 2; `--expect-plan-id` and `--from`
/// refuse a plan that is not the reviewed one.
#[test]
fn an_edited_plan_sends_nothing() {
    let text = demo_plan();
    let dir = common::temp_dir(&[("plan.json", text.as_bytes())]);
    let plan: Value = serde_json::from_str(&text).unwrap();
    let id = plan["plan_id"].as_str().unwrap().to_string();
    // No service answers on this port: a request would be an error of another kind.
    let env = [("CLOUDFLARE_API_TOKEN", "t"), ("CLOUDFLARE_API_BASE", "http://127.0.0.1:9")];
    let apply = |file: &str, extra: &[&str]| {
        let mut args = vec!["apply", file, "--yes", "--account", ACCOUNT, "--retries", "0"];
        args.extend_from_slice(extra);
        run_with_env(&args, &env)
    };
    let file = path_str(&dir.path().join("plan.json"));
    // The plan as made goes as far as the network (refused there: nothing listens).
    let r = apply(&file, &["--expect-plan-id", &id, "--from", "fixtures/demo"]);
    assert!(r.stderr.contains("no answer"), "{}", r.stderr);
    let r = apply(&file, &["--expect-plan-id", "0123456789abcdef0123456789abcdef"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("not the plan 0123456789abcdef0123456789abcdef that was reviewed"),
        "{}",
        r.stderr
    );
    // The same plan made from other exports.
    let other = common::temp_dir(&[(
        "pools.json",
        br#"{"result": [{"id": "aa000000000000000000000000000001", "name": "x", "notification_email": "a@x.io", "origins": []}]}"#,
    )]);
    let r = apply(&file, &["--from", &path_str(other.path())]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("the exports make plan"), "{}", r.stderr);
    // Edited and sealed again: refused for what it means, nothing sent.
    let mut edited = plan.clone();
    let steps = edited["accounts"][0]["steps"].as_array_mut().unwrap();
    let create = steps.iter_mut().find(|s| s["kind"] == "create_policy").unwrap();
    create["body"]["mechanisms"]["email"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"id": "attacker@evil.example"}));
    let resealed = edgeaudit::plan::render::digest(&edited);
    for step in edited["accounts"][0]["steps"].as_array_mut().unwrap() {
        if step["kind"] == "create_policy" {
            let n = step["step"].as_u64().unwrap() as usize;
            let marker = edgeaudit::plan::render::marker(&resealed, n);
            let pools = step["pools"].as_array().unwrap().len();
            step["body"]["description"] = Value::String(edgeaudit::plan::render::created_description(pools, &marker));
            step["marker"] = Value::String(marker);
        }
    }
    edited["plan_id"] = Value::String(resealed);
    std::fs::write(dir.path().join("edited.json"), edited.to_string()).unwrap();
    let r = apply(&path_str(&dir.path().join("edited.json")), &[]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("attacker@evil.example") && r.stderr.contains("not a legacy recipient"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("no answer"), "a request was attempted: {}", r.stderr);
}
