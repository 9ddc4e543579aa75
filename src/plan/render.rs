//! The plan in three forms, all rendered from the same typed steps: JSON (the
//! plan as data, with the state it relies on: what `apply` runs), Markdown
//! for a change review, and Terraform blocks.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::build::AccountPlan;
use super::request::{Request, StepKind};
use super::step::{ACCOUNT_PLACEHOLDER, PlanStep};
use crate::model::notification::NewPolicy;
use crate::words::plural;

/// How many steps of each sort, and what they add up to.
pub struct Tally {
    pub steps: usize,
    pub requests: usize,
    pub creates: usize,
    pub updates: usize,
    pub page_clears: usize,
    pub pool_clears: usize,
    pub certificate_changes: usize,
    pub manual: usize,
}

impl Tally {
    pub fn of(plans: &[AccountPlan]) -> Tally {
        let mut t = Tally {
            steps: 0,
            requests: 0,
            creates: 0,
            updates: 0,
            page_clears: 0,
            pool_clears: 0,
            certificate_changes: 0,
            manual: 0,
        };
        for step in plans.iter().flat_map(|p| &p.steps) {
            t.steps += 1;
            t.requests += usize::from(step.is_request());
            match step {
                Request::CreatePolicy { .. } => t.creates += 1,
                Request::UpdatePolicy { .. } => t.updates += 1,
                Request::ClearPage { .. } => t.page_clears += 1,
                Request::ClearPool { .. } => t.pool_clears += 1,
                Request::EditCustomHostname { .. } | Request::SetTotalTls { .. } | Request::SetUniversalSsl { .. } => {
                    t.certificate_changes += 1
                }
                Request::Manual { .. } | Request::Terraform(_) => t.manual += 1,
            }
        }
        t
    }

    /// `12 steps, 31 requests; replayed on a model of the service: no alert lost at any step (40 deliveries checked after every step)`.
    pub fn headline(&self, plans: &[AccountPlan]) -> String {
        let deliveries: usize = plans.iter().map(|p| p.proof.deliveries).sum();
        let per_pool: usize = plans.iter().map(|p| p.per_pool_requests).sum();
        let scope = match (
            plans.iter().all(|p| p.pools_complete),
            plans.iter().map(|p| p.may_exist_pools).sum::<usize>(),
        ) {
            (true, 0) => "every pool of the account was loaded".to_string(),
            (true, may_exist) => format!(
                "the proof covers the pools that exist whatever a run gives the configuration: {} that may exist {} not modelled (EX005)",
                plural(may_exist, "pool", "pools"),
                if may_exist == 1 { "is" } else { "are" }
            ),
            (false, _) => "the proof covers only the pools loaded: the pools export is incomplete (EX001)".to_string(),
        };
        let held: usize = plans.iter().map(|p| p.held_pools).sum();
        let unaddressable: usize = plans.iter().map(|p| p.unaddressable_pools).sum();
        let mut why = Vec::new();
        if held > 0 {
            why.push(format!("{} whose finding is waived", plural(held, "pool", "pools")));
        }
        if unaddressable > 0 {
            why.push(format!(
                "{} whose export gives no id (a manual step each)",
                plural(unaddressable, "pool", "pools")
            ));
        }
        let kept = match why.is_empty() {
            true => "no pool keeps a legacy e-mail".to_string(),
            false => format!("no pool keeps a legacy e-mail but those kept as they are: {}", why.join(", ")),
        };
        format!(
            "{}, {}: {}, {}, {} page-wide and {} per-pool clears (a pool-by-pool migration would send {} for these), {}, {}; replayed on a model of the service: no alert lost at any step ({} checked after every step), and {kept}; {scope}",
            plural(self.steps, "step", "steps"),
            plural(self.requests, "request", "requests"),
            plural(self.creates, "policy create", "policy creates"),
            plural(self.updates, "policy update", "policy updates"),
            self.page_clears,
            self.pool_clears,
            plural(per_pool, "request", "requests"),
            plural(self.certificate_changes, "certificate change", "certificate changes"),
            plural(self.manual, "manual step", "manual steps"),
            plural(deliveries, "legacy delivery", "legacy deliveries"),
        )
    }
}

/// The account as a path writes it: its id, or the shell variable / placeholder.
pub(super) fn account_in_path(plan: &AccountPlan, placeholder: &str) -> String {
    plan.account_id
        .as_deref()
        .map_or_else(|| placeholder.to_string(), super::request::segment)
}

