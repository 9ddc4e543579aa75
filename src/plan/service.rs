//! A model of the service's load-balancing notifications, on which a plan is
//! replayed request by request (docs/src/commands/plan.md): the legacy `notification_email`
//! of each pool, the policies with their coverage (§2.1), the page-wide bulk
//! clear by name order and the per-pool clear. It reads the very requests
//! the plan sends, bodies included, so what is proved is what is run.

use std::collections::HashMap;

use crate::model::Account;
use crate::model::delivery::Reach;
use crate::model::notification::{Event, EventSet};

use super::request::Request;

/// One pool as the service holds it.
#[derive(Debug, Clone)]
pub struct ServicePool {
    pub id: String,
    pub name: String,
    /// Lower-cased legacy recipients; empty once cleared.
    pub recipients: Vec<String>,
    pub events: EventSet,
    /// Kept as it is: a finding about its legacy e-mail is waived, so the
    /// plan neither replaces nor clears it (and no page-wide clear reaches it).
    pub held: bool,
}

/// The id the model gives the `n`-th policy a plan creates (1-based).
pub fn planned_id(n: usize) -> String {
    format!("planned-{n}")
}

/// What must never be lost: `recipient` hears about `event` on pool `pool`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    pub pool: usize,
    pub event: Event,
    pub recipient: String,
}

#[derive(Debug, Clone)]
pub struct Service {
    /// In the order the bulk clear pages them: by name, then id.
    pub pools: Vec<ServicePool>,
    policies: Vec<Reach>,
    /// Policies by the pool ids they name (lower-cased), and those naming none (all pools):
    /// a lookup per delivery stays small at 200 000 pools.
    by_pool: HashMap<String, Vec<usize>>,
    all_pools: Vec<usize>,
    /// Pools by lower-cased id.
    pool_index: HashMap<String, usize>,
    /// Policies by id: an update finds its policy without a scan.
    policy_index: HashMap<String, usize>,
    created: usize,
}

impl Service {
    pub fn of(account: &Account) -> Self {
        // A pool that may not exist is not in the model: no step is planned
        // for it, and it fills no page (the plan clears pool by pool then).
        let mut pools: Vec<ServicePool> = account
            .existing_pools()
            .map(|p| ServicePool {
                id: p.id.clone(),
                name: p.name.clone(),
                recipients: p.legacy_recipients.iter().map(|r| r.trim().to_ascii_lowercase()).collect(),
                events: p.legacy_events,
                held: false,
            })
            .collect();
        pools.sort_by(|a, b| (&a.name, &a.id).cmp(&(&b.name, &b.id)));
        let mut service = Service {
            pools,
            policies: Vec::new(),
            by_pool: HashMap::new(),
            all_pools: Vec::new(),
            pool_index: HashMap::new(),
            policy_index: HashMap::new(),
            created: 0,
        };
        service.pool_index = service
            .pools
            .iter()
            .enumerate()
            .map(|(i, p)| (p.id.to_ascii_lowercase(), i))
            .collect();
        for policy in &account.policies {
            let mut modelled = Reach::of_policy(policy);
            // A policy whose delivery is not known before apply is never counted on.
            if crate::facts::coverage::certainty(account, policy).is_unknown() {
                modelled.can_deliver = false;
            }
            service.add_policy(modelled);
        }
        service
    }

    /// The index of the pool with this id (compared case-insensitively).
    pub fn pool_position(&self, id: &str) -> Option<usize> {
        self.pool_index.get(&id.to_ascii_lowercase()).copied()
    }

    pub fn add_policy(&mut self, policy: Reach) {
        // The first of two policies with one id is the one an update finds, as before.
        self.policy_index.entry(policy.id.clone()).or_insert(self.policies.len());
        self.policies.push(policy);
        self.index(self.policies.len() - 1);
    }

    /// The distinct pool ids a policy names.
    fn named_ids(&self, index: usize) -> Vec<String> {
        self.policies[index].pool_ids.iter().cloned().collect()
    }

    fn index(&mut self, index: usize) {
        if self.policies[index].pool_ids.is_empty() {
            self.all_pools.push(index);
        }
        for id in self.named_ids(index) {
            self.by_pool.entry(id).or_default().push(index);
        }
    }

    /// Takes one policy out of the indexes (before it is replaced): an
    /// update costs what the policy names, not what the account holds.
    fn unindex(&mut self, index: usize) {
        self.all_pools.retain(|&i| i != index);
        for id in self.named_ids(index) {
            if let Some(list) = self.by_pool.get_mut(&id) {
                list.retain(|&i| i != index);
            }
        }
    }

