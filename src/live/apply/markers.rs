//! The markers of the policies a plan creates (`[edgeaudit plan ID step N]`
//! in `description`): looked up in a fresh read before every create, and
//! after each create and at the end, copies of one marker (two runs of one
//! plan at once, or a create whose answer was lost while the list lagged) are
//! reduced to one. Only a copy that delivers what the step's body delivers is
//! deleted; every run keeps the same copy (the oldest, then the smallest id),
//! so two runs never delete both.

use serde_json::Value;

use super::plan_file::{PlanAccount, Step};
use super::{AccountRun, Ready, Stop, Summary, read_failed, stop};
use crate::api::{Call, Op, Operation};
use crate::live::client::Change;
use crate::plan::state::Delivers;

const PREFIX: &str = "[edgeaudit plan ";

/// How long a created policy may take to appear in the policy list (a list
/// that lags the create): after a create whose answer was lost, its marker is
/// looked for over this long, reads spaced 1, 2, 4… seconds apart, before the
/// create may be sent again; and copies are reduced after every create and at
/// the end.
pub const LIST_LAG: std::time::Duration = std::time::Duration::from_secs(30);

fn description(policy: &Value) -> &str {
    policy.get("description").and_then(Value::as_str).unwrap_or("")
}

fn id_of(policy: &Value) -> &str {
    policy.get("id").and_then(Value::as_str).unwrap_or("")
}

/// The plan ids of the markers a description carries.
fn plan_ids(description: &str) -> impl Iterator<Item = &str> {
    description
        .match_indices(PREFIX)
        .filter_map(|(at, _)| description[at + PREFIX.len()..].split(' ').next())
}

/// The policies created by another plan since the export (a marker of
/// another plan, on a policy the export did not hold): another apply is
/// running or ran meanwhile, and this plan does not count on its policies.
pub fn other_plans(account: &PlanAccount, plan_id: &str, live: &[Value]) -> Vec<String> {
    live.iter()
        .filter(|p| !account.state.exported_policy(id_of(p)))
        .filter_map(|p| {
            let other = plan_ids(description(p)).find(|id| *id != plan_id)?;
            Some(format!(
                "policy `{}` ({}) was created by another plan ({other}) since the export: another `edgeaudit apply` is running or ran meanwhile; finish that plan, or export and plan again (the new plan counts on its policies)",
                p.get("name").and_then(Value::as_str).unwrap_or(""),
                id_of(p)
            ))
        })
        .collect()
}

impl AccountRun<'_> {
    /// The policies carrying `marker`, the one every run keeps first.
    fn carrying(&self, marker: &str) -> Vec<&Value> {
        let mut carrying: Vec<&Value> = self.policies.iter().filter(|p| description(p).contains(marker)).collect();
        carrying.sort_by(|a, b| {
            let created = |p: &Value| p.get("created").and_then(Value::as_str).unwrap_or("").to_string();
            (created(a), id_of(a)).cmp(&(created(b), id_of(b)))
        });
        carrying
    }

    pub(super) fn check_create(&mut self, step: &Step) -> Result<Ready, Stop> {
        let marker = step.marker.clone().unwrap_or_default();
        // A fresh read: another run of this plan may have created it meanwhile.
        self.read_policies().map_err(|e| read_failed(step, e))?;
        if !self.carrying(&marker).is_empty() || self.simulated.iter().any(|p| description(p).contains(&marker)) {
            return Ok(Ready::Done(format!("a policy carries its marker {marker}")));
        }
        self.pools_as_planned(step)?;
        Ok(Ready::Send(
            Box::new(self.call_of(step, step.body.clone().unwrap_or(Value::Null))),
            None,
        ))
    }

    /// After a create whose answer was lost: its marker looked for in the
    /// policy list, with backoff, for up to [`LIST_LAG`]; the check that
    /// follows finds it there (done) or sends the create again.
    pub(super) fn await_marker(&mut self, step: &Step) -> Result<(), Stop> {
        let marker = step.marker.clone().unwrap_or_default();
        let mut waited = std::time::Duration::ZERO;
        let mut wait = std::time::Duration::from_secs(1);
        loop {
            self.read_policies().map_err(|e| read_failed(step, e))?;
            if !self.carrying(&marker).is_empty() || waited >= LIST_LAG {
                return Ok(());
            }
            let pause = wait.min(LIST_LAG - waited);
            self.client.clock().sleep(pause);
            waited += pause;
            wait *= 2;
        }
    }

    /// After a create: the new policy is known by its id, and copies of its
    /// marker are reduced to one.
    pub(super) fn after_create(&mut self, step: &Step, call: &Call, result: Value, summary: &mut Summary) -> Result<(), Stop> {
        let marker = step.marker.clone().unwrap_or_default();
        if let Some(id) = result.get("id").and_then(Value::as_str) {
            self.created
                .insert(marker.clone(), (id.to_string(), call.body.clone().unwrap_or(Value::Null)));
        }
        self.read_policies().map_err(|e| read_failed(step, e))?;
        self.reduce_copies(step, summary)
    }

    /// Deletes the copies of a step's marker but the one every run keeps.
    pub(super) fn reduce_copies(&mut self, step: &Step, summary: &mut Summary) -> Result<(), Stop> {
        let marker = step.marker.clone().unwrap_or_default();
        let delivers = Delivers::from_api(step.body.as_ref().unwrap_or(&Value::Null));
        // Only policies the service listed: every run must choose among the same records.
        let carrying: Vec<&Value> = self
            .carrying(&marker)
            .into_iter()
            .filter(|p| !self.unseen.contains(id_of(p)))
            .collect();
        let Some((kept, copies)) = carrying.split_first() else {
            return Ok(());
        };
        // Only a copy that delivers as the step's body does: a copy someone
        // edited is theirs now, and left alone.
        let kept_id = id_of(kept).to_string();
        let copies: Vec<String> = copies
            .iter()
            .filter(|p| Delivers::from_api(p) == delivers)
            .map(|p| id_of(p).to_string())
            .collect();
        for id in copies {
            let call = Operation::of(Op::DeletePolicy).call(&[self.account_id(), &id]);
            match self.client.change(&call) {
                Change::Done(_) | Change::Gone(_) => {
                    summary.copies_removed += 1;
                    self.say(step, &format!("a second policy carried its marker: {id} removed, {kept_id} kept"));
                    self.created.retain(|_, (created, _)| *created != id);
                    self.policies.retain(|p| id_of(p) != id);
                }
                // It delivers what the kept one does: leaving it loses nothing; the end looks again.
                Change::Later(_) | Change::Unknown(_) => {}
                Change::Refused(why) => {
                    return Err(stop(step, format!("removing {id}, a second policy with its marker: {why}")));
                }
            }
        }
        Ok(())
    }
}
