use super::FactName;
use super::Value;
use super::coverage::{Coverage, CoverageIndex, PoolCoverage};
use super::{Fact, Facts, Subject, static_text, text, text_items};
use crate::api::{Op, Operation};
use crate::model::notification::{Event, NewPolicy, Pool, filter_products};
use crate::model::terraform::is_reference;

pub struct PoolFacts<'a> {
    pool: &'a Pool,
    account: Option<&'a str>,
    cover: PoolCoverage<'a>,
    /// The replacement policies, made once: the message shows their bodies
    /// and the remedy's actions send them.
    replacement: std::cell::OnceCell<Replacement>,
}

impl<'a> PoolFacts<'a> {
    pub fn new(pool: &'a Pool, account: Option<&'a str>, index: &CoverageIndex<'a>) -> Self {
        PoolFacts {
            pool,
            account,
            cover: index.of(pool),
            replacement: std::cell::OnceCell::new(),
        }
    }

    pub fn coverage(&self) -> Coverage {
        self.cover.coverage
    }

    fn replacement(&self) -> &Replacement {
        self.replacement.get_or_init(|| replacement(self.pool, &self.cover))
    }
}

/// The policies that would replace a pool's legacy e-mail, and their bodies
/// as the message writes them.
struct Replacement {
    bodies: Vec<NewPolicy>,
    /// Compact JSON objects joined by ` and `.
    text: String,
}

/// The facts that depend on which policies cover the pool.
const COVERAGE_FACTS: [FactName; 6] = [
    FactName::Coverage,
    FactName::CoveringPolicies,
    FactName::UncoveredEvents,
    FactName::UncoveredRecipients,
    FactName::ReplacementPolicy,
    FactName::WhyClearingIsSafe,
];

impl Facts for PoolFacts<'_> {
    fn subject(&self) -> Subject<'_> {
        self.pool.subject()
    }

    fn unknown(&self, name: FactName) -> Option<super::UnknownFact> {
        if self.cover.coverage != Coverage::Unknown || !COVERAGE_FACTS.contains(&name) {
            return None;
        }
        let (policy, value) = self.cover.unknown_by?;
        Some(super::UnknownFact {
            value: value.clone(),
            elsewhere: Some(policy.origin.clone()),
            of: Some(format!("notification_policy {}", describe(&policy.name, &policy.id))),
        })
    }

    fn get(&self, name: FactName) -> Option<Fact> {
        let pool = self.pool;
        let cover = &self.cover;
        let at = pool.fields;
        let email = at.notification_email;
        Some(match name {
            FactName::Id => Fact::new(text(&pool.id), at.id),
            FactName::Name => Fact::new(text(&pool.name), at.name),
            FactName::Account => Fact::new(super::text_or_placeholder(self.account, "account_id"), ""),
            FactName::PoliciesEndpoint => Fact::new(
                text(Operation::of(Op::CreatePolicy).call_or_placeholders(&[self.account]).name()),
                "",
            ),
            FactName::PoolEndpoint => Fact::new(
                text(match pool.id.is_empty() {
                    false => Operation::of(Op::PatchPool)
                        .call_or_placeholders(&[self.account, Some(&pool.id)])
                        .name(),
                    // No id to send: the message says which pool a person looks up.
                    true => Operation::of(Op::PatchPool)
                        .call_encoded(&[
                            self.account.map_or_else(|| "{account_id}".into(), crate::api::segment).as_str(),
                            &pool_id_or_placeholder(pool),
                        ])
                        .name(),
                }),
                at.id,
            ),
            FactName::LegacyRecipients => Fact::new(text_items(pool.legacy_recipients.iter().map(String::as_str)), email),
            FactName::LegacyEvents => Fact::new(text_items(pool.legacy_events.iter().map(Event::as_str)), at.notification_filter),
            FactName::Coverage => Fact::new(static_text(cover.coverage.as_str()), email),
            FactName::WhyClearingIsSafe => Fact::new(text(why_clearing_is_safe(pool, cover)), email),
            FactName::CoveringPolicies => Fact::new(text_items(cover.covering.iter().map(|p| describe(&p.name, &p.id))), email),
            FactName::UncoveredEvents => Fact::new(
                text_items(cover.uncovered_events.iter().map(|e| e.as_str())),
                at.notification_filter,
            ),
            FactName::UncoveredRecipients => Fact::new(text_items(cover.uncovered_recipients.iter().copied()), email),
            FactName::ReplacementPolicy => Fact::new(text(self.replacement().text.as_str()), email),
            // Declared in `.tf` source (a state joined with its block keeps the block's place): edited there.
            FactName::TerraformSource => Fact::new(
                // An id that only looks like a reference (`${…}` in an API
                // export) is an id: only a resource of Terraform has an address.
                Value::Bool(
                    (is_reference(&pool.id) && pool.origin.address().is_some()) || crate::model::terraform::is_declaration(&pool.origin),
                ),
                "",
            ),
            FactName::Address => Fact::new(text(pool.origin.address().map_or("", |a| a)), ""),
            _ => return None,
        })
    }

    fn replacement_bodies(&self) -> &[NewPolicy] {
        &self.replacement().bodies
    }
}

