//! Clearing legacy e-mails without losing an alert, with other people in the
//! account. The published pools list is not paged and nothing publishes the
//! order of its answer, so a page-wide clear (`PATCH …/pools?per_page&page`,
//! pools by ascending name as the operation's description says) is judged on
//! a fresh read of every pool: the page is worked out here, and every pool
//! with a legacy e-mail it could reach — its own and the neighbouring pages'
//! (a pool added, deleted or renamed in the instant before the clear shifts
//! the page) — must be the plan's and delivered by the live policies. The
//! answer names the pools it changed: one that was not judged safe has its
//! legacy e-mail written back at once, and the run stops naming it.

use std::collections::{HashMap, HashSet};

use serde_json::{Value, json};

use super::plan_file::{Kind, Step};
use super::{AccountRun, Ready, Stop, Summary, read_failed, stop};
use crate::api::{Op, Operation};
use crate::facts::pool::describe;
use crate::live::client::Change;
use crate::model::delivery::Reach;
use crate::model::notification::Event;
use crate::plan::state::PoolState;

/// What a clear's check judged: every pool it read (by id), the records of
/// those with a legacy e-mail, and those it found safe to clear.
pub struct Judged {
    pub seen: HashSet<String>,
    /// The pools the clear is for (its page, or its one pool).
    pub own: HashSet<String>,
    pub before: HashMap<String, Value>,
    pub safe: HashSet<String>,
}

/// The pools in the order the page-wide clear pages them: by name, then id.
/// `None` when two pools of one name meet at the page's edges (the service's
/// order between them is not published).
fn page_of(pools: &[Value], per_page: usize, page: usize) -> (Vec<&Value>, Option<std::ops::Range<usize>>) {
    let mut sorted: Vec<&Value> = pools.iter().collect();
    let key = |p: &Value| {
        (
            p.get("name").and_then(Value::as_str).unwrap_or("").to_string(),
            p.get("id").and_then(Value::as_str).unwrap_or("").to_string(),
        )
    };
    sorted.sort_by_key(|p| key(p));
    let start = page.saturating_sub(1).saturating_mul(per_page).min(sorted.len());
    let end = start.saturating_add(per_page).min(sorted.len());
    let name = |i: usize| key(sorted[i]).0;
    let tie = (start > 0 && start < sorted.len() && name(start - 1) == name(start))
        || (end > 0 && end < sorted.len() && name(end - 1) == name(end));
    let range = (!tie).then_some(start..end);
    (sorted, range)
}

fn id_of(pool: &Value) -> &str {
    pool.get("id").and_then(Value::as_str).unwrap_or("")
}

/// The first (event, recipient) of a pool's legacy e-mail that no policy delivers.
pub fn undelivered(policies: &[Reach], pool: &PoolState) -> Option<(Event, String)> {
    let id = pool.id.to_ascii_lowercase();
    // Only the policies that can deliver for this pool are asked about each
    // delivery: a large account holds thousands, each naming a few pools.
    let for_pool: Vec<&Reach> = policies.iter().filter(|p| p.can_deliver && p.names_pool(&id)).collect();
    for event in pool.event_set().iter() {
        for r in &pool.recipients {
            if !for_pool.iter().any(|p| p.delivers(&id, event, r)) {
                return Some((event, r.clone()));
            }
        }
    }
    None
}

