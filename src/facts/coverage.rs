//! Which policies cover which pool (DESIGN §2.1), indexed once per account so
//! that 200 000 pools against many policies stay linear.

use std::collections::{BTreeSet, HashMap};

use crate::model::Account;
use crate::model::notification::{Event, Policy, Pool};

pub struct CoverageIndex<'a> {
    /// Covering candidates whose `pool_id` filter is absent: all pools.
    all_pools: Vec<&'a Policy>,
    /// Covering candidates by lower-cased pool id.
    by_pool: HashMap<String, Vec<&'a Policy>>,
    account: &'a Account,
    /// Lower-cased ids of the account's loaded pools, built when a policy
    /// first asks (only pool-id filters need it).
    pool_ids: std::cell::OnceCell<std::collections::HashSet<String>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coverage {
    NotApplicable,
    None,
    Partial,
    Full,
}

impl Coverage {
    pub fn as_str(self) -> &'static str {
        match self {
            Coverage::NotApplicable => "not_applicable",
            Coverage::None => "none",
            Coverage::Partial => "partial",
            Coverage::Full => "full",
        }
    }
}

#[derive(Debug)]
pub struct PoolCoverage<'a> {
    pub coverage: Coverage,
    pub covering: Vec<&'a Policy>,
    pub uncovered_events: Vec<Event>,
    pub uncovered_recipients: Vec<String>,
}

/// A policy can deliver a health alert at all: the right type, enabled, and
/// at least one delivery mechanism.
pub fn can_cover(policy: &Policy) -> bool {
    policy.is_health_alert() && policy.enabled && !policy.mechanisms.is_empty()
}

impl<'a> CoverageIndex<'a> {
    pub fn new(account: &'a Account) -> Self {
        let mut all_pools = Vec::new();
        let mut by_pool: HashMap<String, Vec<&Policy>> = HashMap::new();
        for policy in account.policies.iter().filter(|p| can_cover(p)) {
            if policy.pool_ids.is_empty() {
                all_pools.push(policy);
            } else {
                let ids: BTreeSet<String> = policy.pool_ids.iter().map(|v| v.value.to_ascii_lowercase()).collect();
                for id in ids {
                    by_pool.entry(id).or_default().push(policy);
                }
            }
        }
        CoverageIndex { all_pools, by_pool, account, pool_ids: std::cell::OnceCell::new() }
    }

    pub fn pool_count(&self) -> usize {
        self.account.pools.len()
    }

    /// Whether a pool with this id (compared case-insensitively) is loaded.
    pub fn has_pool(&self, id: &str) -> bool {
        self.pool_ids.get_or_init(|| self.account.pools.iter().map(|p| p.id.to_ascii_lowercase()).collect()).contains(&id.to_ascii_lowercase())
    }

    pub fn of(&self, pool: &Pool) -> PoolCoverage<'a> {
        if pool.legacy_recipients.is_empty() {
            // Most pools: nothing to replace, so nothing to look up.
            return PoolCoverage {
                coverage: Coverage::NotApplicable,
                covering: vec![],
                uncovered_events: vec![],
                uncovered_recipients: vec![],
            };
        }
        let mut covering: Vec<&Policy> = self.all_pools.clone();
        if let Some(named) = self.by_pool.get(&pool.id.to_ascii_lowercase()) {
            covering.extend(named.iter().copied());
        }
        let uncovered_events: Vec<Event> = pool
            .legacy_events
            .iter()
            .copied()
            .filter(|&e| !covering.iter().any(|p| p.admits(e)))
            .collect();
        let uncovered_recipients: Vec<String> = pool
            .legacy_recipients
            .iter()
            .filter(|r| !covering.iter().any(|p| p.email_recipients().any(|m| m.eq_ignore_ascii_case(r))))
            .cloned()
            .collect();
        let coverage = if covering.is_empty() {
            Coverage::None
        } else if uncovered_events.is_empty() && uncovered_recipients.is_empty() {
            Coverage::Full
        } else {
            Coverage::Partial
        };
        PoolCoverage {
            coverage,
            covering,
            uncovered_events,
            uncovered_recipients,
        }
    }
}
