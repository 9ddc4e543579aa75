//! A finding's remedy as typed data: the requests (or the decision for a
//! person) its message describes, built from the same facts the message is
//! rendered from, so the text, the JSON/SARIF `actions` and the plan cannot
//! disagree.

use serde_json::json;

use super::request::{Request, TerraformEdit};
use super::terraform::{Generation, label, policy_block};
use crate::engine::rule::RemedyKind;
use crate::facts::catalogue::{Key, Words, keys};
use crate::facts::{Analysis, Facts};
use crate::findings::Finding;
use crate::model::notification::NewPolicy;

/// The page size of the bulk clear the account's message counts with.
const BULK_PAGE: usize = crate::facts::account::BULK_CLEAR_PAGE_SIZE;

/// The CA a certificate request moves a resource to (as the messages say).
const MOVE_TO: &str = "google";

/// One action of a finding's remedy: a request and the actions (by index in
/// the same list) it must wait for.
pub struct Action {
    pub request: Request,
    pub depends_on: Vec<usize>,
}

/// A text fact, empty when the subject has none.
fn fact_text(facts: &dyn Facts, key: Key<Words>) -> String {
    key.of(facts).map(std::borrow::Cow::into_owned).unwrap_or_default()
}

/// The finding's message, rendered from its subject's facts.
pub fn render_message(f: &Finding, facts: &dyn Facts) -> String {
    f.rule.message_for(f.phase, facts).render(facts, f.item.as_deref())
}

/// The message with each value from outside written through `escape`.
pub fn render_message_escaped(f: &Finding, facts: &dyn Facts, escape: crate::engine::template::Escape) -> String {
    f.rule
        .message_for(f.phase, facts)
        .render_escaped(facts, f.item.as_deref(), Some(escape))
}

/// The actions of a finding; empty for findings whose remedy is not an action
/// (an export to fix, a note).
pub fn actions(f: &Finding, analysis: &Analysis) -> Vec<Action> {
    analysis
        .with_facts(f.subject, |facts| actions_from(f, analysis, facts, None))
        .unwrap_or_default()
}