impl AccountRun<'_> {
    /// The live policies as they deliver, with what a dry run would have made.
    pub(super) fn live_policies(&self) -> Vec<Reach> {
        self.policies
            .iter()
            .chain(&self.simulated)
            .map(|p| Reach::of_body(p.get("id").and_then(Value::as_str).unwrap_or(""), p))
            .collect()
    }

    pub(super) fn check_clear(&mut self, step: &Step) -> Result<Ready, Stop> {
        // The policies first, the pools last: the change follows the pools' read at once.
        self.read_policies().map_err(|e| read_failed(step, e))?;
        let pools = match step.kind {
            Kind::ClearPage => self.read_pools().map_err(|e| read_failed(step, e))?,
            _ => {
                let pool = step.pools.first().map(String::as_str).unwrap_or("");
                let call = Operation::of(Op::GetPool).call(&[self.account_id(), pool]);
                match self.client.read(&call) {
                    Ok(mut envelope) => vec![envelope.get_mut("result").map(Value::take).unwrap_or(Value::Null)],
                    Err(e) if e.is_gone() => return Ok(Ready::Gone(format!("pool {pool} was deleted since the export"))),
                    Err(e) => return Err(read_failed(step, e)),
                }
            }
        };
        let (reach, own): (Vec<&Value>, Vec<&Value>) = match step.kind {
            Kind::ClearPage => {
                let (per_page, page) = page_numbers(step);
                let (sorted, range) = page_of(&pools, per_page, page);
                let Some(range) = range else { return Ok(Ready::Shifted) };
                let mut now: Vec<&str> = sorted[range.clone()].iter().map(|p| id_of(p)).collect();
                let mut seen: Vec<&str> = step.page_pools.iter().map(String::as_str).collect();
                now.sort_unstable();
                seen.sort_unstable();
                if now != seen {
                    return Ok(Ready::Shifted);
                }
                // The neighbouring pages too: a pool added or renamed in the instant before the clear shifts it.
                let reach = range.start.saturating_sub(per_page)..range.end.saturating_add(per_page).min(sorted.len());
                (sorted[reach].to_vec(), sorted[range].to_vec())
            }
            _ => (pools.iter().collect(), pools.iter().collect()),
        };
        let state = |p: &Value| PoolState::from_api(p);
        if own.iter().all(|p| !state(p).is_legacy()) {
            return Ok(Ready::Done("no pool it clears carries a legacy e-mail".into()));
        }
        let live = self.live_policies();
        let mut judged = Judged {
            seen: pools.iter().map(|p| id_of(p).to_string()).collect(),
            own: own.iter().map(|p| id_of(p).to_string()).collect(),
            before: pools
                .iter()
                .filter(|p| state(p).is_legacy())
                .map(|p| (id_of(p).to_string(), p.clone()))
                .collect(),
            safe: HashSet::new(),
        };
        for record in &reach {
            let pool = state(record);
            if !pool.is_legacy() {
                continue;
            }
            let on_page = own.iter().any(|p| id_of(p) == pool.id);
            let planned = self.planned.get(pool.id.as_str());
            let as_planned = self.cleared.contains(pool.id.as_str())
                && planned.is_some_and(|p| p.recipients == pool.recipients && p.events == pool.events);
            if !as_planned {
                if !on_page {
                    // The page itself is as the plan saw it; a neighbour that is not the plan's to clear forbids only the page-wide clear.
                    return Ok(Ready::Shifted);
                }
                return Err(stop(
                    step,
                    format!(
                        "pool {} now e-mails {} about {}, which the plan did not see; export and plan again",
                        describe(&pool.name, &pool.id),
                        pool.recipients.join(", "),
                        pool.events.join(", ")
                    ),
                ));
            }
            if let Some((event, recipient)) = undelivered(&live, &pool) {
                if !on_page {
                    return Ok(Ready::Shifted);
                }
                return Err(stop(
                    step,
                    format!(
                        "clearing it would lose an alert: pool {} would no longer e-mail {recipient} about {} (no live policy delivers it: a policy was disabled, deleted or edited, or a step it depends on did not run)",
                        describe(&pool.name, &pool.id),
                        event.as_str()
                    ),
                ));
            }
            judged.safe.insert(pool.id.clone());
        }
        Ok(Ready::Send(
            Box::new(self.call_of(step, json!({"notification_email": ""}))),
            Some(Box::new(judged)),
        ))
    }

    /// A page-wide clear whose page moved: its pools one by one, each checked.
    pub(super) fn pool_by_pool(&mut self, step: &Step, summary: &mut Summary) -> Result<(), Stop> {
        self.say(
            step,
            &format!(
                "the page holds other pools than the plan saw, or reaches pools that are not the plan's to clear (pools added, deleted or renamed, or a pool kept as it is beside it): its {} cleared one by one instead, each checked",
                crate::words::plural(step.pools.len(), "pool is", "pools are")
            ),
        );
        let account = self.account_id().to_string();
        for pool in &step.pools {
            let mut one = Step {
                kind: Kind::ClearPool,
                pools: vec![pool.clone()],
                page_pools: Vec::new(),
                per_page: None,
                page: None,
                ..step.clone()
            };
            one.show_request(&account);
            self.step(&one, summary, None)?;
        }
        Ok(())
    }

    /// After a page-wide clear: the pools of its page that still carried a
    /// legacy e-mail and that its answer does not name as changed (a service
    /// that caps the page below the plan's size clears fewer) are cleared one
    /// by one, each checked: the run converges instead of stopping the same
    /// way on every re-run.
    pub(super) fn finish_page(&mut self, step: &Step, judged: &Judged, result: &Value, summary: &mut Summary) -> Result<(), Stop> {
        let Value::Array(changed) = result else {
            return Ok(());
        };
        if step.kind != Kind::ClearPage {
            return Ok(());
        }
        let changed: HashSet<&str> = changed.iter().map(id_of).collect();
        let mut left: Vec<String> = judged
            .own
            .iter()
            .filter(|id| judged.before.contains_key(*id) && !changed.contains(id.as_str()))
            .cloned()
            .collect();
        if left.is_empty() {
            return Ok(());
        }
        left.sort();
        self.say(
            step,
            &format!(
                "the service changed {} of the page's pools, and {} of it with a legacy e-mail not (it pages the clear by fewer than the plan's {}): cleared one by one, each checked",
                changed.len(),
                crate::words::plural(left.len(), "pool", "pools"),
                step.per_page.unwrap_or(0)
            ),
        );
        let account = self.account_id().to_string();
        for pool in left {
            let mut one = Step {
                kind: Kind::ClearPool,
                pools: vec![pool],
                page_pools: Vec::new(),
                per_page: None,
                page: None,
                ..step.clone()
            };
            one.show_request(&account);
            self.step(&one, summary, None)?;
        }
        Ok(())
    }

    /// After a clear: the pools its answer names as changed were judged safe.
    pub(super) fn after_clear(&mut self, step: &Step, judged: &Judged, result: &Value) -> Result<(), Stop> {
        let changed: Option<Vec<String>> = match result {
            Value::Array(pools) => Some(pools.iter().map(|p| id_of(p).to_string()).collect()),
            Value::Object(_) => Some(vec![id_of(result).to_string()]),
            _ => None,
        };
        match changed {
            Some(ids) => {
                self.undo_unsafe(step, judged, &ids)?;
                // Only what it changed is this run's to write back: a pool a
                // capped page left is cleared (and remembered) on its own.
                self.remember_before(judged, &ids);
            }
            // No list of what it changed: the pools are read to tell.
            None => self.settle_lost_clear(step, judged)?,
        }
        self.still_delivered(step, judged)
    }

    /// What a later restore may write back: the legacy e-mails of the pools
    /// of `cleared` a clear was judged safe for and is the step's own, as
    /// read live right before it. Kept for the check after the last step,
    /// which writes back only what this run cleared (a clear whose answer
    /// was lost included).
    fn remember_before(&mut self, judged: &Judged, cleared: &[String]) {
        for id in cleared.iter().filter(|id| judged.safe.contains(*id) && judged.own.contains(*id)) {
            if let Some(email) = judged.before.get(id).and_then(|r| r.get("notification_email")) {
                self.cleared_here.insert(id.clone(), email.clone());
            }
        }
    }

    /// After a clear: the policies read again still deliver every alert of
    /// the pools it cleared (a policy disabled or edited in the instant
    /// before the clear would lose one); a pool whose alert is lost has its
    /// legacy e-mail written back at once, and the run stops naming it.
    fn still_delivered(&mut self, step: &Step, judged: &Judged) -> Result<(), Stop> {
        self.read_policies().map_err(|e| read_failed(step, e))?;
        let live = self.live_policies();
        let mut lost = Vec::new();
        for id in judged.safe.intersection(&judged.own) {
            let Some(record) = judged.before.get(id) else { continue };
            let pool = PoolState::from_api(record);
            if let Some((event, recipient)) = undelivered(&live, &pool) {
                let email = record.get("notification_email").cloned().unwrap_or(Value::Null);
                let done = match self.restore(id, email) {
                    Ok(()) => "its legacy e-mail was written back".to_string(),
                    Err(why) => format!("writing its legacy e-mail back failed ({why}): set it again by hand"),
                };
                lost.push(format!(
                    "pool {} would no longer e-mail {recipient} about {}: {done}",
                    describe(&pool.name, &pool.id),
                    event.as_str()
                ));
            }
        }
        if lost.is_empty() {
            return Ok(());
        }
        lost.sort();
        Err(stop(
            step,
            format!(
                "after the clear, the live policies no longer deliver what it took away (a policy was disabled, deleted or edited in the instant before it): {}",
                lost.join("; ")
            ),
        ))
    }

    /// After a clear whose answer was lost: the pools read again tell what
    /// it changed.
    pub(super) fn settle_lost_clear(&mut self, step: &Step, judged: &Judged) -> Result<(), Stop> {
        // Read, not guessed: a pool it was judged safe for that it did not
        // clear (someone else may, later) is not this run's to write back.
        let pools = self.read_pools().map_err(|e| read_failed(step, e))?;
        let cleared: Vec<String> = pools
            .iter()
            .filter(|p| judged.before.contains_key(id_of(p)) && !PoolState::from_api(p).is_legacy())
            .map(|p| id_of(p).to_string())
            .collect();
        self.remember_before(judged, &cleared);
        self.undo_unsafe(step, judged, &cleared)
    }

    /// Writes back the legacy e-mail of each changed pool that was not
    /// judged safe, and stops naming them; a pool the check never saw (added
    /// in the instant before the clear) cannot be written back, and is named.
    fn undo_unsafe(&mut self, step: &Step, judged: &Judged, changed: &[String]) -> Result<(), Stop> {
        let mut restored = Vec::new();
        let mut unknown = Vec::new();
        for id in changed.iter().filter(|id| !judged.safe.contains(*id)) {
            match judged.before.get(id) {
                Some(record) => {
                    let email = record.get("notification_email").cloned().unwrap_or(Value::Null);
                    let pool = PoolState::from_api(record);
                    match self.restore(id, email) {
                        Ok(()) => restored.push(describe(&pool.name, &pool.id)),
                        Err(why) => unknown.push(format!("{} ({why}; it e-mailed {})", describe(&pool.name, &pool.id), pool.recipients.join(", "))),
                    }
                }
                // A pool without a legacy e-mail in the check's read: nothing to lose, unless it is new.
                None if judged.seen.contains(id) => {}
                None => unknown.push(format!(
                    "{id} (not in the pools read right before the clear: added in that instant; whether it had a legacy e-mail cannot be known here)"
                )),
            }
        }
        if restored.is_empty() && unknown.is_empty() {
            return Ok(());
        }
        let mut why = Vec::new();
        if !restored.is_empty() {
            why.push(format!(
                "the clear reached pools it was not judged safe for (changed in the instant before it); their legacy e-mail was written back at once: {}",
                restored.join(", ")
            ));
        }
        if !unknown.is_empty() {
            why.push(format!(
                "the clear reached pools whose legacy e-mail could not be written back — set it again by hand: {}",
                unknown.join(", ")
            ));
        }
        Err(stop(step, why.join("; ")))
    }

    /// Writes a pool's legacy e-mail back (`PATCH …/pools/{id}`), checked in its answer.
    pub(super) fn restore(&mut self, pool: &str, email: Value) -> Result<(), String> {
        let call = Operation::of(Op::PatchPool)
            .call(&[self.account_id(), pool])
            .body(json!({"notification_email": email}));
        for attempt in 0..=self.client.retries() {
            match self.client.change(&call) {
                Change::Done(result) if result.get("notification_email") == Some(&email) || !result.is_object() => {
                    let _ = writeln!(self.log, "apply: pool {pool}: legacy e-mail written back");
                    return Ok(());
                }
                Change::Done(_) => return Err("the service answered without the e-mail written back".into()),
                Change::Refused(why) | Change::Gone(why) => return Err(why),
                Change::Later(wait) => self.client.pause_before_retry(attempt, Some(wait)),
                Change::Unknown(_) => self.client.pause_before_retry(attempt, None),
            }
        }
        Err("no answer".into())
    }
}

/// A page-wide clear's page size and page.
fn page_numbers(step: &Step) -> (usize, usize) {
    (step.per_page.unwrap_or(1).max(1), step.page.unwrap_or(1).max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_worked_out_by_name_and_a_tie_at_its_edge_leaves_it_unknown() {
        let pools: Vec<Value> = ["d", "a", "c", "b", "e"]
            .iter()
            .enumerate()
            .map(|(i, n)| json!({"id": format!("p{i}"), "name": n}))
            .collect();
        let (sorted, range) = page_of(&pools, 2, 2);
        let names: Vec<&str> = sorted[range.expect("no tie")].iter().map(|p| p["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["c", "d"]);
        let tied: Vec<Value> = ["a", "b", "b", "c"]
            .iter()
            .enumerate()
            .map(|(i, n)| json!({"id": format!("p{i}"), "name": n}))
            .collect();
        assert!(page_of(&tied, 2, 1).1.is_none(), "b and b meet at the edge");
        assert!(page_of(&tied, 3, 1).1.is_some());
    }
}
