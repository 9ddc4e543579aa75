//! The planner (docs/src/commands/plan.md): per account, the policies that take over every
//! legacy delivery (merged across pools), then the clears that are safe once
//! they exist (page-wide where a page holds only replaced pools, per pool
//! elsewhere), then the certificate changes the findings call for — and the
//! replay that proves no alert is lost at any step.

use std::collections::BTreeMap;

use serde_json::Value;

use super::request::Request;
use super::service::Service;
use crate::check::Outcome;
use crate::engine::rule::RemedyKind;
use crate::facts::Analysis;
use crate::facts::catalogue::keys;
use crate::model::notification::{Event, EventSource, Health, NewPolicy, filter_products};
use crate::model::{Account, Kind};

/// The plan of one account.
#[derive(Debug)]
pub struct AccountPlan {
    /// The account id the export names, if it does.
    pub account_id: Option<String>,
    pub steps: Vec<Request>,
    /// What the replay proved.
    pub proof: Proof,
    /// Requests a pool-by-pool migration would send: one policy and one clear per pool.
    pub per_pool_requests: usize,
    /// Pools carrying a legacy e-mail before the plan.
    pub legacy_pools: usize,
    /// Of those, the ones the plan keeps as they are because a finding about
    /// their legacy e-mail is waived.
    pub held_pools: usize,
    /// And those it keeps because their export gives them no `id` (a person's step each).
    pub unaddressable_pools: usize,
    /// Pools of Terraform whose existence is not known before a run: not
    /// modelled, so the proof does not cover them.
    pub may_exist_pools: usize,
    /// What each step needs, by step (see [`needs`]).
    pub needs: Vec<Needs>,
    /// Whether every pool of the account was loaded (no EX001 on pools):
    /// only then are pages cleared whole.
    pub pools_complete: bool,
    /// What the plan could not see and the proof therefore does not cover.
    pub warnings: Vec<String>,
    /// Every pool loaded, in the order the bulk clear pages them.
    pub pools: Vec<super::state::PoolState>,
    /// The exported policies a step counts on or updates, by id.
    pub policies: Vec<super::state::PolicyState>,
    /// Every policy the export held, by id (`apply` tells another plan's
    /// policies, made since, by them).
    pub exported_policies: Vec<String>,
    /// How many custom hostnames each zone's list holds, by zone id: what
    /// `apply`'s estimate of its list pages reads from.
    pub hostnames_by_zone: std::collections::BTreeMap<String, usize>,
}

/// What one step relies on: the earlier steps whose policies deliver what it
/// clears (`depends_on`), and the existing policies that do (which must still
/// be as exported when it runs). Empty for steps other than clears.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Needs {
    /// 0-based indices of earlier steps.
    pub steps: Vec<usize>,
    /// Ids of exported policies.
    pub policies: Vec<String>,
}

/// Per step, what it relies on, found by running the steps on the model: a
/// clear needs every step and every exported policy that delivers one of the
/// (event, recipient) pairs of the pools it clears at that point. Updates
/// and creates only widen what policies deliver, so running a clear right
/// after the steps it needs delivers at least what the plan's order does.
/// Also, per step, the pools whose deliveries the policy it makes takes over.
pub fn needs(mut service: Service, steps: &[Request]) -> (Vec<Needs>, Vec<Vec<String>>) {
    let mut made_by: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut creates = 0;
    let mut all = Vec::with_capacity(steps.len());
    let mut takes_over: Vec<Vec<String>> = vec![Vec::new(); steps.len()];
    for (i, step) in steps.iter().enumerate() {
        let mut need = Needs::default();
        for p in cleared_by(&service, step) {
            let pool = &service.pools[p];
            let id = pool.id.to_ascii_lowercase();
            for event in pool.events.iter() {
                for r in &pool.recipients {
                    for policy in service.delivering(&id, event, r) {
                        match made_by.get(&policy.id) {
                            Some(&s) => {
                                need.steps.push(s);
                                if !takes_over[s].contains(&pool.id) {
                                    takes_over[s].push(pool.id.clone());
                                }
                            }
                            None => need.policies.push(policy.id.clone()),
                        }
                    }
                }
            }
        }
        need.steps.sort_unstable();
        need.steps.dedup();
        need.policies.sort();
        need.policies.dedup();
        all.push(need);
        // The plan's own steps were replayed before: none fails here.
        let _ = service.apply(step);
        match step {
            Request::CreatePolicy { .. } => {
                creates += 1;
                made_by.insert(super::service::planned_id(creates), i);
            }
            Request::UpdatePolicy { policy_id, .. } => {
                made_by.insert(policy_id.clone(), i);
            }
            _ => {}
        }
    }
    (all, takes_over)
}

/// The pools (by index) a step clears that carry a legacy e-mail when it runs.
fn cleared_by(service: &Service, step: &Request) -> Vec<usize> {
    let on_page: Vec<usize> = match step {
        Request::ClearPage { per_page, page, .. } => {
            let start = page.saturating_sub(1).saturating_mul(*per_page).min(service.pools.len());
            (start..start.saturating_add(*per_page).min(service.pools.len())).collect()
        }
        Request::ClearPool { pool_id } => service.pool_position(pool_id).into_iter().collect(),
        _ => Vec::new(),
    };
    on_page.into_iter().filter(|&p| !service.pools[p].recipients.is_empty()).collect()
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proof {
    /// (pool, event, recipient) deliveries the legacy e-mails made, each checked after every step.
    pub deliveries: usize,
    pub steps: usize,
}

/// Why a plan was refused: the step after which a delivery was lost, or a
/// pool still carried a legacy e-mail at the end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// 1-based; 0 for "at the end".
    pub step: usize,
    pub pool: String,
    pub what: String,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.step {
            0 => write!(f, "after the last step, pool {} {}", self.pool, self.what),
            n => write!(f, "step {n} would lose an alert: pool {} {}", self.pool, self.what),
        }
    }
}