/// As [`actions`], from the facts of the finding's subject already made,
/// and its message when the caller rendered it (a manual step repeats it):
/// a report that writes both makes the facts once. The rule names the kind
/// of its remedy (`remedy:` in its YAML); the kind builds it from the
/// subject's typed facts.
pub fn actions_from(f: &Finding, analysis: &Analysis, facts: &dyn Facts, rendered: Option<&str>) -> Vec<Action> {
    let Some(kind) = f.rule.remedy else {
        return Vec::new();
    };
    let fact = |key: Key<Words>| fact_text(facts, key);
    let message = || rendered.map_or_else(|| render_message(f, facts), str::to_string);
    let manual = |what: String| {
        vec![Action {
            request: Request::Manual {
                rule: f.rule.id.clone(),
                what,
            },
            depends_on: Vec::new(),
        }]
    };
    let terraform_source = keys::TERRAFORM_SOURCE.of(facts) == Some(true);
    match kind {
        // In a configuration: add the replacement, then remove the attribute.
        // The pools' own findings carry the edits.
        RemedyKind::ClearPages if terraform_source => Vec::new(),
        // Pages of pools the export does not hold are cleared unseen: a person's step, after a whole export.
        RemedyKind::ClearPages if keys::POOLS_COMPLETE.of(facts) == Some(false) => manual(format!(
            "the export holds only some of the account's pools (EX001), and a page-wide clear also clears the pools it does not hold: export every pool, then: {}",
            message()
        )),
        // Add the replacement, then clear the pool: by API calls, or by
        // edits of the configuration for a pool of Terraform source.
        // A pool its export gives no id cannot be addressed by a request.
        RemedyKind::ReplaceThenClear | RemedyKind::ClearPool if fact(keys::ID).is_empty() && !terraform_source => manual(format!(
            "the export gives this pool no `id`, so no request can address it: find its id (GET /accounts/{{account_id}}/load_balancers/pools lists it by name), then: {}",
            message()
        )),
        RemedyKind::ReplaceThenClear | RemedyKind::ClearPool => {
            let pool = fact(keys::ID);
            let generation = pool_generation(analysis, f).unwrap_or(Generation::V5);
            let add = |body: NewPolicy| {
                if terraform_source {
                    let name = label(&body.name);
                    Request::Terraform(TerraformEdit::AddResource {
                        address: format!("cloudflare_notification_policy.{name}"),
                        block: policy_block(&body, &name, generation),
                        pools: vec![pool.clone()],
                    })
                } else {
                    Request::CreatePolicy {
                        body,
                        pools: vec![pool.clone()],
                    }
                }
            };
            let mut actions: Vec<Action> = if kind == RemedyKind::ClearPool {
                Vec::new()
            } else {
                facts
                    .replacement_bodies()
                    .iter()
                    .cloned()
                    .map(|body| Action {
                        request: add(body),
                        depends_on: Vec::new(),
                    })
                    .collect()
            };
            let clear = if terraform_source {
                Request::Terraform(TerraformEdit::RemoveAttribute {
                    address: fact(keys::ADDRESS),
                    attribute: "notification_email",
                })
            } else {
                Request::ClearPool { pool_id: pool.clone() }
            };
            let adds = (0..actions.len()).collect();
            actions.push(Action {
                request: clear,
                depends_on: adds,
            });
            actions
        }
        // Every page of the bulk clear, once the pools' replacements exist (the message's caveat).
        RemedyKind::ClearPages => {
            // Every page of the pools the export announces, loaded or not.
            let pages = keys::BULK_CLEAR_REQUESTS
                .of(facts)
                .and_then(|n| usize::try_from(n).ok())
                .unwrap_or(0);
            (1..=pages)
                .map(|page| Action {
                    request: Request::ClearPage {
                        per_page: BULK_PAGE,
                        page,
                        pools: Vec::new(),
                    },
                    depends_on: Vec::new(),
                })
                .collect()
        }
        RemedyKind::CustomHostnameCa => match (facts.zone_id(), facts.ca_change(MOVE_TO)) {
            // A hostname its export gives no id cannot be addressed by a request.
            _ if fact(keys::ID).is_empty() => manual(format!(
                "the export gives this custom hostname no `id`: find it (GET /zones/{{zone_id}}/custom_hostnames?hostname=…), then: {}",
                message()
            )),
            (Some(zone), Some(body)) => vec![Action {
                request: Request::EditCustomHostname {
                    zone_id: zone.to_string(),
                    hostname_id: fact(keys::ID),
                    hostname: fact(keys::HOSTNAME),
                    body: crate::plan::request::JsonBody::of(&body),
                },
                depends_on: Vec::new(),
            }],
            // Without the zone id the request cannot be addressed, without
            // the hostname's validation it cannot be written.
            (None, _) => manual(format!("the export does not give the zone id: find it, then: {}", message())),
            (Some(_), None) => manual(format!(
                "the export does not give the hostname's ssl.method and ssl.type, which the request must send back unchanged: read them, then: {}",
                message()
            )),
        },
        RemedyKind::TotalTlsCa => match facts.zone_id() {
            Some(zone) => vec![Action {
                request: Request::SetTotalTls {
                    zone_id: zone.to_string(),
                    body: json!({"enabled": true, "certificate_authority": MOVE_TO}),
                },
                depends_on: Vec::new(),
            }],
            None => manual(format!("the export does not give the zone id: find it, then: {}", message())),
        },
        RemedyKind::UniversalSslCa => match facts.zone_id() {
            Some(zone) => vec![Action {
                request: Request::SetUniversalSsl {
                    zone_id: zone.to_string(),
                    body: json!({"certificate_authority": MOVE_TO}),
                },
                depends_on: Vec::new(),
            }],
            None => manual(format!("the export does not give the zone id: find it, then: {}", message())),
        },
        // A person's decision; a filter value the plan respells is settled by the plan's update.
        RemedyKind::PolicyFilterValue | RemedyKind::Manual => manual(message()),
    }
}

/// The provider generation of the finding's pool.
fn pool_generation(analysis: &Analysis, f: &Finding) -> Option<Generation> {
    let account = analysis.inventory().accounts.get(f.subject.account as usize)?;
    let pool = account.pools.get(f.subject.index as usize)?;
    Some(Generation::of(pool.fields))
}
