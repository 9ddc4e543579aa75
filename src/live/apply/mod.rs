//! `edgeaudit apply PLAN.json` (docs/src/commands/apply.md): runs a plan on the live
//! account, reading right before every change what that change relies on,
//! and checking after it what it did.
//!
//! - Before the first change, the live pools and policies are compared with
//!   the state the plan recorded ([`drift`]); any difference the plan's own
//!   steps do not explain stops the run with nothing sent.
//! - Each step is checked against the account as it is at that moment, with
//!   no wait between the reads and the change ([`Client::reserve`]); after a
//!   429 or a lost answer, the check runs again before anything is sent again.
//! - A clear is sent only when every legacy pool it could reach is delivered
//!   by the live policies ([`clear`]); the pools its answer names are checked,
//!   and one cleared unsafely is restored at once and the run stops.
//! - A policy create is looked up by its marker in a fresh read first, and
//!   copies with one marker (two runs at once) are reduced to one ([`markers`]).
//! - A certificate change sends the resource's setting as just read with only
//!   the CA changed, and is read back ([`certificate`]).
//! - After the last step the account is read again and verified; a loss found
//!   there is restored too ([`verify`]).

pub mod certificate;
pub mod clear;
pub mod drift;
pub mod markers;
pub mod meaning;
pub mod plan_file;
pub mod read;
pub mod verify;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::time::Duration;

use serde_json::Value;

use super::client::{Change, Client, LiveError};
use crate::api::{Call, Op, Operation};
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
                "stopped at step {step} ({request}): {why}. Nothing after it was sent; once that is settled, run the same command again to finish (steps already done are recognised and skipped)"
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
    /// Resources deleted since the export: nothing to do.
    pub gone: Vec<String>,
    /// Changes the service answered but did not make (read back unchanged),
    /// each with the way to make it by hand: the run exits non-zero.
    pub not_taken: Vec<String>,
    /// Second copies of a created policy removed (two runs at once).
    pub copies_removed: usize,
    /// Custom hostnames on Let's Encrypt met on the pages of their zone's
    /// list that the plan does not hold (created or moved there since the
    /// export, or left by the plan's review): named, never changed.
    pub unplanned: Unplanned,
}

/// Hostnames on Let's Encrypt the plan does not hold: how many, and the
/// first of them by id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Unplanned {
    pub count: usize,
    pub first: Vec<String>,
}

impl Unplanned {
    /// How many ids are kept to name them.
    const NAMED: usize = 20;

    pub fn add(&mut self, id: &str) {
        self.count += 1;
        if self.first.len() < Self::NAMED {
            self.first.push(id.to_string());
        }
    }
}

pub struct Options {
    pub dry_run: bool,
}

/// What the plan would send, for the person asked to confirm it.
#[derive(Debug, Clone)]
pub struct Preview {
    pub accounts: Vec<String>,
    /// Changing requests in the plan (some may turn out to be done already).
    pub changes: usize,
    /// The reads that check them, about.
    pub reads: usize,
    /// How long they take at the client's rate (none when unpaced).
    pub time: Option<Duration>,
}

