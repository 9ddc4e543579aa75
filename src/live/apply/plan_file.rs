//! A plan as `plan --format json` writes it (version 3), read back for
//! `apply`: typed, and checked before anything is sent. The plan binds its
//! review: its `plan_id` must be the digest of its content
//! (`plan::render::digest`), so a plan edited after `edgeaudit plan` wrote it
//! is refused. Whatever the digest, each step is checked for what it means
//! (`meaning`), its request is built from its operation's path template and
//! its typed ids, and the `method` and `path` the file shows must be exactly
//! that request.

use serde::Deserialize;
use serde_json::Value;

use crate::api::{Call, Op, Operation};
use crate::plan::state::{PolicyState, PoolState};

#[derive(Debug, Clone, Deserialize)]
pub struct PlanFile {
    pub version: u32,
    pub plan_id: String,
    pub as_of: String,
    pub per_page: usize,
    pub accounts: Vec<PlanAccount>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct PlanAccount {
    pub account_id: Option<String>,
    pub pools_complete: bool,
    pub state: PlanState,
    pub steps: Vec<Step>,
}

impl PlanAccount {
    /// The pools the plan's clears take legacy e-mails off.
    pub fn cleared_pools(&self) -> std::collections::HashSet<&str> {
        self.steps
            .iter()
            .filter(|s| matches!(s.kind, Kind::ClearPage | Kind::ClearPool))
            .flat_map(|s| s.pools.iter().map(String::as_str))
            .collect()
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct PlanState {
    pub pools: Vec<PoolState>,
    pub policies: Vec<PolicyState>,
    /// Every policy the export held, by id.
    #[serde(default)]
    pub exported_policies: Vec<String>,
    /// The zones and custom hostnames the certificate steps change.
    #[serde(default)]
    pub zones: Vec<String>,
    #[serde(default)]
    pub custom_hostnames: Vec<crate::plan::state::HostnameState>,
}

impl PlanState {
    /// Whether the export held this policy.
    pub fn exported_policy(&self, id: &str) -> bool {
        self.exported_policies.iter().any(|p| p == id) || self.policies.iter().any(|p| p.id == id)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    CreatePolicy,
    UpdatePolicy,
    ClearPage,
    ClearPool,
    EditCustomHostname,
    SetTotalTls,
    SetUniversalSsl,
    Manual,
    Terraform,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Step {
    pub step: usize,
    pub kind: Kind,
    pub reason: String,
    pub method: Option<String>,
    pub path: Option<String>,
    pub body: Option<Value>,
    #[serde(default)]
    pub pools: Vec<String>,
    #[serde(default)]
    pub page_pools: Vec<String>,
    pub marker: Option<String>,
    pub policy_id: Option<String>,
    pub expects: Option<Value>,
    pub zone_id: Option<String>,
    pub hostname_id: Option<String>,
    pub per_page: Option<usize>,
    pub page: Option<usize>,
    /// The account the step is of (the plan's, or `--account`), set on reading.
    #[serde(skip)]
    pub account: String,
}

impl Step {
    pub fn request(&self) -> String {
        format!("{} {}", self.method.as_deref().unwrap_or(""), self.path.as_deref().unwrap_or(""))
    }
}

impl Kind {
    /// The API operation a step of this kind calls; none for a person's step.
    pub fn operation(&self) -> Option<Op> {
        Some(match self {
            Kind::CreatePolicy => Op::CreatePolicy,
            Kind::UpdatePolicy => Op::UpdatePolicy,
            Kind::ClearPage => Op::ClearPools,
            Kind::ClearPool => Op::PatchPool,
            Kind::EditCustomHostname => Op::EditCustomHostname,
            Kind::SetTotalTls => Op::SetTotalTls,
            Kind::SetUniversalSsl => Op::EditUniversalSsl,
            Kind::Manual | Kind::Terraform => return None,
        })
    }
}

impl Step {
    /// The step's request: its operation's path template filled with its
    /// typed ids (each one path segment), its query and its body. `None` for
    /// a person's step, or a step without the ids its kind needs.
    pub fn call(&self) -> Option<Call> {
        self.call_for(&self.account)
    }

    /// As [`Step::call`], the account written as `account` (an id, or the
    /// `{account_id}` placeholder of a plan whose export named none).
    fn call_for(&self, account: &str) -> Option<Call> {
        let operation = Operation::of(self.kind.operation()?);
        let account = if account == ACCOUNT_PLACEHOLDER {
            account.to_string()
        } else {
            crate::api::segment(account)
        };
        let encoded = |id: &str| crate::api::segment(id);
        let call = match self.kind {
            Kind::CreatePolicy => operation.call_encoded(&[&account]),
            Kind::UpdatePolicy => operation.call_encoded(&[&account, &encoded(self.policy_id.as_deref()?)]),
            Kind::ClearPage => operation
                .call_encoded(&[&account])
                .with("per_page", self.per_page?)
                .with("page", self.page?),
            Kind::ClearPool => match self.pools.as_slice() {
                [pool] => operation.call_encoded(&[&account, &encoded(pool)]),
                _ => return None,
            },
            Kind::EditCustomHostname => operation.call(&[self.zone_id.as_deref()?, self.hostname_id.as_deref()?]),
            Kind::SetTotalTls | Kind::SetUniversalSsl => operation.call(&[self.zone_id.as_deref()?]),
            Kind::Manual | Kind::Terraform => return None,
        };
        Some(Call {
            body: self.body.clone(),
            ..call
        })
    }
}

/// How a plan writes the account when its export named none.
const ACCOUNT_PLACEHOLDER: &str = "{account_id}";

/// Reads a plan, with `account` standing in for `{account_id}` where the
/// export named no account; errors name what is wrong.
pub fn read(text: &str, name: &str, account: Option<&str>) -> Result<PlanFile, String> {
    let not_a_plan = |e: serde_json::Error| {
        format!(
            "{name}:{}:{}: not a plan made by `edgeaudit plan --format json`: {e}",
            e.line(),
            e.column()
        )
    };
    let document: Value = serde_json::from_str(text).map_err(not_a_plan)?;
    let version = document.get("version").and_then(Value::as_u64);
    if version != Some(u64::from(crate::plan::render::VERSION)) {
        return Err(format!(
            "{name}: plan version {} is not one this edgeaudit runs ({}): make it again with `edgeaudit plan --format json`",
            version.map_or_else(|| "(none)".to_string(), |v| v.to_string()),
            crate::plan::render::VERSION
        ));
    }
    let mut plan: PlanFile = serde_json::from_str(text).map_err(not_a_plan)?;
    let digest = crate::plan::render::digest(&document);
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
        for step in &mut a.steps {
            step.account = id.clone();
            check_step(step, named).map_err(|why| format!("{name}: step {}: {why}", step.step))?;
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

    use super::read;

    fn plan(step: Value) -> String {
        json!({"version": 2, "plan_id": "abc", "accounts": [{"account_id": "acc", "pools_complete": true,
            "state": {"pools": [{"id": "p1", "name": "web", "recipients": ["a@x.io"], "events": ["pool Healthy"]}], "policies": []},
            "steps": [step]}]})
        .to_string()
    }

    fn clear(path: &str, body: Value) -> Value {
        json!({"step": 1, "kind": "clear_pool", "reason": "", "method": "PATCH", "path": path, "body": body, "pools": ["p1"]})
    }

    #[test]
    fn a_plan_file_cannot_send_another_request_than_its_steps_kinds() {
        let ok = clear("/accounts/{account_id}/load_balancers/pools/p1", json!({"notification_email": ""}));
        assert!(read(&plan(ok), "plan.json", None).is_ok());
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
            json!({"step": 1, "kind": "clear_page", "reason": "", "method": "PATCH", "path": "/accounts/acc/load_balancers/pools?per_page=25&page=1&x=1", "body": {"notification_email": ""}}),
            json!({"step": 1, "kind": "update_policy", "reason": "", "method": "PUT", "path": "/accounts/acc/alerting/v3/policies/x", "body": {}, "policy_id": "y"}),
            json!({"step": 1, "kind": "create_policy", "reason": "", "method": "POST", "path": "/accounts/acc/alerting/v3/policies", "body": {"description": "[edgeaudit plan other step 1]"}, "marker": "[edgeaudit plan other step 1]"}),
            json!({"step": 1, "kind": "create_policy", "reason": "", "method": "POST", "path": "/accounts/acc/alerting/v3/policies", "body": {}, "marker": "[edgeaudit plan abc step 1]"}),
            json!({"step": 1, "kind": "create_policy", "reason": "", "method": "POST", "path": "/accounts/acc/alerting/v3/policies", "body": [], "marker": "[edgeaudit plan abc step 1]"}),
        ];
        for step in bad {
            assert!(read(&plan(step.clone()), "plan.json", None).is_err(), "{step}");
        }
        let good_create = json!({"step": 1, "kind": "create_policy", "reason": "", "method": "POST", "path": "/accounts/acc/alerting/v3/policies",
            "body": {"description": "x [edgeaudit plan abc step 1]"}, "marker": "[edgeaudit plan abc step 1]"});
        assert!(read(&plan(good_create), "plan.json", None).is_ok());
        let unknown_event =
            plan(clear("/accounts/acc/load_balancers/pools/p1", json!({"notification_email": ""}))).replace("pool Healthy", "pool healthy");
        assert!(read(&unknown_event, "plan.json", None).is_err());
    }
}