/// Why clearing a fully covered pool's legacy e-mail loses nothing, in words.
fn why_clearing_is_safe(pool: &Pool, cover: &PoolCoverage) -> String {
    if cover.coverage != Coverage::Full {
        return String::new();
    }
    if pool.legacy_events.is_empty() {
        return "its `notification_filter` disables both pool and origin events, so the legacy e-mail delivers nothing and clearing it loses nothing".into();
    }
    let policies: Vec<String> = cover.covering.iter().map(|p| describe(&p.name, &p.id)).collect();
    format!("every legacy event and recipient is delivered by {}", policies.join(", "))
}

/// The pool's id, or for a pool its export gives none (the service's
/// migration guide lists pools by name alone) what a person puts there.
pub fn pool_id_or_placeholder(pool: &Pool) -> String {
    if pool.id.is_empty() {
        format!("<the id of pool {}: not in the export>", pool.name)
    } else {
        pool.id.clone()
    }
}

pub fn describe(name: &str, id: &str) -> String {
    match (name.is_empty(), id.is_empty()) {
        (false, false) => [name, " (", id, ")"].concat(),
        (false, true) => name.to_string(),
        (true, _) => id.to_string(),
    }
}

fn replacement(pool: &Pool, cover: &PoolCoverage) -> Replacement {
    let legacy_recipients: Vec<&str> = pool.legacy_recipients.iter().map(String::as_str).collect();
    let bodies = match cover.coverage {
        Coverage::None => replacement_policies(pool, &pool.legacy_events.to_vec(), &legacy_recipients),
        Coverage::Partial => {
            // Cover every (event, recipient) pair the legacy field delivered:
            // missing events go to everyone; missing recipients get every event.
            let events = if cover.uncovered_recipients.is_empty() {
                &cover.uncovered_events
            } else {
                &pool.legacy_events.to_vec()
            };
            let recipients = if cover.uncovered_events.is_empty() {
                &cover.uncovered_recipients
            } else {
                &legacy_recipients
            };
            replacement_policies(pool, events, recipients)
        }
        Coverage::Full | Coverage::NotApplicable | Coverage::Unknown => Vec::new(),
    };
    let mut text = Vec::with_capacity(bodies.len() * 512);
    for (i, body) in bodies.iter().enumerate() {
        if i > 0 {
            text.extend_from_slice(b" and ");
        }
        // Writing to memory fails only for a body that cannot be JSON, and a `NewPolicy` always is.
        let _ = serde_json::to_writer(&mut text, body);
    }
    let text = String::from_utf8(text).unwrap_or_default();
    Replacement { bodies, text }
}

/// The name of a policy that replaces `label`'s legacy e-mail: the label cut
/// to 100 characters (a policy name is a label for people, and the API
/// bounds its length), then ` health alerts`.
pub fn policy_name(label: &str) -> String {
    match label.char_indices().nth(100) {
        Some((cut, _)) => [&label[..cut], "… health alerts"].concat(),
        None => [label, " health alerts"].concat(),
    }
}