impl Preview {
    fn of(plan: &PlanFile, client: &Client) -> Preview {
        let steps = || plan.accounts.iter().flat_map(|a| a.steps.iter());
        let changes = steps().filter(|s| s.method.is_some()).count();
        // Before and after the steps, each account's pools and policies; per
        // step the reads of its check and of its verification; a zone's
        // custom hostnames checked from the pages of its list where that
        // takes fewer reads (`batch_hostnames`): of the list filtered to
        // Let's Encrypt where the service filters it (about one page per
        // page of steps, and the short page that ends the pass), else of the
        // whole list, which first reads one page.
        let list = Operation::of(Op::ListCustomHostnames);
        let filtered = client.takes_reference(Op::ListCustomHostnames);
        let per_page = client.page_size(list);
        let mut reads = plan.accounts.len() * 4;
        for account in &plan.accounts {
            let mut by_zone: HashMap<String, usize> = HashMap::new();
            for step in account.steps.iter() {
                match (step.kind, step.zone_id) {
                    (Kind::EditCustomHostname, Some(zone)) => *by_zone.entry(zone).or_default() += 1,
                    _ => reads += step.kind.reads(),
                }
            }
            for (zone, steps) in by_zone {
                let listed = account.state.zone_hostnames.get(&zone).copied().unwrap_or(steps).max(steps);
                let pages = listed.div_ceil(per_page);
                reads += match steps {
                    1 => Kind::EditCustomHostname.reads(),
                    _ if filtered => steps / per_page + 2,
                    _ if pages < steps => pages,
                    _ => steps * Kind::EditCustomHostname.reads() + 1,
                };
            }
        }
        let rate = client.rate();
        let time = (rate > 0).then(|| super::pace::WINDOW.mul_f64((changes + reads) as f64 / f64::from(rate)));
        Preview {
            accounts: plan.accounts.iter().filter_map(|a| a.account_id.clone()).collect(),
            changes,
            reads,
            time,
        }
    }
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
    // (What each account's pools carried live at the start is what its run
    // may create and update policies for.)
    let mut legacy_at_start = Vec::with_capacity(plan.accounts.len());
    for account in &plan.accounts {
        let mut preflight = AccountRun::new(client, plan, account, options, log);
        preflight.preflight()?;
        legacy_at_start.push(std::mem::take(&mut preflight.legacy_at_start));
    }
    let preview = Preview::of(plan, client);
    if !options.dry_run && preview.changes > 0 && !confirm(&preview) {
        return Err(Stop::NotConfirmed);
    }
    client.expect_requests((client.counts.reads + preview.changes + preview.reads) as u64);
    let mut summary = Summary::default();
    for (account, legacy) in plan.accounts.iter().zip(legacy_at_start) {
        let mut run = AccountRun::new(client, plan, account, options, log);
        run.legacy_at_start = legacy;
        for step in account.each_step() {
            run.step(&step, &mut summary, None)?;
        }
        if !options.dry_run {
            run.verify(&mut summary)?;
        }
    }
    Ok(summary)
}

pub(crate) struct AccountRun<'a> {
    client: &'a mut Client,
    plan_id: &'a str,
    account: &'a PlanAccount,
    options: &'a Options,
    log: &'a mut dyn Write,
    /// The live policies as last read, with those this run created that the
    /// read did not show yet (a list may lag a create).
    policies: Vec<Value>,
    /// Policies this run created: marker → (id, body).
    created: BTreeMap<String, (String, Value)>,
    /// Of those, the ones the last read did not show (kept from `created`).
    unseen: HashSet<String>,
    /// Policies a dry run would have created or updated.
    simulated: Vec<Value>,
    /// The plan's pools by id.
    planned: HashMap<&'a str, &'a PoolState>,
    /// The pools the plan clears.
    cleared: HashSet<String>,
    /// Custom hostname steps run from a page of their zone's list.
    batched: HashSet<usize>,
    /// Zones whose hostname steps were looked at for a batch.
    zones_seen: HashSet<String>,
    /// The pools that carried, live when the run started, exactly the legacy
    /// e-mail the plan's state gives them: a policy is created or updated to
    /// take over only these (the state is the plan file's word).
    legacy_at_start: HashSet<String>,
    /// The legacy e-mail of each pool this run cleared, as read live right
    /// before its clear: the only value a restore writes back.
    cleared_here: HashMap<String, Value>,
    /// When the last page of a zone's hostnames was read (the client's clock).
    page_read_at: Option<Duration>,
}

/// How long a list page's record stands for a read of the resource.
const PAGE_FRESH: Duration = Duration::from_secs(5);

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

/// What a step's check found.
pub(crate) enum Ready {
    /// Done already, and why it is known.
    Done(String),
    /// The resource was deleted since the export: nothing to do.
    Gone(String),
    /// Safe to send this call; for a clear, what was judged.
    Send(Box<Call>, Option<Box<clear::Judged>>),
    /// A page-wide clear whose page holds other pools than the plan saw.
    Shifted,
}