pub(super) fn numbered(plans: &[AccountPlan]) -> Vec<(usize, &AccountPlan, &Request)> {
    plans
        .iter()
        .flat_map(|p| p.steps.iter().map(move |s| (p, s)))
        .enumerate()
        .map(|(i, (p, s))| (i + 1, p, s))
        .collect()
}

/// The plan's identity ([`super::document::PlanFile::digest`]) of a plan
/// document: the digest of what `apply` reads of it, as anyone who edits a
/// plan file can compute it (tests seal edited plans with it). A document
/// that is not a plan has an id no plan has. `plan` itself digests what it
/// writes without making the document a value.
pub fn digest(document: &Value) -> String {
    use sha2::Digest;
    match serde_json::from_value::<super::document::PlanFile>(document.clone()) {
        Ok(plan) => plan.digest(),
        Err(_) => {
            let text = serde_json::to_vec(document).unwrap_or_default();
            sha2::Sha256::digest(&text).iter().take(16).map(|b| format!("{b:02x}")).collect()
        }
    }
}

/// The marker a created policy carries in its `description`: plan and step,
/// looked up by `apply` so that no policy is created twice.
pub fn marker(plan_id: &str, step: usize) -> String {
    format!("[edgeaudit plan {plan_id} step {step}]")
}

/// A created policy's `description`: what it is for, and its marker. `apply`
/// refuses a create whose description is any other text.
pub fn created_description(pools: usize, marker: &str) -> String {
    format!(
        "Takes over the legacy notification_email of {}. {marker}",
        plural(pools, "pool", "pools")
    )
}

/// The pools (by id) on page `page` of `per_page`, in the bulk clear's order.
fn page_pools(plan: &AccountPlan, per_page: usize, page: usize) -> Vec<&str> {
    plan.pools
        .iter()
        .skip(page.saturating_sub(1).saturating_mul(per_page))
        .take(per_page)
        .map(|p| p.id.as_str())
        .collect()
}

/// One step as data: what `apply` sends and what it checks first, its
/// request shown as `method` and `path` from the same typed ids `apply`
/// builds it from.
fn step_json(n: usize, first: usize, plan: &AccountPlan, index: usize, s: &Request) -> PlanStep {
    let needs = plan.needs.get(index).cloned().unwrap_or_default();
    let mut step = PlanStep {
        step: n,
        kind: s.kind(),
        reason: s.reason(),
        depends_on: needs.steps.iter().map(|i| first + i).collect(),
        relies_on_policies: needs.policies.clone(),
        body: s.body_json(),
        ..PlanStep::default()
    };
    match s {
        // Its marker and description are made from the plan's id (`json`).
        Request::CreatePolicy { pools, .. } => step.pools = pools.clone(),
        Request::UpdatePolicy { pools, policy_id, .. } => {
            step.pools = pools.clone();
            step.policy_id = Some(policy_id.clone());
        }
        Request::ClearPage { pools, per_page, page } => {
            step.pools = pools.clone();
            step.page_pools = page_pools(plan, *per_page, *page).into_iter().map(str::to_string).collect();
            step.per_page = Some(*per_page);
            step.page = Some(*page);
        }
        Request::ClearPool { pool_id } => step.pools = vec![pool_id.clone()],
        Request::EditCustomHostname { zone_id, hostname_id, .. } => {
            step.zone_id = Some(zone_id.clone());
            step.hostname_id = Some(hostname_id.clone());
            step.expects = Some(json!({"certificate_authority": Request::MOVES_OFF, "hostname_id": hostname_id}));
        }
        Request::SetTotalTls { zone_id, .. } | Request::SetUniversalSsl { zone_id, .. } => {
            step.zone_id = Some(zone_id.clone());
            step.expects = Some(json!({"certificate_authority": Request::MOVES_OFF}));
        }
        Request::Manual { .. } | Request::Terraform(_) => {}
    }
    step.show_request(plan.account_id.as_deref().unwrap_or(ACCOUNT_PLACEHOLDER));
    step
}

/// The JSON plan, serialised as it is (its pools' state is the bulk of a
/// large plan, and is written from the plan without a copy as JSON values).
/// Members in alphabetical order, as a JSON value writes them; the parts
/// the reader holds as types (summary, proof) are those types, so the id
/// digested here is the reader's whatever order a JSON map keeps.
#[derive(serde::Serialize)]
pub struct PlanDocument<'a> {
    accounts: Vec<AccountDocument<'a>>,
    as_of: String,
    /// The page size of the page-wide clears it was made with (`plan --per-page`).
    per_page: usize,
    pub plan_id: String,
    summary: super::document::Summary,
    version: u32,
}

