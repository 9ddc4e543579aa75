//! A plan as `plan --format json` writes it (version 2), read back for
//! `apply`: typed, and checked before anything is sent — each step's path
//! must be of its kind's endpoint, so a plan file cannot reach another one.

use serde::Deserialize;
use serde_json::Value;

use crate::api::{Call, Op, Operation};
use crate::plan::state::{PolicyState, PoolState};

#[derive(Debug, Clone, Deserialize)]
pub struct PlanFile {
    pub version: u32,
    pub plan_id: String,
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
    /// The step's request as a call of its operation (path and query as
    /// the plan wrote them, its body).
    pub fn call(&self) -> Option<Call> {
        let operation = Operation::of(self.kind.operation()?);
        let target = self.path.as_deref()?;
        let path = target.split('?').next().unwrap_or("");
        let segments: Vec<&str> = path.split('/').collect();
        let mut call = operation.call_encoded(&[]);
        call.path = segments.join("/");
        call.query = crate::api::parse_query(target);
        call.body = self.body.clone();
        Some(call)
    }
}

/// Reads a plan, with `account` standing in for `{account_id}` where the
/// export named no account; errors name what is wrong.
pub fn read(text: &str, name: &str, account: Option<&str>) -> Result<PlanFile, String> {
    let mut plan: PlanFile = serde_json::from_str(text).map_err(|e| {
        format!(
            "{name}:{}:{}: not a plan made by `edgeaudit plan --format json`: {e}",
            e.line(),
            e.column()
        )
    })?;
    if plan.version != 2 {
        return Err(format!(
            "{name}: plan version {} is not one this edgeaudit runs (2): make it again with `edgeaudit plan --format json`",
            plan.version
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
        if a.account_id.is_none() {
            let Some(account) = account else {
                return Err(format!(
                    "{name}: the plan names no account (its export did not): pass --account ACCOUNT_ID"
                ));
            };
            a.account_id = Some(account.to_string());
        }
        let id = crate::plan::request::segment(a.account_id.as_deref().unwrap_or(""));
        for step in &mut a.steps {
            if let Some(path) = &mut step.path {
                *path = path.replace("{account_id}", &id);
            }
            check_step(step, &id).map_err(|why| format!("{name}: step {}: {why}", step.step))?;
            if step.kind == Kind::CreatePolicy
                && step.marker.as_deref() != Some(crate::plan::render::marker(&plan.plan_id, step.step).as_str())
            {
                return Err(format!(
                    "{name}: step {}: its marker is not this plan's ({})",
                    step.step, plan.plan_id
                ));
            }
        }
    }
    Ok(plan)
}

fn check_step(step: &Step, account: &str) -> Result<(), String> {
    let (Some(op), Some(call)) = (step.kind.operation(), step.call()) else {
        return Ok(());
    };
    let operation = Operation::of(op);
    let path = step.path.as_deref().unwrap_or("");
    if step.method.as_deref() != Some(operation.method) {
        return Err(format!(
            "a {:?} step is sent with {}, not {:?}",
            step.kind, operation.method, step.method
        ));
    }
    if step.body.is_none() {
        return Err("no `body`".into());
    }
    let own_account = path.starts_with(&format!("/accounts/{account}/")) || path.starts_with("/zones/");
    if Operation::find(operation.method, path).map(|o| o.op) != Some(op) || !own_account || path.contains('#') {
        return Err(format!("path `{path}` is not the endpoint of a {:?} step", step.kind));
    }
    if !step.body.as_ref().is_some_and(Value::is_object) {
        return Err("its `body` is not a JSON object".into());
    }
    call.check().map_err(|why| {
        format!(
            "`{} {path}` is not a request the published contract allows: {why}",
            operation.method
        )
    })?;
    // The id a path ends with is one segment, as the plan encodes it.
    let last = call.path.rsplit('/').next().unwrap_or("");
    let one_segment = |id: &str| crate::plan::request::segment(id) == last;
    match step.kind {
        Kind::ClearPage | Kind::ClearPool if step.body != Some(serde_json::json!({"notification_email": ""})) => {
            return Err("a clear's body is `{\"notification_email\": \"\"}` and nothing else".into());
        }
        Kind::ClearPool if !(step.pools.len() == 1 && one_segment(&step.pools[0])) => {
            return Err("a pool's clear names that one pool in `pools` and its path".into());
        }
        Kind::ClearPage => {
            let names: Vec<&str> = call.query.iter().map(|(n, _)| n.as_str()).collect();
            if names != ["per_page", "page"] {
                return Err(format!("a page's clear is sent to `…/pools?per_page=N&page=P`, not `{path}`"));
            }
        }
        Kind::UpdatePolicy if !step.policy_id.as_deref().is_some_and(one_segment) => {
            return Err("an update names its policy in `policy_id` and its path".into());
        }
        Kind::CreatePolicy => {
            let marker = step.marker.as_deref().unwrap_or("");
            let described = step
                .body
                .as_ref()
                .and_then(|b| b.get("description"))
                .and_then(Value::as_str)
                .is_some_and(|d| d.contains(marker));
            if marker.is_empty() || !described {
                return Err("a policy create carries its `marker`, also in its body's `description`".into());
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
