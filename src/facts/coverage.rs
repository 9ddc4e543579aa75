//! Which policies cover which pool (docs/src/rules/list.md, LB rules), indexed once per account so
//! that 200 000 pools against many policies stay linear.

use std::collections::HashSet;
use std::hash::{Hash, Hasher};

use crate::model::Account;
use crate::model::delivery::{Reach, can_deliver};
use crate::model::notification::{Event, Policy, Pool};
use crate::model::unknown::UnknownValue;

/// Keyed by pool id: foldhash, not SipHash. The index is made on one thread
/// before the rules run, and hashing 200,000 pool ids with SipHash was most
/// of it. Nothing depends on the seed: the maps are only looked
/// up, and a policy's set of ids only drops its repeats.
type ByPoolId<'a, V> = std::collections::HashMap<PoolId<'a>, V, foldhash::fast::RandomState>;
type PoolIds<'a> = HashSet<PoolId<'a>, foldhash::fast::RandomState>;

pub struct CoverageIndex<'a> {
    /// The policies whose delivery is known and that can deliver, each with
    /// what decides its delivery ([`Reach`], shared with plan and apply).
    candidates: Vec<(&'a Policy, Reach)>,
    /// Candidates whose `pool_id` filter is absent: all pools.
    all_pools: Vec<usize>,
    /// Policies that may be health alerts for all pools, or for the pools
    /// their known `pool_id` names, but whose delivery is not known before
    /// apply: they may cover what the known ones leave, so those pools'
    /// coverage is unknown.
    uncertain_all: Vec<(&'a Policy, &'a UnknownValue)>,
    /// Those of them known but for elements of their `pool_id`
    /// ([`Certainty::NamesMore`]): known for the pools they name.
    names_more: Vec<&'a Policy>,
    /// [`Self::pool_count`].
    existing_pools: usize,
    uncertain_by_pool: ByPoolId<'a, Vec<(&'a Policy, &'a UnknownValue)>>,
    /// Candidates by pool id.
    by_pool: ByPoolId<'a, Vec<usize>>,
    /// The ids of the account's loaded pools.
    pool_ids: PoolIds<'a>,
}

/// A pool id, hashed and compared case-insensitively, borrowed from the model
/// (no lower-cased copy per pool).
#[derive(Debug, Clone, Copy)]
struct PoolId<'a>(&'a str);

impl PartialEq for PoolId<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.0.eq_ignore_ascii_case(other.0)
    }
}

impl Eq for PoolId<'_> {}

impl Hash for PoolId<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // Lower-cased through a small buffer: one hasher call per 64 bytes.
        let mut buf = [0u8; 64];
        for chunk in self.0.as_bytes().chunks(buf.len()) {
            for (slot, b) in buf.iter_mut().zip(chunk) {
                *slot = b.to_ascii_lowercase();
            }
            state.write(&buf[..chunk.len()]);
        }
        state.write_u8(0xff);
    }
}

#[cfg(test)]
mod pool_id_tests {
    use super::PoolId;
    use std::collections::HashSet;

    #[test]
    fn each_coverage_reads_as_its_value() {
        for (i, c) in super::Coverage::ALL.into_iter().enumerate() {
            assert_eq!(c as usize, i);
            assert_eq!(super::Coverage::parse(c.as_str()), Some(c));
        }
        assert_eq!(super::Coverage::parse("Full"), None);
    }

    #[test]
    fn pool_ids_match_whatever_their_case() {
        let long = "A".repeat(100);
        let set: HashSet<PoolId> = ["17B5962d775c646f3f9725cbc7a53df4", long.as_str()]
            .into_iter()
            .map(PoolId)
            .collect();
        assert!(set.contains(&PoolId("17b5962D775C646F3F9725CBC7A53DF4")));
        assert!(set.contains(&PoolId(&"a".repeat(100))));
        assert!(!set.contains(&PoolId("17b5962d775c646f3f9725cbc7a53df")));
    }
}

crate::listed! {
    #[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
    pub enum Coverage {
        NotApplicable = "not_applicable",
        None = "none",
        Partial = "partial",
        Full = "full",
        /// Not full, and a policy that may be a health alert for this pool has
        /// a value that decides it known only after apply: it may cover the
        /// rest, so neither LB001 nor LB003 can be said.
        Unknown = "unknown",
    }
}

impl Coverage {
    /// The value the `coverage` fact holds.
    pub fn parse(value: &str) -> Option<Coverage> {
        Self::ALL.into_iter().find(|c| c.as_str() == value)
    }
}

#[derive(Debug)]
pub struct PoolCoverage<'a> {
    pub coverage: Coverage,
    /// For [`Coverage::Unknown`]: the policy that may cover the rest, and
    /// its value not known before apply.
    pub unknown_by: Option<(&'a Policy, &'a UnknownValue)>,
    pub covering: Vec<&'a Policy>,
    pub uncovered_events: Vec<Event>,
    pub uncovered_recipients: Vec<&'a str>,
}