/// Replays `steps` on `service` and checks, after every step, that every
/// delivery the legacy e-mails made still happens, and at the end that no
/// pool carries a legacy e-mail.
pub fn replay(mut service: Service, steps: &[Request]) -> Result<Proof, Refusal> {
    let deliveries = service.legacy_deliveries();
    // Pools the plan keeps as they are: they must end as they began.
    let held: Vec<usize> = (0..service.pools.len())
        .filter(|&i| service.pools[i].held && !service.pools[i].recipients.is_empty())
        .collect();
    // Deliveries by pool: a clear can only lose the deliveries of the pools it clears.
    let mut of_pool: Vec<Vec<usize>> = vec![Vec::new(); service.pools.len()];
    for (i, d) in deliveries.iter().enumerate() {
        of_pool[d.pool].push(i);
    }
    for (i, step) in steps.iter().enumerate() {
        // An update can only lose deliveries of the pools it named before or names after.
        let named_before = match step {
            Request::UpdatePolicy { policy_id, .. } => service.pools_named_by(policy_id),
            _ => None,
        };
        service.apply(step).map_err(|e| Refusal {
            step: i + 1,
            pool: String::new(),
            what: e,
        })?;
        // Which deliveries the step could have lost: those of the pools it
        // cleared; every one after an update (a policy may deliver less);
        // none after a create (policies only add deliveries).
        let cleared: Vec<usize> = match step {
            Request::ClearPage { per_page, page, .. } => {
                let start = page.saturating_sub(1).saturating_mul(*per_page).min(service.pools.len());
                (start..start.saturating_add(*per_page).min(service.pools.len())).collect()
            }
            Request::ClearPool { pool_id } => service.pool_position(pool_id).into_iter().collect(),
            _ => Vec::new(),
        };
        let at_risk: Vec<usize> = match step {
            Request::UpdatePolicy { policy_id, .. } => match (named_before, service.pools_named_by(policy_id)) {
                (Some(mut before), Some(after)) => {
                    before.extend(after);
                    before.sort_unstable();
                    before.dedup();
                    before.iter().flat_map(|&p| of_pool[p].iter().copied()).collect()
                }
                _ => (0..deliveries.len()).collect(),
            },
            _ => cleared.iter().flat_map(|&p| of_pool[p].iter().copied()).collect(),
        };
        if let Some(lost) = at_risk.into_iter().map(|d| &deliveries[d]).find(|d| !service.delivers(d)) {
            let pool = service.pools.get(lost.pool).map_or(String::new(), |p| describe(&p.name, &p.id));
            return Err(Refusal {
                step: i + 1,
                pool,
                what: format!("would no longer e-mail {} about {}", lost.recipient, lost.event),
            });
        }
    }
    if let Some(pool) = service.legacy_pools().next() {
        return Err(Refusal {
            step: 0,
            pool: describe(&pool.name, &pool.id),
            what: "still carries a legacy `notification_email`".to_string(),
        });
    }
    if let Some(pool) = held.iter().map(|&i| &service.pools[i]).find(|p| p.recipients.is_empty()) {
        return Err(Refusal {
            step: 0,
            pool: describe(&pool.name, &pool.id),
            what: "is kept as it is (a finding about its legacy e-mail is waived), but a step clears it".to_string(),
        });
    }
    Ok(Proof {
        deliveries: deliveries.len(),
        steps: steps.len(),
    })
}

fn describe(name: &str, id: &str) -> String {
    crate::facts::pool::describe(name, id)
}

/// The notification part of an account's plan.
pub struct NotificationSteps {
    /// Policy updates (corrections, completions), then creates, then clears.
    pub steps: Vec<Request>,
    /// The filter values the updates correct, by policy id.
    pub corrected: BTreeMap<String, Vec<String>>,
    /// Requests a pool-by-pool migration would send: the same corrections,
    /// then per pool its own policies and its own clear.
    pub per_pool_requests: usize,
}

/// Existing policies corrected and completed first (from their exported
/// `bodies`, by policy id), then one create per remaining need, then the clears.
pub fn notification_steps(
    account: &Account,
    per_page: usize,
    bodies: &BTreeMap<String, serde_json::Map<String, Value>>,
) -> NotificationSteps {
    notification_steps_seen(account, per_page, true, bodies, &Default::default())
}

/// [`notification_steps`], with pages cleared whole only when `page_wide`
/// (every pool of the account was loaded): a page of a list that was cut
/// may hold pools the plan never saw.
pub fn notification_steps_seen(
    account: &Account,
    per_page: usize,
    page_wide: bool,
    bodies: &BTreeMap<String, serde_json::Map<String, Value>>,
    held: &std::collections::HashSet<String>,
) -> NotificationSteps {
    let plan = |complete: bool| {
        let mut service = Service::of(account).holding(held);
        let mut updates = super::complete::correct(&mut service, bodies);
        let per_pool = updates.len() + per_pool_requests(&service);
        if complete {
            super::complete::complete(&mut service, bodies, &mut updates);
        }
        let corrected = std::mem::take(&mut updates.corrected);
        let mut steps = updates.requests();
        let created = creates(&service);
        for step in &created {
            // Creates cannot fail on the model.
            let _ = service.apply(step);
        }
        steps.extend(created);
        steps.extend(clears(&service, per_page.max(1), page_wide));
        NotificationSteps {
            steps,
            corrected,
            per_pool_requests: per_pool,
        }
    };
    let completed = plan(true);
    // Completing an existing policy can leave a pool needing events that no
    // one new policy's filters hold (two creates where one did): then the
    // plan without completions, which never needs more requests than pool by
    // pool, is the one made.
    if completed.steps.len() > completed.per_pool_requests {
        return plan(false);
    }
    completed
}

