//! The live commands end to end, against a stand-in of the service on
//! 127.0.0.1 (tests/it/service): export → check → plan → apply, the account
//! migrated with no alert lost; faults at every request; drift between plan
//! and apply; re-runs that finish the work and send nothing twice.

use crate::common;
use crate::contract;
use crate::service;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{json, path_str, run, run_in_with_env, temp_dir};
use edgeaudit::live::apply::{self, Options, Stop};
use edgeaudit::live::client::{Client, Settings};
use edgeaudit::live::credentials::{Credentials, Secret};
use edgeaudit::live::export::{Scope, export};
use edgeaudit::live::pace::{Clock, VirtualClock};
use serde_json::{Value, json};
use service::{Fault, Service, State, TOKEN};

const ACCOUNT: &str = "023e105f4ecef8ad9ca31a8372d0c353";
const ZONE: &str = "9a7806061c88ada191ed06f989cc3dac";
const ADDRESSES: [&str; 3] = ["noc@example.com", "oncall@example.com", "sre@example.org"];
const PARTIAL: &str = "aaaa0000000000000000000000000001";
const TYPO: &str = "aaaa0000000000000000000000000002";
const COVER: &str = "aaaa0000000000000000000000000003";
/// The policies the account starts with.
const POLICIES: usize = 3;

/// `pools` pools, names in another order than ids, with every kind of legacy
/// e-mail and filter; a policy covering part of one pool (completed by a
/// PUT), one with a misspelt filter (corrected by a PUT), `hostnames` custom
/// hostnames of which a third are on Let's Encrypt, Total TLS on Let's Encrypt.
fn account(pools: usize, hostnames: usize) -> State {
    let mut records = Vec::new();
    for i in 0..pools {
        let emails: Vec<&str> = ADDRESSES
            .iter()
            .enumerate()
            .filter(|(k, _)| (i + k) % 4 != 0 && i % 7 != 0)
            .map(|(_, a)| *a)
            .collect();
        let mut pool = json!({
            "id": format!("{:032x}", 1000 + i),
            // The last pool alone on the last page, when the pages leave it so: a per-pool clear.
            "name": if i + 1 == pools { "zz-last".to_string() } else { format!("pool-{:02}", (i * 37) % pools) },
            "enabled": true,
            "origins": [{"name": "o1", "address": "192.0.2.1", "enabled": true}],
            "notification_email": emails.join(", "),
        });
        if i % 3 == 0 {
            pool["notification_filter"] = json!({"pool": {"healthy": false}, "origin": {"disable": i % 2 == 0}});
        }
        records.push(pool);
    }
    let policies = vec![
        json!({"id": PARTIAL, "name": "partial", "alert_type": "load_balancing_health_alert", "enabled": true,
               "description": "pool 1 to the NOC", "alert_interval": "30m", "created": "2024-01-01T00:00:00Z",
               "mechanisms": {"email": [{"id": "noc@example.com"}]},
               "filters": {"pool_id": [format!("{:032x}", 1001)], "event_source": ["pool"]}}),
        // `conditions` is derived by the service and not a field a PUT may send.
        json!({"id": TYPO, "name": "typo", "alert_type": "load_balancing_health_alert", "enabled": true,
               "mechanisms": {"email": [{"id": "oncall@example.com"}]},
               "filters": {"new_health": ["unhealthy"]}, "conditions": {"and": [{"or": [{"==": [{"var": "new_health"}, "Unhealthy"]}]}]}}),
        // Covers pool 2 whole: counted on, never updated.
        json!({"id": COVER, "name": "cover", "alert_type": "load_balancing_health_alert", "enabled": true,
               "mechanisms": {"email": [{"id": "noc@example.com"}, {"id": "oncall@example.com"}]},
               "filters": {"pool_id": [format!("{:032x}", 1002)]}}),
    ];
    let custom_hostnames = (0..hostnames)
        .map(|i| {
            let ca = ["lets_encrypt", "google", ""][i % 3];
            json!({
                "id": format!("{:08x}-0000-4000-8000-{:012x}", i, i),
                "hostname": format!("shop{i}.customer.example"),
                "status": "active",
                "ssl": {"id": format!("{:032x}", 5000 + i), "type": "dv", "method": if i % 2 == 0 { "http" } else { "txt" },
                        "status": "active", "certificate_authority": ca,
                        // Settings a PATCH that sends only the CA would reset.
                        "bundle_method": if i % 2 == 0 { "force" } else { "ubiquitous" }, "wildcard": i % 4 == 0,
                        "settings": {"min_tls_version": "1.2", "http2": "on"}},
            })
        })
        .collect();
    State {
        account: ACCOUNT.into(),
        pools: records,
        policies,
        zone: ZONE.into(),
        custom_hostnames,
        total_tls: json!({"enabled": true, "certificate_authority": "lets_encrypt", "validity_period": 90}),
        // Let's Encrypt named in the settings: chosen, so never switched by the service (CA011).
        universal_ssl: json!({"enabled": true, "certificate_authority": "lets_encrypt"}),
        // A service that takes the CA the contract does not list (a test has one that ignores it).
        honours_universal_ca: true,
        certificate_packs: vec![json!({
            "id": "3822ff90-ea29-44df-9e55-21300bb9419b", "type": "universal", "status": "active",
            "hosts": ["customer.example", "*.customer.example"], "certificate_authority": "lets_encrypt",
            "validity_days": 90, "certificates": []
        })],
        ..State::default()
    }
}

fn live_env(service: &Service) -> Vec<(&'static str, String)> {
    vec![("CLOUDFLARE_API_TOKEN", TOKEN.to_string()), ("CLOUDFLARE_API_BASE", service.base())]
}

fn edgeaudit(dir: &std::path::Path, service: &Service, args: &[&str]) -> common::Run {
    let env = live_env(service);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    run_in_with_env(dir, args, &env)
}

/// A client for in-process runs: a virtual clock (waits cost no time), a
/// short timeout for held answers, and the given retries.
fn client(service: &Service, clock: &Arc<VirtualClock>) -> Client {
    client_at(&service.base(), clock)
}

fn client_at(base: &str, clock: &Arc<VirtualClock>) -> Client {
    client_timed(base, clock, Duration::from_secs(1))
}

fn client_timed(base: &str, clock: &Arc<VirtualClock>, timeout: Duration) -> Client {
    client_of(settings_timed(base, timeout), clock)
}

/// The tests' client settings: a short backoff, and `timeout` for an answer.
fn settings_timed(base: &str, timeout: Duration) -> Settings {
    let mut settings = Settings::new(base.to_string());
    settings.timeout = timeout;
    settings.connect_timeout = Duration::from_secs(1);
    settings.backoff = Duration::from_millis(100);
    settings
}

fn client_of(settings: Settings, clock: &Arc<VirtualClock>) -> Client {
    Client::new(settings, Credentials::Token(Secret::new(TOKEN.into())), clock.clone())
}

/// A stand-in serving `state`, a folder, and the plan of its export at `per_page`.
fn planned(state: State, per_page: &str) -> (Service, tempfile::TempDir, Value) {
    let service = Service::start(state);
    let dir = temp_dir(&[]);
    let plan = plan_of(&service, dir.path(), per_page);
    (service, dir, plan)
}