/// How far a policy's values not known before apply let it be judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Certainty<'a> {
    /// Every value coverage reads is known.
    Known,
    /// Its known alert type is not the health alert: it covers no pool,
    /// whatever else is unknown.
    SetAside,
    /// It may be a health alert that delivers, but a value that decides it
    /// (`alert_type`, `enabled`, `mechanisms`, `filters`) is unknown.
    Unknown {
        value: &'a UnknownValue,
        /// Its `filters.pool_id` is known and names pools: it may cover
        /// those only (otherwise, any pool).
        names_its_pools: bool,
    },
    /// All it decides is known but some elements of its `filters.pool_id`
    /// (`[cloudflare_….web.id, var.extra]`): it delivers to the pools its
    /// known elements name as known, and may name any other.
    NamesMore { value: &'a UnknownValue },
}

impl Certainty<'_> {
    /// Whether what the policy delivers is not known: it is never counted on.
    pub fn is_unknown(&self) -> bool {
        matches!(self, Certainty::Unknown { .. })
    }
}

/// The fields of a policy coverage reads, in the API's shape.
const DECISIVE: [&str; 4] = ["/alert_type", "/enabled", "/mechanisms", "/filters"];

pub fn certainty<'a>(account: &'a Account, policy: &Policy) -> Certainty<'a> {
    let values = account.unknown.of(&policy.origin);
    if values.is_empty() {
        return Certainty::Known;
    }
    let alert_type_known = !values.iter().any(|v| v.decides("/alert_type"));
    if alert_type_known && !policy.is_health_alert() {
        return Certainty::SetAside;
    }
    let mut deciding = values.iter().filter(|v| DECISIVE.iter().any(|f| v.decides(f))).peekable();
    let Some(&value) = deciding.peek() else {
        return Certainty::Known;
    };
    let is_pool_id_element = |v: &UnknownValue| {
        v.field
            .strip_prefix("/filters/pool_id/")
            .is_some_and(|index| index.parse::<usize>().is_ok())
    };
    if !policy.pool_ids.is_empty() && deciding.all(is_pool_id_element) {
        return Certainty::NamesMore { value };
    }
    Certainty::Unknown {
        value,
        names_its_pools: !policy.pool_ids.is_empty() && !values.iter().any(|v| v.decides("/filters/pool_id")),
    }
}

impl<'a> CoverageIndex<'a> {
    pub fn new(account: &'a Account) -> Self {
        // The policies' reach and the loaded pools' ids (200,000 of them
        // hashed) need nothing of each other: made side by side.
        let policies = || {
            let mut all_pools = Vec::new();
            let mut by_pool: ByPoolId<Vec<usize>> = ByPoolId::default();
            let mut uncertain_all = Vec::new();
            let mut names_more = Vec::new();
            let mut uncertain_by_pool: ByPoolId<Vec<(&Policy, &UnknownValue)>> = ByPoolId::default();
            let mut known = Vec::new();
            for policy in &account.policies {
                match certainty(account, policy) {
                    Certainty::Known => known.push(policy),
                    Certainty::SetAside => {}
                    Certainty::Unknown {
                        value,
                        names_its_pools: true,
                    } => {
                        for v in &policy.pool_ids {
                            uncertain_by_pool.entry(PoolId(&v.value)).or_default().push((policy, value));
                        }
                    }
                    Certainty::Unknown { value, .. } => uncertain_all.push((policy, value)),
                    // Known for the pools it names; for any other, its unknown element may name it.
                    Certainty::NamesMore { value } => {
                        known.push(policy);
                        if can_deliver(policy) {
                            uncertain_all.push((policy, value));
                            names_more.push(policy);
                        }
                    }
                }
            }
            let candidates: Vec<(&Policy, Reach)> = known
                .into_iter()
                .filter(|p| can_deliver(p))
                .map(|p| (p, Reach::of_policy(p)))
                .collect();
            // Made at its size (at most every id each candidate names): growing it
            // rehashed every entry several times over.
            by_pool.reserve(candidates.iter().map(|(p, _)| p.pool_ids.len()).sum());
            for (i, (policy, _)) in candidates.iter().enumerate() {
                if policy.pool_ids.is_empty() {
                    all_pools.push(i);
                } else {
                    let ids: PoolIds = policy.pool_ids.iter().map(|v| PoolId(&v.value)).collect();
                    for id in ids {
                        by_pool.entry(id).or_default().push(i);
                    }
                }
            }
            (candidates, all_pools, uncertain_all, names_more, uncertain_by_pool, by_pool)
        };
        let pool_ids = || {
            let mut pool_ids = PoolIds::with_capacity_and_hasher(account.pools.len(), Default::default());
            pool_ids.extend(account.pools.iter().map(|p| PoolId(&p.id)));
            pool_ids
        };
        let ((candidates, all_pools, uncertain_all, names_more, uncertain_by_pool, by_pool), pool_ids) =
            crate::threads::join(policies, pool_ids);
        CoverageIndex {
            candidates,
            all_pools,
            uncertain_all,
            names_more,
            existing_pools: if account.unknown.is_empty() {
                account.pools.len()
            } else {
                account.existing_pools().count()
            },
            uncertain_by_pool,
            by_pool,
            pool_ids,
        }
    }

