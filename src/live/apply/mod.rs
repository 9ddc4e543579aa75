//! `edgeaudit apply PLAN.json` (docs/src/commands/apply.md): runs a plan on the live
//! account, reading before every change what that change relies on.
//!
//! - Before the first change, the live pools and policies are compared with
//!   the state the plan recorded ([`drift`]); any difference the plan's own
//!   steps do not explain stops the run with nothing sent.
//! - Each step is then checked against the account as it is at that moment:
//!   a clear is sent only when every pool with a legacy e-mail it clears is
//!   delivered by the live policies; a PUT only when the policy is still as
//!   exported; a certificate change only while the resource is as planned.
//! - A step found done (a cleared pool, a policy as the PUT leaves it, a
//!   created policy found by its marker) is skipped, so running the same
//!   command again after any stop finishes the work.
//! - After a lost answer the account is read before anything is sent again:
//!   a POST is never repeated once its marker is there.
//! - After the last step the account is read again and verified.

pub mod drift;
pub mod plan_file;

use std::collections::HashMap;
use std::io::Write;

use serde_json::{Value, json};

use super::client::{Change, Client, LiveError};
use crate::facts::pool::describe;
use crate::model::notification::Event;
use crate::plan::service::ServicePolicy;
use crate::plan::state::{PoolState, writable};
use drift::matches_body;
use plan_file::{Kind, PlanAccount, PlanFile, Step};

/// Why a run stopped before the end: nothing after the named step was sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// The live account differs from what the plan relies on; nothing was sent.
    Drift { account: String, differences: Vec<String> },
    /// A step could not be run safely or was refused.
    Step { step: usize, request: String, why: String },
    /// The account read after the last step is not what the plan leaves.
    Verify { problems: Vec<String> },
    /// The person did not confirm.
    NotConfirmed,
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::Drift { account, differences } => {
                writeln!(
                    f,
                    "the live account {account} differs from the state the plan relies on; nothing was sent:"
                )?;
                for d in differences {
                    writeln!(f, "  - {d}")?;
                }
                write!(
                    f,
                    "Export the account again and make a new plan (`edgeaudit export`, then `edgeaudit plan`)."
                )
            }
            Stop::Step { step, request, why } => write!(
                f,
                "stopped at step {step} ({request}): {why}. Nothing after it was sent; run the same command again to finish (steps already done are recognised and skipped)"
            ),
            Stop::Verify { problems } => {
                writeln!(f, "every step ran, but the account read afterwards is not what the plan leaves:")?;
                for p in problems {
                    writeln!(f, "  - {p}")?;
                }
                write!(f, "Run the same command again, or export and plan again.")
            }
            Stop::NotConfirmed => write!(f, "not confirmed: nothing was sent"),
        }
    }
}

/// What a run did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Changes sent and acknowledged.
    pub sent: usize,
    /// Steps found already done.
    pub skipped: usize,
    /// Changes that would be sent (`--dry-run`).
    pub would_send: usize,
    /// Manual steps, listed for a person.
    pub manual: Vec<String>,
}

pub struct Options {
    pub dry_run: bool,
}

/// What the plan would send, for the person asked to confirm it.
#[derive(Debug, Clone)]
pub struct Preview {
    pub accounts: Vec<String>,
    /// Requests in the plan (some may turn out to be done already).
    pub changes: usize,
}

/// Runs `plan` on the live account. `confirm` is asked once, after the
/// account is found as the plan expects and before the first change.
pub fn run(
    client: &mut Client,
    plan: &PlanFile,
    options: &Options,
    log: &mut dyn Write,
    confirm: &mut dyn FnMut(&Preview) -> bool,
) -> Result<Summary, Stop> {
    // Every account is read and compared before anything is sent to any.
    for account in &plan.accounts {
        AccountRun::new(client, account, options, log).preflight()?;
    }
    let preview = Preview {
        accounts: plan.accounts.iter().filter_map(|a| a.account_id.clone()).collect(),
        changes: plan.accounts.iter().flat_map(|a| &a.steps).filter(|s| s.method.is_some()).count(),
    };
    if !options.dry_run && preview.changes > 0 && !confirm(&preview) {
        return Err(Stop::NotConfirmed);
    }
    let mut summary = Summary::default();
    for account in &plan.accounts {
        let mut run = AccountRun::new(client, account, options, log);
        // Read after the confirmation, which may have waited: the markers
        // looked up before each POST are as fresh as this.
        run.read_policies().map_err(before_the_steps)?;
        for step in &account.steps {
            run.step(step, &mut summary)?;
        }
        if !options.dry_run {
            run.verify()?;
        }
    }
    Ok(summary)
}

