//! The planner (DESIGN §2.3): per account, the policies that take over every
//! legacy delivery (merged across pools), then the clears that are safe once
//! they exist (page-wide where a page holds only replaced pools, per pool
//! elsewhere), then the certificate changes the findings call for — and the
//! replay that proves no alert is lost at any step.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::request::Request;
use super::service::{Delivery, Service};
use crate::check::Outcome;
use crate::facts::{Analysis, Value as FactValue};
use crate::model::Account;
use crate::model::notification::{Event, EventSource, HEALTH_ALERT_TYPE, Health};

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
    for (i, step) in steps.iter().enumerate() {
        let pool_name = |service: &Service, d: &Delivery| service.pools.get(d.pool).map_or(String::new(), |p| describe(&p.name, &p.id));
        service.apply(step).map_err(|e| Refusal {
            step: i + 1,
            pool: String::new(),
            what: e,
        })?;
        if let Some(lost) = deliveries.iter().find(|d| !service.delivers(d)) {
            return Err(Refusal {
                step: i + 1,
                pool: pool_name(&service, lost),
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
    Ok(Proof {
        deliveries: deliveries.len(),
        steps: steps.len(),
    })
}

fn describe(name: &str, id: &str) -> String {
    crate::facts::pool::describe(name, id)
}

/// The notification part of an account's plan: creates, then clears.
pub fn notification_steps(account: &Account, per_page: usize) -> Vec<Request> {
    let service = Service::of(account);
    let mut steps = creates(&service);
    let mut after = service.clone();
    for step in &steps {
        // Creates cannot fail on the model.
        let _ = after.apply(step);
    }
    steps.extend(clears(&after, per_page.max(1)));
    steps
}

/// A group of pools that need the same events sent to the same recipients.
type Need = (Vec<EventSource>, Vec<Health>, Vec<String>);

/// One policy per distinct need, naming every pool that has it, so that
/// pools share policies the way the service intends. Only what no existing
/// policy delivers is asked for: an existing policy is never rewritten (a
/// PUT replaces the whole policy, and an export need not hold all of it).
fn creates(service: &Service) -> Vec<Request> {
    let mut needs: BTreeMap<Need, Vec<(String, String)>> = BTreeMap::new();
    for pool in service.legacy_pools() {
        let id = pool.id.to_ascii_lowercase();
        // Per recipient, the events no policy delivers to it yet.
        let mut by_events: BTreeMap<Vec<Event>, Vec<String>> = BTreeMap::new();
        for r in &pool.recipients {
            let missing: Vec<Event> = pool.events.iter().filter(|&e| !service.by_policy(&id, e, r)).collect();
            if !missing.is_empty() {
                by_events.entry(missing).or_default().push(r.clone());
            }
        }
        for (events, mut recipients) in by_events {
            recipients.sort();
            recipients.dedup();
            for (sources, healths) in products(&events) {
                needs
                    .entry((sources, healths, recipients.clone()))
                    .or_default()
                    .push((pool.id.clone(), pool.name.clone()));
            }
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
                [first, rest @ ..] => format!("{} and {} health alerts", label(first), crate::words::plural(rest.len(), "more pool", "more pools")),
                [] => String::new(),
            };
            let body = json!({
                "name": name,
                "alert_type": HEALTH_ALERT_TYPE,
                "enabled": true,
                "mechanisms": {"email": recipients.iter().map(|r| json!({"id": r})).collect::<Vec<Value>>()},
                "filters": {
                    "pool_id": ids,
                    "new_health": healths.iter().map(|h| h.api_value()).collect::<Vec<_>>(),
                    "event_source": sources.iter().map(|s| s.api_value()).collect::<Vec<_>>(),
                },
            });
            Request::CreatePolicy {
                body,
                pools: pools.into_iter().map(|(id, _)| id).collect(),
            }
        })
        .collect()
}

/// Events as filter products (sources × healths): one when they are a
/// product, else one per source. Never empty filters (empty means all).
fn products(events: &[Event]) -> Vec<(Vec<EventSource>, Vec<Health>)> {
    let healths_of = |s: EventSource| -> Vec<Health> { events.iter().filter(|e| e.source == s).map(|e| e.health).collect() };
    let sources: Vec<EventSource> = EventSource::ALL.into_iter().filter(|s| !healths_of(*s).is_empty()).collect();
    if sources.windows(2).all(|w| healths_of(w[0]) == healths_of(w[1])) {
        match sources.first() {
            Some(&first) => vec![(sources.clone(), healths_of(first))],
            None => vec![],
        }
    } else {
        sources.iter().map(|&s| (vec![s], healths_of(s))).collect()
    }
}

/// The clears, once the creates have run: a page of `per_page` pools (by
/// name) is cleared in one request when it holds two or more legacy pools
/// and every legacy pool on it is replaced; a page with one legacy pool, or
/// with one that is not replaced, gets per-pool clears for the replaced ones.
fn clears(service: &Service, per_page: usize) -> Vec<Request> {
    let replaced = |i: usize| {
        let pool = &service.pools[i];
        let id = pool.id.to_ascii_lowercase();
        pool.events.iter().all(|e| pool.recipients.iter().all(|r| service.by_policy(&id, e, r)))
    };
    let mut steps = Vec::new();
    for (page_index, page) in service.pools.chunks(per_page).enumerate() {
        let start = page_index * per_page;
        let legacy: Vec<usize> = (start..start + page.len()).filter(|&i| !service.pools[i].recipients.is_empty()).collect();
        if legacy.len() >= 2 && legacy.iter().all(|&i| replaced(i)) {
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

/// The certificate changes the account's findings call for: CA004 and CA003
/// as requests built from the same facts as their messages, and the remedies
/// that are a person's decision (CA002, CA008, LB007) as manual steps.
fn certificate_steps(outcome: &Outcome, analysis: &Analysis, account: usize) -> Vec<Request> {
    let mut steps = Vec::new();
    for f in outcome.active().filter(|f| f.subject.account as usize == account) {
        let fact = |name: &str| -> String {
            analysis
                .with_facts(f.subject, |facts| match facts.get(name).map(|fact| fact.value) {
                    Some(FactValue::Text(t)) => t.into_owned(),
                    _ => String::new(),
                })
                .unwrap_or_default()
        };
        let step = match f.rule.id.as_str() {
            // Without its zone's id, the request cannot be addressed: a person looks it up.
            "CA004" | "CA003" if fact(if f.rule.id == "CA004" { "zone" } else { "zone_id" }) == "{zone_id}" => Request::Manual {
                rule: f.rule.id.clone(),
                what: format!(
                    "the export does not give the zone id of this {}: find it, then {}",
                    if f.rule.id == "CA004" { "custom hostname" } else { "Total TLS setting" },
                    analysis
                        .with_facts(f.subject, |facts| f.rule.message_in(f.phase).render(facts, f.item.as_deref()))
                        .unwrap_or_default()
                ),
            },
            "CA004" => match serde_json::from_str::<Value>(&fact("ca_change_body")) {
                Ok(body) => Request::EditCustomHostname {
                    zone_id: fact("zone"),
                    hostname_id: fact("id"),
                    hostname: fact("hostname"),
                    body,
                },
                Err(_) => continue,
            },
            "CA003" => Request::SetTotalTls {
                zone_id: fact("zone_id"),
                body: json!({"enabled": true, "certificate_authority": "google"}),
            },
            "CA002" | "CA008" | "LB007" => Request::Manual {
                rule: f.rule.id.clone(),
                what: analysis
                    .with_facts(f.subject, |facts| f.rule.message_in(f.phase).render(facts, f.item.as_deref()))
                    .unwrap_or_default(),
            },
            _ => continue,
        };
        steps.push(step);
    }
    // Requests first, then the decisions for a person: the script stops at the first manual step.
    steps.sort_by_key(|s| !s.is_request());
    steps
}

/// The whole plan: per account, notifications first (creates, then clears),
/// then certificates; each account's steps replayed, and refused when the
/// replay finds a lost alert.
pub fn build(outcome: &Outcome, analysis: &Analysis, per_page: usize) -> Result<Vec<AccountPlan>, Refusal> {
    let mut plans = Vec::new();
    for (i, account) in analysis.inventory().accounts.iter().enumerate() {
        let mut steps = notification_steps(account, per_page);
        steps.extend(certificate_steps(outcome, analysis, i));
        let proof = replay(Service::of(account), &steps)?;
        let service = Service::of(account);
        let legacy_pools = service.legacy_pools().count();
        let needing_policy = service
            .legacy_pools()
            .filter(|p| {
                let id = p.id.to_ascii_lowercase();
                p.events.iter().any(|e| p.recipients.iter().any(|r| !service.by_policy(&id, e, r)))
            })
            .count();
        plans.push(AccountPlan {
            account_id: account.id.clone(),
            steps,
            proof,
            per_pool_requests: needing_policy + legacy_pools,
            legacy_pools,
        });
    }
    Ok(plans)
}