    /// The account's pools that exist whatever a run gives a Terraform
    /// configuration (those that may not are counted nowhere).
    pub fn pool_count(&self) -> usize {
        self.existing_pools
    }

    /// Whether a pool with this id (compared case-insensitively) is loaded.
    pub fn has_pool(&self, id: &str) -> bool {
        self.pool_ids.contains(&PoolId(id))
    }

    pub fn of(&self, pool: &'a Pool) -> PoolCoverage<'a> {
        if pool.legacy_recipients.is_empty() {
            // Most pools: nothing to replace, so nothing to look up.
            return PoolCoverage {
                coverage: Coverage::NotApplicable,
                unknown_by: None,
                covering: vec![],
                uncovered_events: vec![],
                uncovered_recipients: vec![],
            };
        }
        let mut candidates: Vec<&(&Policy, Reach)> = self.all_pools.iter().map(|&i| &self.candidates[i]).collect();
        if let Some(named) = self.by_pool.get(&PoolId(&pool.id)) {
            candidates.extend(named.iter().map(|&i| &self.candidates[i]));
        }
        // Named in messages: in an order of their own, not the export's.
        candidates.sort_unstable_by(|(a, _), (b, _)| (&a.name, &a.id).cmp(&(&b.name, &b.id)));
        let covering: Vec<&Policy> = candidates.iter().map(|(p, _)| *p).collect();
        let uncovered_events: Vec<Event> = pool
            .legacy_events
            .iter()
            .filter(|&e| !candidates.iter().any(|(_, reach)| reach.admits(e)))
            .collect();
        let uncovered_recipients: Vec<&str> = pool
            .legacy_recipients
            .iter()
            .filter(|_| !pool.legacy_events.is_empty())
            .filter(|r| !candidates.iter().any(|(_, reach)| reach.emails(r)))
            .map(String::as_str)
            .collect();
        // Delivery is per (event, recipient): one policy must both admit the
        // event and e-mail the recipient. Events and recipients each covered
        // by different policies (pool events to A, origin events to B) still
        // leave (origin, A) undelivered.
        let missing_pairs: Vec<(Event, &String)> = pool
            .legacy_events
            .iter()
            .flat_map(|e| pool.legacy_recipients.iter().map(move |r| (e, r)))
            .filter(|(e, r)| !candidates.iter().any(|(_, reach)| reach.delivers(&pool.id, *e, r)))
            .collect();
        let (mut uncovered_events, mut uncovered_recipients) = (uncovered_events, uncovered_recipients);
        if uncovered_events.is_empty() && uncovered_recipients.is_empty() && !missing_pairs.is_empty() {
            // Only combinations are missing: name the events and recipients involved.
            let mut events: Vec<Event> = missing_pairs.iter().map(|(e, _)| *e).collect();
            events.sort();
            events.dedup();
            let mut recipients: Vec<&str> = Vec::new();
            for (_, r) in &missing_pairs {
                if !recipients.contains(&r.as_str()) {
                    recipients.push(r.as_str());
                }
            }
            uncovered_events = events;
            uncovered_recipients = recipients;
        }
        let coverage = if pool.legacy_events.is_empty() {
            // A filter that disables both sources delivers nothing: clearing it loses nothing.
            Coverage::Full
        } else if covering.is_empty() {
            Coverage::None
        } else if missing_pairs.is_empty() {
            Coverage::Full
        } else {
            Coverage::Partial
        };
        let mut unknown_by = None;
        let coverage = match coverage {
            Coverage::None | Coverage::Partial => {
                let uncertain = self
                    .uncertain_all
                    .iter()
                    // A policy known but for elements of its `pool_id` is
                    // judged on the pools its known elements name.
                    .filter(|(p, _)| {
                        !(self.names_more.iter().any(|m| std::ptr::eq(*m, *p))
                            && p.pool_ids.iter().any(|v| PoolId(&v.value) == PoolId(&pool.id)))
                    })
                    .chain(self.uncertain_by_pool.get(&PoolId(&pool.id)).into_iter().flatten())
                    .min_by(|a, b| (&a.0.name, &a.0.id).cmp(&(&b.0.name, &b.0.id)));
                unknown_by = uncertain.copied();
                if unknown_by.is_some() { Coverage::Unknown } else { coverage }
            }
            known => known,
        };
        PoolCoverage {
            coverage,
            unknown_by,
            covering,
            uncovered_events,
            uncovered_recipients,
        }
    }
}
