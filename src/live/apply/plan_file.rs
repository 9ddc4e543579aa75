//! A plan as `plan --format json` writes it (version 2), read back for
//! `apply`: typed, and checked before anything is sent — each step's path
//! must be of its kind's endpoint, so a plan file cannot reach another one.

use serde::Deserialize;
use serde_json::Value;

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

#[derive(Debug, Clone, Deserialize)]
pub struct PlanState {
    pub pools: Vec<PoolState>,
    pub policies: Vec<PolicyState>,
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
    Manual,
    Terraform,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Step {
    pub step: usize,
    pub kind: Kind,
    pub reason: String,
    #[serde(default)]
    pub depends_on: Vec<usize>,
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

/// The endpoint each kind of step sends to: (method, path prefix after the
/// account or zone, path shape).
fn endpoint(kind: &Kind) -> Option<(&'static str, &'static str)> {
    Some(match kind {
        Kind::CreatePolicy => ("POST", "/alerting/v3/policies"),
        Kind::UpdatePolicy => ("PUT", "/alerting/v3/policies/"),
        Kind::ClearPage => ("PATCH", "/load_balancers/pools?"),
        Kind::ClearPool => ("PATCH", "/load_balancers/pools/"),
        Kind::EditCustomHostname => ("PATCH", "/custom_hostnames/"),
        Kind::SetTotalTls => ("POST", "/acm/total_tls"),
        Kind::Manual | Kind::Terraform => return None,
    })
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
        }
    }
    Ok(plan)
}

fn check_step(step: &Step, account: &str) -> Result<(), String> {
    let Some((method, shape)) = endpoint(&step.kind) else {
        return Ok(());
    };
    let path = step.path.as_deref().ok_or("no `path`")?;
    if step.method.as_deref() != Some(method) {
        return Err(format!("a {:?} step is sent with {method}, not {:?}", step.kind, step.method));
    }
    if step.body.is_none() {
        return Err("no `body`".into());
    }
    let rest = match step.kind {
        Kind::EditCustomHostname | Kind::SetTotalTls => path
            .strip_prefix("/zones/")
            .and_then(|r| r.split_once('/'))
            .map(|(_, r)| format!("/{r}")),
        _ => path.strip_prefix(&format!("/accounts/{account}")).map(str::to_string),
    };
    let fits = rest.as_deref().is_some_and(|r| match step.kind {
        Kind::CreatePolicy | Kind::SetTotalTls => r == shape,
        _ => r.starts_with(shape) && r.len() > shape.len(),
    });
    if !fits || path.contains("..") || path.contains('#') {
        return Err(format!("path `{path}` is not the endpoint of a {:?} step", step.kind));
    }
    if step.kind == Kind::CreatePolicy && step.marker.is_none() {
        return Err("a policy create without its marker".into());
    }
    Ok(())
}