impl Kind {
    /// The reads a step of this kind makes, about: its check and its verification.
    fn reads(&self) -> usize {
        match self {
            Kind::CreatePolicy | Kind::UpdatePolicy | Kind::ClearPage | Kind::ClearPool | Kind::SetUniversalSsl => 2,
            Kind::EditCustomHostname | Kind::SetTotalTls => 1,
            Kind::Manual | Kind::Terraform => 0,
        }
    }
}

impl<'a> AccountRun<'a> {
    fn new(client: &'a mut Client, plan: &'a PlanFile, account: &'a PlanAccount, options: &'a Options, log: &'a mut dyn Write) -> Self {
        AccountRun {
            client,
            plan_id: &plan.plan_id,
            account,
            options,
            log,
            policies: Vec::new(),
            created: BTreeMap::new(),
            unseen: HashSet::new(),
            simulated: Vec::new(),
            planned: account.state.pools.iter().map(|p| (p.id.as_str(), p)).collect(),
            cleared: account.cleared_pools(),
            batched: HashSet::new(),
            zones_seen: HashSet::new(),
            legacy_at_start: HashSet::new(),
            cleared_here: HashMap::new(),
            page_read_at: None,
        }
    }

    /// Whether the last list page read is recent enough to check a change by.
    fn page_is_fresh(&self) -> bool {
        self.page_read_at
            .is_some_and(|at| self.client.clock().now().saturating_sub(at) <= PAGE_FRESH)
    }

    fn account_id(&self) -> &str {
        self.account.account_id.as_deref().unwrap_or("")
    }

    /// Reads the account and compares it with the plan's state.
    fn preflight(&mut self) -> Result<(), Stop> {
        let pools = self.read_pools().map_err(before_the_steps)?;
        self.read_policies().map_err(before_the_steps)?;
        let mut differences = drift::differences(self.account, &pools, &self.policies);
        let planned = &self.planned;
        self.legacy_at_start = pools
            .iter()
            .map(PoolState::from_api)
            .filter(|now| now.is_legacy() && planned.get(now.id.as_str()).is_some_and(|p| p.recipients == now.recipients))
            .map(|now| now.id)
            .collect();
        // (The other plans' lines name live policies: one line of terminal text each.)
        differences.extend(
            markers::other_plans(self.account, self.plan_id, &self.policies)
                .into_iter()
                .map(|line| crate::text::escape::terminal::value(&line).into_owned()),
        );
        if !differences.is_empty() {
            differences.sort();
            return Err(Stop::Drift {
                account: self.account_id().to_string(),
                differences,
            });
        }
        let account = self.account_id().to_string();
        let _ = writeln!(
            self.log,
            "apply: account {account}: {} pools and {} policies read; as the plan expects",
            pools.len(),
            self.policies.len()
        );
        Ok(())
    }

    fn read_pools(&mut self) -> Result<Vec<Value>, LiveError> {
        let call = Operation::of(Op::ListPools).call(&[self.account_id()]);
        self.client.records(&call)
    }

    /// Reads the policies; those this run created and the list does not
    /// show yet are kept as created.
    fn read_policies(&mut self) -> Result<(), LiveError> {
        let call = Operation::of(Op::ListPolicies).call(&[self.account_id()]);
        let mut policies = self.client.records(&call)?;
        self.unseen.clear();
        for (id, body) in self.created.values() {
            if !policies.iter().any(|p| p.get("id").and_then(Value::as_str) == Some(id)) {
                let mut created = body.clone();
                created["id"] = Value::String(id.clone());
                policies.push(created);
                self.unseen.insert(id.clone());
            }
        }
        self.policies = policies;
        Ok(())
    }

    fn say(&mut self, step: &Step, what: &str) {
        let _ = writeln!(self.log, "step {}: {}: {what}", step.step, step.request());
    }