    /// Every delivery the legacy e-mails make now.
    pub fn legacy_deliveries(&self) -> Vec<Delivery> {
        let mut all = Vec::new();
        for (i, pool) in self.pools.iter().enumerate() {
            for event in pool.events.iter() {
                for r in &pool.recipients {
                    all.push(Delivery {
                        pool: i,
                        event,
                        recipient: r.clone(),
                    });
                }
            }
        }
        all
    }

    /// Whether the delivery still happens: by the pool's legacy e-mail, or by a policy.
    pub fn delivers(&self, d: &Delivery) -> bool {
        let Some(pool) = self.pools.get(d.pool) else { return false };
        let legacy = pool.events.iter().any(|e| e == d.event) && pool.recipients.contains(&d.recipient);
        legacy || self.by_policy(&pool.id.to_ascii_lowercase(), d.event, &d.recipient)
    }

    /// Whether a policy e-mails `recipient` about `event` on `pool_id` (lower-cased).
    pub fn by_policy(&self, pool_id: &str, event: Event, recipient: &str) -> bool {
        self.delivering(pool_id, event, recipient).next().is_some()
    }

    /// The policies that e-mail `recipient` about `event` on `pool_id` (lower-cased).
    pub fn delivering<'a>(&'a self, pool_id: &'a str, event: Event, recipient: &'a str) -> impl Iterator<Item = &'a Reach> {
        let named = self.by_pool.get(pool_id).map_or(&[][..], Vec::as_slice);
        self.all_pools
            .iter()
            .chain(named)
            .map(|&i| &self.policies[i])
            .filter(move |p| p.delivers(pool_id, event, recipient))
    }

    /// The policy with this id.
    pub fn policy(&self, id: &str) -> Option<&Reach> {
        self.policy_index.get(id).map(|&i| &self.policies[i])
    }

    /// The policies whose `filters.pool_id` names this pool (lower-cased id).
    pub fn policies_naming(&self, pool_id: &str) -> impl Iterator<Item = &Reach> {
        self.by_pool.get(pool_id).into_iter().flatten().map(|&i| &self.policies[i])
    }

    /// The pools (by index) a policy names; `None` when it names none (all
    /// pools) or there is no such policy.
    pub fn pools_named_by(&self, id: &str) -> Option<Vec<usize>> {
        let policy = self.policy(id)?;
        if policy.pool_ids.is_empty() {
            return None;
        }
        Some(policy.pool_ids.iter().filter_map(|p| self.pool_index.get(p).copied()).collect())
    }

    /// The pools the migration is to replace and clear: those with a legacy
    /// e-mail that are not held.
    pub fn legacy_pools(&self) -> impl Iterator<Item = &ServicePool> {
        self.pools.iter().filter(|p| !p.recipients.is_empty() && !p.held)
    }

    /// The same service with these pools (by id) held as they are.
    pub fn holding(mut self, held: &std::collections::HashSet<String>) -> Self {
        if !held.is_empty() {
            for pool in &mut self.pools {
                pool.held = held.contains(&pool.id);
            }
        }
        self
    }

    /// Runs one request as the service would.
    pub fn apply(&mut self, request: &Request) -> Result<(), String> {
        match request {
            Request::CreatePolicy { .. } => {
                self.created += 1;
                let id = planned_id(self.created);
                // Read back from the JSON that would be sent, as the service reads it.
                let body = request.body_json().unwrap_or_default();
                self.add_policy(Reach::of_body(&id, &body));
            }
            Request::UpdatePolicy { policy_id, body, .. } => {
                let Some(&index) = self.policy_index.get(policy_id) else {
                    return Err(format!("no policy {policy_id} to update"));
                };
                self.unindex(index);
                self.policies[index] = Reach::of_body(policy_id, body);
                self.index(index);
            }
            Request::ClearPage { per_page, page, .. } => {
                if *per_page == 0 || *page == 0 {
                    return Err("pages and page sizes start at 1".into());
                }
                let start = (page - 1).saturating_mul(*per_page);
                for pool in self.pools.iter_mut().skip(start).take(*per_page) {
                    pool.recipients.clear();
                }
            }
            Request::ClearPool { pool_id, .. } => {
                let Some(i) = self.pool_position(pool_id) else {
                    return Err(format!("no pool {pool_id} to clear"));
                };
                self.pools[i].recipients.clear();
            }
            // Certificate changes and manual steps do not touch notifications.
            Request::EditCustomHostname { .. } | Request::SetTotalTls { .. } | Request::SetUniversalSsl { .. } | Request::Manual { .. } => {
            }
            // Applied by Terraform, not by the service: a plan holding one proves nothing.
            Request::Terraform(_) => return Err("a Terraform edit cannot be replayed on the service".to_string()),
        }
        Ok(())
    }
}