/// The version of the plan document this edgeaudit writes and runs.
pub const VERSION: u32 = 4;

#[derive(serde::Serialize)]
struct AccountDocument<'a> {
    account_id: &'a Option<String>,
    legacy_pools: usize,
    pools_complete: bool,
    proof: super::document::ProofDocument,
    state: StateDocument<'a>,
    steps: StepsDocument<'a>,
    warnings: &'a [String],
}

/// An account's steps as the document writes them: each made from the
/// planner's request when it is written (or digested) and dropped after, so
/// a plan of a million steps never holds them all as JSON values.
struct StepsDocument<'a> {
    plan: &'a AccountPlan,
    /// The number of the account's first step.
    first: usize,
    /// The plan's id, once known: a create's marker and description are made from it.
    plan_id: Option<String>,
}

impl StepsDocument<'_> {
    fn each(&self) -> impl Iterator<Item = PlanStep> + '_ {
        self.plan.steps.iter().enumerate().map(|(i, s)| {
            let mut step = step_json(self.first + i, self.first, self.plan, i, s);
            if let (Some(plan_id), StepKind::CreatePolicy) = (&self.plan_id, step.kind) {
                let marker = marker(plan_id, step.step);
                if let Some(body) = step.body.as_mut().and_then(Value::as_object_mut) {
                    body.insert("description".into(), json!(created_description(step.pools.len(), &marker)));
                }
                step.marker = Some(marker);
            }
            step
        })
    }
}

impl serde::Serialize for StepsDocument<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = serializer.serialize_seq(Some(self.plan.steps.len()))?;
        for step in self.each() {
            seq.serialize_element(&step)?;
        }
        seq.end()
    }
}

#[derive(serde::Serialize)]
struct StateDocument<'a> {
    /// The custom hostnames the certificate steps change: only these may be.
    custom_hostnames: Vec<super::state::HostnameState>,
    exported_policies: &'a [String],
    policies: &'a [super::state::PolicyState],
    pools: &'a [super::state::PoolState],
    /// The zones whose settings the certificate steps change: only these may be.
    zones: Vec<String>,
    /// How many custom hostnames the list of each zone the steps change
    /// hostnames of holds (for `apply`'s estimate of its reads).
    zone_hostnames: std::collections::BTreeMap<String, usize>,
}

impl StateDocument<'_> {
    fn of(plan: &AccountPlan) -> StateDocument<'_> {
        let mut custom_hostnames = Vec::new();
        let mut zones = Vec::new();
        for step in &plan.steps {
            match step {
                Request::EditCustomHostname { zone_id, hostname_id, .. } => custom_hostnames.push(super::state::HostnameState {
                    id: hostname_id.clone(),
                    zone_id: zone_id.clone(),
                }),
                Request::SetTotalTls { zone_id, .. } | Request::SetUniversalSsl { zone_id, .. } => zones.push(zone_id.clone()),
                _ => {}
            }
        }
        custom_hostnames.sort();
        custom_hostnames.dedup();
        let zone_hostnames = custom_hostnames
            .iter()
            .map(|h| (h.zone_id.clone(), plan.hostnames_by_zone.get(&h.zone_id).copied().unwrap_or(0)))
            .collect();
        zones.sort();
        zones.dedup();
        StateDocument {
            custom_hostnames,
            exported_policies: &plan.exported_policies,
            policies: &plan.policies,
            pools: &plan.pools,
            zones,
            zone_hostnames,
        }
    }
}

/// The JSON plan, its `plan_id` the digest of the rest (see [`digest`]).
pub fn json(plans: &[AccountPlan], as_of: chrono::NaiveDate, per_page: usize) -> PlanDocument<'_> {
    let mut document = document(plans, as_of, per_page);
    let plan_id = {
        let mut digest = super::document::PlanDigest::new(VERSION, &document.as_of, document.per_page, &document.summary);
        for account in &document.accounts {
            digest.account(
                super::document::AccountHead {
                    account_id: account.account_id,
                    legacy_pools: account.legacy_pools,
                    pools_complete: account.pools_complete,
                    proof: &account.proof,
                    warnings: account.warnings,
                },
                &account.state,
                &super::steps::digest_of_steps(account.steps.each()),
            );
        }
        digest.finish()
    };
    // The markers are made from the id (which does not read them): written
    // with the steps once it is known.
    for account in &mut document.accounts {
        account.steps.plan_id = Some(plan_id.clone());
    }
    document.plan_id = plan_id;
    document
}