/// A group of pools that need the same events sent to the same recipients.
type Need = (Vec<EventSource>, Vec<Health>, Vec<String>);

/// One policy per distinct need, naming every pool that has it, so that
/// pools share policies the way the service intends. Only what no policy
/// delivers once the updates have run is asked for.
fn creates(service: &Service) -> Vec<Request> {
    let mut needs: BTreeMap<Need, Vec<(String, String)>> = BTreeMap::new();
    for pool in service.legacy_pools() {
        for need in needs_of(service, pool) {
            needs.entry(need).or_default().push((pool.id.clone(), pool.name.clone()));
        }
    }
    needs
        .into_iter()
        .map(|((sources, healths, recipients), pools)| {
            let mut ids: Vec<&str> = pools.iter().map(|(id, _)| id.as_str()).collect();
            ids.sort_unstable();
            let label = |(id, name): &(String, String)| if name.is_empty() { id.clone() } else { name.clone() };
            let name = match pools.as_slice() {
                [one] => format!("{} health alerts", label(one)),
                [first, rest @ ..] => format!(
                    "{} and {} health alerts",
                    label(first),
                    crate::words::plural(rest.len(), "more pool", "more pools")
                ),
                [] => String::new(),
            };
            let ids = ids.into_iter().map(str::to_string).collect();
            let body = NewPolicy::new(name, recipients, ids, &sources, &healths);
            Request::CreatePolicy {
                body,
                pools: pools.into_iter().map(|(id, _)| id).collect(),
            }
        })
        .collect()
}

/// What one pool needs that no policy delivers yet: per group of recipients
/// missing the same events, one filter product each.
fn needs_of(service: &Service, pool: &super::service::ServicePool) -> Vec<Need> {
    let id = pool.id.to_ascii_lowercase();
    let mut by_events: BTreeMap<Vec<Event>, Vec<String>> = BTreeMap::new();
    for r in &pool.recipients {
        let missing: Vec<Event> = pool.events.iter().filter(|&e| !service.by_policy(&id, e, r)).collect();
        if !missing.is_empty() {
            by_events.entry(missing).or_default().push(r.clone());
        }
    }
    let mut needs = Vec::new();
    for (events, mut recipients) in by_events {
        recipients.sort();
        recipients.dedup();
        for (sources, healths) in filter_products(&events) {
            needs.push((sources, healths, recipients.clone()));
        }
    }
    needs
}

/// The notification requests of a pool-by-pool migration: each pool its own
/// policies and its own clear.
pub fn per_pool_requests(service: &Service) -> usize {
    service.legacy_pools().map(|p| needs_of(service, p).len() + 1).sum()
}

/// The clears, once the creates have run: a page of `per_page` pools (by
/// name) is cleared in one request when it holds two or more legacy pools
/// and every legacy pool on it is replaced; a page with one legacy pool, or
/// with one that is not replaced, gets per-pool clears for the replaced ones.
/// Only when `page_wide` (the pool list is complete) is a page cleared whole.
fn clears(service: &Service, per_page: usize, page_wide: bool) -> Vec<Request> {
    // A held pool is never cleared, so no page that holds it is cleared whole.
    let replaced = |i: usize| {
        let pool = &service.pools[i];
        let id = pool.id.to_ascii_lowercase();
        !pool.held
            && pool
                .events
                .iter()
                .all(|e| pool.recipients.iter().all(|r| service.by_policy(&id, e, r)))
    };
    let mut steps = Vec::new();
    for (page_index, page) in service.pools.chunks(per_page).enumerate() {
        let start = page_index * per_page;
        let legacy: Vec<usize> = (start..start + page.len())
            .filter(|&i| !service.pools[i].recipients.is_empty())
            .collect();
        if page_wide && legacy.len() >= 2 && legacy.iter().all(|&i| replaced(i)) {
            steps.push(Request::ClearPage {
                per_page,
                page: page_index + 1,
                pools: legacy.iter().map(|&i| service.pools[i].id.clone()).collect(),
            });
        } else {
            for i in legacy.into_iter().filter(|&i| replaced(i)) {
                steps.push(Request::ClearPool {
                    pool_id: service.pools[i].id.clone(),
                });
            }
        }
    }
    steps
}

