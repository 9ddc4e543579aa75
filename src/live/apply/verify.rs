//! After the last step: the account read again. Copies of a created policy
//! are reduced to one; every pool the plan clears carries no legacy e-mail,
//! and every (event, recipient) it e-mailed is delivered by a live policy. A
//! pool whose alert is lost (a policy disabled in the instant before its
//! clear, say) has its legacy e-mail written back, and the run says so.

use std::collections::HashMap;

use serde_json::Value;

use super::clear::undelivered;
use super::plan_file::Kind;
use super::{AccountRun, Stop, Summary};
use crate::facts::pool::describe;
use crate::live::client::LiveError;
use crate::plan::state::PoolState;

impl AccountRun<'_> {
    pub(super) fn verify(&mut self, summary: &mut Summary) -> Result<(), Stop> {
        let failed = |e: LiveError| Stop::Verify {
            problems: vec![format!("reading {e}")],
        };
        self.read_policies().map_err(failed)?;
        for step in self.account.each_step().filter(|s| s.kind == Kind::CreatePolicy) {
            if let Err(Stop::Step { why, .. }) = self.reduce_copies(&step, summary) {
                let _ = writeln!(self.log, "apply: {why}");
            }
        }
        let pools = self.read_pools().map_err(failed)?;
        let live = self.live_policies();
        let now: HashMap<String, (PoolState, &Value)> = pools
            .iter()
            .map(|p| (PoolState::from_api(p), p))
            .map(|(state, p)| (state.id.clone(), (state, p)))
            .collect();
        let mut problems = Vec::new();
        let mut checked = (0, 0);
        let account = self.account;
        let cleared = self.cleared.clone();
        for planned in account.state.pools.iter().filter(|p| cleared.contains(p.id.as_str())) {
            let who = describe(&planned.name, &planned.id);
            let Some((pool, _)) = now.get(&planned.id) else {
                summary.gone.push(format!("pool {who} was deleted since the export"));
                continue;
            };
            if pool.is_legacy() {
                problems.push(format!("pool {who} still carries a legacy e-mail"));
            } else if let Some((event, recipient)) = undelivered(&live, planned) {
                // Lost: its legacy e-mail as this run read it before the
                // clear is written back; a pool this run did not clear (an
                // earlier run did) is left to a person, never written from
                // the plan file's state.
                let done = match self.cleared_here.get(&planned.id).cloned() {
                    Some(email) => {
                        let shown = email.as_str().unwrap_or("").to_string();
                        match self.restore(&planned.id, email) {
                            Ok(()) => format!("its legacy e-mail to {shown} was written back"),
                            Err(why) => format!("writing its legacy e-mail back failed ({why}): set it again by hand"),
                        }
                    }
                    None => "it was cleared before this run: set its legacy e-mail again by hand if its alerts are to go on".to_string(),
                };
                problems.push(format!(
                    "no live policy e-mails {recipient} about {} on pool {who}: {done}",
                    event.as_str()
                ));
            }
            checked.0 += 1;
            checked.1 += planned.recipients.len() * planned.event_set().iter().count();
        }
        if !problems.is_empty() {
            return Err(Stop::Verify { problems });
        }
        let _ = writeln!(
            self.log,
            "apply: verified on the live account: {} cleared, {} delivered by policies",
            crate::words::plural(checked.0, "pool", "pools"),
            crate::words::plural(checked.1, "legacy delivery", "legacy deliveries")
        );
        Ok(())
    }
}
