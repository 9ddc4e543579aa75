use serde_json::json;

use super::coverage::{Coverage, CoverageIndex};
use super::{Facts, Subject, Value, text_items};
use crate::model::Kind;
use crate::model::notification::{Event, EventSource, HEALTH_ALERT_TYPE, Health, Pool};

const EMAIL: &str = "/notification_email";

pub fn facts(pool: &Pool, account: Option<&str>, index: &CoverageIndex) -> Facts {
    let mut f = Facts::new(Subject {
        kind: Kind::Pool,
        id: pool.id.clone(),
        name: pool.name.clone(),
        origin: pool.origin.clone(),
    });
    let cover = index.of(pool);
    f.set("id", Value::Text(pool.id.clone()), "/id");
    f.set("name", Value::Text(pool.name.clone()), "/name");
    let account_segment = account.unwrap_or("{account_id}");
    f.set("account", Value::Text(account.unwrap_or_default().to_string()), "");
    f.set(
        "policies_endpoint",
        Value::Text(format!("POST /accounts/{account_segment}/alerting/v3/policies")),
        "",
    );
    f.set(
        "pool_endpoint",
        Value::Text(format!("PATCH /accounts/{account_segment}/load_balancers/pools/{}", pool.id)),
        "/id",
    );
    f.set("legacy_recipients", text_items(pool.legacy_recipients.iter().cloned(), None), EMAIL);
    f.set(
        "legacy_events",
        text_items(pool.legacy_events.iter().map(Event::to_string), None),
        "/notification_filter",
    );
    f.set("coverage", Value::Text(cover.coverage.as_str().into()), EMAIL);
    f.set(
        "covering_policies",
        text_items(cover.covering.iter().map(|p| describe(&p.name, &p.id)), None),
        EMAIL,
    );
    f.set(
        "uncovered_events",
        text_items(cover.uncovered_events.iter().map(Event::to_string), None),
        "/notification_filter",
    );
    f.set(
        "uncovered_recipients",
        text_items(cover.uncovered_recipients.iter().cloned(), None),
        EMAIL,
    );
    let replacement = match cover.coverage {
        Coverage::None => replacement_policies(pool, &pool.legacy_events, &pool.legacy_recipients),
        Coverage::Partial => {
            // Cover every (event, recipient) pair the legacy field delivered:
            // missing events go to everyone; missing recipients get every event.
            let events = if cover.uncovered_recipients.is_empty() {
                &cover.uncovered_events
            } else {
                &pool.legacy_events
            };
            let recipients = if cover.uncovered_events.is_empty() {
                &cover.uncovered_recipients
            } else {
                &pool.legacy_recipients
            };
            replacement_policies(pool, events, recipients)
        }
        _ => String::new(),
    };
    f.set("replacement_policy", Value::Text(replacement), EMAIL);
    f
}

pub fn describe(name: &str, id: &str) -> String {
    match (name.is_empty(), id.is_empty()) {
        (false, false) => format!("{name} ({id})"),
        (false, true) => name.to_string(),
        (true, _) => id.to_string(),
    }
}

/// Policy bodies for `POST /accounts/{account_id}/alerting/v3/policies` that
/// deliver `events` to `recipients`. Filters are independent sets, so events
/// that are not a product of sources × healths need one policy per source.
fn replacement_policies(pool: &Pool, events: &[Event], recipients: &[String]) -> String {
    let healths_of = |source: EventSource| -> Vec<Health> { events.iter().filter(|e| e.source == source).map(|e| e.health).collect() };
    let sources: Vec<EventSource> = EventSource::ALL.into_iter().filter(|s| !healths_of(*s).is_empty()).collect();
    let groups: Vec<(Vec<EventSource>, Vec<Health>)> = if sources.windows(2).all(|w| healths_of(w[0]) == healths_of(w[1])) {
        vec![(sources.clone(), sources.first().map(|&s| healths_of(s)).unwrap_or_default())]
    } else {
        sources.iter().map(|&s| (vec![s], healths_of(s))).collect()
    };
    let label = if pool.name.is_empty() {
        pool.id.as_str()
    } else {
        pool.name.as_str()
    };
    groups
        .iter()
        .map(|(sources, healths)| {
            json!({
                "name": format!("{label} health alerts"),
                "alert_type": HEALTH_ALERT_TYPE,
                "enabled": true,
                "mechanisms": { "email": recipients.iter().map(|r| json!({ "id": r })).collect::<Vec<_>>() },
                "filters": {
                    "pool_id": [pool.id],
                    "new_health": healths.iter().map(|h| h.api_value()).collect::<Vec<_>>(),
                    "event_source": sources.iter().map(|s| s.api_value()).collect::<Vec<_>>(),
                },
            })
            .to_string()
        })
        .collect::<Vec<_>>()
        .join(" and ")
}