    /// Runs one step: checks it, sends it, checks what it did. `from_page`
    /// is the resource as a list page just read it (hostname batches).
    fn step(&mut self, step: &Step, summary: &mut Summary, from_page: Option<&Value>) -> Result<(), Stop> {
        if matches!(step.kind, Kind::Manual | Kind::Terraform) {
            summary.manual.push(format!("step {}: {}", step.step, step.reason));
            return Ok(());
        }
        if self.batched.contains(&step.step) {
            return Ok(());
        }
        if step.kind == Kind::EditCustomHostname && from_page.is_none() && self.batch_hostnames(step, summary)? {
            return Ok(());
        }
        let mut from_page = from_page;
        let mut attempt = 0;
        // Why the last send did not settle it, for the next check's words.
        let mut before: Option<String> = None;
        loop {
            // The reads of the check and the change go out with no pacing wait between them.
            self.client.reserve(step.kind.reads() + 1);
            // A list page's record stands for a read only while it is fresh:
            // after a wait (pacing, a retry) the resource is read again.
            if from_page.is_some() && !self.page_is_fresh() {
                from_page = None;
            }
            let ready = match self.check(step, from_page.take()) {
                Ok(ready) => ready,
                Err(Stop::Step { why: now, .. }) if before.is_some() => {
                    let why = before.unwrap_or_default();
                    return Err(stop(step, format!("{why}; then, before sending it again: {now}")));
                }
                Err(other) => return Err(other),
            };
            let (call, judged) = match ready {
                Ready::Done(why) => {
                    summary.skipped += 1;
                    let why = match &before {
                        Some(lost) => format!("done (the answer was lost: {lost}; the account shows it happened)"),
                        None => format!("already done ({why})"),
                    };
                    self.say(step, &why);
                    return Ok(());
                }
                Ready::Gone(why) => {
                    self.say(step, &format!("nothing to do: {why}"));
                    summary.gone.push(format!("step {}: {why}", step.step));
                    return Ok(());
                }
                Ready::Shifted if before.is_some() => {
                    let why = before.unwrap_or_default();
                    return Err(stop(
                        step,
                        format!("{why}; then the page held other pools than the plan saw: run again to clear its pools one by one"),
                    ));
                }
                Ready::Shifted => return self.pool_by_pool(step, summary),
                Ready::Send(call, judged) => (*call, judged),
            };
            if self.options.dry_run {
                self.simulate(step);
                summary.would_send += 1;
                self.say(step, "checked; would be sent (dry run)");
                return Ok(());
            }
            if let Some(why) = &before {
                let why = why.clone();
                self.say(step, &format!("{why}; it did not happen and is still safe, sending it again"));
            }
            let wait = match self.client.change(&call) {
                Change::Done(result) => {
                    self.say(step, "done");
                    summary.sent += 1;
                    return self.after(step, &call, judged.as_deref(), result, summary);
                }
                Change::Gone(why) => {
                    let why = format!("deleted since the export ({why})");
                    self.say(step, &format!("nothing to do: {why}"));
                    summary.gone.push(format!("step {}: {why}", step.step));
                    return Ok(());
                }
                Change::Refused(why) => return Err(stop(step, format!("the service refused it: {why}"))),
                Change::Later(wait) => {
                    before = Some("rate limited (HTTP 429)".into());
                    Some(wait)
                }
                Change::Unknown(why) => {
                    before = Some(why);
                    None
                }
            };
            if attempt >= self.client.retries() {
                let why = before.unwrap_or_default();
                return Err(stop(step, format!("{why}; gave up after {} attempts", attempt + 1)));
            }
            self.client.pause_before_retry(attempt, wait);
            attempt += 1;
            // A create whose answer was lost may have happened, and a lagging
            // list may not show it yet: its marker is looked for a while first.
            if step.kind == Kind::CreatePolicy && wait.is_none() {
                self.await_marker(step)?;
            }
            // A clear whose answer was lost may have happened, and reached
            // pools it must not have: settle that before anything else.
            if let Some(judged) = &judged
                && wait.is_none()
            {
                self.settle_lost_clear(step, judged)?;
            }
        }
    }

