//! A plan as `plan --format json` writes it (version 3), as `apply` holds
//! it: typed, each step's request built from its operation's path template
//! and its typed ids. `read::plan` reads and checks it.

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
    pub(super) fn call_for(&self, account: &str) -> Option<Call> {
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
pub(super) const ACCOUNT_PLACEHOLDER: &str = "{account_id}";
