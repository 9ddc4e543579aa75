//! The plan in three forms, all rendered from the same typed steps: JSON (the
//! plan as data), a bash script (curl, resumable), and Markdown for a change
//! review.

use std::collections::HashMap;
use std::fmt::Write as _;

use serde_json::{Value, json};

use super::build::AccountPlan;
use super::request::Request;
use crate::model::notification::NewPolicy;
use crate::report::terminal::escaped;
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
                Request::EditCustomHostname { .. } | Request::SetTotalTls { .. } => t.certificate_changes += 1,
                Request::Manual { .. } | Request::Terraform(_) => t.manual += 1,
            }
        }
        t
    }

    /// `12 steps, 31 requests; replayed on a model of the service: no alert lost at any step (40 deliveries checked after every step)`.
    pub fn headline(&self, plans: &[AccountPlan]) -> String {
        let deliveries: usize = plans.iter().map(|p| p.proof.deliveries).sum();
        let per_pool: usize = plans.iter().map(|p| p.per_pool_requests).sum();
        format!(
            "{}, {}: {}, {}, {} page-wide and {} per-pool clears (a pool-by-pool migration would send {} for these), {}, {}; replayed on a model of the service: no alert lost at any step ({} checked after every step), and no pool keeps a legacy e-mail",
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
fn account_in_path(plan: &AccountPlan, placeholder: &str) -> String {
    plan.account_id
        .as_deref()
        .map_or_else(|| placeholder.to_string(), super::request::segment)
}

/// The create and update steps (1-based) that replace each pool, by lower-cased pool id.
fn creates_by_pool(steps: &[(usize, &AccountPlan, &Request)]) -> HashMap<String, Vec<usize>> {
    let mut by_pool: HashMap<String, Vec<usize>> = HashMap::new();
    for (n, _, step) in steps {
        if let Request::CreatePolicy { pools, .. } | Request::UpdatePolicy { pools, .. } = step {
            for p in pools {
                by_pool.entry(p.to_ascii_lowercase()).or_default().push(*n);
            }
        }
    }
    by_pool
}

/// The steps a clear depends on: the creates and updates that replace its pools.
fn depends_on(creates: &HashMap<String, Vec<usize>>, step: &Request) -> Vec<usize> {
    let cleared: Vec<&String> = match step {
        Request::ClearPage { pools, .. } => pools.iter().collect(),
        Request::ClearPool { pool_id } => vec![pool_id],
        _ => return Vec::new(),
    };
    let mut steps: Vec<usize> = cleared
        .into_iter()
        .flat_map(|p| creates.get(&p.to_ascii_lowercase()).into_iter().flatten().copied())
        .collect();
    steps.sort_unstable();
    steps.dedup();
    steps
}

fn numbered(plans: &[AccountPlan]) -> Vec<(usize, &AccountPlan, &Request)> {
    plans
        .iter()
        .flat_map(|p| p.steps.iter().map(move |s| (p, s)))
        .enumerate()
        .map(|(i, (p, s))| (i + 1, p, s))
        .collect()
}

pub fn json(plans: &[AccountPlan], as_of: chrono::NaiveDate) -> Value {
    let all = numbered(plans);
    let creates = creates_by_pool(&all);
    let tally = Tally::of(plans);
    json!({
        "version": 1,
        "as_of": as_of.to_string(),
        "summary": {
            "steps": tally.steps,
            "requests": tally.requests,
            "policy_creates": tally.creates,
            "policy_updates": tally.updates,
            "page_clears": tally.page_clears,
            "pool_clears": tally.pool_clears,
            "certificate_changes": tally.certificate_changes,
            "manual_steps": tally.manual,
            "per_pool_requests": plans.iter().map(|p| p.per_pool_requests).sum::<usize>(),
            "text": tally.headline(plans),
        },
        "accounts": plans.iter().map(|plan| json!({
            "account_id": plan.account_id,
            "legacy_pools": plan.legacy_pools,
            "proof": {
                "result": "no alert lost at any step",
                "legacy_deliveries": plan.proof.deliveries,
                "steps_replayed": plan.proof.steps,
            },
            "steps": all.iter().filter(|(_, p, _)| std::ptr::eq(*p, plan)).map(|(n, p, s)| {
                let mut step = json!({
                    "step": n,
                    "reason": s.reason(),
                    "depends_on": depends_on(&creates, s),
                });
                if let (Some(method), Some(path)) = (s.method(), s.path(&account_in_path(p, "{account_id}"))) {
                    step["method"] = json!(method);
                    step["path"] = json!(path);
                    step["body"] = s.body_json().unwrap_or(Value::Null);
                } else {
                    step["manual"] = json!(true);
                }
                match s {
                    Request::CreatePolicy { pools, .. }
                    | Request::UpdatePolicy { pools, .. }
                    | Request::ClearPage { pools, .. } => step["pools"] = json!(pools),
                    Request::ClearPool { pool_id } => step["pools"] = json!([pool_id]),
                    _ => {}
                }
                step
            }).collect::<Vec<Value>>(),
        })).collect::<Vec<Value>>(),
    })
}

/// Where the account goes in a path of an account the export does not name.
const ACCOUNT_MARK: &str = "\u{0}ACCOUNT\u{0}";

/// A single-quoted shell word.
fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// A bash script: `set -euo pipefail`, the token from `CLOUDFLARE_API_TOKEN`,
/// the base URL from `CLOUDFLARE_API_BASE`; it stops at the first response
/// whose `success` is not true and says how to resume from that step.
pub fn shell(plans: &[AccountPlan]) -> String {
    let tally = Tally::of(plans);
    let mut out = String::new();
    let _ = writeln!(out, "#!/usr/bin/env bash");
    let _ = writeln!(
        out,
        "# Written by `edgeaudit plan`. Review it, then run it: bash plan.sh [FIRST_STEP]"
    );
    let _ = writeln!(out, "# {}.", tally.headline(plans));
    let _ = writeln!(
        out,
        "# Needs CLOUDFLARE_API_TOKEN; CLOUDFLARE_API_BASE defaults to the v4 API; CLOUDFLARE_ACCOUNT_ID is used where the export names no account."
    );
    out.push_str(
        r#"set -euo pipefail
: "${CLOUDFLARE_API_TOKEN:?set CLOUDFLARE_API_TOKEN to an API token that may edit load balancing, notifications and SSL}"
API="${CLOUDFLARE_API_BASE:-https://api.cloudflare.com/client/v4}"
FIRST="${1:-1}"
script="$0"

# step NUMBER METHOD PATH BODY: sends one request unless it comes before FIRST.
step() {
  local n="$1" method="$2" path="$3" body="$4" response
  if [ "$n" -lt "$FIRST" ]; then return 0; fi
  echo "step $n: $method $path" >&2
  if ! response=$(curl -sS -X "$method" "$API$path" \
      -H "Authorization: Bearer $CLOUDFLARE_API_TOKEN" \
      -H "Content-Type: application/json" \
      --data "$body"); then
    echo "step $n failed: no answer from $API. Nothing after it was sent; resume with: bash $script $n" >&2
    exit 1
  fi
  # No pipe: with pipefail, a reader that stops early would fail the step.
  local compact="${response//[[:space:]]/}"
  if [[ "$compact" != *'"success":true'* ]]; then
    echo "step $n failed: the API answered: $response" >&2
    echo "Nothing after it was sent; resume with: bash $script $n" >&2
    exit 1
  fi
}

# manual NUMBER TEXT: a step for a person, listed (manual steps come last,
# after every request).
manual_steps=0
manual() {
  local n="$1" text="$2"
  if [ "$n" -lt "$FIRST" ]; then return 0; fi
  echo "step $n is yours to do: $text" >&2
  manual_steps=$((manual_steps + 1))
}

"#,
    );
    if plans.iter().any(|p| p.account_id.is_none()) {
        out.push_str("ACCOUNT=\"${CLOUDFLARE_ACCOUNT_ID:?the export names no account: set CLOUDFLARE_ACCOUNT_ID}\"\n\n");
    }
    for (n, plan, step) in numbered(plans) {
        // Everything from the export is single-quoted; only the account variable is expanded.
        let account = plan
            .account_id
            .as_deref()
            .map_or_else(|| ACCOUNT_MARK.to_string(), super::request::segment);
        let path = step
            .path(&account)
            .map(|path| path.split(ACCOUNT_MARK).map(quoted).collect::<Vec<_>>().join("\"$ACCOUNT\""));
        let _ = writeln!(out, "# {}", escaped(&step.reason()));
        match (step.method(), path, step.body()) {
            (Some(method), Some(path), Some(body)) => {
                let _ = writeln!(out, "step {n} {method} {path} {}", quoted(&body));
            }
            _ => {
                let _ = writeln!(out, "manual {n} {}", quoted(&escaped(&step.reason())));
            }
        }
    }
    out.push_str("if [ \"$manual_steps\" -gt 0 ]; then\n  echo \"done: every request ran; $manual_steps manual steps above are yours to do\" >&2\nelse\n  echo \"done: every step ran\" >&2\nfi\n");
    out
}

pub fn markdown(plans: &[AccountPlan], as_of: chrono::NaiveDate) -> String {
    let tally = Tally::of(plans);
    let mut out = String::new();
    let _ = writeln!(out, "# edgeaudit migration plan\n");
    let _ = writeln!(out, "As of {as_of}. {}.\n", tally.headline(plans));
    let _ = writeln!(
        out,
        "Order: existing policies are corrected and completed (PUT, the exported policy with only filter values and e-mail recipients changed) and missing ones created first; a pool's `notification_email` is cleared only once every (event, recipient) it e-mails is delivered by a policy; certificate changes come last. A page-wide clear (`?per_page=N&page=P`, pools by name) is used only where every pool with a legacy e-mail on that page is replaced by then.\n"
    );
    for plan in plans {
        if plans.len() > 1 || plan.account_id.is_some() {
            let _ = writeln!(out, "## Account {}\n", plan.account_id.as_deref().unwrap_or("(unnamed)"));
        }
        let _ = writeln!(out, "| # | Request | Why |\n|---:|---|---|");
        for (n, p, step) in numbered(plans) {
            if !std::ptr::eq(p, plan) {
                continue;
            }
            let request = match (step.method(), step.path(&account_in_path(p, "{account_id}")), step.body()) {
                (Some(m), Some(path), Some(body)) => format!("`{m} {path}` `{body}`"),
                _ => "manual".to_string(),
            };
            let _ = writeln!(
                out,
                "| {n} | {} | {} |",
                request.replace('|', "\\|"),
                step.reason().replace('|', "\\|")
            );
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

/// `plan --format terraform`: the policies to add as resource blocks (in the
/// plan's order, each naming its pools by reference where it can), then the
/// pools to remove `notification_email` from once they are applied, and the
/// steps that are no Terraform edit as comments.
pub fn terraform(plans: &[AccountPlan], names: &PoolNames) -> String {
    let mut out = String::from(
        "# edgeaudit plan --format terraform: add these resources, apply, then remove\n# `notification_email` from the pools listed at the end, and apply again.\n",
    );
    for plan in plans {
        if let Some(account) = &plan.account_id {
            out.push_str(&format!("\n# Account {account}\n"));
        }
        let mut cleared: Vec<&str> = Vec::new();
        let mut labels = std::collections::HashSet::new();
        for step in &plan.steps {
            match step {
                Request::CreatePolicy { body, .. } => {
                    // Two policies of one name get two resource names.
                    let label = super::terraform::label(&body.name);
                    let mut unique = label.clone();
                    let mut n = 1;
                    while !labels.insert(unique.clone()) {
                        n += 1;
                        unique = format!("{label}_{n}");
                    }
                    out.push('\n');
                    out.push_str(&super::terraform::policy_block(
                        body,
                        &unique,
                        names.generation(&plan.account_id, body),
                    ));
                    out.push('\n');
                }
                Request::ClearPage { pools, .. } => cleared.extend(pools.iter().map(|id| names.name(&plan.account_id, id))),
                Request::ClearPool { pool_id } => cleared.push(names.name(&plan.account_id, pool_id)),
                other => {
                    out.push('\n');
                    for line in other.reason().lines() {
                        out.push_str(&format!("# {line}\n"));
                    }
                }
            }
        }
        if !cleared.is_empty() {
            out.push_str("\n# Once the policies above are applied, remove `notification_email` from:\n");
            for pool in cleared {
                out.push_str(&format!("#   {pool}\n"));
            }
        }
    }
    out
}