/// A person's step for each pool with a legacy e-mail that its export gives
/// no `id`: no request can address it (the plan holds it as it is, and clears
/// the other pools of its page one by one).
fn unaddressable_pools(outcome: &Outcome, analysis: &Analysis, account: usize) -> Vec<Request> {
    let Some(pools) = analysis.inventory().accounts.get(account).map(|a| &a.pools) else {
        return Vec::new();
    };
    // Named by the finding about its legacy e-mail (LB001, LB002 or LB003).
    let rule = |index: usize| {
        outcome
            .findings
            .iter()
            .find(|f| {
                f.subject.kind == Kind::Pool
                    && f.subject.account as usize == account
                    && f.subject.index as usize == index
                    && keys::LEGACY_RECIPIENTS.named_by(f.rule.at)
            })
            .map_or_else(String::new, |f| f.rule.id.clone())
    };
    pools
        .iter()
        .enumerate()
        .filter(|(_, p)| p.id.is_empty() && !p.legacy_recipients.is_empty())
        .filter(|(i, _)| !rule(*i).is_empty())
        .map(|(i, p)| Request::Manual {
            rule: rule(i),
            what: format!(
                "pool `{}` e-mails {} but its export gives no `id`, so no request can address it: export the pools with their ids (`edgeaudit export`, or GET /accounts/{{account_id}}/load_balancers/pools) and plan again, or create its policies and clear its `notification_email` by hand",
                p.name,
                p.legacy_recipients.join(", ")
            ),
        })
        .collect()
}

/// The pools of account `account` that the plan keeps as they are: a waived
/// finding about a pool's legacy e-mail (a finding at its recipients) says
/// the team accepts it as it is, so it is not a step; with a warning each.
/// So is every pool its export gives no `id` (one held id, the empty one).
fn held_pools(outcome: &Outcome, analysis: &Analysis, account: usize) -> (std::collections::HashSet<String>, Vec<String>) {
    let mut held = std::collections::HashSet::new();
    let mut warnings = Vec::new();
    let Some(pools) = analysis.inventory().accounts.get(account).map(|a| &a.pools) else {
        return (held, warnings);
    };
    if pools.iter().any(|p| p.id.is_empty() && !p.legacy_recipients.is_empty()) {
        held.insert(String::new());
    }
    for f in outcome.findings.iter().filter(|f| {
        f.is_suppressed()
            && f.subject.kind == Kind::Pool
            && f.subject.account as usize == account
            && keys::LEGACY_RECIPIENTS.named_by(f.rule.at)
    }) {
        let Some(pool) = pools.get(f.subject.index as usize) else {
            continue;
        };
        if held.insert(pool.id.clone()) {
            warnings.push(format!(
                "pool {} keeps its legacy e-mail: its {} finding is waived, so the plan neither replaces nor clears it (and clears the other pools of its page one by one)",
                describe(&pool.name, &pool.id),
                f.rule.id
            ));
        }
    }
    (held, warnings)
}

/// The certificate changes and decisions the account's findings call for, as
/// their remedies give them (`remedy::actions`, the same data the findings
/// carry): a custom hostname's or Total TLS's CA as requests, and the
/// remedies that are a person's decision (a filter value the plan cannot
/// respell, a request without its zone id) as manual steps. The remedies of
/// the notification migration are the planner's job.
fn certificate_steps(outcome: &Outcome, analysis: &Analysis, account: usize, corrected: &BTreeMap<String, Vec<String>>) -> Vec<Request> {
    let settled = |f: &crate::findings::Finding| {
        f.rule.remedy == Some(RemedyKind::PolicyFilterValue)
            && analysis
                .with_facts(f.subject, |facts| match keys::ID.of(facts) {
                    Some(id) => corrected.get(id.as_ref()).is_some_and(|paths| paths.iter().any(|p| *p == f.path)),
                    None => false,
                })
                .unwrap_or(false)
    };
    let mut findings: Vec<&crate::findings::Finding> = outcome
        .active()
        .filter(|f| f.subject.account as usize == account)
        .filter(|f| f.rule.remedy.is_some_and(|kind| !kind.is_notification_migration()))
        .filter(|f| !settled(f))
        .collect();
    // With traffic, the resources that hurt most first (`--traffic`): a
    // provider fixes the hostnames with impacted clients before the others.
    if outcome.traffic.is_some() {
        let impacted = |f: &crate::findings::Finding| outcome.impact(f).map_or(0, |i| i.impacted);
        findings.sort_by_key(|f| std::cmp::Reverse(impacted(f)));
    }
    let mut steps: Vec<Request> = findings
        .into_iter()
        .flat_map(|f| super::remedy::actions(f, analysis).into_iter().map(|a| a.request))
        .collect();
    // Requests first, then the decisions for a person: the script lists them at the end.
    steps.sort_by_key(|s| !s.is_request());
    // A zone's setting is changed once, however many of its packs asked
    // (the other requests each address the one resource of their finding).
    let mut seen = std::collections::HashSet::new();
    steps.retain(|s| s.zone_setting().is_none_or(|(kind, zone)| seen.insert((kind, zone.to_string()))));
    steps
}

/// The exported policies the steps count on (a clear's `needs`) or update,
/// in id order: as they deliver, and, for those updated, as exported.
fn relied_on(
    account: &Account,
    steps: &[Request],
    needs: &[Needs],
    bodies: &BTreeMap<String, serde_json::Map<String, Value>>,
) -> Vec<super::state::PolicyState> {
    let updated: Vec<&str> = steps
        .iter()
        .filter_map(|s| match s {
            Request::UpdatePolicy { policy_id, .. } => Some(policy_id.as_str()),
            _ => None,
        })
        .collect();
    let mut ids: Vec<&str> = needs
        .iter()
        .flat_map(|n| n.policies.iter().map(String::as_str))
        .chain(updated.iter().copied())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let by_id: std::collections::HashMap<&str, &crate::model::notification::Policy> =
        account.policies.iter().rev().map(|p| (p.id.as_str(), p)).collect();
    ids.into_iter()
        .filter_map(|id| {
            let policy = by_id.get(id)?;
            Some(super::state::PolicyState {
                id: id.to_string(),
                name: policy.name.clone(),
                delivers: super::state::Delivers::of(&crate::model::delivery::Reach::of_policy(policy)),
                record: updated.contains(&id).then(|| bodies.get(id).cloned()).flatten(),
            })
        })
        .collect()
}

