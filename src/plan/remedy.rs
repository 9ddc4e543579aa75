//! A finding's remedy as typed data: the requests (or the decision for a
//! person) its message describes, built from the same facts the message is
//! rendered from, so the text, the JSON/SARIF `actions` and the plan cannot
//! disagree.

use serde_json::{Value, json};

use super::request::{Request, TerraformEdit};
use super::terraform::{Generation, label, policy_block};
use crate::facts::{Analysis, Facts, Value as FactValue};
use crate::findings::Finding;
use crate::model::notification::NewPolicy;

/// The page size of the bulk clear the LB004 message counts with.
const BULK_PAGE: usize = crate::facts::account::BULK_CLEAR_PAGE_SIZE;

/// One action of a finding's remedy: a request and the actions (by index in
/// the same list) it must wait for.
pub struct Action {
    pub request: Request,
    pub depends_on: Vec<usize>,
}

fn fact_text(facts: &dyn Facts, name: &str) -> String {
    match facts.get(name).map(|fact| fact.value) {
        Some(FactValue::Text(t)) => t.into_owned(),
        Some(FactValue::Int(n)) => n.to_string(),
        _ => String::new(),
    }
}

/// The finding's message, rendered from its subject's facts.
pub fn render_message(f: &Finding, facts: &dyn Facts) -> String {
    f.rule.message_for(f.phase, facts).render(facts, f.item.as_deref())
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
/// a report that writes both makes the facts once.
pub fn actions_from(f: &Finding, analysis: &Analysis, facts: &dyn Facts, rendered: Option<&str>) -> Vec<Action> {
    let fact = |name: &str| fact_text(facts, name);
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
    let terraform_source = matches!(facts.get("terraform_source").map(|t| t.value), Some(FactValue::Bool(true)));
    match f.rule.id.as_str() {
        // In a configuration: add the replacement, then remove the attribute.
        // The pools' own findings carry the edits.
        "LB004" if terraform_source => Vec::new(),
        // Add the replacement, then clear the pool: by API calls, or by
        // edits of the configuration for a pool of Terraform source.
        "LB001" | "LB003" | "LB002" => {
            let pool = fact("id");
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
            let mut actions: Vec<Action> = if f.rule.id == "LB002" {
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
                    address: fact("address"),
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
        "LB004" => {
            let total: usize = fact("pools_total").parse().unwrap_or(0);
            (1..=total.div_ceil(BULK_PAGE))
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
        "CA004" if fact("zone") != "{zone_id}" => match serde_json::from_str::<Value>(&fact("ca_change_body")) {
            Ok(body) => vec![Action {
                request: Request::EditCustomHostname {
                    zone_id: fact("zone"),
                    hostname_id: fact("id"),
                    hostname: fact("hostname"),
                    body,
                },
                depends_on: Vec::new(),
            }],
            Err(_) => manual(message()),
        },
        "CA003" if fact("zone_id") != "{zone_id}" => vec![Action {
            request: Request::SetTotalTls {
                zone_id: fact("zone_id"),
                body: json!({"enabled": true, "certificate_authority": "google"}),
            },
            depends_on: Vec::new(),
        }],
        // Without the zone id the request cannot be addressed; the rest are a person's decision.
        "CA003" | "CA004" => manual(format!("the export does not give the zone id: find it, then: {}", message())),
        "CA002" | "CA008" | "LB005" | "LB007" => manual(message()),
        _ => Vec::new(),
    }
}

/// The provider generation of the finding's pool.
fn pool_generation(analysis: &Analysis, f: &Finding) -> Option<Generation> {
    let account = analysis.inventory().accounts.get(f.subject.account as usize)?;
    let pool = account.pools.get(f.subject.index as usize)?;
    Some(Generation::of(pool.fields))
}
