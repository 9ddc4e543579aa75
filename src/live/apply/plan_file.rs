//! A plan as `plan --format json` writes it (version 3), as `apply` holds
//! it: typed, each step's request built from its operation's path template
//! and its typed ids. `read::plan` reads and checks it.

use serde::Deserialize;

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

pub use crate::plan::request::StepKind as Kind;

/// A step as the plan's JSON holds it: the planner's own type.
pub use crate::plan::step::PlanStep as Step;
