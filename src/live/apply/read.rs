//! Reads a plan file for `apply`, and checks it before anything is sent.
//! The plan binds its review: its `plan_id` must be the digest of its content
//! (`plan::render::digest`), so a plan edited after `edgeaudit plan` wrote it
//! is refused. Whatever the digest, each step's request is built from its
//! operation's path template and its typed ids, the `method` and `path` the
//! file shows must be exactly that request, and each step is checked for what
//! it means (`meaning`).

use serde::Deserialize;
use serde_json::Value;

use super::plan_file::{Kind, PlanFile, Step};
use crate::api::Operation;
use crate::plan::step::ACCOUNT_PLACEHOLDER;

/// Reads a plan, with `account` standing in for `{account_id}` where the
/// export named no account; errors name what is wrong.
pub fn plan(text: &str, name: &str, account: Option<&str>) -> Result<PlanFile, String> {
    plan_from(text.as_bytes(), name, account)
}

/// As [`plan`], from a stream: the plan is read step by step (each held
/// compact, [`crate::plan::document::Steps`]) and its digest computed as it
/// is read, so a plan of a million steps is never held whole.
pub fn plan_from(reader: impl std::io::Read, name: &str, account: Option<&str>) -> Result<PlanFile, String> {
    let not_a_plan = |e: serde_json::Error| {
        format!(
            "{name}:{}:{}: not a plan made by `edgeaudit plan --format json`: {e}",
            e.line(),
            e.column()
        )
    };
    let mut reader = serde_json::Deserializer::from_reader(std::io::BufReader::new(reader));
    let mut plan = PlanFile::deserialize(&mut reader).map_err(not_a_plan)?;
    reader.end().map_err(not_a_plan)?;
    if plan.version != crate::plan::render::VERSION {
        return Err(format!(
            "{name}: plan version {} is not one this edgeaudit runs ({}): make it again with `edgeaudit plan --format json`",
            plan.version,
            crate::plan::render::VERSION
        ));
    }
    let digest = plan.digest();
    if digest != plan.plan_id {
        return Err(format!(
            "{name}: this is not the plan `{}` that was made and reviewed: its content was changed since (it is `{digest}`); make the plan again with `edgeaudit plan --format json` and review it",
            crate::text::escape::terminal::value(&plan.plan_id)
        ));
    }
    let events_known = plan
        .accounts
        .iter()
        .flat_map(|a| &a.state.pools)
        .flat_map(|p| &p.events)
        .all(|e| crate::model::notification::Event::parse(e).is_some());
    if !events_known {
        return Err(format!(
            "{name}: a pool's `events` holds a name that is no event (`pool Healthy`, `origin Unhealthy`, …)"
        ));
    }
    for a in &mut plan.accounts {
        let named = a.account_id.is_some();
        if a.account_id.is_none() {
            let Some(account) = account else {
                return Err(format!(
                    "{name}: the plan names no account (its export did not): pass --account ACCOUNT_ID"
                ));
            };
            a.account_id = Some(account.to_string());
        }
        let id = a.account_id.clone().unwrap_or_default();
        super::meaning::plain_id(&id).map_err(|why| format!("{name}: the account id {why}"))?;
        for step in a.each_step() {
            check_step(&step, named).map_err(|why| format!("{name}: step {}: {why}", step.step))?;
            if step.kind == Kind::CreatePolicy
                && step.marker.as_deref() != Some(crate::plan::render::marker(&plan.plan_id, step.step).as_str())
            {
                return Err(format!(
                    "{name}: step {}: its marker is not this plan's ({})",
                    step.step, plan.plan_id
                ));
            }
        }
        super::meaning::check(a).map_err(|why| format!("{name}: {why}"))?;
    }
    Ok(plan)
}