fn document(plans: &[AccountPlan], as_of: chrono::NaiveDate, per_page: usize) -> PlanDocument<'_> {
    let tally = Tally::of(plans);
    let mut first = 1;
    let accounts = plans
        .iter()
        .map(|plan| {
            let steps = StepsDocument {
                plan,
                first,
                plan_id: None,
            };
            first += plan.steps.len();
            AccountDocument {
                account_id: &plan.account_id,
                legacy_pools: plan.legacy_pools,
                pools_complete: plan.pools_complete,
                proof: super::document::ProofDocument {
                    result: "no alert lost at any step".to_string(),
                    legacy_deliveries: plan.proof.deliveries,
                    steps_replayed: plan.proof.steps,
                    covers: match (plan.pools_complete, plan.may_exist_pools) {
                        (true, 0) => "every pool of the account",
                        (true, _) => {
                            "the pools that exist whatever a run gives the configuration (those that may exist are not modelled: EX005)"
                        }
                        (false, _) => "only the pools loaded: the pools export is incomplete (EX001)",
                    }
                    .to_string(),
                },
                state: StateDocument::of(plan),
                steps,
                warnings: &plan.warnings,
            }
        })
        .collect();
    PlanDocument {
        accounts,
        as_of: as_of.to_string(),
        per_page,
        plan_id: String::new(),
        summary: super::document::Summary {
            steps: tally.steps,
            requests: tally.requests,
            policy_creates: tally.creates,
            policy_updates: tally.updates,
            page_clears: tally.page_clears,
            pool_clears: tally.pool_clears,
            certificate_changes: tally.certificate_changes,
            manual_steps: tally.manual,
            per_pool_requests: plans.iter().map(|p| p.per_pool_requests).sum::<usize>(),
            text: tally.headline(plans),
        },
        version: VERSION,
    }
}

/// The plan for a change review. Every value from outside (ids, names,
/// bodies, the reasons that name them) is in a code span
/// (`text::escape::markdown`): nothing in the account can add a link, a
/// mention, HTML that hides the steps after it, or a row of its own.
pub fn markdown(plans: &[AccountPlan], as_of: chrono::NaiveDate, plan_id: &str) -> String {
    use crate::text::escape::markdown::{cell, code};
    let tally = Tally::of(plans);
    let mut out = String::new();
    let _ = writeln!(out, "# edgeaudit migration plan\n");
    // The headline is counts in our words: no text from outside.
    let _ = writeln!(out, "Plan {} · as of {as_of}. {}.\n", code(plan_id), tally.headline(plans));
    let _ = writeln!(
        out,
        "Order: existing policies are corrected and completed (PUT, the exported policy with only filter values and e-mail recipients changed) and missing ones created first; a pool's `notification_email` is cleared only once every (event, recipient) it e-mails is delivered by a policy; certificate changes come last. A page-wide clear (`?per_page=N&page=P`, pools by name) is used only where every pool with a legacy e-mail on that page is replaced by then.\n"
    );
    for plan in plans {
        if plans.len() > 1 || plan.account_id.is_some() {
            let _ = writeln!(
                out,
                "## Account {}\n",
                plan.account_id.as_deref().map_or_else(|| "(unnamed)".to_string(), code)
            );
        }
        for warning in &plan.warnings {
            let _ = writeln!(out, "> **Warning:** {}\n", code(warning));
        }
        let _ = writeln!(out, "| # | Request | Why |\n|---:|---|---|");
        for (n, p, step) in numbered(plans) {
            if !std::ptr::eq(p, plan) {
                continue;
            }
            let request = match (step.method(), step.path(&account_in_path(p, "{account_id}")), step.body()) {
                (Some(m), Some(path), Some(body)) => format!("{} {}", code(&format!("{m} {path}")), code(&body)),
                _ => "manual".to_string(),
            };
            let _ = writeln!(out, "| {n} | {} | {} |", cell(&request), cell(&code(&step.reason())));
        }
        out.push('\n');
    }
    out
}