    /// Reads what the step relies on, as it is now: whether it is done
    /// already, may be sent (and as what call), or must not be (the stop
    /// says why). Run before the first send and again before every resend.
    fn check(&mut self, step: &Step, from_page: Option<&Value>) -> Result<Ready, Stop> {
        match step.kind {
            Kind::CreatePolicy => self.check_create(step),
            Kind::UpdatePolicy => self.check_update(step),
            Kind::ClearPage | Kind::ClearPool => self.check_clear(step),
            Kind::EditCustomHostname | Kind::SetTotalTls | Kind::SetUniversalSsl => self.check_certificate(step, from_page),
            Kind::Manual | Kind::Terraform => Ok(Ready::Done("a step for a person".into())),
        }
    }

    /// What a sent step is checked for, by kind.
    fn after(
        &mut self,
        step: &Step,
        call: &Call,
        judged: Option<&clear::Judged>,
        result: Value,
        summary: &mut Summary,
    ) -> Result<(), Stop> {
        match step.kind {
            Kind::CreatePolicy => self.after_create(step, call, result, summary),
            Kind::UpdatePolicy => self.after_update(step, call),
            Kind::ClearPage | Kind::ClearPool => match judged {
                Some(judged) => {
                    self.after_clear(step, judged, &result)?;
                    self.finish_page(step, judged, &result, summary)
                }
                None => Ok(()),
            },
            Kind::EditCustomHostname | Kind::SetTotalTls | Kind::SetUniversalSsl => self.after_certificate(step, call, &result, summary),
            Kind::Manual | Kind::Terraform => Ok(()),
        }
    }

    /// What a dry run's step would have left.
    fn simulate(&mut self, step: &Step) {
        if matches!(step.kind, Kind::CreatePolicy | Kind::UpdatePolicy) {
            self.simulated.push(step.body.clone().unwrap_or(Value::Null));
        }
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
        self.read_policies().map_err(|e| read_failed(step, e))?;
        let Some(live) = self.policy(&id).cloned() else {
            return Err(stop(
                step,
                format!("policy {id} was deleted since the export: the update has nothing to update; export and plan again"),
            ));
        };
        if matches_body(&live, &body) {
            return Ok(Ready::Done("the policy is as the update leaves it".into()));
        }
        match &exported {
            Some(record) if drift::same(&Value::Object(writable(&live)), &Value::Object(record.clone())) => {
                self.pools_as_planned(step)?;
                Ok(Ready::Send(Box::new(self.call_of(step, Value::Object(writable(&body)))), None))
            }
            _ => Err(stop(
                step,
                format!("policy {id} was edited since the export: the PUT would overwrite the edit; export and plan again"),
            )),
        }
    }

    /// After a PUT: the policy read back holds what was sent.
    fn after_update(&mut self, step: &Step, call: &Call) -> Result<(), Stop> {
        let id = step.policy_id.clone().unwrap_or_default();
        self.read_policies().map_err(|e| read_failed(step, e))?;
        let body = call.body.clone().unwrap_or(Value::Null);
        match self.policy(&id) {
            Some(live) if matches_body(live, &body) => Ok(()),
            _ => Err(stop(
                step,
                format!("the service answered the update of policy {id}, but the policy read back is not as sent"),
            )),
        }
    }

    /// A policy is created or updated for pools that carry, live, the legacy
    /// e-mail the plan's state gives them: recipients no live pool has (a
    /// plan file's state edited) are never written into a policy.
    pub(super) fn pools_as_planned(&self, step: &Step) -> Result<(), Stop> {
        match step.pools.iter().find(|p| !self.legacy_at_start.contains(p.as_str())) {
            None => Ok(()),
            Some(pool) => Err(stop(
                step,
                format!(
                    "pool {} did not carry, live, the legacy e-mail the plan gives it when the run started: the policy would take over recipients no live pool has; export and plan again",
                    crate::text::escape::terminal::value(pool)
                ),
            )),
        }
    }

    fn policy(&self, id: &str) -> Option<&Value> {
        self.policies.iter().find(|p| p.get("id").and_then(Value::as_str) == Some(id))
    }

    /// The step's call, with this body.
    fn call_of(&self, step: &Step, body: Value) -> Call {
        let mut call = step.call().unwrap_or_else(|| Operation::of(Op::ListPolicies).call(&[]));
        call.body = Some(body);
        call
    }
}