/// Exports the account in-process and plans it with the binary; the plan's JSON.
fn plan_of(service: &Service, dir: &std::path::Path, per_page: &str) -> Value {
    let clock = Arc::new(VirtualClock::default());
    let scope = Scope {
        account: ACCOUNT.into(),
        zones: vec![ZONE.into()],
        all_zones: false,
    };
    let bundle = export(&mut client(service, &clock), &scope, chrono::Utc::now()).expect("export");
    let file = dir.join("account.json");
    std::fs::write(&file, serde_json::to_vec_pretty(&bundle).expect("json")).expect("write");
    let r = run(&[
        "plan",
        &path_str(&file),
        "--format",
        "json",
        "--as-of",
        "2024-10-01",
        "--per-page",
        per_page,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    json(&r)
}

fn apply_in_process(service: &Service, plan: &Value, dry_run: bool) -> (Result<apply::Summary, Stop>, String, Arc<VirtualClock>) {
    apply_at(&service.base(), plan, dry_run)
}

/// [`apply_in_process`] by the service's address: a hook of the service can run it (a second client).
fn apply_at(base: &str, plan: &Value, dry_run: bool) -> (Result<apply::Summary, Stop>, String, Arc<VirtualClock>) {
    apply_timed(base, plan, dry_run, Duration::from_secs(1))
}

/// [`apply_at`] with a client that gives up on an answer after `timeout`.
fn apply_timed(base: &str, plan: &Value, dry_run: bool, timeout: Duration) -> (Result<apply::Summary, Stop>, String, Arc<VirtualClock>) {
    let clock = Arc::new(VirtualClock::default());
    let mut client = client_timed(base, &clock, timeout);
    let plan = edgeaudit::live::apply::read::plan(&plan.to_string(), "plan.json", None).expect("a plan");
    let mut log = Vec::new();
    let outcome = apply::run(&mut client, &plan, &Options { dry_run }, &mut log, &mut |_| true);
    (outcome, String::from_utf8_lossy(&log).into_owned(), clock)
}

/// The requests a clean run of `plan` makes, in order, on a fresh account
/// like the one `service` started with: where to put a fault or a drift.
fn probe_log(plan: &Value) -> Vec<String> {
    let probe = Service::start(account(13, 3));
    let (ok, _, _) = apply_in_process(&probe, plan, false);
    assert!(ok.is_ok(), "the probe run finishes: {ok:?}");
    probe.with(|s| s.log.clone())
}

/// The 1-based index, in a clean run, of the first request `wanted` matches.
fn request_index(plan: &Value, wanted: impl Fn(&str) -> bool) -> usize {
    probe_log(plan).iter().position(|l| wanted(l)).expect("the request is made") + 1
}

/// Every step that changes something, by kind, from the plan.
fn count_kind(plan: &Value, kind: &str) -> usize {
    plan["accounts"][0]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["kind"] == kind)
        .count()
}

/// The migration as the plan leaves it: no legacy e-mail on the pools it
/// clears, no policy created twice, hostnames and Total TLS off Let's Encrypt.
fn assert_done(service: &Service, plan: &Value, initial_policies: usize) {
    service.with(|state| {
        assert!(state.lost.is_empty(), "alerts lost: {:?}", state.lost);
        let cleared: BTreeSet<&str> = plan["accounts"][0]["steps"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["kind"] == "clear_page" || s["kind"] == "clear_pool")
            .flat_map(|s| s["pools"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()))
            .collect();
        for pool in &state.pools {
            if cleared.contains(pool["id"].as_str().unwrap()) {
                assert_eq!(pool["notification_email"], "", "{pool}");
            }
        }
        let markers: Vec<&str> = plan["accounts"][0]["steps"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|s| s["marker"].as_str())
            .collect();
        for marker in &markers {
            let carrying = state
                .policies
                .iter()
                .filter(|p| p["description"].as_str().is_some_and(|d| d.contains(marker)))
                .count();
            assert_eq!(carrying, 1, "policies carrying {marker}");
        }
        assert_eq!(state.policies.len(), initial_policies + markers.len(), "no policy created twice");
        for host in &state.custom_hostnames {
            let i: usize = host["hostname"].as_str().unwrap()["shop".len()..]
                .split('.')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            assert_eq!(host["ssl"]["method"], if i.is_multiple_of(2) { "http" } else { "txt" });
            assert_ne!(host["ssl"]["certificate_authority"], "lets_encrypt");
            // Moved with every other TLS setting as it was.
            assert_eq!(
                host["ssl"]["bundle_method"],
                if i.is_multiple_of(2) { "force" } else { "ubiquitous" },
                "{host}"
            );
            assert_eq!(host["ssl"]["wildcard"], i.is_multiple_of(4), "{host}");
            assert_eq!(host["ssl"]["settings"], json!({"min_tls_version": "1.2", "http2": "on"}), "{host}");
        }
        assert_eq!(state.total_tls["certificate_authority"], "google");
        assert_eq!(state.universal_ssl["certificate_authority"], "google");
    });
}

/// The README's flow, exactly its commands, from its "From the live
/// account" block: export → check → plan → apply, then the account checked
/// again is migrated.
#[test]
fn the_readme_flow_exports_checks_plans_and_applies() {
    let readme = std::fs::read_to_string(common::root().join("README.md")).expect("README");
    let block = common::fenced_after(&readme, "## From the live account", "sh");
    let commands: Vec<Vec<String>> = block
        .lines()
        .map(|l| l.split(" #").next().unwrap_or("").trim())
        .filter(|l| l.starts_with("edgeaudit "))
        .map(|l| {
            l.split_whitespace()
                .skip(1)
                .map(|w| w.trim_matches('"').replace("$ACCOUNT_ID", ACCOUNT).replace("$ZONE_ID", ZONE))
                .collect()
        })
        .collect();
    let kinds: Vec<&str> = commands.iter().map(|c| c[0].as_str()).collect();
    assert_eq!(kinds, ["export", "check", "plan", "plan", "apply", "apply"], "{block}");
    let service = Service::start(account(60, 120));
    let dir = temp_dir(&[]);
    for command in &commands {
        let args: Vec<&str> = command.iter().map(String::as_str).collect();
        let r = edgeaudit(dir.path(), &service, &args);
        let expected = if command[0] == "check" { 1 } else { 0 };
        assert_eq!(r.code, expected, "edgeaudit {args:?}:\n{}\n{}", r.stdout, r.stderr);
        assert!(!r.stderr.contains(TOKEN) && !r.stdout.contains(TOKEN), "the token is never shown");
    }
    let exported = std::fs::read_to_string(dir.path().join("exports/account.json")).expect("the export");
    assert!(!exported.contains(TOKEN), "the token is never written");
    let bundle: Value = serde_json::from_str(&exported).expect("json");
    assert_eq!(bundle["exported"]["from"], service.base());
    assert_eq!(bundle["pools"].as_array().unwrap().len(), 1, "60 pools in one page of 1000");
    assert_eq!(
        bundle["zones"][0]["custom_hostnames"].as_array().unwrap().len(),
        3,
        "three pages of 50"
    );
    let plan: Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("plan.json")).expect("plan")).expect("json");
    assert_done(&service, &plan, POLICIES);
    // Checked again: no LB001–LB004, no CA003/CA004.
    let again = edgeaudit(dir.path(), &service, &["export", ACCOUNT, ZONE, "-o", "after.json"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let check = run(&[
        "check",
        &path_str(&dir.path().join("after.json")),
        "--no-config",
        "--select",
        "LB001,LB002,LB003,LB004,CA003,CA004,EX001",
        "--format",
        "json",
        "--as-of",
        "2024-10-01",
    ]);
    assert_eq!(check.code, 0, "{}", check.stdout);
    // The existing policies were updated in place, keeping what the plan did not change.
    service.with(|state| {
        let policy = |id: &str| state.policies.iter().find(|p| p["id"] == id).unwrap().clone();
        let partial = policy(PARTIAL);
        assert_eq!(partial["description"], "pool 1 to the NOC");
        assert_eq!(partial["alert_interval"], "30m");
        assert_ne!(partial["filters"]["event_source"], json!(["pool"]), "completed: {partial}");
        assert_eq!(policy(TYPO)["filters"]["new_health"], json!(["Unhealthy"]));
    });
    // Run again: nothing sent but reads, exit 0.
    let changes = service.with(|s| s.changes);
    let rerun = edgeaudit(dir.path(), &service, &["apply", "plan.json", "--yes"]);
    assert_eq!(rerun.code, 0, "{}", rerun.stderr);
    assert_eq!(service.with(|s| s.changes), changes, "a re-run sends no change");
    assert!(rerun.stderr.contains("0 changes sent"), "{}", rerun.stderr);
}

#[test]
fn apply_without_a_terminal_needs_yes_and_a_dry_run_sends_nothing() {
    let (service, dir, plan) = planned(account(13, 3), "4");
    std::fs::write(dir.path().join("plan.json"), plan.to_string()).expect("write");
    let r = edgeaudit(dir.path(), &service, &["apply", "plan.json"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("--yes"), "{}", r.stderr);
    let requests = service.with(|s| s.requests);
    let dry = edgeaudit(dir.path(), &service, &["apply", "plan.json", "--dry-run"]);
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert_eq!(service.with(|s| s.changes), 0, "a dry run sends no change");
    assert!(service.with(|s| s.requests) > requests, "but it reads");
    assert!(dry.stderr.contains("would be sent"), "{}", dry.stderr);
    // No credentials: a usage error naming the variable, nothing read.
    let none = run_in_with_env(dir.path(), &["apply", "plan.json", "--yes"], &[]);
    assert_eq!(none.code, 2);
    assert!(none.stderr.contains("CLOUDFLARE_API_TOKEN"), "{}", none.stderr);
    // Plain http to anything but loopback is refused before any request.
    let far = run_in_with_env(
        dir.path(),
        &["export", ACCOUNT, "-o", "x.json"],
        &[("CLOUDFLARE_API_TOKEN", TOKEN), ("CLOUDFLARE_API_BASE", "http://api.example.com")],
    );
    assert_eq!(far.code, 2);
    assert!(far.stderr.contains("loopback"), "{}", far.stderr);
}

/// The fault × index matrix: for every fault kind, at every request of a
/// run of a plan with creates, PUTs, page-wide and per-pool clears and
/// certificate changes, no alert is lost after any change (the stand-in
/// checks), the run finishes (transient faults) or stops naming the step,
/// and running it again converges with no duplicate policy.
#[test]
fn at_every_request_every_fault_loses_no_alert_and_a_rerun_converges() {
    let base = || account(13, 3);
    let service = Service::start(base());
    let dir = temp_dir(&[]);
    let plan = plan_of(&service, dir.path(), "4");
    for kind in [
        "create_policy",
        "update_policy",
        "clear_page",
        "clear_pool",
        "edit_custom_hostname",
        "set_total_tls",
        "set_universal_ssl",
    ] {
        assert!(count_kind(&plan, kind) > 0, "the plan has a {kind} step: {plan:#}");
    }
    // A clean run: how many requests it makes.
    let before = service.with(|s| s.requests);
    let (clean, log, _) = apply_in_process(&service, &plan, false);
    assert!(clean.is_ok(), "{clean:?}\n{log}");
    let requests = service.with(|s| s.requests) - before;
    assert_done(&service, &plan, POLICIES);
    let mut table = Vec::new();
    for fault in Fault::ALL {
        let (mut finished, mut stopped) = (0, 0);
        for at in 1..=requests + 1 {
            let service = Service::start(base());
            service.with(|s| s.fault = Some((at, fault)));
            // A held answer costs the client's timeout: a short one here (a loopback answer
            // takes about a millisecond; one slower than this is retried like a held one).
            let timeout = Duration::from_millis(if fault == Fault::Hold { 300 } else { 1000 });
            let (first, log, clock) = apply_timed(&service.base(), &plan, false, timeout);
            let context = format!("{fault:?} at request {at}: {first:?}\n{log}");
            assert!(
                service.with(|s| s.lost.is_empty()),
                "{context}: lost {:?}",
                service.with(|s| s.lost.clone())
            );
            match &first {
                Ok(_) => finished += 1,
                Err(Stop::Step { request, .. }) => {
                    assert!(!request.is_empty(), "{context}");
                    stopped += 1;
                }
                Err(Stop::Verify { .. }) => stopped += 1,
                Err(other) => panic!("{context}: unexpected {other:?}"),
            }
            if fault.is_transient() {
                assert!(first.is_ok(), "a transient fault is retried: {context}");
            } else if at <= requests {
                assert!(first.is_err(), "a refusal stops the run: {context}");
            }
            if fault == Fault::RateLimited && at <= requests {
                assert!(clock.sleeps().contains(&Duration::from_secs(7)), "Retry-After is waited: {context}");
            }
            service.with(|s| s.fault = None);
            let (second, log, _) = apply_in_process(&service, &plan, false);
            assert!(second.is_ok(), "the re-run finishes: {context}\nre-run: {second:?}\n{log}");
            let changes = service.with(|s| s.changes);
            let (third, _, _) = apply_in_process(&service, &plan, false);
            assert!(third.is_ok());
            assert_eq!(service.with(|s| s.changes), changes, "a finished plan sends nothing: {context}");
            assert_done(&service, &plan, POLICIES);
        }
        table.push(format!(
            "{fault:?}: {finished} finished, {stopped} stopped, all converged, of {}",
            requests + 1
        ));
    }
    eprintln!("fault × index ({requests} requests in a clean run):\n{}", table.join("\n"));
}

fn drifted(change: impl FnOnce(&mut State)) -> (Result<apply::Summary, Stop>, Service) {
    let (service, _dir, plan) = planned(account(13, 3), "4");
    service.with(change);
    let requests = service.with(|s| s.requests);
    let (outcome, _, _) = apply_in_process(&service, &plan, false);
    assert_eq!(service.with(|s| s.changes), 0, "nothing sent");
    // Only the two reads of the account were made.
    assert_eq!(service.with(|s| s.requests) - requests, 2);
    (outcome, service)
}

fn differences(outcome: Result<apply::Summary, Stop>) -> Vec<String> {
    match outcome {
        Err(Stop::Drift { differences, .. }) => differences,
        other => panic!("expected a refusal for drift: {other:?}"),
    }
}

#[test]
fn drift_between_plan_and_apply_is_refused_with_the_differences_and_nothing_sent() {
    let pool = |i: usize| format!("{:032x}", 1000 + i);
    type Change = Box<dyn FnOnce(&mut State)>;
    let cases: Vec<(&str, Change)> = vec![
        (
            "policy `cover` (aaaa0000000000000000000000000003) changed since the export: no longer delivers",
            Box::new(|s: &mut State| s.policies[2]["enabled"] = json!(false)),
        ),
        (
            "policy `cover` (aaaa0000000000000000000000000003) was deleted",
            Box::new(|s: &mut State| {
                s.policies.remove(2);
            }),
        ),
        (
            "policy `partial` (aaaa0000000000000000000000000001) was edited since the export",
            Box::new(|s: &mut State| s.policies[0]["description"] = json!("edited")),
        ),
        (
            "policy `typo` (aaaa0000000000000000000000000002) was edited since the export: the plan's PUT would overwrite the edit",
            Box::new(|s: &mut State| s.policies[1]["alert_interval"] = json!("1h")),
        ),
        (
            "was added with a legacy e-mail to late@example.com",
            Box::new(|s: &mut State| {
                s.pools.push(json!({"id": "ffff0000000000000000000000000001", "name": "late", "origins": [], "notification_email": "late@example.com"}));
            }),
        ),
        ("now new@example.com, noc@example.com, oncall@example.com, sre@example.org about", {
            let id = pool(1);
            Box::new(move |s: &mut State| {
                let p = s.pools.iter_mut().find(|p| p["id"] == id.as_str()).unwrap();
                p["notification_email"] = json!(format!("{}, new@example.com", p["notification_email"].as_str().unwrap()));
            })
        }),
        ("was renamed to `aaa-first`", {
            let id = pool(5);
            Box::new(move |s: &mut State| {
                s.pools.iter_mut().find(|p| p["id"] == id.as_str()).unwrap()["name"] = json!("aaa-first");
            })
        }),
        ("was deleted", {
            let id = pool(2);
            Box::new(move |s: &mut State| s.pools.retain(|p| p["id"] != id.as_str()))
        }),
    ];
    for (expected, change) in cases {
        let (outcome, _) = drifted(change);
        let found = differences(outcome.clone());
        assert!(found.iter().any(|d| d.contains(expected)), "{expected:?} not in {found:#?}");
        let text = outcome.unwrap_err().to_string();
        assert!(text.contains("Export the account again and make a new plan"), "{text}");
    }
}

/// Drift after the start: a covering policy disabled just before the first
/// clear reads the policies. The clear is not sent; nothing is lost; once the
/// policy is enabled again the same command finishes.
#[test]
fn a_policy_disabled_during_the_run_stops_the_clear_that_relies_on_it() {
    let (service, _dir, plan) = planned(account(13, 3), "4");
    // Find the request index of the first clear's read of the policies.
    let log = probe_log(&plan);
    let first_clear = log.iter().position(|l| l.starts_with("PATCH /accounts/")).expect("a clear");
    let read = log[..first_clear]
        .iter()
        .rposition(|l| l.ends_with("/alerting/v3/policies"))
        .expect("its read")
        + 1;
    // Every policy e-mailing noc@ is disabled there (the created ones too).
    service.with(|s| {
        s.drift = Some((
            s.requests + read,
            Box::new(|s: &mut State| {
                for p in &mut s.policies {
                    p["enabled"] = json!(false);
                }
            }),
        ))
    });
    let (outcome, log, _) = apply_in_process(&service, &plan, false);
    match &outcome {
        Err(Stop::Step { why, .. }) => assert!(why.contains("clearing it would lose an alert"), "{why}\n{log}"),
        other => panic!("expected a stop before the clear: {other:?}\n{log}"),
    }
    assert!(service.with(|s| s.lost.is_empty()));
    assert!(
        !service.with(|s| s.log.iter().any(|l| l.starts_with("PATCH /accounts/"))),
        "no clear was sent"
    );
    service.with(|s| {
        for p in &mut s.policies {
            p["enabled"] = json!(true);
        }
    });
    let (again, log, _) = apply_in_process(&service, &plan, false);
    assert!(again.is_ok(), "{again:?}\n{log}");
    assert_done(&service, &plan, POLICIES);
}

/// The 1-based index of the last request `read` before the first that
/// contains `change`, in a clean run of `plan`: the check's read of a change.
fn read_before(plan: &Value, read: &str, change: &str) -> usize {
    let log = probe_log(plan);
    let at = log.iter().position(|l| l.contains(change)).expect("the change is sent");
    log[..at].iter().rposition(|l| l == read).expect("its read") + 1
}

/// The run stopped by a change made just before the request `index` finds
/// (on a probe run of the same plan).
fn stopped_by_change_before(index: impl Fn(&Value) -> usize, change: service::Drift) -> (String, Service, Value) {
    let (service, _dir, plan) = planned(account(13, 3), "4");
    let index = index(&plan);
    service.with(|s| s.drift = Some((s.requests + index, change)));
    let (outcome, log, _) = apply_in_process(&service, &plan, false);
    assert!(service.with(|s| s.lost.is_empty()));
    match outcome {
        Err(Stop::Step { why, .. }) => (why, service, plan),
        other => panic!("expected a stop: {other:?}\n{log}"),
    }
}

/// A policy edited after the run started is not overwritten by the PUT; a
/// hostname moved to another CA meanwhile is not changed again.
#[test]
fn a_resource_changed_during_the_run_is_never_overwritten() {
    let (why, service, _) = stopped_by_change_before(
        |plan| {
            read_before(
                plan,
                &format!("GET /accounts/{ACCOUNT}/alerting/v3/policies"),
                &format!("PUT /accounts/{ACCOUNT}/alerting/v3/policies/{TYPO}"),
            )
        },
        Box::new(|s: &mut State| s.policies[1]["alert_interval"] = json!("1h")),
    );
    assert!(why.contains("was edited since the export"), "{why}");
    assert!(
        !service.with(|s| s.log.iter().any(|l| l.starts_with("PUT") && l.contains(TYPO))),
        "no PUT sent"
    );
    assert_eq!(service.with(|s| s.policies[1]["alert_interval"].clone()), "1h");
    let (why, service, _) = stopped_by_change_before(
        |plan| request_index(plan, |l| l.contains(&format!("GET /zones/{ZONE}/custom_hostnames/"))),
        Box::new(|s: &mut State| s.custom_hostnames[0]["ssl"]["certificate_authority"] = json!("ssl_com")),
    );
    assert!(why.contains("changed since the plan"), "{why}");
    assert_eq!(
        service.with(|s| s.custom_hostnames[0]["ssl"]["certificate_authority"].clone()),
        "ssl_com"
    );
}

/// A pool renamed to the front during the run shifts every page: the next
/// page-wide clear is not sent; its pools are cleared one by one, each
/// checked, and the run finishes.
#[test]
fn a_page_that_shifted_during_the_run_is_cleared_pool_by_pool() {
    let (service, _dir, plan) = planned(account(13, 3), "4");
    // Renamed right before the check of page 2's clear reads the pools.
    let log = probe_log(&plan);
    let clear = log
        .iter()
        .position(|l| l.starts_with("PATCH") && l.contains("per_page=4&page=2"))
        .expect("page 2 is cleared whole");
    let index = log[..clear]
        .iter()
        .rposition(|l| *l == format!("GET /accounts/{ACCOUNT}/load_balancers/pools"))
        .expect("its read of the pools")
        + 1;
    service.with(|s| {
        s.drift = Some((
            s.requests + index,
            Box::new(|s: &mut State| {
                let last = s.pools.iter_mut().find(|p| p["name"] == "zz-last").expect("the last pool");
                last["name"] = json!("aaa-first");
            }),
        ))
    });
    let (outcome, log, _) = apply_in_process(&service, &plan, false);
    assert!(outcome.is_ok(), "{outcome:?}\n{log}");
    assert!(log.contains("cleared one by one instead"), "{log}");
    assert!(service.with(|s| s.lost.is_empty()));
    assert!(
        !service.with(|s| s.log.iter().any(|l| l.starts_with("PATCH") && l.contains("page=2"))),
        "page 2 not cleared whole"
    );
    assert_done(&service, &plan, POLICIES);
}

/// A clear whose answer is lost while the account changes: before sending
/// it again, the whole check runs again, and the clear that would now lose
/// alerts is not resent.
#[test]
fn a_resend_after_a_lost_answer_is_checked_again() {
    let (service, _dir, plan) = planned(account(13, 3), "4");
    let index = request_index(&plan, |l| l.starts_with("PATCH /accounts/"));
    service.with(|s| {
        let at = s.requests + index;
        s.fault = Some((at, Fault::CloseBefore));
        s.drift = Some((
            at,
            Box::new(|s: &mut State| {
                for p in &mut s.policies {
                    p["enabled"] = json!(false);
                }
            }),
        ));
    });
    let (outcome, log, _) = apply_in_process(&service, &plan, false);
    match &outcome {
        Err(Stop::Step { why, .. }) => {
            assert!(
                why.contains("before sending it again") && why.contains("would lose an alert"),
                "{why}\n{log}"
            )
        }
        other => panic!("expected a stop: {other:?}\n{log}"),
    }
    assert!(service.with(|s| s.lost.is_empty()), "{:?}", service.with(|s| s.lost.clone()));
    assert_eq!(
        service.with(|s| s.log.iter().filter(|l| l.starts_with("PATCH /accounts/")).count()),
        1,
        "the clear was not sent again"
    );
}

/// A clear whose answer is lost, then the policies disabled: the pools the
/// lost clear took a legacy e-mail from are this run's, so the check after
/// the last step writes each e-mail back (as read right before the clear),
/// never "cleared before this run". A page-wide clear, and the last pool's
/// own clear (alone on the last page of 4).
#[test]
fn a_pool_a_lost_clear_cleared_is_written_back_when_its_alerts_are_lost() {
    let last = format!("{:032x}", 1000 + 12);
    let page: &dyn Fn(&str) -> bool = &|l: &str| l.starts_with("PATCH /accounts/") && l.contains("page=");
    let own: &dyn Fn(&str) -> bool = &|l: &str| l.starts_with("PATCH /accounts/") && l.contains(&last);
    for (per_page, lost) in [("25", page), ("4", own)] {
        let (service, _dir, plan) = planned(account(13, 3), per_page);
        let legacy_before: BTreeMap<String, Value> = service.with(|s| {
            s.pools
                .iter()
                .filter(|p| p["notification_email"].as_str().is_some_and(|e| !e.is_empty()))
                .map(|p| (p["id"].as_str().unwrap().to_string(), p["notification_email"].clone()))
                .collect()
        });
        assert!(legacy_before.len() >= 2 && legacy_before.contains_key(&last), "{legacy_before:?}");
        let index = request_index(&plan, lost);
        service.with(|s| {
            let at = s.requests + index;
            s.fault = Some((at, Fault::CloseAfter));
            s.drift = Some((
                at + 1,
                Box::new(|s: &mut State| {
                    for p in &mut s.policies {
                        p["enabled"] = json!(false);
                    }
                }),
            ));
        });
        let (outcome, log, _) = apply_in_process(&service, &plan, false);
        match &outcome {
            Err(Stop::Verify { problems }) => {
                assert!(problems.iter().any(|p| p.contains(&last)), "{per_page}: {problems:#?}");
                assert!(
                    problems.iter().all(|p| p.contains("was written back")),
                    "{per_page}: {problems:#?}\n{log}"
                );
                assert!(!problems.iter().any(|p| p.contains("before this run")), "{per_page}: {problems:#?}");
            }
            other => panic!("{per_page}: expected the check after the last step to stop: {other:?}\n{log}"),
        }
        let legacy_after: BTreeMap<String, Value> = service.with(|s| {
            s.pools
                .iter()
                .filter(|p| legacy_before.contains_key(p["id"].as_str().unwrap()))
                .map(|p| (p["id"].as_str().unwrap().to_string(), p["notification_email"].clone()))
                .collect()
        });
        assert_eq!(
            legacy_after, legacy_before,
            "{per_page}: every legacy e-mail written back as it was"
        );
    }
}

#[test]
fn an_export_gets_past_transient_faults_and_writes_nothing_after_a_failed_request() {
    let scope = Scope {
        account: ACCOUNT.into(),
        zones: vec![ZONE.into()],
        all_zones: true,
    };
    let at = chrono::DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
        .unwrap()
        .with_timezone(&chrono::Utc);
    let clean_service = Service::start(account(60, 120));
    let clock = Arc::new(VirtualClock::default());
    let clean = export(&mut client(&clean_service, &clock), &scope, at).expect("a clean export");
    let requests = clean_service.with(|s| s.requests);
    assert!(requests >= 10, "{requests}");
    let mut clean_text = clean.to_string();
    clean_text = clean_text.replace(&clean_service.base(), "BASE");
    for fault in Fault::ALL.into_iter().filter(|f| f.is_transient()) {
        for at_request in 1..=requests {
            let service = Service::start(account(60, 120));
            service.with(|s| s.fault = Some((at_request, fault)));
            let exported = export(&mut client(&service, &clock), &scope, at);
            let exported = exported.unwrap_or_else(|e| panic!("{fault:?} at {at_request}: {e}"));
            assert_eq!(
                exported.to_string().replace(&service.base(), "BASE"),
                clean_text,
                "{fault:?} at {at_request}"
            );
        }
    }
    // Refusals, and a fault that never ends: non-zero, the request named, no file, an earlier file untouched.
    let dir = temp_dir(&[("account.json", b"earlier")]);
    for (fault, persistent) in [(Fault::Forbidden, false), (Fault::Unsuccessful, false), (Fault::Internal, true)] {
        for at_request in 1..=requests {
            let service = Service::start(account(60, 120));
            service.with(|s| {
                s.fault = Some((at_request, fault));
                s.persistent = persistent;
            });
            for out in ["account.json", "new.json"] {
                let r = edgeaudit(
                    dir.path(),
                    &service,
                    &["export", ACCOUNT, ZONE, "--all-zones", "-o", out, "--retries", "0"],
                );
                assert_eq!(r.code, 1, "{fault:?} at {at_request}: {}", r.stderr);
                assert!(r.stderr.contains("edgeaudit export: error: GET /"), "{}", r.stderr);
                assert!(r.stderr.contains("nothing was written"), "{}", r.stderr);
                assert!(r.stderr.contains("add --resume"), "{}", r.stderr);
                service.with(|s| s.fault = Some((s.requests + 1 - usize::from(persistent), fault)));
            }
            assert_eq!(std::fs::read_to_string(dir.path().join("account.json")).unwrap(), "earlier");
            assert!(!dir.path().join("new.json").exists());
        }
    }
    // A zone the zones list gives without an id is an error, not a zone left out.
    let service = Service::start(State {
        extra_zones: vec![json!({"name": "no-id.example"})],
        ..account(3, 0)
    });
    let e = export(&mut client(&service, &clock), &scope, at).expect_err("a zone without an id");
    assert!(e.request.starts_with("GET /zones") && e.why.contains("no `id`"), "{e}");
    // No partial file; the pages read so far are kept in a folder of their own, for --resume.
    let mut leftovers: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    leftovers.sort();
    assert_eq!(
        leftovers,
        [".account.json.edgeaudit-export", ".new.json.edgeaudit-export", "account.json"],
        "no partial file left"
    );
}

/// Pacing: with the API's limit enforced by the stand-in (on the same
/// virtual clock), a paced run meets no 429 and an unpaced one is slowed by
/// them; both finish with the same changes.
#[test]
fn a_paced_run_stays_under_the_rate_limit() {
    let mut counts = Vec::new();
    for rate in [20u32, 0] {
        let service = Service::start(account(40, 6));
        let dir = temp_dir(&[]);
        let plan = plan_of(&service, dir.path(), "4");
        let clock = Arc::new(VirtualClock::default());
        service.with(|s| s.rate_limit = Some((20, clock.clone() as Arc<dyn Clock>)));
        let mut settings = Settings::new(service.base());
        settings.rate = rate;
        settings.retries = 50;
        let mut client = Client::new(settings, Credentials::Token(Secret::new(TOKEN.into())), clock.clone());
        let plan = edgeaudit::live::apply::read::plan(&plan.to_string(), "plan.json", None).expect("plan");
        let mut log = Vec::new();
        let outcome = apply::run(&mut client, &plan, &Options { dry_run: false }, &mut log, &mut |_| true);
        assert!(outcome.is_ok(), "{outcome:?}");
        assert!(service.with(|s| s.lost.is_empty()));
        counts.push((
            rate,
            client.counts.clone(),
            service.with(|s| s.rate_limited),
            service.with(|s| s.changes),
        ));
    }
    let (paced, unpaced) = (&counts[0], &counts[1]);
    assert_eq!(paced.2, 0, "paced: no 429 {counts:?}");
    assert!(unpaced.2 > 0, "unpaced: 429s {counts:?}");
    assert_eq!(paced.3, unpaced.3, "the same changes");
}

/// The request counts of a large plan, paced and unpaced, against the
/// stand-in enforcing the API's limit on a virtual clock (no real waiting).
/// By hand, on a generated export (the README's figures):
///
///     cargo run --release --example generate -- --count 10000 > /tmp/pools-10k.json
///     EDGEAUDIT_LARGE_EXPORT=/tmp/pools-10k.json cargo test --release --test live -- --ignored --nocapture
#[test]
#[ignore = "needs a generated export; prints figures"]
fn request_counts_of_a_large_plan_with_and_without_pacing() {
    let Ok(path) = std::env::var("EDGEAUDIT_LARGE_EXPORT") else {
        eprintln!("NOTICE: EDGEAUDIT_LARGE_EXPORT is not set; nothing measured");
        return;
    };
    let export: Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("the export")).expect("json");
    let (policies, pools): (Vec<Value>, Vec<Value>) = export["result"]
        .as_array()
        .expect("an envelope")
        .iter()
        .cloned()
        .partition(|r| r.get("alert_type").is_some());
    let r = run(&["plan", &path, "--format", "json", "--as-of", "2024-10-01"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let plan = edgeaudit::live::apply::read::plan(&r.stdout, "plan.json", Some(ACCOUNT)).expect("a plan");
    eprintln!("{}", json(&r)["summary"]["text"]);
    for rate in [edgeaudit::live::pace::DEFAULT_RATE, 0] {
        let clock = Arc::new(VirtualClock::default());
        let service = Service::start(State {
            account: ACCOUNT.into(),
            pools: pools.clone(),
            policies: policies.clone(),
            unchecked: true,
            rate_limit: Some((1200, clock.clone() as Arc<dyn Clock>)),
            ..State::default()
        });
        let mut settings = Settings::new(service.base());
        settings.rate = rate;
        settings.retries = 1000;
        let mut client = Client::new(settings, Credentials::Token(Secret::new(TOKEN.into())), clock.clone());
        let mut log = Vec::new();
        let outcome = apply::run(&mut client, &plan, &Options { dry_run: false }, &mut log, &mut |_| true);
        assert!(outcome.is_ok(), "{outcome:?}");
        let c = &client.counts;
        eprintln!(
            "rate {rate}: {} requests ({} reads, {} changes), {} answered 429, {} retries; {:.0} minutes of API time",
            service.with(|s| s.requests),
            c.reads,
            c.changes,
            service.with(|s| s.rate_limited),
            c.retries,
            clock.now().as_secs_f64() / 60.0
        );
    }
}

/// Every operation edgeaudit declares is the published one (its
/// `operationId`, method and path), with no query parameter, value, page
/// size or body field the excerpt does not list — unless the declaration
/// says it relies on it, and the docs name it.
#[test]
fn every_declared_operation_is_the_published_one_or_says_what_it_relies_on() {
    let Some(excerpt) = contract::excerpt() else { return };
    let apply_doc = std::fs::read_to_string(common::root().join("docs/src/commands/api.md")).expect("docs/src/commands/api.md");
    for operation in edgeaudit::api::OPERATIONS.iter() {
        let name = format!("{} {}", operation.method, operation.path);
        for relied in operation.relies_on {
            assert!(apply_doc.contains(relied), "the docs name what {name} relies on: {relied}");
        }
        let Some(published) = contract::published(&excerpt, operation) else {
            assert!(
                operation.relies_on.iter().any(|r| r.contains("the operation itself")),
                "{name} is not in the published contract and its declaration does not say so"
            );
            continue;
        };
        assert_eq!(published["operationId"], operation.operation_id, "{name}");
        let params = published["parameters"].as_array().cloned().unwrap_or_default();
        for param in operation.query {
            let Some(p) = params.iter().find(|p| p["in"] == "query" && p["name"] == param.name) else {
                assert!(
                    contract::relied_on(operation, param.name),
                    "{name}: `{}` is not published",
                    param.name
                );
                continue;
            };
            let schema = &p["schema"];
            match param.values {
                edgeaudit::api::Values::OneOf(values) => {
                    for v in values {
                        let listed = schema["enum"].as_array().is_none_or(|e| e.iter().any(|x| x == v));
                        assert!(listed, "{name}: `{}={v}` is outside {schema}", param.name);
                    }
                }
                edgeaudit::api::Values::Number { min, max } => {
                    assert!(
                        schema["minimum"].as_u64().is_none_or(|m| min >= m),
                        "{name}: {} from {min}, published {schema}",
                        param.name
                    );
                    if let Some(m) = schema["maximum"].as_u64() {
                        assert!(max <= m, "{name}: {} up to {max}, published {schema}", param.name);
                    }
                }
                edgeaudit::api::Values::Text => {}
            }
        }
        // What the current reference adds is what the excerpt does not allow,
        // and the contract's README names it.
        for param in operation.reference {
            let published = params.iter().find(|p| p["in"] == "query" && p["name"] == param.name);
            let widens = match (published, param.values) {
                (None, _) => true,
                (Some(p), edgeaudit::api::Values::Number { max, .. }) => p["schema"]["maximum"].as_u64().is_some_and(|m| max > m),
                (Some(_), _) => false,
            };
            assert!(
                widens,
                "{name}: the reference's `{}` is the excerpt's already: declare it in `query`",
                param.name
            );
            let readme = std::fs::read_to_string(common::root().join("../shared/api/README.md")).unwrap_or_default();
            assert!(
                readme.contains(&format!("`{}`", param.name)),
                "{name}: the contract's README names `{}`",
                param.name
            );
        }
        // What edgeaudit reads of the answer is published, or said to be relied on.
        let answer = published["responses"].to_string();
        for field in operation.reads {
            assert!(
                answer.contains(&format!("\"{field}\"")) || contract::relied_on(operation, field),
                "{name}: the answer's `{field}`, which edgeaudit reads, is not published"
            );
        }
        let body = &published["requestBody"]["content"]["application/json"]["schema"];
        for field in operation.body {
            let declared = body.to_string().contains(&format!("\"{}\"", field.name));
            assert!(
                declared || contract::relied_on(operation, field.name),
                "{name}: body field `{}` is not published",
                field.name
            );
        }
    }
}

/// A full export and the apply of a plan with every kind of step, against
/// the contract-faithful stand-in: every request it sent is one the
/// published contract allows (checked against the excerpt itself), and the
/// stand-in refused none for being outside it.
///
/// Against a service of the 2024 excerpt, what the current reference adds
/// (a larger page, the filter by CA) is asked, refused with a 400, and asked
/// no more: the only requests outside the excerpt; against one of the
/// current reference, none is refused.
#[test]
fn every_request_of_an_export_and_of_every_step_kind_is_one_the_published_contract_allows() {
    for reference in [false, true] {
        requests_within_the_contract(reference);
    }
}

fn requests_within_the_contract(reference: bool) {
    let mut state = account(13, 3);
    state.reference = reference;
    let (service, _dir, plan) = planned(state, "4");
    for kind in [
        "create_policy",
        "update_policy",
        "clear_page",
        "clear_pool",
        "edit_custom_hostname",
        "set_total_tls",
        "set_universal_ssl",
    ] {
        assert!(count_kind(&plan, kind) > 0, "the plan has a {kind} step");
    }
    let (outcome, log, _) = apply_in_process(&service, &plan, false);
    assert!(outcome.is_ok(), "{outcome:?}\n{log}");
    let scope = Scope {
        account: ACCOUNT.into(),
        zones: vec![ZONE.into()],
        all_zones: true,
    };
    let clock = Arc::new(VirtualClock::default());
    export(&mut client(&service, &clock), &scope, chrono::Utc::now()).expect("export");
    let outside = service.with(|s| s.outside.clone());
    if reference {
        assert!(outside.is_empty(), "{outside:?}");
    } else {
        // Once for the export's client and once for apply's: each steps down and asks no more.
        let widened = |(request, _): &(String, String)| {
            let (method, target) = request.split_once(' ').unwrap();
            let operation = edgeaudit::api::Operation::find(method, target).unwrap();
            operation.check_query_in(&edgeaudit::api::parse_query(target), true).is_ok()
                && operation.check_query_in(&edgeaudit::api::parse_query(target), false).is_err()
        };
        assert!(outside.iter().all(widened), "{outside:?}");
        assert_eq!(outside.len(), 2, "{outside:?}");
    }
    let sent = service.with(|s| s.sent.clone());
    let operations: BTreeSet<&str> = sent
        .iter()
        .filter_map(|(m, t, _)| edgeaudit::api::Operation::find(m, t).map(|o| o.operation_id))
        .collect();
    assert!(operations.len() >= 15, "{operations:?}");
    let Some(excerpt) = contract::excerpt() else { return };
    let violations: Vec<String> = sent.iter().flat_map(|(m, t, b)| contract::violations(&excerpt, m, t, b)).collect();
    assert!(violations.is_empty(), "{violations:#?}");
}

/// The published pools list is not paged: a page-wide clear is judged on
/// one read of every pool. On an account whose legacy pools can all be
/// covered, apply sends no more changing requests than the plan counts.
#[test]
fn against_an_unpaged_pools_list_apply_sends_no_more_changes_than_the_plan_counts() {
    let (service, _dir, plan) = planned(account(120, 0), "25");
    assert!(count_kind(&plan, "clear_page") >= 3, "{plan:#}");
    let before = service.with(|s| s.changes);
    let (outcome, log, _) = apply_in_process(&service, &plan, false);
    assert!(outcome.is_ok(), "{outcome:?}\n{log}");
    let changes = service.with(|s| s.changes) - before;
    let counted = plan["summary"]["requests"].as_u64().unwrap() as usize;
    assert!(
        changes <= counted,
        "{changes} changing requests for a plan that counts {counted}\n{log}"
    );
    assert!(!log.contains("one by one"), "{log}");
    assert_done(&service, &plan, POLICIES);
}

/// Runs a second apply of `plan` before request `at` of the first, to its
/// end: two runs of one plan at once, interleaved at that point.
fn second_run_before(service: &Service, plan: &Value, at: usize) -> Arc<Mutex<Option<Result<apply::Summary, Stop>>>> {
    let second = Arc::new(Mutex::new(None));
    let (base, plan, out) = (service.base(), plan.clone(), second.clone());
    let first = service.with(|s| s.requests);
    service.before_each(Box::new(move |n, _| {
        if n == first + at {
            let (outcome, _, _) = apply_at(&base, &plan, false);
            *out.lock().unwrap() = Some(outcome);
        }
    }));
    second
}

/// Two applies of one plan at once end with one policy per marker and no
/// alert lost, wherever the second starts in the first; so do two started
/// together.
#[test]
fn two_applies_of_one_plan_at_once_end_with_one_policy_per_marker() {
    let probe = Service::start(account(13, 3));
    let dir = temp_dir(&[]);
    let plan = plan_of(&probe, dir.path(), "4");
    let requests = probe_log(&plan).len();
    for at in (1..=requests).step_by(3) {
        let service = Service::start(account(13, 3));
        service.with(|s| s.lagging_policies = at % 2 == 0);
        let second = second_run_before(&service, &plan, at);
        let (first, log, _) = apply_in_process(&service, &plan, false);
        let second = second.lock().unwrap().take().expect("the second run ran");
        assert!(first.is_ok(), "second run before request {at}: first {first:?}\n{log}");
        assert!(second.is_ok(), "second run before request {at}: {second:?}");
        eprintln!("second run before request {at} of the first");
        assert_done(&service, &plan, POLICIES);
    }
    for lagging in [false, true] {
        let service = Arc::new(Service::start(account(13, 3)));
        service.with(|s| s.lagging_policies = lagging);
        let runs: Vec<_> = (0..2)
            .map(|_| {
                let (base, plan) = (service.base(), plan.clone());
                std::thread::spawn(move || apply_at(&base, &plan, false).0)
            })
            .collect();
        for run in runs {
            let outcome = run.join().expect("the run");
            assert!(outcome.is_ok(), "{outcome:?}");
        }
        assert_done(&service, &plan, POLICIES);
    }
}

/// A second plan made from the same export with other options, after a
/// partial run of the first: the first's policies on the account are
/// drift, so it creates nothing twice; the first then finishes.
#[test]
fn another_plans_policies_made_since_the_export_are_drift() {
    let service = Service::start(account(13, 3));
    let dir = temp_dir(&[]);
    let first = plan_of(&service, dir.path(), "4");
    let second = plan_of(&service, dir.path(), "20");
    assert_ne!(first["plan_id"], second["plan_id"]);
    let last_create = probe_log(&first).iter().rposition(|l| l.starts_with("POST")).expect("creates") + 1;
    service.with(|s| s.fault = Some((s.requests + last_create, Fault::Forbidden)));
    let (partial, _, _) = apply_in_process(&service, &first, false);
    assert!(partial.is_err());
    service.with(|s| s.fault = None);
    let posts = service.with(|s| s.log.iter().filter(|l| l.starts_with("POST")).count());
    let (refused, _, _) = apply_in_process(&service, &second, false);
    let found = differences(refused);
    assert!(found.iter().any(|d| d.contains("was created by another plan")), "{found:#?}");
    assert_eq!(
        service.with(|s| s.log.iter().filter(|l| l.starts_with("POST")).count()),
        posts,
        "nothing created"
    );
    let (finished, log, _) = apply_in_process(&service, &first, false);
    assert!(finished.is_ok(), "{finished:?}\n{log}");
    assert_done(&service, &first, POLICIES);
}

/// The index (from the service's next request) of the first page-wide clear of a clean run.
fn first_page_clear(plan: &Value) -> usize {
    request_index(plan, |l| l.starts_with("PATCH") && l.contains("page="))
}

/// A pool added elsewhere during the run and renamed onto a page in the
/// instant before its clear: the clear's answer names it, its legacy e-mail
/// is written back at once, and the run stops naming it.
#[test]
fn a_pool_renamed_onto_a_page_in_the_instant_before_its_clear_gets_its_email_back() {
    let (service, _dir, plan) = planned(account(13, 3), "4");
    let clear = first_page_clear(&plan);
    let start = service.with(|s| s.requests);
    service.before_each(Box::new({
        let state = service.state.clone();
        move |n, _| {
            let mut s = state.lock().unwrap();
            // After the preflight, far from the first page: then onto it, right before the clear.
            if n == start + 3 {
                s.pools.push(json!({"id": "ffff0000000000000000000000000009", "name": "zzzz-late", "origins": [], "notification_email": "late@example.com"}));
            }
            if n == start + clear {
                let late = s.pools.iter_mut().find(|p| p["name"] == "zzzz-late").unwrap();
                late["name"] = json!("aaaa-early");
            }
        }
    }));
    let (outcome, log, _) = apply_in_process(&service, &plan, false);
    match &outcome {
        Err(Stop::Step { why, .. }) => assert!(
            why.contains("written back") && why.contains("ffff0000000000000000000000000009"),
            "{why}"
        ),
        other => panic!("expected a stop naming the pool: {other:?}\n{log}"),
    }
    service.with(|s| {
        let late = s.pools.iter().find(|p| p["id"] == "ffff0000000000000000000000000009").unwrap();
        assert_eq!(late["notification_email"], "late@example.com", "written back");
        let now = service::delivered(s);
        assert!(
            now.iter()
                .any(|d| d.starts_with("ffff0000000000000000000000000009 pool Healthy late@")),
            "{now:?}"
        );
    });
}

/// A pool added in the instant before a page-wide clear, between its last
/// read and the clear: no check can see it (no conditional update exists);
/// the answer names it, and the run stops naming it for a person.
#[test]
fn a_pool_added_in_the_instant_before_a_clear_is_named() {
    let (service, _dir, plan) = planned(account(13, 3), "4");
    let clear = first_page_clear(&plan);
    service.with(|s| {
        s.drift = Some((
            s.requests + clear,
            Box::new(|s: &mut State| {
                s.pools.push(json!({"id": "ffff0000000000000000000000000008", "name": "aaaa-new", "origins": [], "notification_email": "new@example.com"}));
            }),
        ))
    });
    let (outcome, log, _) = apply_in_process(&service, &plan, false);
    match &outcome {
        Err(Stop::Step { why, .. }) => {
            assert!(
                why.contains("ffff0000000000000000000000000008") && why.contains("set it again by hand"),
                "{why}"
            )
        }
        other => panic!("expected a stop naming the pool: {other:?}\n{log}"),
    }
}

/// A covering policy disabled in the instant before a clear: the clear
/// takes alerts away; read right after, the loss is seen, the legacy
/// e-mails are written back at once, and the run stops saying so.
#[test]
fn a_policy_disabled_in_the_instant_before_a_clear_is_undone_at_once() {
    let (service, _dir, plan) = planned(account(13, 3), "4");
    let clear = first_page_clear(&plan);
    let original: Vec<Value> = service.with(|s| s.pools.clone());
    service.with(|s| {
        s.drift = Some((
            s.requests + clear,
            Box::new(|s: &mut State| {
                for p in &mut s.policies {
                    p["enabled"] = json!(false);
                }
            }),
        ))
    });
    let (outcome, log, _) = apply_in_process(&service, &plan, false);
    match &outcome {
        Err(Stop::Step { why, .. }) => assert!(why.contains("no longer deliver") && why.contains("written back"), "{why}\n{log}"),
        other => panic!("expected a stop: {other:?}\n{log}"),
    }
    service.with(|s| {
        for pool in &s.pools {
            let was = original.iter().find(|p| p["id"] == pool["id"]).unwrap();
            let recipients = |p: &Value| {
                let mut r: Vec<String> = p["notification_email"]
                    .as_str()
                    .unwrap_or("")
                    .split(',')
                    .map(|x| x.trim().to_string())
                    .filter(|x| !x.is_empty())
                    .collect();
                r.sort();
                r
            };
            assert_eq!(recipients(pool), recipients(was), "every legacy e-mail is back: {pool}");
        }
    });
}

/// A 429 on a clear while a covering policy is disabled: after the wait the
/// check runs again, and the clear that would lose an alert is not sent.
#[test]
fn a_change_after_a_rate_limit_is_checked_again_and_no_wait_falls_between_check_and_change() {
    let (service, dir, plan) = planned(account(13, 3), "4");
    let clear = first_page_clear(&plan);
    service.with(|s| {
        let at = s.requests + clear;
        s.fault = Some((at, Fault::RateLimited));
        s.drift = Some((
            at,
            Box::new(|s: &mut State| s.policies.iter_mut().for_each(|p| p["enabled"] = json!(false))),
        ));
    });
    let (outcome, log, _) = apply_in_process(&service, &plan, false);
    match &outcome {
        Err(Stop::Step { why, .. }) => assert!(why.contains("would lose an alert"), "{why}\n{log}"),
        other => panic!("expected a stop: {other:?}\n{log}"),
    }
    assert!(service.with(|s| s.lost.is_empty()), "{:?}", service.with(|s| s.lost.clone()));
    // Paced tightly: the reads that check a change and the change go out at one moment.
    let service = Service::start(account(40, 6));
    let plan = plan_of(&service, dir.path(), "4");
    let clock = Arc::new(VirtualClock::default());
    service.with(|s| {
        s.clock = Some(clock.clone() as Arc<dyn Clock>);
        s.times.clear();
        s.log.clear();
    });
    let mut settings = Settings::new(service.base());
    settings.rate = 7;
    let mut client = Client::new(settings, Credentials::Token(Secret::new(TOKEN.into())), clock.clone());
    let read = edgeaudit::live::apply::read::plan(&plan.to_string(), "plan.json", None).expect("plan");
    let outcome = apply::run(&mut client, &read, &Options { dry_run: false }, &mut Vec::new(), &mut |_| true);
    assert!(outcome.is_ok(), "{outcome:?}");
    let (log, times) = service.with(|s| (s.log.clone(), s.times.clone()));
    assert!(clock.now() > Duration::from_secs(300), "pacing waited");
    for (i, line) in log.iter().enumerate().filter(|(_, l)| l.starts_with("PATCH /accounts/")) {
        assert_eq!(times[i - 1], times[i], "a wait fell between {} and {line}", log[i - 1]);
    }
}

/// Custom hostnames deleted since the export are nothing to do: the run
/// goes on, moves the others, names them, and exits 0 — each way a zone's
/// hostnames are checked (a page of the list, or a read each).
#[test]
fn a_custom_hostname_deleted_since_the_export_is_nothing_to_do() {
    for hostnames in [9, 3] {
        let service = Service::start(account(13, hostnames));
        let dir = temp_dir(&[]);
        let plan = plan_of(&service, dir.path(), "4");
        service.with(|s| s.custom_hostnames.retain(|h| h["hostname"] != "shop0.customer.example"));
        let (outcome, log, _) = apply_in_process(&service, &plan, false);
        let summary = outcome.unwrap_or_else(|e| panic!("{hostnames}: {e}\n{log}"));
        assert!(summary.gone.iter().any(|g| g.contains("deleted since the export")), "{summary:?}");
        service.with(|s| {
            for h in &s.custom_hostnames {
                assert_ne!(h["ssl"]["certificate_authority"], "lets_encrypt", "{h}");
            }
        });
    }
}

/// Paging without `total_pages` (the contract defines `count` and
/// `total_count`): every record is read, with or without it.
#[test]
fn an_export_reads_every_record_without_total_pages() {
    for total_pages in [false, true] {
        let service = Service::start(State {
            total_pages,
            ..account(3, 130)
        });
        let clock = Arc::new(VirtualClock::default());
        let bundle = export(&mut client(&service, &clock), &scope(), chrono::Utc::now()).expect("export");
        let hosts: usize = bundle["zones"][0]["custom_hostnames"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["result"].as_array().unwrap().len())
            .sum();
        assert_eq!(hosts, 130, "total_pages given: {total_pages}");
        // Custom certificates of every status the contract names, each its own list.
        let statuses: BTreeSet<String> = service.with(|s| {
            s.log
                .iter()
                .filter(|l| l.contains("/custom_certificates"))
                .filter_map(|l| l.split("status=").nth(1).map(str::to_string))
                .collect()
        });
        assert_eq!(statuses.len(), 5, "{statuses:?}");
    }
}

fn scope() -> Scope {
    Scope {
        account: ACCOUNT.into(),
        zones: vec![ZONE.into()],
        all_zones: false,
    }
}

/// A Universal SSL CA the service ignores (the contract lists only
/// `enabled`): apply reads the setting back, says the change was not taken
/// and where to make it by hand, and exits 1 — the other steps done.
#[test]
fn a_universal_ssl_ca_the_service_ignores_is_left_to_a_person_with_exit_1() {
    let service = Service::start(State {
        honours_universal_ca: false,
        ..account(13, 3)
    });
    let dir = temp_dir(&[]);
    let plan = plan_of(&service, dir.path(), "4");
    std::fs::write(dir.path().join("plan.json"), plan.to_string()).expect("write");
    let r = edgeaudit(dir.path(), &service, &["apply", "plan.json", "--yes"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("not taken") && r.stderr.contains("SSL/TLS > Edge Certificates"),
        "{}",
        r.stderr
    );
    assert_eq!(service.with(|s| s.universal_ssl["certificate_authority"].clone()), "lets_encrypt");
    assert_eq!(
        service.with(|s| s.total_tls["certificate_authority"].clone()),
        "google",
        "the other steps ran"
    );
    assert!(service.with(|s| s.lost.is_empty()));
}

/// A list that moved more while it was paged than the places read again
/// before a page show (six records deleted on a page already read, then one
/// created) is read again whole: the export holds every live record, and
/// says so.
#[test]
fn a_list_that_moved_more_than_the_boundary_shows_is_read_again() {
    let service = Service::start(account(3, 130));
    let state = service.state.clone();
    let pages = Arc::new(Mutex::new(0));
    service.before_each(Box::new(move |_, request| {
        // (The pages the service serves: not the larger page it refuses first.)
        if !request.contains("/custom_hostnames?") || request.contains("per_page=1000") || request.contains("per_page=5&") || request.ends_with("per_page=5") {
            return;
        }
        let mut n = pages.lock().unwrap();
        *n += 1;
        let mut s = state.lock().unwrap();
        if *n == 2 {
            s.custom_hostnames.drain(..6);
        }
        if *n == 3 {
            s.custom_hostnames.push(json!({"id": "ffffffff-0000-4000-8000-000000000000", "hostname": "late.customer.example", "ssl": {"certificate_authority": "google"}}));
        }
    }));
    let dir = temp_dir(&[]);
    let output = dir.path().join("account.json");
    let clock = Arc::new(VirtualClock::default());
    let report =
        edgeaudit::live::export::export_to(&mut client(&service, &clock), &scope(), chrono::Utc::now(), &output, false).expect("export");
    assert!(
        report.notes.iter().any(|n| n.contains("changed while it was read")),
        "{:?}",
        report.notes
    );
    let bundle: Value = serde_json::from_slice(&std::fs::read(&output).unwrap()).unwrap();
    let exported: BTreeSet<String> = bundle["zones"][0]["custom_hostnames"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| {
            p["result"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| h["id"].as_str().unwrap().to_string())
        })
        .collect();
    let live: BTreeSet<String> = service.with(|s| s.custom_hostnames.iter().map(|h| h["id"].as_str().unwrap().to_string()).collect());
    assert_eq!(exported, live);
}

/// An export stopped part way keeps its pages; `--resume` finishes it from
/// them (checking they still hold) with fewer requests, to the same bundle.
#[test]
fn a_stopped_export_resumes_from_its_pages() {
    let clean = Service::start(account(3, 500));
    let dir = temp_dir(&[]);
    let full = edgeaudit(dir.path(), &clean, &["export", ACCOUNT, ZONE, "-o", "clean.json"]);
    assert_eq!(full.code, 0, "{}", full.stderr);
    let full_requests = clean.with(|s| s.requests);
    let bundle = |name: &str| {
        let mut b: Value = serde_json::from_slice(&std::fs::read(dir.path().join(name)).unwrap()).unwrap();
        b.as_object_mut().unwrap().remove("exported");
        b
    };
    for change_between in [false, true] {
        let service = Service::start(account(3, 500));
        service.with(|s| {
            // Stopped at the sixth page of custom hostnames (after the pools, policies, packs and certificates).
            s.fault = Some((14, Fault::Internal));
            s.persistent = true;
        });
        let stopped = edgeaudit(
            dir.path(),
            &service,
            &["export", ACCOUNT, ZONE, "-o", "account.json", "--retries", "0"],
        );
        assert_eq!(stopped.code, 1, "{}", stopped.stderr);
        assert!(stopped.stderr.contains("--resume"), "{}", stopped.stderr);
        service.with(|s| {
            s.fault = None;
            s.requests = 0;
            if change_between {
                // The kept pages no longer hold: the list is read again.
                s.custom_hostnames[0]["ssl"]["certificate_authority"] = json!("google");
                s.custom_hostnames.remove(1);
            }
        });
        let resumed = edgeaudit(dir.path(), &service, &["export", ACCOUNT, ZONE, "-o", "account.json", "--resume"]);
        assert_eq!(resumed.code, 0, "{}", resumed.stderr);
        let requests = service.with(|s| s.requests);
        if change_between {
            let got = bundle("account.json");
            let hosts = got["zones"][0]["custom_hostnames"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["result"].as_array().unwrap().len())
                .sum::<usize>();
            assert_eq!(hosts, 499);
        } else {
            assert!(resumed.stderr.contains("taken over"), "{}", resumed.stderr);
            assert!(
                requests < full_requests,
                "{requests} requests to finish, {full_requests} for a whole export"
            );
            assert_eq!(bundle("account.json"), bundle("clean.json"));
        }
        assert!(
            !dir.path().join(".account.json.edgeaudit-export").exists(),
            "the pages are gone once joined"
        );
    }
    // --resume with nothing to finish is a usage error.
    let none = edgeaudit(dir.path(), &clean, &["export", ACCOUNT, ZONE, "-o", "other.json", "--resume"]);
    assert_eq!(none.code, 2, "{}", none.stderr);
}

/// No credential is printed or written, whatever echoes it: an error
/// answer that repeats the request's headers, a record that holds the
/// token; and a loopback address never goes through a proxy.
#[test]
fn no_credential_is_printed_or_written_and_loopback_never_goes_through_a_proxy() {
    let service = Service::start(account(13, 3));
    service.with(|s| s.pools[0]["description"] = json!(format!("copied from a request: Bearer {TOKEN}")));
    let dir = temp_dir(&[]);
    let proxies = [
        ("HTTP_PROXY", "http://127.0.0.1:9"),
        ("HTTPS_PROXY", "http://127.0.0.1:9"),
        ("ALL_PROXY", "http://127.0.0.1:9"),
    ];
    let env = |extra: &[(&'static str, String)]| -> Vec<(&'static str, String)> {
        let mut env: Vec<(&'static str, String)> = proxies.iter().map(|(k, v)| (*k, v.to_string())).collect();
        env.push(("CLOUDFLARE_API_BASE", service.base()));
        env.extend(extra.iter().cloned());
        env
    };
    let run_with = |args: &[&str], extra: &[(&'static str, String)]| {
        let env = env(extra);
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        run_in_with_env(dir.path(), args, &env)
    };
    let token = [("CLOUDFLARE_API_TOKEN", TOKEN.to_string())];
    let ok = run_with(&["export", ACCOUNT, ZONE, "-o", "account.json"], &token);
    assert_eq!(ok.code, 0, "through no proxy: {}", ok.stderr);
    let written = std::fs::read_to_string(dir.path().join("account.json")).unwrap();
    assert!(!written.contains(TOKEN), "the token is not written");
    assert!(written.contains("[redacted]"));
    let key = [
        ("CLOUDFLARE_EMAIL", "ops@example.com".to_string()),
        ("CLOUDFLARE_API_KEY", TOKEN.to_string()),
    ];
    for credentials in [&token[..], &key[..]] {
        service.with(|s| s.fault = Some((s.requests + 1, Fault::EchoHeaders)));
        let echoed = run_with(&["export", ACCOUNT, ZONE, "-o", "x.json", "--retries", "0"], credentials);
        assert_eq!(echoed.code, 1, "{}", echoed.stderr);
        assert!(echoed.stderr.contains("your request was"), "the echo is shown: {}", echoed.stderr);
        for (_, secret) in credentials {
            assert!(!echoed.stderr.contains(secret.as_str()), "{secret} printed: {}", echoed.stderr);
            assert!(!echoed.stdout.contains(secret.as_str()));
        }
    }
    // A change answered with the echo.
    let plan = plan_of(&service, dir.path(), "4");
    std::fs::write(dir.path().join("plan.json"), plan.to_string()).unwrap();
    let post = request_index(&plan, |l| l.starts_with("POST"));
    service.with(|s| s.fault = Some((s.requests + post, Fault::EchoHeaders)));
    let applied = run_with(&["apply", "plan.json", "--yes"], &token);
    assert_eq!(applied.code, 1, "{}", applied.stderr);
    assert!(
        applied.stderr.contains("your request was") && !applied.stderr.contains(TOKEN),
        "{}",
        applied.stderr
    );
}

/// What the service answers and what other members of the account name
/// things reach the terminal and the CI log escaped (DESIGN §4.1): an error
/// message written to attack them, and a pool renamed to one between plan
/// and apply (the drift report quotes live names).
#[test]
fn the_service_and_the_live_account_cannot_write_to_the_terminal() {
    use crate::hostile_output::assert_log_safe;
    let service = Service::start(account(13, 3));
    let dir = temp_dir(&[]);
    service.with(|s| s.fault = Some((s.requests + 1, Fault::Hostile)));
    let r = edgeaudit(dir.path(), &service, &["export", ACCOUNT, ZONE, "-o", "x.json", "--retries", "0"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("forged by the service"), "the answer is shown: {}", r.stderr);
    assert_log_safe("export's error", &r.stderr);
    let plan = plan_of(&service, dir.path(), "4");
    std::fs::write(dir.path().join("plan.json"), plan.to_string()).unwrap();
    let pool = format!("{:032x}", 1005);
    service.with(|s| {
        s.pools.iter_mut().find(|p| p["id"] == pool.as_str()).unwrap()["name"] =
            json!("x\n::error file=README.md,line=1::forged by a pool \u{1b}[2J ##vso[task.complete]");
    });
    let r = edgeaudit(dir.path(), &service, &["apply", "plan.json", "--yes"]);
    assert_ne!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("was renamed to") && r.stderr.contains("forged by a pool"),
        "{}",
        r.stderr
    );
    assert_log_safe("apply's drift report", &r.stderr);
    assert_eq!(service.with(|s| s.changes), 0, "nothing sent");
}

/// `--resume` reads only its own page files: a `.done` list that names a
/// file outside the page folder, or a page replaced by a link, is not ours
/// (the list is read again); a page folder that is a link is refused.
#[cfg(unix)]
#[test]
fn a_resumed_export_reads_nothing_but_its_own_pages() {
    use std::os::unix::fs::symlink;
    let dir = temp_dir(&[("secret.json", br#"{"result": [{"id": "stolen-secret"}]}"#)]);
    let service = Service::start(account(3, 500));
    service.with(|s| {
        s.fault = Some((14, Fault::Internal));
        s.persistent = true;
    });
    let stopped = edgeaudit(
        dir.path(),
        &service,
        &["export", ACCOUNT, ZONE, "-o", "account.json", "--retries", "0"],
    );
    assert_eq!(stopped.code, 1, "{}", stopped.stderr);
    let pages = dir.path().join(".account.json.edgeaudit-export");
    let mut done: Vec<String> = std::fs::read_dir(&pages)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".done"))
        .collect();
    done.sort();
    assert!(done.len() >= 2, "{done:?}");
    // One list's record names a file outside; another's first page is a link to it.
    std::fs::write(pages.join(&done[0]), "../secret.json\n/etc/hostname").unwrap();
    let list = done[1].trim_end_matches(".done");
    let first = pages.join(format!("{list}-000001.json"));
    std::fs::remove_file(&first).unwrap();
    symlink(dir.path().join("secret.json"), &first).unwrap();
    service.with(|s| {
        s.fault = None;
        s.requests = 0;
    });
    let resumed = edgeaudit(dir.path(), &service, &["export", ACCOUNT, ZONE, "-o", "account.json", "--resume"]);
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    let bundle = std::fs::read_to_string(dir.path().join("account.json")).unwrap();
    assert!(!bundle.contains("stolen-secret"), "a file outside the page folder was copied in");
    serde_json::from_str::<Value>(&bundle).expect("the bundle");
    // A page folder planted as a link is not written through.
    let elsewhere = temp_dir(&[]);
    symlink(elsewhere.path(), dir.path().join(".other.json.edgeaudit-export")).unwrap();
    let refused = edgeaudit(dir.path(), &service, &["export", ACCOUNT, ZONE, "-o", "other.json"]);
    assert_ne!(refused.code, 0, "{}", refused.stderr);
    assert!(refused.stderr.contains("symbolic link"), "{}", refused.stderr);
    assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0, "written through the link");
    assert!(!dir.path().join("other.json").exists());
}

/// A SaaS zone at work: a hostname on the first page of the list is deleted
/// while apply pages it, so every later hostname shifts one place towards
/// the start and one of the planned hostnames is on no page read. It is
/// read by its id, found live and moved: no live hostname is called deleted,
/// none is left on Let's Encrypt.
#[test]
fn a_deletion_that_shifts_the_hostname_pages_strands_no_hostname() {
    let state = || account(13, 300);
    let service = Service::start(state());
    let dir = temp_dir(&[]);
    let plan = plan_of(&service, dir.path(), "4");
    // Where the second page of hostnames is read, on a clean run of a fresh copy.
    let probe = Service::start(state());
    let (ok, _, _) = apply_in_process(&probe, &plan, false);
    assert!(ok.is_ok(), "{ok:?}");
    let log = probe.with(|s| s.log.clone());
    let second = log
        .iter()
        .position(|l| l.contains("/custom_hostnames?") && l.contains("page=2"))
        .expect("the list is paged")
        + 1;
    // Just before it: the zone's first two hostnames (read already) are
    // deleted, which shifts the second page's first two onto the first: one
    // of them (the 52nd, a third of them are) is on Let's Encrypt.
    assert_eq!(
        probe.with(|s| s.custom_hostnames[51]["ssl"]["certificate_authority"].clone()),
        "google"
    );
    service.with(|s| {
        assert_eq!(s.custom_hostnames[51]["ssl"]["certificate_authority"], "lets_encrypt");
        s.drift = Some((
            s.requests + second,
            Box::new(|s: &mut State| {
                s.custom_hostnames.drain(..2);
            }),
        ))
    });
    let (outcome, log, _) = apply_in_process(&service, &plan, false);
    let summary = outcome.unwrap_or_else(|e| panic!("{e}\n{log}"));
    assert!(summary.gone.is_empty(), "a live hostname called deleted: {:?}", summary.gone);
    service.with(|s| {
        for h in &s.custom_hostnames {
            assert_ne!(h["ssl"]["certificate_authority"], "lets_encrypt", "left on Let's Encrypt: {h}");
        }
    });
}

/// A service that caps the page-wide clear below the plan's page size clears
/// fewer pools than each page holds: the pools it left are cleared one by one
/// from its answer, so one run finishes (never a stop that every re-run
/// repeats), and no alert is lost.
#[test]
fn a_capped_page_wide_clear_is_finished_pool_by_pool() {
    let (service, _dir, plan) = planned(account(13, 3), "8");
    assert!(count_kind(&plan, "clear_page") >= 1, "the plan clears by page");
    service.with(|s| s.clear_cap = Some(3));
    let (outcome, log, _) = apply_in_process(&service, &plan, false);
    let summary = outcome.unwrap_or_else(|e| panic!("{e}\n{log}"));
    assert!(log.contains("cleared one by one, each checked"), "{log}");
    assert!(summary.not_taken.is_empty(), "{summary:?}");
    service.with(|s| {
        assert!(s.lost.is_empty(), "alerts lost: {:?}", s.lost);
        for pool in &s.pools {
            assert_eq!(pool["notification_email"], "", "left with a legacy e-mail: {pool}");
        }
    });
}

/// A create whose answer is lost, against a policy list that shows a new
/// policy only 3 s after its create: the marker is looked for with backoff
/// long enough for the list, so the create is not sent twice, and one marker
/// is one policy at exit 0.
#[test]
fn a_lost_create_against_a_lagging_list_makes_one_policy() {
    let (service, _dir, plan) = planned(account(13, 3), "4");
    let post = request_index(&plan, |l| l.starts_with("POST"));
    let clock = Arc::new(VirtualClock::default());
    service.with(|s| {
        s.clock = Some(clock.clone() as Arc<dyn Clock>);
        s.policy_lag = Some(Duration::from_secs(3));
        s.fault = Some((s.requests + post, Fault::CloseAfter));
    });
    let mut client = client(&service, &clock);
    let plan = edgeaudit::live::apply::read::plan(&plan.to_string(), "plan.json", None).expect("plan");
    let mut log = Vec::new();
    let outcome = apply::run(&mut client, &plan, &Options { dry_run: false }, &mut log, &mut |_| true);
    let log = String::from_utf8_lossy(&log);
    assert!(outcome.is_ok(), "{outcome:?}\n{log}");
    service.with(|s| {
        let mut markers = std::collections::BTreeMap::<String, usize>::new();
        for p in &s.policies {
            if let Some(d) = p["description"].as_str()
                && let Some(at) = d.find("[edgeaudit plan ")
            {
                *markers.entry(d[at..].to_string()).or_default() += 1;
            }
        }
        assert!(!markers.is_empty());
        assert!(markers.values().all(|n| *n == 1), "a marker on two policies: {markers:?}");
        assert!(s.lost.is_empty());
    });
}

/// A pools list the contract calls unpaged, which the service pages anyway:
/// read on until complete, with or without `result_info`; a service that
/// then ignores `page` is an error, never a bundle with part of the list.
#[test]
fn a_pools_list_paged_against_the_contract_is_read_on_or_refused() {
    for (info, ignores) in [(true, false), (false, false), (true, true)] {
        let service = Service::start(account(60, 3));
        service.with(|s| {
            s.pools_paged = Some((25, info));
            s.ignores_paging = ignores;
        });
        let dir = temp_dir(&[]);
        let r = edgeaudit(dir.path(), &service, &["export", ACCOUNT, ZONE, "-o", "account.json"]);
        if ignores {
            assert_eq!(r.code, 1, "{}", r.stderr);
            assert!(r.stderr.contains("ignores `page`") && r.stderr.contains("25 of 60"), "{}", r.stderr);
            assert!(!dir.path().join("account.json").exists(), "no bundle with part of the list");
            continue;
        }
        assert_eq!(r.code, 0, "info {info}: {}", r.stderr);
        let pools = bundle_records(&dir.path().join("account.json"), "/pools").len();
        assert_eq!(pools, 60, "info {info}: every pool");
    }
}

/// A SaaS zone growing while it is exported: a hostname added at the end of
/// the list every third page read shifts nothing, so the list is read once
/// (no re-read, no note of a change) and holds every hostname; a stopped
/// export of a list that only grew is resumed from its pages.
#[test]
fn a_growing_list_is_read_once_and_resumed() {
    let grow = |service: &Service| {
        let state = service.state.clone();
        let reads = Arc::new(Mutex::new(0usize));
        service.before_each(Box::new(move |_, request| {
            if !request.contains("/custom_hostnames?") {
                return;
            }
            let mut n = reads.lock().unwrap();
            *n += 1;
            if (*n).is_multiple_of(3) {
                let mut s = state.lock().unwrap();
                let i = s.custom_hostnames.len();
                s.custom_hostnames.push(
                    json!({"id": format!("eeeeeeee-0000-4000-8000-{i:012x}"), "hostname": format!("new{i}.customer.example"),
                    "ssl": {"certificate_authority": "google", "status": "active", "type": "dv", "method": "txt"}}),
                );
            }
        }));
    };
    let exported_ids = |path: &std::path::Path| -> BTreeSet<String> {
        bundle_records(path, "/zones/0/custom_hostnames")
            .iter()
            .map(|h| h["id"].as_str().unwrap().to_string())
            .collect()
    };
    let service = Service::start(account(3, 400));
    grow(&service);
    let dir = temp_dir(&[]);
    let output = dir.path().join("account.json");
    let clock = Arc::new(VirtualClock::default());
    let report =
        edgeaudit::live::export::export_to(&mut client(&service, &clock), &scope(), chrono::Utc::now(), &output, false).expect("export");
    assert!(
        !report.notes.iter().any(|n| n.contains("changed while it was read")),
        "{:?}",
        report.notes
    );
    // Pages of 50 (the service refuses 1,000), each after the first with the five places before it read again.
    let count = |size: &str| {
        service.with(|s| {
            s.log
                .iter()
                .filter(|l| l.contains("/custom_hostnames?") && l.ends_with(size))
                .count()
        })
    };
    let (reads, boundaries) = (count("per_page=50"), count("per_page=5"));
    let pages = service.with(|s| s.custom_hostnames.len()).div_ceil(50);
    assert!(reads <= pages + 1, "{reads} page reads for {pages} pages: read once");
    assert_eq!(boundaries, reads - 1, "the boundary before each page after the first");
    let live: BTreeSet<String> = service.with(|s| s.custom_hostnames.iter().map(|h| h["id"].as_str().unwrap().to_string()).collect());
    // Every hostname that existed when its page was read is there (the last ones may come after the read).
    let exported = exported_ids(&output);
    assert!(exported.is_subset(&live) && exported.len() >= 400, "{} exported", exported.len());

    // Stopped part way through the hostnames, then resumed while the zone grows.
    let service = Service::start(account(3, 400));
    service.with(|s| {
        s.fault = Some((14, Fault::Internal));
        s.persistent = true;
    });
    let stopped = edgeaudit(
        dir.path(),
        &service,
        &["export", ACCOUNT, ZONE, "-o", "grown.json", "--retries", "0"],
    );
    assert_eq!(stopped.code, 1, "{}", stopped.stderr);
    service.with(|s| {
        s.fault = None;
        for i in 0..7 {
            s.custom_hostnames.push(
                json!({"id": format!("dddddddd-0000-4000-8000-{i:012x}"), "hostname": format!("later{i}.customer.example"),
                "ssl": {"certificate_authority": "google", "status": "active", "type": "dv", "method": "txt"}}),
            );
        }
    });
    let resumed = edgeaudit(dir.path(), &service, &["export", ACCOUNT, ZONE, "-o", "grown.json", "--resume"]);
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    assert!(resumed.stderr.contains("taken over"), "the kept pages are used: {}", resumed.stderr);
    let live: BTreeSet<String> = service.with(|s| s.custom_hostnames.iter().map(|h| h["id"].as_str().unwrap().to_string()).collect());
    assert_eq!(exported_ids(&dir.path().join("grown.json")), live);
}

/// A plan file whose state was edited (and its id computed again) to give a
/// pool with no live legacy e-mail an attacker's address, with a policy
/// created for it and a clear: the create is refused before it is sent, and
/// nothing ever writes the address into the account (no restore from the
/// plan's word).
#[test]
fn a_state_edited_to_add_a_recipient_writes_it_nowhere() {
    let (service, _dir, mut plan) = planned(account(13, 3), "4");
    let pool = format!("{:032x}", 1000);
    assert_eq!(
        service.with(|s| s.pools.iter().find(|p| p["id"] == pool.as_str()).unwrap()["notification_email"].clone()),
        ""
    );
    let attacker = "attacker@evil.example";
    let account = &mut plan["accounts"][0];
    for p in account["state"]["pools"].as_array_mut().unwrap() {
        if p["id"] == pool.as_str() {
            p["recipients"] = json!([attacker]);
            p["events"] = json!(["pool Healthy", "pool Unhealthy", "origin Healthy", "origin Unhealthy"]);
        }
    }
    let steps = account["steps"].as_array_mut().unwrap();
    let n = steps.len();
    steps.insert(
        0,
        json!({"step": 0, "kind": "create_policy", "reason": "x", "depends_on": [], "pools": [pool],
        "method": "POST", "path": format!("/accounts/{ACCOUNT}/alerting/v3/policies"),
        "body": {"name": "x", "alert_type": "load_balancing_health_alert", "enabled": true,
                 "mechanisms": {"email": [{"id": attacker}]}, "filters": {"pool_id": [pool]}}}),
    );
    steps.push(
        json!({"step": 0, "kind": "clear_pool", "reason": "x", "depends_on": [], "pools": [pool],
        "method": "PATCH", "path": format!("/accounts/{ACCOUNT}/load_balancers/pools/{pool}"), "body": {"notification_email": ""}}),
    );
    assert_eq!(steps.len(), n + 2);
    for (i, s) in steps.iter_mut().enumerate() {
        s["step"] = json!(i + 1);
    }
    let id = edgeaudit::plan::render::digest(&plan);
    for s in plan["accounts"][0]["steps"].as_array_mut().unwrap() {
        if s["kind"] == "create_policy" {
            let marker = edgeaudit::plan::render::marker(&id, s["step"].as_u64().unwrap() as usize);
            let pools = s["pools"].as_array().unwrap().len();
            s["body"]["description"] = json!(edgeaudit::plan::render::created_description(pools, &marker));
            s["marker"] = json!(marker);
        }
    }
    plan["plan_id"] = json!(id);
    let (outcome, log, _) = apply_in_process(&service, &plan, false);
    assert!(outcome.is_err(), "the run stops: {log}");
    let text = outcome.unwrap_err().to_string();
    assert!(text.contains("did not carry, live, the legacy e-mail"), "{text}");
    service.with(|s| {
        for (method, target, body) in &s.sent {
            assert!(!body.to_string().contains(attacker), "{method} {target} sent the address: {body}");
        }
        assert!(s.pools.iter().all(|p| !p["notification_email"].to_string().contains(attacker)));
    });
}

/// A pools list read on past the contract (it pages anyway) and stopped on
/// its second page is read again whole on `--resume`, never kept as part.
#[test]
fn a_resumed_export_reads_an_unpaged_list_again_whole() {
    let service = Service::start(account(60, 3));
    service.with(|s| {
        s.pools_paged = Some((25, true));
        s.fault = Some((2, Fault::Internal));
        s.persistent = true;
    });
    let dir = temp_dir(&[]);
    let stopped = edgeaudit(
        dir.path(),
        &service,
        &["export", ACCOUNT, ZONE, "-o", "account.json", "--retries", "0"],
    );
    assert_eq!(stopped.code, 1, "{}", stopped.stderr);
    service.with(|s| s.fault = None);
    let resumed = edgeaudit(dir.path(), &service, &["export", ACCOUNT, ZONE, "-o", "account.json", "--resume"]);
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    let pools = bundle_records(&dir.path().join("account.json"), "/pools").len();
    assert_eq!(pools, 60, "every pool, not the first page kept");
}

/// The requests `apply` announces before the first change are within 10 %
/// of those the run sends: a SaaS zone's hostnames are checked from the
/// pages of its list, which the estimate counts from the zone's size.
#[test]
fn the_announced_requests_are_within_ten_percent_of_the_run() {
    for hostnames in [300, 1200] {
        let (service, _dir, plan) = planned(account(13, hostnames), "4");
        let before = service.with(|s| s.requests);
        let clock = Arc::new(VirtualClock::default());
        let mut client = client(&service, &clock);
        let plan = edgeaudit::live::apply::read::plan(&plan.to_string(), "plan.json", None).expect("plan");
        let mut announced = 0;
        let mut log = Vec::new();
        let outcome = apply::run(&mut client, &plan, &Options { dry_run: false }, &mut log, &mut |p| {
            announced = p.changes + p.reads;
            true
        });
        assert!(outcome.is_ok(), "{outcome:?}");
        let sent = service.with(|s| s.requests) - before;
        let off = (announced as f64 - sent as f64).abs() / sent as f64;
        assert!(
            off <= 0.10,
            "{hostnames} hostnames: {announced} announced, {sent} sent ({:.1} % off)",
            off * 100.0
        );
    }
}

/// The records of one list of an exported bundle (`/pools`, or a zone's list
/// by pointer), across its pages.
fn bundle_records(file: &std::path::Path, list: &str) -> Vec<Value> {
    let bundle: Value = serde_json::from_slice(&std::fs::read(file).expect("the bundle")).expect("JSON");
    bundle
        .pointer(list)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .flat_map(|page| page["result"].as_array().cloned().unwrap_or_default())
        .collect()
}

/// The hostname ids a plan's certificate steps change.
fn planned_hostnames(plan: &Value) -> BTreeSet<String> {
    plan["accounts"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|a| a["steps"].as_array().cloned().unwrap_or_default())
        .filter_map(|s| s["hostname_id"].as_str().map(str::to_string))
        .collect()
}

/// A SaaS zone at work while apply runs, against a service of the current
/// reference: the planned hostnames are worked from the zone's list filtered
/// to Let's Encrypt, 1,000 a page. Throughout, customers delete hostnames
/// (the zone's first, read already, which shifts every later one; and a
/// planned one not reached yet) and create new ones on Let's Encrypt. Every
/// planned hostname still live is moved; only those the service answers 404
/// for are called deleted; the new ones are named, never changed.
#[test]
fn a_zone_in_churn_is_worked_from_its_filtered_list_and_strands_no_hostname() {
    let mut state = account(13, 3600);
    state.reference = true;
    let (service, _dir, plan) = planned(state, "4");
    let planned = planned_hostnames(&plan);
    assert_eq!(planned.len(), 1200);
    let exported = service.with(|s| s.log.len());
    let shared = service.state.clone();
    let patches = Arc::new(Mutex::new(0usize));
    let deleted = Arc::new(Mutex::new(BTreeSet::new()));
    let (counted, removed, ids) = (patches.clone(), deleted.clone(), planned.clone());
    service.before_each(Box::new(move |_, request| {
        if !request.starts_with("PATCH") || !request.contains("/custom_hostnames/") {
            return;
        }
        let mut k = counted.lock().unwrap();
        *k += 1;
        let mut s = shared.lock().unwrap();
        if *k % 25 == 0 {
            let first = s.custom_hostnames.remove(0);
            removed.lock().unwrap().insert(first["id"].as_str().unwrap().to_string());
            let n = *k;
            s.custom_hostnames.push(
                json!({"id": format!("eeeeeeee-0000-4000-8000-{n:012x}"), "hostname": format!("new{n}.customer.example"),
                "ssl": {"certificate_authority": "lets_encrypt", "method": "http", "type": "dv", "status": "active"}}),
            );
        }
        if *k % 100 == 0
            && let Some(i) = s
                .custom_hostnames
                .iter()
                .rposition(|h| ids.contains(h["id"].as_str().unwrap_or("")) && h["ssl"]["certificate_authority"] == "lets_encrypt")
        {
            let planned = s.custom_hostnames.remove(i);
            removed.lock().unwrap().insert(planned["id"].as_str().unwrap().to_string());
        }
    }));
    let (outcome, log, _) = apply_in_process(&service, &plan, false);
    let summary = outcome.unwrap_or_else(|e| panic!("{e}\n{log}"));
    let deleted = deleted.lock().unwrap().clone();
    let created = *patches.lock().unwrap() / 25;
    service.with(|s| {
        for h in &s.custom_hostnames {
            let id = h["id"].as_str().unwrap();
            if planned.contains(id) {
                assert_ne!(
                    h["ssl"]["certificate_authority"], "lets_encrypt",
                    "a planned hostname left on Let's Encrypt: {h}"
                );
            } else if id.starts_with("eeeeeeee") {
                assert_eq!(
                    h["ssl"]["certificate_authority"], "lets_encrypt",
                    "a hostname the plan does not hold was changed: {h}"
                );
            }
        }
        // Worked from the filtered list at the reference's page size: a handful of list reads.
        let lists: Vec<&String> = s.log[exported..].iter().filter(|l| l.contains("/custom_hostnames?")).collect();
        assert!(
            lists
                .iter()
                .all(|l| l.contains("certificate_authority=lets_encrypt") && l.contains("per_page=1000")),
            "{lists:?}"
        );
        assert!(lists.len() <= 10, "{} list reads: {lists:?}", lists.len());
        assert!(s.outside.is_empty(), "{:?}", s.outside);
    });
    // Each planned hostname was moved or, deleted, called gone; none is called
    // gone that was not deleted.
    let patched = service.with(|s| {
        s.log[exported..]
            .iter()
            .filter(|l| l.starts_with("PATCH") && l.contains("/custom_hostnames/"))
            .count()
    });
    // (A hostname deleted in the instant before its PATCH is gone by the PATCH's 404.)
    let gone_by_patch = summary.gone.iter().filter(|g| g.contains("HTTP 404")).count();
    assert_eq!(patched + summary.gone.len() - gone_by_patch, planned.len(), "{summary:?}");
    assert!(
        !summary.gone.is_empty(),
        "a planned hostname deleted before its step is nothing to do"
    );
    assert!(summary.gone.len() <= planned.intersection(&deleted).count(), "{summary:?}");
    assert!(
        summary.unplanned.count > 0 && summary.unplanned.count <= created,
        "{:?}",
        summary.unplanned
    );
    assert!(
        summary.unplanned.first.iter().all(|id| id.starts_with("eeeeeeee")),
        "{:?}",
        summary.unplanned
    );
}

/// Against a service of the 2024 excerpt, the filter and the larger page are
/// refused once (HTTP 400) and asked no more: the zone's whole list is paged
/// at 50, and every planned hostname is moved.
#[test]
fn a_service_without_the_filter_gets_the_whole_list_at_the_excerpts_page_size() {
    let (service, _dir, plan) = planned(account(13, 600), "4");
    let planned = planned_hostnames(&plan);
    let exported = service.with(|s| s.outside.len());
    let (outcome, log, _) = apply_in_process(&service, &plan, false);
    outcome.unwrap_or_else(|e| panic!("{e}\n{log}"));
    assert!(!planned.is_empty());
    assert!(log.contains("does not filter custom hostnames"), "{log}");
    service.with(|s| {
        assert_eq!(s.outside.len() - exported, 1, "one refused read: {:?}", s.outside);
        assert!(s.outside[exported].0.contains("certificate_authority=lets_encrypt"));
        let after: Vec<&String> = s.log.iter().skip_while(|l| !l.contains("certificate_authority")).skip(1).collect();
        assert!(
            after
                .iter()
                .filter(|l| l.contains("/custom_hostnames?"))
                .all(|l| l.contains("per_page=50") && !l.contains("certificate_authority")),
            "{after:?}"
        );
        for h in &s.custom_hostnames {
            assert_ne!(h["ssl"]["certificate_authority"], "lets_encrypt", "{h}");
        }
    });
}

/// The export asks the current reference's page size and records in the
/// bundle which it used: 1,000 where the service takes it, the excerpt's 50
/// where it answers 400; every record is read either way.
#[test]
fn an_export_records_the_page_size_the_service_took() {
    for (reference, size) in [(true, 1000), (false, 50)] {
        let service = Service::start(State {
            reference,
            ..account(3, 130)
        });
        let dir = temp_dir(&[]);
        let output = dir.path().join("account.json");
        let clock = Arc::new(VirtualClock::default());
        edgeaudit::live::export::export_to(&mut client(&service, &clock), &scope(), chrono::Utc::now(), &output, false).expect("export");
        let bundle: Value = serde_json::from_slice(&std::fs::read(&output).unwrap()).unwrap();
        let recorded = &bundle["exported"]["page_sizes"]["custom-hostname-for-a-zone-list-custom-hostnames"];
        assert_eq!(recorded["per_page"], size, "{recorded}");
        assert_eq!(bundle_records(&output, "/zones/0/custom_hostnames").len(), 130);
        // Pages, and the five places before each page after the first read again.
        let pages = service.with(|s| s.log.iter().filter(|l| l.contains("/custom_hostnames?")).count());
        assert_eq!(pages, if reference { 1 } else { 1 + 3 + 2 }, "reference {reference}");
    }
}

/// A deletion on a page read already and a creation at the end, both
/// between two page reads: the count is as it was, and every later hostname
/// moved one place towards the start, so one that lived throughout is on
/// neither page. The places before each page are read again: the hostname
/// that crossed the boundary is kept, said in a note, and nothing is read
/// again whole — at the reference's page size and at the excerpt's.
#[test]
fn a_deletion_and_a_creation_between_two_pages_miss_no_hostname() {
    for (reference, hostnames, page_size) in [(true, 2500, "per_page=1000"), (false, 500, "per_page=50")] {
        let service = Service::start(State {
            reference,
            ..account(3, hostnames)
        });
        let lived: Vec<String> = service.with(|s| s.custom_hostnames.iter().map(|h| h["id"].as_str().unwrap().to_string()).collect());
        let state = service.state.clone();
        let pages = Arc::new(Mutex::new(0));
        let counted = pages.clone();
        service.before_each(Box::new(move |_, request| {
            if !request.contains("/custom_hostnames?") || !request.contains(page_size) {
                return;
            }
            let mut n = counted.lock().unwrap();
            *n += 1;
            if *n == 2 {
                let mut s = state.lock().unwrap();
                s.custom_hostnames.remove(0);
                s.custom_hostnames.push(
                    json!({"id": "ffffffff-0000-4000-8000-000000000000", "hostname": "late.customer.example",
                    "ssl": {"certificate_authority": "google", "method": "http", "type": "dv"}}),
                );
            }
        }));
        let dir = temp_dir(&[]);
        let output = dir.path().join("account.json");
        let clock = Arc::new(VirtualClock::default());
        let report = edgeaudit::live::export::export_to(&mut client(&service, &clock), &scope(), chrono::Utc::now(), &output, false)
            .expect("export");
        let exported: BTreeSet<String> = bundle_records(&output, "/zones/0/custom_hostnames")
            .iter()
            .map(|h| h["id"].as_str().unwrap().to_string())
            .collect();
        let missing: Vec<&String> = lived.iter().filter(|id| !exported.contains(*id)).collect();
        assert!(
            missing.is_empty(),
            "reference {reference}: lived throughout, not exported: {missing:?}"
        );
        assert!(
            report.notes.iter().any(|n| n.contains("crossed a page boundary")),
            "reference {reference}: {:?}",
            report.notes
        );
        assert!(!report.notes.iter().any(|n| n.contains("read again whole")), "{:?}", report.notes);
        let per_page: usize = page_size.trim_start_matches("per_page=").parse().unwrap();
        assert_eq!(
            *pages.lock().unwrap(),
            hostnames.div_ceil(per_page),
            "reference {reference}: one pass"
        );
    }
}

/// A hostname is checked from its list page only while the page is fresh:
/// where pacing makes the run wait (10 requests per five minutes here, on a
/// virtual clock), each hostname is read again by its id right before its
/// change, never changed from a record read minutes earlier. Unpaced, the
/// page's records serve and no hostname is read by id.
#[test]
fn a_hostname_is_changed_only_from_a_fresh_read() {
    for (rate, by_id_reads) in [(0u32, false), (10, true)] {
        let mut state = account(13, 30);
        state.reference = true;
        let (service, _dir, plan) = planned(state, "4");
        let exported = service.with(|s| s.log.len());
        let clock = Arc::new(VirtualClock::default());
        let mut client = {
            // A generous timeout: a retry on a busy machine would age the
            // page and read hostnames by id where the test expects none.
            let mut settings = settings_timed(&service.base(), Duration::from_secs(30));
            settings.rate = rate;
            client_of(settings, &clock)
        };
        let plan = edgeaudit::live::apply::read::plan(&plan.to_string(), "plan.json", None).expect("a plan");
        let mut log = Vec::new();
        let outcome = apply::run(&mut client, &plan, &Options { dry_run: false }, &mut log, &mut |_| true);
        assert!(outcome.is_ok(), "{outcome:?}");
        service.with(|s| {
            let gets = s.log[exported..]
                .iter()
                .filter(|l| l.starts_with("GET") && l.contains("/custom_hostnames/"))
                .count();
            assert_eq!(gets > 0, by_id_reads, "rate {rate}: {gets} reads by id");
            for h in &s.custom_hostnames {
                assert_ne!(h["ssl"]["certificate_authority"], "lets_encrypt", "{h}");
            }
        });
    }
}