/// The step's shape: its request is its kind's, built from its typed ids,
/// and the `method` and `path` the file shows are exactly that request.
fn check_step(step: &Step, account_named: bool) -> Result<(), String> {
    let Some(op) = step.kind.operation() else {
        if step.method.is_some() || step.path.is_some() || step.body.is_some() {
            return Err(format!("a {:?} step is a person's: it sends no request", step.kind));
        }
        return Ok(());
    };
    let operation = Operation::of(op);
    if step.method.as_deref() != Some(operation.method) {
        return Err(format!(
            "a {:?} step is sent with {}, not {:?}",
            step.kind, operation.method, step.method
        ));
    }
    if !step.body.as_ref().is_some_and(Value::is_object) {
        return Err("its `body` is not a JSON object".into());
    }
    for id in [&step.policy_id, &step.zone_id, &step.hostname_id]
        .into_iter()
        .flatten()
        .chain(&step.pools)
    {
        super::meaning::plain_id(id)?;
    }
    let Some(call) = step.call() else {
        return Err(format!("a {:?} step lacks the ids its request is made of", step.kind));
    };
    let shown = step.path.as_deref().unwrap_or("");
    let placeholder = step.call_for(ACCOUNT_PLACEHOLDER).map(|c| c.target());
    let matches = shown == call.target() || (!account_named && placeholder.as_deref() == Some(shown));
    if !matches {
        return Err(format!(
            "its path `{}` is not its request `{}`",
            crate::text::escape::terminal::value(shown),
            call.target()
        ));
    }
    call.check().map_err(|why| {
        format!(
            "`{} {}` is not a request the published contract allows: {why}",
            operation.method,
            call.target()
        )
    })?;
    match step.kind {
        Kind::ClearPage | Kind::ClearPool if step.body != Some(serde_json::json!({"notification_email": ""})) => {
            return Err("a clear's body is `{\"notification_email\": \"\"}` and nothing else".into());
        }
        Kind::UpdatePolicy if step.policy_id.is_none() => {
            return Err("an update names its policy in `policy_id`".into());
        }
        Kind::CreatePolicy => {
            let marker = step.marker.as_deref().unwrap_or("");
            let description = step.body.as_ref().and_then(|b| b.get("description")).and_then(Value::as_str);
            if marker.is_empty() || description != Some(crate::plan::render::created_description(step.pools.len(), marker).as_str()) {
                return Err("a policy create carries its `marker`, and its body's `description` is the plan's own words with it".into());
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::plan as read;
    use crate::plan::render::{created_description, digest, marker};

    /// A plan of one account holding `step`, its id the digest of its
    /// content (as an attacker who edits a plan can compute it too); a
    /// create's marker and description made from that id when `markers`.
    fn sealed(step: Value, markers: bool) -> String {
        let summary = json!({"certificate_changes": 0, "manual_steps": 0, "page_clears": 0, "per_pool_requests": 0, "policy_creates": 0,
            "policy_updates": 0, "pool_clears": 0, "requests": 1, "steps": 1, "text": ""});
        let proof = json!({"covers": "every pool of the account", "legacy_deliveries": 1, "result": "no alert lost at any step", "steps_replayed": 1});
        let mut doc = json!({"version": 4, "plan_id": "", "as_of": "2024-10-01", "per_page": 25, "summary": summary, "accounts": [{"account_id": "acc", "pools_complete": true,
            "legacy_pools": 1, "proof": proof, "warnings": [],
            "state": {"pools": [{"id": "p1", "name": "web", "recipients": ["a@x.io"], "events": ["pool Healthy"]}], "policies": [],
                      "exported_policies": [], "zones": ["z1"], "custom_hostnames": [{"id": "h1", "zone_id": "z1"}],
                      "zone_hostnames": {"z1": 1}},
            "steps": [step]}]});
        let id = digest(&doc);
        doc["plan_id"] = json!(id);
        let step = &mut doc["accounts"][0]["steps"][0];
        if markers && step["kind"] == "create_policy" {
            let m = marker(&id, 1);
            step["marker"] = json!(m);
            step["body"]["description"] = json!(created_description(1, &m));
        }
        doc.to_string()
    }

    fn clear(path: &str, body: Value) -> Value {
        json!({"step": 1, "kind": "clear_pool", "reason": "", "method": "PATCH", "path": path, "body": body, "pools": ["p1"]})
    }

    fn create(body: Value) -> Value {
        json!({"step": 1, "kind": "create_policy", "reason": "", "method": "POST", "path": "/accounts/acc/alerting/v3/policies", "body": body, "pools": ["p1"]})
    }

    fn policy() -> Value {
        json!({"name": "web health alerts", "alert_type": "load_balancing_health_alert", "enabled": true,
               "mechanisms": {"email": [{"id": "a@x.io"}]}, "filters": {"pool_id": ["p1"], "new_health": ["Healthy"], "event_source": ["pool"]}})
    }

    #[test]
    fn a_plan_file_cannot_send_another_request_than_its_steps_kinds() {
        let ok = clear("/accounts/acc/load_balancers/pools/p1", json!({"notification_email": ""}));
        assert!(read(&sealed(ok, true), "plan.json", None).is_ok());
        let bad = [
            clear(
                "/accounts/acc/load_balancers/pools/p1",
                json!({"notification_email": "", "enabled": false}),
            ),
            clear("/accounts/acc/load_balancers/pools/p2", json!({"notification_email": ""})),
            clear(
                "/accounts/acc/load_balancers/pools/?per_page=1000",
                json!({"notification_email": ""}),
            ),
            clear("/accounts/other/load_balancers/pools/p1", json!({"notification_email": ""})),
            clear("/zones/z/custom_hostnames/p1", json!({"notification_email": ""})),
            json!({"step": 1, "kind": "clear_page", "reason": "", "method": "PATCH", "path": "/accounts/acc/load_balancers/pools?per_page=25&page=1&x=1", "body": {"notification_email": ""}, "per_page": 25, "page": 1, "pools": []}),
            json!({"step": 1, "kind": "update_policy", "reason": "", "method": "PUT", "path": "/accounts/acc/alerting/v3/policies/x", "body": {}, "policy_id": "y"}),
            json!({"step": 1, "kind": "manual", "reason": "", "method": "PATCH", "path": "/accounts/acc/load_balancers/pools/p1", "body": {"notification_email": ""}}),
        ];
        for step in bad {
            assert!(read(&sealed(step.clone(), true), "plan.json", None).is_err(), "{step}");
        }
        let good_create = create(policy());
        assert!(read(&sealed(good_create.clone(), true), "plan.json", None).is_ok());
        // Its marker and description are exactly the ones its id makes.
        let mut other_marker = good_create.clone();
        other_marker["marker"] = json!("[edgeaudit plan other step 1]");
        other_marker["body"]["description"] = json!(created_description(1, "[edgeaudit plan other step 1]"));
        assert!(read(&sealed(other_marker, false), "plan.json", None).is_err());
        assert!(read(&sealed(good_create, false), "plan.json", None).is_err(), "no marker");
        let unknown_event = sealed(
            clear("/accounts/acc/load_balancers/pools/p1", json!({"notification_email": ""})),
            true,
        )
        .replace("pool Healthy", "pool healthy");
        assert!(read(&unknown_event, "plan.json", None).is_err());
    }

    #[test]
    fn a_plan_whose_content_is_not_its_id_is_refused() {
        let text = sealed(create(policy()), true);
        assert!(read(&text, "plan.json", None).is_ok());
        let edited = text.replace("web health alerts", "web health alertz");
        let why = read(&edited, "plan.json", None).expect_err("edited");
        assert!(why.contains("is not the plan") && why.contains("changed since"), "{why}");
        let v2 = text.replace("\"version\":4", "\"version\":2");
        assert!(read(&v2, "plan.json", None).expect_err("old").contains("plan version 2"));
    }

    /// What an attacker who edits a plan and computes its new id gets: each
    /// refused before anything is sent, naming the step and the rule.
    #[test]
    fn a_step_that_means_something_else_is_refused_whatever_its_id() {
        let mut outsider = policy();
        outsider["mechanisms"]["email"] = json!([{"id": "a@x.io"}, {"id": "attacker@evil.example"}]);
        let mut other_type = policy();
        other_type["alert_type"] = json!("universal_ssl_event_type");
        let mut webhook = policy();
        webhook["mechanisms"]["webhooks"] = json!([{"id": "hook"}]);
        let mut every_pool = policy();
        every_pool["filters"] = json!({});
        let mut stranger_pool = policy();
        stranger_pool["filters"]["pool_id"] = json!(["p1", "p9"]);
        let zone_step = |kind: &str, path: &str, zone: &str, body: Value| {
            let method = if kind == "set_total_tls" { "POST" } else { "PATCH" };
            json!({"step": 1, "kind": kind, "reason": "", "method": method, "path": path, "body": body, "zone_id": zone,
                   "expects": {"certificate_authority": "lets_encrypt"}})
        };
        let hostname = |zone: &str, id: &str, body: Value| {
            json!({"step": 1, "kind": "edit_custom_hostname", "reason": "", "method": "PATCH",
                   "path": format!("/zones/{zone}/custom_hostnames/{id}"), "body": body, "zone_id": zone, "hostname_id": id,
                   "expects": {"certificate_authority": "lets_encrypt", "hostname_id": id}})
        };
        let cases = [
            (create(outsider), "attacker@evil.example"),
            (create(other_type), "load_balancing_health_alert"),
            (create(webhook), "e-mail only"),
            (create(every_pool), "every pool"),
            (create(stranger_pool), "`p9`"),
            (
                zone_step(
                    "set_universal_ssl",
                    "/zones/z1/ssl/universal/settings",
                    "z1",
                    json!({"enabled": false}),
                ),
                "CA only",
            ),
            (
                zone_step(
                    "set_total_tls",
                    "/zones/z1/acm/total_tls",
                    "z1",
                    json!({"enabled": false, "certificate_authority": "google"}),
                ),
                "stays enabled",
            ),
            (
                zone_step(
                    "set_total_tls",
                    "/zones/z9/acm/total_tls",
                    "z9",
                    json!({"enabled": true, "certificate_authority": "google"}),
                ),
                "not in the plan's state",
            ),
            (
                hostname(
                    "z9",
                    "h1",
                    json!({"ssl": {"method": "txt", "type": "dv", "certificate_authority": "google"}}),
                ),
                "not in the plan's state",
            ),
            (
                hostname(
                    "z1",
                    "h1",
                    json!({"ssl": {"method": "txt", "type": "dv", "certificate_authority": "lets_encrypt"}}),
                ),
                "no CA",
            ),
            (
                hostname(
                    "z1",
                    "h1",
                    json!({"ssl": {"certificate_authority": "google", "custom_certificate": "x"}}),
                ),
                "CA only",
            ),
            (
                hostname(
                    "z1",
                    "%2e%2e%2f%2e%2e%2fZONE%2fcustom_hostnames%2fID",
                    json!({"ssl": {"certificate_authority": "google"}}),
                ),
                "is not an id",
            ),
            (
                {
                    let mut from_google = zone_step(
                        "set_universal_ssl",
                        "/zones/z1/ssl/universal/settings",
                        "z1",
                        json!({"certificate_authority": "ssl_com"}),
                    );
                    from_google["expects"] = json!({"certificate_authority": "google"});
                    from_google
                },
                "expects to find the resource on `lets_encrypt`",
            ),
        ];
        for (step, why) in cases {
            let refused = read(&sealed(step.clone(), true), "plan.json", None).expect_err(why);
            assert!(refused.contains("step 1") && refused.contains(why), "{why}: {refused}");
        }
        // The unedited kinds pass.
        let fine = [
            zone_step(
                "set_universal_ssl",
                "/zones/z1/ssl/universal/settings",
                "z1",
                json!({"certificate_authority": "google"}),
            ),
            zone_step(
                "set_total_tls",
                "/zones/z1/acm/total_tls",
                "z1",
                json!({"enabled": true, "certificate_authority": "google"}),
            ),
            hostname(
                "z1",
                "h1",
                json!({"ssl": {"method": "txt", "type": "dv", "certificate_authority": "google"}}),
            ),
        ];
        for step in fine {
            assert!(read(&sealed(step.clone(), true), "plan.json", None).is_ok(), "{step}");
        }
    }
}