/// Policy bodies for `POST /accounts/{account_id}/alerting/v3/policies` that
/// deliver `events` to `recipients`. Filters are independent sets, so events
/// that are not a product of sources × healths need one policy per source.
fn replacement_policies(pool: &Pool, events: &[Event], recipients: &[&str]) -> Vec<NewPolicy> {
    // Empty filters mean *all* events: a body is never proposed without any.
    if events.is_empty() || recipients.is_empty() {
        return Vec::new();
    }
    let label = if pool.name.is_empty() {
        pool.id.as_str()
    } else {
        pool.name.as_str()
    };
    filter_products(events)
        .iter()
        .map(|(sources, healths)| {
            NewPolicy::new(
                policy_name(label),
                recipients.iter().copied(),
                vec![pool_id_or_placeholder(pool)],
                sources,
                healths,
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::Value;
    use crate::model::Account;
    use crate::model::notification::{EventSource, Health, Policy};
    use crate::model::samples::{all_events, health_policy, pool, valued};

    fn policy(recipients: &[&str], new_health: &[&str]) -> Policy {
        Policy {
            new_health: valued(new_health),
            ..health_policy(recipients)
        }
    }

    #[test]
    fn provides_every_catalogue_fact() {
        let account = Account {
            pools: vec![pool("p1", &["a@x.io"], all_events())],
            ..Account::default()
        };
        let index = CoverageIndex::new(&account);
        let facts = PoolFacts::new(&account.pools[0], None, &index);
        crate::facts::tests::provides_its_catalogue(&facts);
    }

    #[test]
    fn uncovered_pool_gets_the_whole_legacy_notification_as_a_policy() {
        let account = Account {
            pools: vec![pool("p1", &["a@x.io", "b@x.io"], all_events())],
            ..Account::default()
        };
        let index = CoverageIndex::new(&account);
        let facts = PoolFacts::new(&account.pools[0], Some("acc"), &index);
        let Some(Fact {
            value: Value::Text(body), ..
        }) = facts.get(FactName::ReplacementPolicy)
        else {
            panic!("text")
        };
        assert_eq!(
            body,
            r#"{"name":"web health alerts","alert_type":"load_balancing_health_alert","enabled":true,"mechanisms":{"email":[{"id":"a@x.io"},{"id":"b@x.io"}]},"filters":{"pool_id":["p1"],"new_health":["Healthy","Unhealthy"],"event_source":["pool","origin"]}}"#
        );
        assert_eq!(
            facts.get(FactName::PoliciesEndpoint).map(|f| f.value),
            Some(text("POST /accounts/acc/alerting/v3/policies"))
        );
    }

    #[test]
    fn events_that_are_not_a_product_need_one_policy_per_source() {
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
        let pool = pool("p1", &["a@x.io"], events.clone());
        let recipients = ["a@x.io"];
        let bodies = replacement_policies(&pool, &events, &recipients);
        let parts: Vec<String> = bodies.iter().map(|b| serde_json::to_string(b).unwrap()).collect();
        assert_eq!(parts.len(), 2);
        assert!(
            parts[0].contains(r#""new_health":["Healthy"],"event_source":["pool"]"#),
            "{parts:?}"
        );
        assert!(
            parts[1].contains(r#""new_health":["Unhealthy"],"event_source":["origin"]"#),
            "{parts:?}"
        );
    }

    #[test]
    fn partial_coverage_proposes_only_what_is_missing() {
        // Recipients all covered, Healthy events missing: events Healthy to everyone.
        let account = Account {
            pools: vec![pool("p1", &["a@x.io"], all_events())],
            policies: vec![policy(&["A@X.IO"], &["Unhealthy"])],
            ..Account::default()
        };
        let index = CoverageIndex::new(&account);
        let facts = PoolFacts::new(&account.pools[0], None, &index);
        assert_eq!(facts.coverage(), Coverage::Partial);
        let Some(Fact {
            value: Value::Text(body), ..
        }) = facts.get(FactName::ReplacementPolicy)
        else {
            panic!("text")
        };
        assert!(
            body.contains(r#""new_health":["Healthy"],"event_source":["pool","origin"]"#),
            "{body}"
        );
        assert!(body.contains(r#"[{"id":"a@x.io"}]"#), "{body}");
    }

    #[test]
    fn events_and_recipients_covered_by_different_policies_are_not_covered() {
        // Pool events to a@, origin events to b@: (origin, a@) and (pool, b@) are delivered by nobody.
        let mut to_a = health_policy(&["a@x.io"]);
        to_a.event_source = valued(&["pool"]);
        let mut to_b = health_policy(&["b@x.io"]);
        to_b.event_source = valued(&["origin"]);
        let account = Account {
            pools: vec![pool("p1", &["a@x.io", "b@x.io"], all_events())],
            policies: vec![to_a, to_b],
            ..Account::default()
        };
        let index = CoverageIndex::new(&account);
        let facts = PoolFacts::new(&account.pools[0], None, &index);
        assert_eq!(facts.coverage(), Coverage::Partial, "not LB002: clearing would lose alerts");
        let Some(Fact {
            value: Value::Text(body), ..
        }) = facts.get(FactName::ReplacementPolicy)
        else {
            panic!("text")
        };
        assert!(
            body.contains(r#""event_source":["pool","origin"]"#) && body.contains(r#"{"id":"a@x.io"},{"id":"b@x.io"}"#),
            "{body}"
        );
    }
}