/// How the plan's pools are named in a configuration: by address (from
/// Terraform), with the provider generation each was read in. By account
/// too: two configurations' pools `web` share their reference id.
pub struct PoolNames {
    pools: std::collections::HashMap<(Option<String>, String), (String, super::terraform::Generation)>,
}

impl PoolNames {
    pub fn of(inventory: &crate::model::Inventory) -> PoolNames {
        let pools = inventory
            .accounts
            .iter()
            .flat_map(|a| a.pools.iter().map(move |p| (a, p)))
            .filter_map(|(a, p)| {
                let address = p.origin.address()?.to_string();
                Some(((a.id.clone(), p.id.clone()), (address, super::terraform::Generation::of(p.fields))))
            })
            .collect();
        PoolNames { pools }
    }

    fn get(&self, account: &Option<String>, id: &str) -> Option<&(String, super::terraform::Generation)> {
        self.pools.get(&(account.clone(), id.to_string()))
    }

    fn name<'a>(&'a self, account: &Option<String>, id: &'a str) -> &'a str {
        self.get(account, id).map_or(id, |(address, _)| address.as_str())
    }

    /// The generation of a policy body's block: its pools' (one
    /// configuration, one generation), v5 when none is of Terraform.
    fn generation(&self, account: &Option<String>, body: &NewPolicy) -> super::terraform::Generation {
        body.filters
            .pool_id
            .iter()
            .filter_map(|id| Some(self.get(account, id)?.1))
            .next()
            .unwrap_or(super::terraform::Generation::V5)
    }
}

/// A resource label for a policy's name, not yet taken: two policies of one
/// name get two resource names.
fn unique_label(labels: &mut std::collections::HashSet<String>, name: &str) -> String {
    let label = super::terraform::label(name);
    let mut unique = label.clone();
    let mut n = 1;
    while !labels.insert(unique.clone()) {
        n += 1;
        unique = format!("{label}_{n}");
    }
    unique
}

/// `plan --format terraform`: the policies to add as resource blocks (in the
/// plan's order, each naming its pools by reference where it can), then the
/// pools to remove `notification_email` from once they are applied, and the
/// steps that are no Terraform edit as comments.
/// Text from outside appears only in HCL strings and in one-line comments
/// (`text::escape::hcl`): no name can add a block.
pub fn terraform(plans: &[AccountPlan], names: &PoolNames) -> String {
    use crate::text::escape::hcl::comment;
    let mut out = String::from(
        "# edgeaudit plan --format terraform: add these resources, apply, then remove\n# `notification_email` from the pools listed at the end, and apply again.\n",
    );
    for plan in plans {
        if let Some(account) = &plan.account_id {
            out.push_str(&format!("\n# Account {}\n", comment(account)));
        }
        for warning in &plan.warnings {
            out.push_str(&format!("\n# Warning: {}\n", comment(warning)));
        }
        let mut cleared: Vec<&str> = Vec::new();
        let mut labels = std::collections::HashSet::new();
        for step in &plan.steps {
            match step {
                Request::CreatePolicy { body, .. } => {
                    let unique = unique_label(&mut labels, &body.name);
                    out.push('\n');
                    out.push_str(&super::terraform::policy_block(
                        body,
                        &unique,
                        names.generation(&plan.account_id, body),
                    ));
                    out.push('\n');
                }
                Request::UpdatePolicy { policy_id, body, .. } => {
                    let name = body.get("name").and_then(Value::as_str).unwrap_or(policy_id);
                    let unique = unique_label(&mut labels, name);
                    out.push_str(&format!("\n# {}\n", comment(&step.reason())));
                    out.push_str(&super::terraform::updated_policy_block(
                        policy_id,
                        body,
                        &unique,
                        plan.account_id.as_deref(),
                    ));
                    out.push('\n');
                }
                Request::ClearPage { pools, .. } => cleared.extend(pools.iter().map(|id| names.name(&plan.account_id, id))),
                Request::ClearPool { pool_id } => cleared.push(names.name(&plan.account_id, pool_id)),
                other => {
                    out.push('\n');
                    // One comment line: a line break in a name stays escaped.
                    out.push_str(&format!("# {}\n", comment(&other.reason())));
                }
            }
        }
        if !cleared.is_empty() {
            out.push_str("\n# Once the policies above are applied, remove `notification_email` from:\n");
            for pool in cleared {
                out.push_str(&format!("#   {}\n", comment(pool)));
            }
        }
    }
    out
}