/// Whether every list of `kind` the account's exports hold was loaded whole.
fn complete(account: &Account, kind: Kind) -> bool {
    account.lists.iter().filter(|l| l.kind == kind).all(|l| l.is_complete())
}

/// What the plan could not see, in words: a cut pool list (EX001: pools are
/// cleared one by one, and only those seen), a cut policy list, or no
/// policy loaded at all beside pools with legacy e-mails.
fn warnings(account: &Account, legacy_pools: usize, pools_complete: bool) -> Vec<String> {
    let mut warnings = Vec::new();
    if !pools_complete {
        warnings.push(format!(
            "the pools export is incomplete (EX001: `result_info` announces pools that were not loaded): only the {} loaded are planned and proved, each cleared by its own request, since a page-wide clear would also clear pools the plan never saw; export every page and plan again to migrate the rest",
            crate::words::plural(account.pools.len(), "pool", "pools")
        ));
    }
    if !complete(account, Kind::NotificationPolicy) {
        warnings.push(
            "the notification policies export is incomplete (EX001): policies that were not loaded are not counted on, so the plan may create policies that duplicate them".to_string(),
        );
    }
    use crate::facts::coverage::{Certainty, certainty};
    // The policies whose certainty is so, by address (Terraform) or id.
    let policies_where = |test: fn(&Certainty) -> bool| -> Vec<&str> {
        account
            .policies
            .iter()
            .filter(|p| test(&certainty(account, p)))
            .map(|p| p.origin.address().map_or(p.id.as_str(), |a| a))
            .collect()
    };
    let uncertain = policies_where(|c| c.is_unknown());
    if !uncertain.is_empty() {
        warnings.push(format!(
            "{} not counted on: a value that decides what it delivers is not known before apply (EX005), so the plan may create a policy that duplicates it",
            crate::words::list(&uncertain)
        ));
    }
    let names_more = policies_where(|c| matches!(c, Certainty::NamesMore { .. }));
    if !names_more.is_empty() {
        warnings.push(format!(
            "{} counted on only for the pools its known `filters.pool_id` elements name: another element is not known before apply (EX005), so the plan may create a policy for a pool that element names",
            crate::words::list(&names_more)
        ));
    }
    if legacy_pools > 0 && !account.policies_loaded() {
        warnings.push(format!(
            "no notification policy was loaded at all beside {} with a legacy e-mail: if the policies export is missing, the plan creates policies that may duplicate existing ones (`edgeaudit export` exports both)",
            crate::words::plural(legacy_pools, "pool", "pools")
        ));
    }
    warnings
}

/// The pools whose existence is not known before a run (a Terraform
/// `count` or `for_each`), named: not planned, and why pages are not cleared whole.
fn may_exist_warning(account: &Account, may_exist: usize) -> Option<String> {
    if may_exist == 0 {
        return None;
    }
    let named: Vec<&str> = account
        .pools
        .iter()
        .filter(|p| account.may_exist(&p.origin))
        .take(5)
        .map(|p| p.origin.address().map_or(p.name.as_str(), |a| a))
        .collect();
    let (its, it, exists) = if may_exist == 1 {
        ("its", "it", "it exists")
    } else {
        ("their", "them", "they exist")
    };
    Some(format!(
        "{} may or may not exist ({}{}): {its} `count` or `for_each` is not known before a run (EX005), so the plan neither replaces nor clears {it} and clears the other pools one by one, since whether {exists} moves every page boundary by name; give the configuration its values (or plan on `terraform show -json` of a plan) and plan again",
        crate::words::plural(may_exist, "pool", "pools"),
        named.join(", "),
        if may_exist > named.len() { ", …" } else { "" }
    ))
}