struct AccountRun<'a> {
    client: &'a mut Client,
    account: &'a PlanAccount,
    options: &'a Options,
    log: &'a mut dyn Write,
    /// The live policies as last read (with those this run created since).
    policies: Vec<Value>,
    /// Policies a dry run would have created or updated.
    simulated: Vec<Value>,
    /// The plan's pools by id.
    planned: HashMap<&'a str, &'a PoolState>,
}

fn stop(step: &Step, why: impl Into<String>) -> Stop {
    Stop::Step {
        step: step.step,
        request: step.request(),
        why: why.into(),
    }
}

fn read_failed(step: &Step, e: LiveError) -> Stop {
    stop(step, format!("reading {e}"))
}

/// A read before the first step that failed: no step is named, the request is.
fn before_the_steps(e: LiveError) -> Stop {
    Stop::Step {
        step: 0,
        why: format!("reading {e}"),
        request: e.request,
    }
}

impl<'a> AccountRun<'a> {
    fn account_path(&self) -> String {
        format!(
            "/accounts/{}",
            crate::plan::request::segment(self.account.account_id.as_deref().unwrap_or(""))
        )
    }

    fn new(client: &'a mut Client, account: &'a PlanAccount, options: &'a Options, log: &'a mut dyn Write) -> AccountRun<'a> {
        AccountRun {
            client,
            account,
            options,
            log,
            policies: Vec::new(),
            simulated: Vec::new(),
            planned: account.state.pools.iter().map(|p| (p.id.as_str(), p)).collect(),
        }
    }

    /// Reads the account and compares it with the plan's state.
    fn preflight(&mut self) -> Result<(), Stop> {
        let pools = self.read_pools().map_err(before_the_steps)?;
        self.read_policies().map_err(before_the_steps)?;
        let differences = drift::differences(self.account, &pools, &self.policies);
        if !differences.is_empty() {
            return Err(Stop::Drift {
                account: self.account.account_id.clone().unwrap_or_default(),
                differences,
            });
        }
        let _ = writeln!(
            self.log,
            "apply: account {}: {} pools and {} policies read; as the plan expects",
            self.account.account_id.as_deref().unwrap_or(""),
            pools.len(),
            self.policies.len()
        );
        Ok(())
    }

    fn read_pools(&mut self) -> Result<Vec<Value>, LiveError> {
        let path = format!("{}/load_balancers/pools", self.account_path());
        self.client.records(&path, super::export::per_page::POOLS)
    }

    fn read_policies(&mut self) -> Result<(), LiveError> {
        let path = format!("{}/alerting/v3/policies", self.account_path());
        self.policies = self.client.records(&path, super::export::per_page::POLICIES)?;
        Ok(())
    }

    /// Whether a policy this run knows of carries `marker` in its description.
    fn has_marker(&self, marker: &str) -> bool {
        self.policies
            .iter()
            .filter_map(|p| p.get("description").and_then(Value::as_str))
            .any(|d| d.contains(marker))
    }

    fn say(&mut self, step: &Step, what: &str) {
        let _ = writeln!(self.log, "step {}: {}: {what}", step.step, step.request());
    }

    fn step(&mut self, step: &Step, summary: &mut Summary) -> Result<(), Stop> {
        if matches!(step.kind, Kind::Manual | Kind::Terraform) {
            summary.manual.push(format!("step {}: {}", step.step, step.reason));
            return Ok(());
        }
        match self.check(step)? {
            Ready::Done(why) => {
                summary.skipped += 1;
                self.say(step, &format!("already done ({why})"));
            }
            Ready::Send if self.options.dry_run => {
                self.simulate(step);
                summary.would_send += 1;
                self.say(step, "checked; would be sent (dry run)");
            }
            Ready::Send => {
                let result = self.send(step)?;
                self.record(step, result);
                summary.sent += 1;
            }
            Ready::Shifted => {
                self.say(
                    step,
                    &format!(
                        "the page holds other pools than the plan saw (pools added, deleted or renamed, or ordered otherwise by the service): its {} cleared one by one instead, each checked",
                        crate::words::plural(step.pools.len(), "pool is", "pools are")
                    ),
                );
                for pool in &step.pools {
                    self.step(&self.pool_clear(step, pool), summary)?;
                }
            }
        }
        Ok(())
    }

    /// The per-pool clear of one pool of a page-wide clear's step.
    fn pool_clear(&self, page: &Step, pool: &str) -> Step {
        Step {
            kind: Kind::ClearPool,
            path: Some(format!(
                "{}/load_balancers/pools/{}",
                self.account_path(),
                crate::plan::request::segment(pool)
            )),
            pools: vec![pool.to_string()],
            page_pools: Vec::new(),
            ..page.clone()
        }
    }

    /// Reads what the step relies on, as it is now: whether it is done
    /// already, may be sent, or must not be (the stop says why). Run before
    /// the first send and again before every resend.
    fn check(&mut self, step: &Step) -> Result<Ready, Stop> {
        match step.kind {
            Kind::CreatePolicy => Ok(self.check_create(step)),
            Kind::UpdatePolicy => self.check_update(step),
            Kind::ClearPage | Kind::ClearPool => self.check_clear(step),
            Kind::EditCustomHostname | Kind::SetTotalTls | Kind::SetUniversalSsl => self.check_certificate(step),
            Kind::Manual | Kind::Terraform => Ok(Ready::Done("a step for a person".into())),
        }
    }

    /// Sends the step's change. After an answer that did not come, waits,
    /// then runs the step's whole check again: done means it happened; a
    /// check that fails now stops; only a step still safe is sent again.
    fn send(&mut self, step: &Step) -> Result<Value, Stop> {
        let (Some(method), Some(path), Some(body)) = (step.method.clone(), step.path.clone(), step.body.clone()) else {
            return Err(stop(step, "the step has no request"));
        };
        let mut attempt = 0;
        loop {
            let why = match self.client.change(&method, &path, &body) {
                Change::Done(result) => {
                    self.say(step, "done");
                    return Ok(result);
                }
                Change::Refused(why) => return Err(stop(step, format!("the service refused it: {why}"))),
                Change::Unknown(why) => why,
            };
            if attempt >= self.client.retries() {
                return Err(stop(step, format!("{why}; gave up after {} attempts", attempt + 1)));
            }
            self.client.pause_before_retry(attempt);
            attempt += 1;
            // A POST is looked for by its marker in a fresh read of the policies.
            if step.kind == Kind::CreatePolicy
                && let Err(e) = self.read_policies()
            {
                return Err(stop(step, format!("{why}; then reading {e}")));
            }
            match self.check(step) {
                Ok(Ready::Done(_)) => {
                    self.say(step, &format!("done (the answer was lost: {why}; the account shows it happened)"));
                    return Ok(Value::Null);
                }
                Ok(Ready::Send) => self.say(step, &format!("{why}; it did not happen and is still safe, sending it again")),
                // Its pools moved: a run again clears them one by one.
                Ok(Ready::Shifted) => {
                    return Err(stop(
                        step,
                        format!("{why}; then the page held other pools than the plan saw: run again to clear its pools one by one"),
                    ));
                }
                Err(Stop::Step { why: now, .. }) => return Err(stop(step, format!("{why}; then, before sending it again: {now}"))),
                Err(other) => return Err(other),
            }
        }
    }

    /// What a sent step leaves in the policies this run holds.
    fn record(&mut self, step: &Step, result: Value) {
        let body = step.body.clone().unwrap_or(Value::Null);
        match step.kind {
            Kind::CreatePolicy => {
                let marker = step.marker.clone().unwrap_or_default();
                if !self.has_marker(&marker) {
                    let mut created = body;
                    created["id"] = result.get("id").cloned().unwrap_or(Value::Null);
                    self.policies.push(created);
                }
            }
            Kind::UpdatePolicy => self.replace_policy(step.policy_id.as_deref().unwrap_or(""), body),
            _ => {}
        }
    }

    /// What a dry run's step would have left.
    fn simulate(&mut self, step: &Step) {
        if matches!(step.kind, Kind::CreatePolicy | Kind::UpdatePolicy) {
            self.simulated.push(step.body.clone().unwrap_or(Value::Null));
        }
    }

    fn check_create(&mut self, step: &Step) -> Ready {
        let marker = step.marker.clone().unwrap_or_default();
        if self.has_marker(&marker) {
            Ready::Done(format!("a policy carries its marker {marker}"))
        } else {
            Ready::Send
        }
    }

    fn get(&mut self, step: &Step) -> Result<Value, Stop> {
        let path = step.path.clone().unwrap_or_default();
        self.client
            .read(&path)
            .map(|mut envelope| envelope.get_mut("result").map(Value::take).unwrap_or(Value::Null))
            .map_err(|e| read_failed(step, e))
    }

    fn check_update(&mut self, step: &Step) -> Result<Ready, Stop> {
        let body = step.body.clone().unwrap_or(Value::Null);
        let id = step.policy_id.clone().unwrap_or_default();
        let exported = self
            .account
            .state
            .policies
            .iter()
            .find(|p| p.id == id)
            .and_then(|p| p.record.clone());
        let live = self.get(step)?;
        if matches_body(&live, &body) {
            return Ok(Ready::Done("the policy is as the update leaves it".into()));
        }
        match &exported {
            Some(record) if drift::same(&Value::Object(writable(&live)), &Value::Object(record.clone())) => Ok(Ready::Send),
            _ => Err(stop(
                step,
                format!("policy {id} was edited since the export: the PUT would overwrite the edit; export and plan again"),
            )),
        }
    }

    fn replace_policy(&mut self, id: &str, body: Value) {
        let mut updated = body;
        updated["id"] = json!(id);
        match self.policies.iter_mut().find(|p| p.get("id").and_then(Value::as_str) == Some(id)) {
            Some(p) => *p = updated,
            None => self.policies.push(updated),
        }
    }

    /// The pools a clear acts on, as the service holds them now.
    fn pools_of(&mut self, step: &Step) -> Result<Vec<Value>, Stop> {
        Ok(match self.get(step)? {
            Value::Array(pools) => pools,
            Value::Null => Vec::new(),
            pool => vec![pool],
        })
    }

    fn check_clear(&mut self, step: &Step) -> Result<Ready, Stop> {
        let pools = self.pools_of(step)?;
        if step.kind == Kind::ClearPage {
            let mut now: Vec<&str> = pools.iter().filter_map(|p| p.get("id").and_then(Value::as_str)).collect();
            let mut seen: Vec<&str> = step.page_pools.iter().map(String::as_str).collect();
            now.sort_unstable();
            seen.sort_unstable();
            if now != seen {
                return Ok(Ready::Shifted);
            }
        }
        let legacy: Vec<PoolState> = pools.iter().map(PoolState::from_api).filter(PoolState::is_legacy).collect();
        if legacy.is_empty() {
            return Ok(Ready::Done("no pool it clears carries a legacy e-mail".into()));
        }
        for pool in &legacy {
            let planned = self.planned.get(pool.id.as_str());
            if !step.pools.contains(&pool.id) || planned.is_none_or(|p| p.recipients != pool.recipients || p.events != pool.events) {
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
        }
        // The policies as they are now: someone may have changed one since the last step.
        if let Err(e) = self.read_policies() {
            return Err(read_failed(step, e));
        }
        let live: Vec<ServicePolicy> = self
            .policies
            .iter()
            .chain(&self.simulated)
            .map(|p| ServicePolicy::from_body(p.get("id").and_then(Value::as_str).unwrap_or(""), p))
            .collect();
        for pool in &legacy {
            if let Some((event, recipient)) = undelivered(&live, pool) {
                return Err(stop(
                    step,
                    format!(
                        "clearing it would lose an alert: pool {} would no longer e-mail {recipient} about {} (no live policy delivers it: a policy was disabled, deleted or edited, or a step it depends on did not run)",
                        describe(&pool.name, &pool.id),
                        event.as_str()
                    ),
                ));
            }
        }
        Ok(Ready::Send)
    }

    fn check_certificate(&mut self, step: &Step) -> Result<Ready, Stop> {
        let body = step.body.clone().unwrap_or(Value::Null);
        let expected = step
            .expects
            .as_ref()
            .and_then(|e| e.get("certificate_authority"))
            .and_then(Value::as_str)
            .unwrap_or(crate::plan::Request::MOVES_OFF)
            .to_string();
        let settings = |v: &Value| -> Value {
            match step.kind {
                Kind::EditCustomHostname => v.get("ssl").cloned().unwrap_or(Value::Null),
                _ => v.clone(),
            }
        };
        let ca = |v: &Value| {
            settings(v)
                .get("certificate_authority")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let target = ca(&body);
        let live = self.get(step)?;
        if ca(&live) == target && settings(&live).get("enabled") != Some(&Value::Bool(false)) {
            return Ok(Ready::Done(format!("it is on `{target}`")));
        }
        let (now, wanted) = (settings(&live), settings(&body));
        let keeps = |field: &str| wanted.get(field).is_none_or(|w| now.get(field) == Some(w));
        if !ca(&live).eq_ignore_ascii_case(&expected) || !keeps("method") || !keeps("type") {
            return Err(stop(
                step,
                format!(
                    "the resource changed since the plan (certificate authority `{}`, expected `{expected}`; or its validation method or type differ); export and plan again",
                    ca(&live)
                ),
            ));
        }
        Ok(Ready::Send)
    }

    /// After the last step: every pool the plan clears carries no legacy
    /// e-mail, and every delivery it made is delivered by a live policy.
    fn verify(&mut self) -> Result<(), Stop> {
        let failed = |e: LiveError| Stop::Verify {
            problems: vec![format!("reading {e}")],
        };
        let pools = self.read_pools().map_err(failed)?;
        self.read_policies().map_err(failed)?;
        let live: Vec<ServicePolicy> = self
            .policies
            .iter()
            .map(|p| ServicePolicy::from_body(p.get("id").and_then(Value::as_str).unwrap_or(""), p))
            .collect();
        let now: HashMap<String, PoolState> = pools.iter().map(PoolState::from_api).map(|p| (p.id.clone(), p)).collect();
        let mut problems = Vec::new();
        let mut checked = (0, 0);
        let cleared = self.account.cleared_pools();
        for planned in self.account.state.pools.iter().filter(|p| cleared.contains(p.id.as_str())) {
            let who = describe(&planned.name, &planned.id);
            match now.get(&planned.id) {
                Some(pool) if pool.is_legacy() => problems.push(format!("pool {who} still carries a legacy e-mail")),
                None => problems.push(format!("pool {who} is gone")),
                Some(_) => {}
            }
            if let Some((event, recipient)) = undelivered(&live, planned) {
                problems.push(format!("no live policy e-mails {recipient} about {} on pool {who}", event.as_str()));
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

/// The first (event, recipient) of a pool's legacy e-mail that no policy delivers.
fn undelivered(policies: &[ServicePolicy], pool: &PoolState) -> Option<(Event, String)> {
    let id = pool.id.to_ascii_lowercase();
    // Only the policies that can deliver for this pool are asked about each
    // delivery: a large account holds thousands, each naming a few pools.
    let for_pool: Vec<&ServicePolicy> = policies
        .iter()
        .filter(|p| p.can_deliver && (p.pool_ids.is_empty() || p.pool_ids.contains(&id)))
        .collect();
    for event in pool.event_set().iter() {
        for r in &pool.recipients {
            if !for_pool.iter().any(|p| p.delivers(&id, event, r)) {
                return Some((event, r.clone()));
            }
        }
    }
    None
}

/// What a step's check found.
enum Ready {
    /// Done already, and why it is known.
    Done(String),
    /// Safe to send.
    Send,
    /// A page-wide clear whose page holds other pools than the plan saw.
    Shifted,
}
