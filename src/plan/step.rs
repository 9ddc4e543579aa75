//! A step of the plan as its JSON holds it: one type, written by the
//! planner (`render::json`) and read by `apply` (`live::apply::read`), from
//! which the step's request is built — its operation's path template filled
//! with its typed ids. The `method` and `path` the JSON shows are made here
//! and checked against it on reading, so the request a person reviewed is
//! the request sent.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::request::StepKind;
use crate::api::{Call, Operation};

/// How a plan writes the account when its export named none.
pub const ACCOUNT_PLACEHOLDER: &str = "{account_id}";

/// One step. Members in alphabetical order, as a JSON value writes them;
/// those a kind does not have are left out.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanStep {
    /// The account the step is of (the plan's, or `apply --account`): set
    /// when the plan is read, never written.
    #[serde(skip)]
    pub account: String,
    /// The request's body; none for a person's step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<Value>,
    /// The steps that must have succeeded first.
    #[serde(default)]
    pub depends_on: Vec<usize>,
    /// What a certificate step finds before it changes anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expects: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hostname_id: Option<String>,
    pub kind: StepKind,
    /// A person's step: no request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manual: Option<bool>,
    /// What a created policy's description carries, so that `apply` finds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub marker: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<usize>,
    /// Every pool on the page a page-wide clear clears.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub page_pools: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_page: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy_id: Option<String>,
    /// The pools a policy is created or updated for, or a clear clears.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pools: Vec<String>,
    pub reason: String,
    /// Existing policies (by id) the step counts on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relies_on_policies: Vec<String>,
    pub step: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone_id: Option<String>,
}

impl PlanStep {
    /// The step's request: its operation's path template filled with its
    /// typed ids (each one path segment), its query and its body. `None` for
    /// a person's step, or a step without the ids its kind needs.
    pub fn call(&self) -> Option<Call> {
        self.call_for(&self.account)
    }

    /// As [`PlanStep::call`], the account written as `account` (an id, or
    /// [`ACCOUNT_PLACEHOLDER`] for a plan whose export named none).
    pub fn call_for(&self, account: &str) -> Option<Call> {
        let operation = Operation::of(self.kind.operation()?);
        let account = if account == ACCOUNT_PLACEHOLDER {
            account.to_string()
        } else {
            crate::api::segment(account)
        };
        let encoded = |id: &str| crate::api::segment(id);
        let call = match self.kind {
            StepKind::CreatePolicy => operation.call_encoded(&[&account]),
            StepKind::UpdatePolicy => operation.call_encoded(&[&account, &encoded(self.policy_id.as_deref()?)]),
            StepKind::ClearPage => operation
                .call_encoded(&[&account])
                .with("per_page", self.per_page?)
                .with("page", self.page?),
            StepKind::ClearPool => match self.pools.as_slice() {
                [pool] => operation.call_encoded(&[&account, &encoded(pool)]),
                _ => return None,
            },
            StepKind::EditCustomHostname => operation.call(&[self.zone_id.as_deref()?, self.hostname_id.as_deref()?]),
            StepKind::SetTotalTls | StepKind::SetUniversalSsl => operation.call(&[self.zone_id.as_deref()?]),
            StepKind::Manual | StepKind::Terraform => return None,
        };
        Some(Call {
            body: self.body.clone(),
            ..call
        })
    }

    /// `METHOD path`, as logs and errors name the step's request.
    pub fn request(&self) -> String {
        format!("{} {}", self.method.as_deref().unwrap_or(""), self.path.as_deref().unwrap_or(""))
    }

    /// Fills `method` and `path` from the request the step is (written as
    /// `account`), or marks it a person's step.
    pub fn show_request(&mut self, account: &str) {
        match self.call_for(account) {
            Some(call) => {
                self.method = Some(call.operation.method.to_string());
                self.path = Some(call.target());
            }
            None => self.manual = Some(true),
        }
    }
}