/// The whole plan: per account, notifications first (updates, creates,
/// clears), then certificates; each account's steps replayed, and refused
/// when the replay finds a lost alert.
pub fn build(outcome: &Outcome, analysis: &Analysis, per_page: usize) -> Result<Vec<AccountPlan>, Refusal> {
    let mut plans = Vec::new();
    for (i, account) in analysis.inventory().accounts.iter().enumerate() {
        let bodies = super::record::policy_bodies(&outcome.files, account);
        let pools_complete = complete(account, Kind::Pool);
        let may_exist = account.pools.len() - account.existing_pools().count();
        // The planner's model is dropped before the replay builds its own:
        // one model of the account at a time (each holds every pool).
        let (held, held_warnings) = held_pools(outcome, analysis, i);
        // Whether a pool exists moves every page boundary after it by name:
        // a page-wide clear only where the pools are known.
        let notifications = notification_steps_seen(account, per_page, pools_complete && may_exist == 0, &bodies, &held);
        let mut steps = notifications.steps;
        steps.extend(unaddressable_pools(outcome, analysis, i));
        steps.extend(certificate_steps(outcome, analysis, i, &notifications.corrected));
        let legacy_pools = account.existing_pools().filter(|p| !p.legacy_recipients.is_empty()).count();
        let proof = replay(Service::of(account).holding(&held), &steps)?;
        // The pools as the plan starts from them, then the same model run through the steps.
        let service = Service::of(account).holding(&held);
        let pools = service
            .pools
            .iter()
            .map(|p| super::state::PoolState::new(&p.id, &p.name, &p.recipients, p.events))
            .collect();
        let (needs, takes_over) = needs(service, &steps);
        // An update takes over the pools whose clears need it, whichever
        // pool it was first completed for.
        for (step, pools) in steps.iter_mut().zip(takes_over) {
            if let Request::UpdatePolicy { pools: named, .. } = step {
                *named = pools;
            }
        }
        let policies = relied_on(account, &steps, &needs, &bodies);
        let mut exported_policies: Vec<String> = account.policies.iter().map(|p| p.id.clone()).filter(|id| !id.is_empty()).collect();
        exported_policies.sort();
        exported_policies.dedup();
        let hostnames_by_zone = {
            let ids: std::collections::HashMap<_, &str> = account.zones.iter().filter_map(|z| Some((z.key, z.id.as_deref()?))).collect();
            let mut counts = std::collections::BTreeMap::<String, usize>::new();
            let existing = account.custom_hostnames.iter().filter(|h| !account.may_exist(&h.origin));
            for zone in existing.filter_map(|h| ids.get(&h.zone()?)) {
                *counts.entry(zone.to_string()).or_default() += 1;
            }
            counts
        };
        plans.push(AccountPlan {
            pools,
            policies,
            exported_policies,
            hostnames_by_zone,
            account_id: account.id.clone(),
            steps,
            proof,
            per_pool_requests: notifications.per_pool_requests,
            legacy_pools,
            held_pools: held.iter().filter(|id| !id.is_empty()).count(),
            may_exist_pools: may_exist,
            unaddressable_pools: account
                .existing_pools()
                .filter(|p| p.id.is_empty() && !p.legacy_recipients.is_empty())
                .count(),
            needs,
            pools_complete,
            warnings: {
                let mut all = warnings(account, legacy_pools, pools_complete);
                all.extend(may_exist_warning(account, may_exist));
                all.extend(held_warnings);
                all
            },
        });
    }
    Ok(plans)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use serde_json::json;

    use super::*;
    use crate::model::notification::HEALTH_ALERT_TYPE;
    use crate::model::notification::{Event, EventSource, Health, Pool};
    use crate::model::samples::{all_events, health_policy, pool, valued};

    fn named(id: &str, name: &str, recipients: &[&str], events: Vec<Event>) -> Pool {
        Pool {
            name: name.into(),
            ..pool(id, recipients, events)
        }
    }

    fn account(pools: Vec<Pool>, policies: Vec<crate::model::notification::Policy>) -> Account {
        Account {
            pools,
            policies,
            ..Account::default()
        }
    }

    fn steps_of(a: &Account, per_page: usize) -> Vec<Request> {
        notification_steps(a, per_page, &BTreeMap::new()).steps
    }

    fn creates_of(steps: &[Request]) -> Vec<Value> {
        steps
            .iter()
            .filter_map(|s| match s {
                Request::CreatePolicy { .. } => s.body_json(),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn pools_with_the_same_need_share_one_policy_and_are_cleared_in_one_page() {
        let a = account(
            vec![
                named("p1", "a", &["ops@x.io"], all_events()),
                named("p2", "b", &["OPS@x.io "], all_events()),
                named("p3", "c", &["other@x.io"], all_events()),
            ],
            vec![],
        );
        let steps = steps_of(&a, 25);
        let creates = creates_of(&steps);
        assert_eq!(creates.len(), 2, "{steps:#?}");
        let shared = creates
            .iter()
            .find(|b| b["filters"]["pool_id"] == json!(["p1", "p2"]))
            .expect("p1 and p2 share");
        assert_eq!(shared["mechanisms"]["email"], json!([{"id": "ops@x.io"}]));
        assert_eq!(shared["name"], "a and 1 more pool health alerts");
        assert!(matches!(steps.last(), Some(Request::ClearPage { page: 1, per_page: 25, pools }) if pools.len() == 3));
        assert_eq!(replay(Service::of(&a), &steps).map(|p| p.deliveries), Ok(12));
    }

    #[test]
    fn only_what_no_policy_delivers_is_created() {
        let mut existing = health_policy(&["ops@x.io"]);
        existing.pool_ids = valued(&["P1"]);
        existing.event_source = valued(&["pool"]);
        let a = account(vec![named("p1", "a", &["ops@x.io"], all_events())], vec![existing]);
        let steps = steps_of(&a, 25);
        let creates = creates_of(&steps);
        assert_eq!(creates.len(), 1);
        assert_eq!(
            creates[0]["filters"]["event_source"],
            json!(["origin"]),
            "pool events are delivered already"
        );
        assert_eq!(creates[0]["filters"]["new_health"], json!(["Healthy", "Unhealthy"]));
        // One legacy pool on the page: a per-pool clear is as cheap and clears nothing else.
        assert!(matches!(steps.last(), Some(Request::ClearPool { pool_id }) if pool_id == "p1"));
        assert!(replay(Service::of(&a), &steps).is_ok());
        // Fully covered already: no create, only the clear.
        let covered = account(
            vec![named("p1", "a", &["ops@x.io"], all_events())],
            vec![health_policy(&["ops@x.io"])],
        );
        assert_eq!(steps_of(&covered, 25).len(), 1);
    }

    #[test]
    fn a_page_holding_a_pool_that_is_not_replaced_is_cleared_pool_by_pool() {
        // On the model after creates: p2 (page 1) has no replacement.
        let mut service = Service::of(&account(
            vec![
                named("p1", "a", &["ops@x.io"], all_events()),
                named("p2", "b", &["dev@x.io"], all_events()),
                named("p3", "c", &["ops@x.io"], all_events()),
                named("p4", "d", &["ops@x.io"], all_events()),
            ],
            vec![],
        ));
        service.add_policy(ReachBuilder::all_pools_to("ops@x.io"));
        let steps = clears(&service, 2, true);
        assert_eq!(steps.len(), 2, "{steps:#?}");
        assert!(matches!(&steps[0], Request::ClearPool { pool_id } if pool_id == "p1"));
        assert!(matches!(&steps[1], Request::ClearPage { page: 2, per_page: 2, .. }));
    }

    struct ReachBuilder;

    impl ReachBuilder {
        fn all_pools_to(recipient: &str) -> crate::model::delivery::Reach {
            crate::model::delivery::Reach::of_body(
                "existing",
                &json!({"alert_type": HEALTH_ALERT_TYPE, "enabled": true, "mechanisms": {"email": [{"id": recipient}]}}),
            )
        }
    }

    #[test]
    fn the_replay_rejects_a_bulk_clear_before_the_policies_exist() {
        let a = account(
            vec![
                named("p1", "a", &["ops@x.io"], all_events()),
                named("p2", "b", &["ops@x.io"], all_events()),
            ],
            vec![],
        );
        let planned = steps_of(&a, 25);
        let (creates, clears): (Vec<Request>, Vec<Request>) = planned.into_iter().partition(|s| matches!(s, Request::CreatePolicy { .. }));
        let naive: Vec<Request> = clears.into_iter().chain(creates).collect();
        let refusal = replay(Service::of(&a), &naive).expect_err("the naive order loses alerts");
        assert_eq!(refusal.step, 1);
        assert_eq!(refusal.pool, "a (p1)");
        assert!(
            refusal
                .to_string()
                .contains("step 1 would lose an alert: pool a (p1) would no longer e-mail ops@x.io about pool Healthy"),
            "{refusal}"
        );
        // A plan that forgets a pool is refused at the end.
        let forgetful = vec![Request::ClearPool { pool_id: "p1".into() }];
        let covered = account(
            vec![
                named("p1", "a", &["ops@x.io"], all_events()),
                named("p2", "b", &["ops@x.io"], all_events()),
            ],
            vec![health_policy(&["ops@x.io"])],
        );
        assert_eq!(replay(Service::of(&covered), &forgetful).map_err(|r| r.step), Err(0));
        // A held pool must end as it began, even when a policy covers it.
        let held: std::collections::HashSet<String> = ["p2".to_string()].into();
        let both = vec![
            Request::ClearPool { pool_id: "p1".into() },
            Request::ClearPool { pool_id: "p2".into() },
        ];
        assert!(replay(Service::of(&covered).holding(&held), &forgetful).is_ok());
        let refusal = replay(Service::of(&covered).holding(&held), &both).expect_err("a held pool is cleared");
        assert!(refusal.to_string().contains("is kept as it is"), "{refusal}");
    }

    #[test]
    fn events_that_are_no_product_get_a_policy_per_source() {
        let events = vec![
            Event {
                source: EventSource::Pool,
                health: Health::Healthy,
            },
            Event {
                source: EventSource::Origin,
                health: Health::Unhealthy,
            },
        ];
        let a = account(vec![named("p1", "a", &["ops@x.io"], events)], vec![]);
        let steps = steps_of(&a, 25);
        assert_eq!(creates_of(&steps).len(), 2);
        assert!(replay(Service::of(&a), &steps).is_ok());
    }

    const ADDRESSES: [&str; 4] = ["a@x.io", "B@x.io", "c@y.org", "d@y.org"];

    fn arbitrary_pool(i: usize) -> impl Strategy<Value = Pool> {
        (
            prop::sample::subsequence(ADDRESSES.to_vec(), 0..=3),
            prop::sample::subsequence(all_events(), 0..=4),
            "[a-c]{1,2}",
        )
            .prop_map(move |(recipients, events, name)| named(&format!("p{i}"), &name, &recipients, events))
    }

    fn arbitrary_policy(pools: usize) -> impl Strategy<Value = crate::model::notification::Policy> {
        (
            prop::sample::subsequence(ADDRESSES.to_vec(), 0..=2),
            prop::collection::vec(0..pools.max(1), 0..=2),
            prop::sample::subsequence(vec!["pool", "origin", "Pool"], 0..=2),
            prop::sample::subsequence(vec!["Healthy", "Unhealthy", "unhealthy"], 0..=2),
            any::<bool>(),
            prop::bool::weighted(0.2),
        )
            .prop_map(|(recipients, pool_ids, sources, healths, enabled, webhook)| {
                let mut p = health_policy(&recipients);
                if webhook {
                    p.mechanisms.push(crate::model::notification::Mechanism {
                        kind: "webhooks".into(),
                        target: Some("hook".into()),
                    });
                }
                let ids: Vec<String> = pool_ids.iter().map(|i| format!("P{i}")).collect();
                let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
                p.pool_ids = valued(&ids);
                p.event_source = valued(&sources);
                p.new_health = valued(&healths);
                p.enabled = enabled;
                p
            })
    }

    fn arbitrary_account() -> impl Strategy<Value = (Account, usize)> {
        (1usize..12)
            .prop_flat_map(|n| {
                (
                    (0..n).map(arbitrary_pool).collect::<Vec<_>>(),
                    prop::collection::vec(arbitrary_policy(n), 0..4),
                    1usize..5,
                )
            })
            .prop_map(|(pools, mut policies, per_page)| {
                for (i, p) in policies.iter_mut().enumerate() {
                    p.id = format!("pol{i}");
                }
                (account(pools, policies), per_page)
            })
    }

    /// An account and the exported bodies of some of its policies (the
    /// others came without a readable record).
    fn arbitrary_account_with_bodies() -> impl Strategy<Value = (Account, usize, BTreeMap<String, serde_json::Map<String, Value>>)> {
        (arbitrary_account(), prop::collection::vec(prop::bool::weighted(0.8), 4)).prop_map(|((a, per_page), readable)| {
            let bodies = a
                .policies
                .iter()
                .zip(readable)
                .filter(|(_, readable)| *readable)
                .map(|(p, _)| (p.id.clone(), crate::model::samples::api_body(p)))
                .collect();
            (a, per_page, bodies)
        })
    }

    proptest! {
        /// Whatever the pools, filters, recipients, existing (partial, broken,
        /// disabled) policies and name orders, the planner's plan passes its
        /// own replay, and it sends no more notification requests than a
        /// pool-by-pool migration.
        #[test]
        fn the_planner_never_produces_a_plan_the_replay_rejects((a, per_page) in arbitrary_account()) {
            let steps = steps_of(&a, per_page);
            prop_assert!(replay(Service::of(&a), &steps).is_ok(), "{:#?}", steps);
            let service = Service::of(&a);
            let per_pool = per_pool_requests(&service);
            prop_assert!(steps.len() <= per_pool, "{} steps against {} pool by pool", steps.len(), per_pool);
        }

        /// With existing policies corrected and completed from their records:
        /// the replay passes, no more requests than pool by pool, and no
        /// policy e-mails anyone about anything that neither a legacy e-mail
        /// nor a policy (once its misspellings are corrected) did before.
        #[test]
        fn updates_keep_every_alert_and_add_none_nobody_had((a, per_page, bodies) in arbitrary_account_with_bodies()) {
            let planned = notification_steps(&a, per_page, &bodies);
            prop_assert!(replay(Service::of(&a), &planned.steps).is_ok(), "{:#?}", planned.steps);
            prop_assert!(planned.steps.len() <= planned.per_pool_requests, "{} steps against {} pool by pool", planned.steps.len(), planned.per_pool_requests);
            let mut before = Service::of(&a);
            let _ = crate::plan::complete::correct(&mut before, &bodies);
            let mut after = Service::of(&a);
            for step in &planned.steps {
                prop_assert!(after.apply(step).is_ok());
            }
            for (i, pool) in before.pools.iter().enumerate() {
                let id = pool.id.to_ascii_lowercase();
                for event in crate::model::samples::all_events() {
                    for r in ADDRESSES.iter().map(|r| r.to_ascii_lowercase()) {
                        let legacy = pool.events.iter().any(|e| e == event) && pool.recipients.contains(&r);
                        prop_assert!(
                            !after.by_policy(&id, event, &r) || before.by_policy(&id, event, &r) || legacy,
                            "pool {i} now e-mails {r} about {event}: {:#?}", planned.steps
                        );
                    }
                }
            }
        }

        /// `depends_on` names every step a clear needs: run each clear right
        /// after the steps it depends on (and the steps those are, in plan
        /// order), before anything else, and it loses no delivery of the
        /// pools it clears.
        #[test]
        fn each_clear_right_after_its_dependencies_loses_no_alert((a, per_page, bodies) in arbitrary_account_with_bodies()) {
            let steps = notification_steps(&a, per_page, &bodies).steps;
            let (needs, _) = needs(Service::of(&a), &steps);
            for (i, step) in steps.iter().enumerate() {
                if !matches!(step, Request::ClearPage { .. } | Request::ClearPool { .. }) {
                    continue;
                }
                let mut early = Service::of(&a);
                let before = early.clone();
                for &d in &needs[i].steps {
                    prop_assert!(d < i, "a step depends on a later one");
                    prop_assert!(early.apply(&steps[d]).is_ok());
                }
                let cleared = cleared_by(&early, step);
                prop_assert!(early.apply(step).is_ok());
                for p in cleared {
                    let pool = &before.pools[p];
                    for event in pool.events.iter() {
                        for r in &pool.recipients {
                            let id = pool.id.to_ascii_lowercase();
                            prop_assert!(early.by_policy(&id, event, r), "step {} run early loses {} about {} on {}: {:#?}", i + 1, r, event, pool.id, steps);
                        }
                    }
                }
            }
        }

        /// Clearing before creating loses an alert whenever a legacy delivery
        /// has no policy yet, and the replay says so.
        #[test]
        fn a_naive_plan_is_rejected_whenever_it_would_lose_an_alert((a, per_page) in arbitrary_account()) {
            let service = Service::of(&a);
            let unreplaced = service.legacy_deliveries().iter().any(|d| !service.by_policy(&service.pools[d.pool].id.to_ascii_lowercase(), d.event, &d.recipient));
            let planned = steps_of(&a, per_page);
            let (creates, clears): (Vec<Request>, Vec<Request>) = planned.into_iter().partition(|s| matches!(s, Request::CreatePolicy { .. }));
            let naive: Vec<Request> = clears.into_iter().chain(creates).collect();
            prop_assert_eq!(replay(service, &naive).is_err(), unreplaced);
        }
    }
}
