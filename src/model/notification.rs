//! Pools and notification policies, normalised (docs/src/inputs.md, docs/src/rules/list.md, LB rules).

use std::fmt;

use super::fields::{PolicyFields, PoolFields};
use super::origin::{RecordOrigin, ValueSpan};

crate::listed! {
    /// A source of health events; its name is the exact spelling the API
    /// accepts in `filters.event_source`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
    pub enum EventSource {
        Pool = "pool",
        Origin = "origin",
    }
}

crate::listed! {
    /// A pool's or origin's health; its name is the exact spelling the API
    /// accepts in `filters.new_health`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
    pub enum Health {
        Healthy = "Healthy",
        Unhealthy = "Unhealthy",
    }
}

impl EventSource {
    /// The exact spellings the API accepts in `filters.event_source`, in `ALL`'s order.
    pub const API_VALUES: [&'static str; 2] = Self::NAMES;
    pub fn api_value(self) -> &'static str {
        self.as_str()
    }
}

impl Health {
    /// The exact spellings the API accepts in `filters.new_health`, in `ALL`'s order.
    pub const API_VALUES: [&'static str; 2] = Self::NAMES;
    pub fn api_value(self) -> &'static str {
        self.as_str()
    }
}

/// A (source, health) pair a legacy notification e-mails about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Event {
    pub source: EventSource,
    pub health: Health,
}

impl Event {
    /// Every (source, health), in (source, health) order.
    pub const ALL: [Event; 4] = [
        Event {
            source: EventSource::Pool,
            health: Health::Healthy,
        },
        Event {
            source: EventSource::Pool,
            health: Health::Unhealthy,
        },
        Event {
            source: EventSource::Origin,
            health: Health::Healthy,
        },
        Event {
            source: EventSource::Origin,
            health: Health::Unhealthy,
        },
    ];

    /// The event [`Event::as_str`] names.
    pub fn parse(name: &str) -> Option<Event> {
        Event::ALL.into_iter().find(|e| e.as_str() == name)
    }

    /// `pool Healthy`, `origin Unhealthy`, …: the source and health as the API spells them.
    pub fn as_str(self) -> &'static str {
        const NAMES: [[&str; 2]; 2] = [["pool Healthy", "pool Unhealthy"], ["origin Healthy", "origin Unhealthy"]];
        NAMES[self.source as usize][self.health as usize]
    }
}

/// A health-alert policy to create: the body of
/// `POST /accounts/{account_id}/alerting/v3/policies` (members in the API
/// documentation's order), typed so that the message that shows it, the
/// actions and the plan that send it, and the Terraform block that declares
/// it are made from one value.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct NewPolicy {
    pub name: String,
    pub alert_type: &'static str,
    pub enabled: bool,
    pub mechanisms: EmailMechanisms,
    pub filters: HealthFilters,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct EmailMechanisms {
    pub email: Vec<EmailTarget>,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct EmailTarget {
    pub id: String,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct HealthFilters {
    pub pool_id: Vec<String>,
    pub new_health: Vec<&'static str>,
    pub event_source: Vec<&'static str>,
}

impl NewPolicy {
    /// An enabled health-alert policy named `name` that e-mails `recipients`
    /// about the events `sources` × `healths` of the pools `pool_ids`.
    pub fn new<R: Into<String>>(
        name: String,
        recipients: impl IntoIterator<Item = R>,
        pool_ids: Vec<String>,
        sources: &[EventSource],
        healths: &[Health],
    ) -> NewPolicy {
        NewPolicy {
            name,
            alert_type: HEALTH_ALERT_TYPE,
            enabled: true,
            mechanisms: EmailMechanisms {
                email: recipients.into_iter().map(|id| EmailTarget { id: id.into() }).collect(),
            },
            filters: HealthFilters {
                pool_id: pool_ids,
                new_health: healths.iter().map(|h| h.api_value()).collect(),
                event_source: sources.iter().map(|s| s.api_value()).collect(),
            },
        }
    }
}

/// Events as policy filters (sources × healths, two independent sets): one
/// filter pair when the events are such a product, else one per source.
/// Never an empty filter (empty means all); no events, no filters.
pub fn filter_products(events: &[Event]) -> Vec<(Vec<EventSource>, Vec<Health>)> {
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

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A set of legacy events, in four bits: one per (source, health).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EventSet(u8);

impl EventSet {
    fn bit(e: Event) -> u8 {
        1 << ((e.source as u8) * 2 + e.health as u8)
    }

    pub fn insert(&mut self, e: Event) {
        self.0 |= Self::bit(e);
    }

    /// In (source, health) order.
    pub fn iter(self) -> impl Iterator<Item = Event> {
        Event::ALL.into_iter().filter(move |&e| self.0 & Self::bit(e) != 0)
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn to_vec(self) -> Vec<Event> {
        self.iter().collect()
    }
}

impl FromIterator<Event> for EventSet {
    fn from_iter<I: IntoIterator<Item = Event>>(events: I) -> Self {
        let mut set = EventSet::default();
        for e in events {
            set.insert(e);
        }
        set
    }
}

#[derive(Debug, Clone)]
pub struct Pool {
    pub origin: RecordOrigin,
    /// Where its format keeps each field.
    pub fields: &'static PoolFields,
    pub id: String,
    pub name: String,
    /// Trimmed addresses of `notification_email`; empty = no legacy notification.
    pub legacy_recipients: Vec<String>,
    /// The events the legacy notification covers (§2.1).
    pub legacy_events: EventSet,
    /// Where `notification_email` lies in its record, as the parse saw it.
    pub email_span: ValueSpan,
}

/// The health alert, under its current and its old name.
pub const HEALTH_ALERT_TYPES: [&str; 2] = ["load_balancing_health_alert", "g6_health_alert"];
pub const HEALTH_ALERT_TYPE: &str = "load_balancing_health_alert";

/// A value of a list field, with its index there. Its path is made only
/// for a finding that points at it ([`Valued::path`]): 10,000 policies
/// naming ten pools each made 100,000 paths on one thread, for a handful of
/// findings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Valued {
    pub value: String,
    pub index: usize,
}

impl Valued {
    /// Its path relative to the record, in the list at `list` (`/filters/pool_id`).
    pub fn path(&self, list: &str) -> String {
        format!("{list}/{}", self.index)
    }
}

#[derive(Debug, Clone)]
pub struct Mechanism {
    /// The key under `mechanisms` (`email`, `webhooks`, `pagerduty`, …).
    pub kind: String,
    pub target: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Policy {
    pub origin: RecordOrigin,
    /// Where its format keeps each field.
    pub fields: &'static PolicyFields,
    pub id: String,
    pub name: String,
    pub alert_type: String,
    /// Absent counts as enabled (§2.1).
    pub enabled: bool,
    pub mechanisms: Vec<Mechanism>,
    /// `filters.pool_id`; empty = all pools.
    pub pool_ids: Vec<Valued>,
    /// `filters.new_health`; empty = all.
    pub new_health: Vec<Valued>,
    /// `filters.event_source`; empty = all.
    pub event_source: Vec<Valued>,
}

impl Policy {
    pub fn is_health_alert(&self) -> bool {
        HEALTH_ALERT_TYPES.contains(&self.alert_type.as_str())
    }

    pub fn email_recipients(&self) -> impl Iterator<Item = &str> {
        self.mechanisms
            .iter()
            .filter(|m| m.kind == "email")
            .filter_map(|m| m.target.as_deref())
    }

    /// Its filter lists' known elements put back at their places in the
    /// document, around the elements not known before apply (`unknown`,
    /// at `/filters/new_health/1`), which the record leaves out: a finding
    /// about the element after a hole points at that element, not the hole.
    pub fn leave_holes(&mut self, unknown: &[super::unknown::UnknownValue]) {
        for (list, values) in [
            ("/filters/pool_id/", &mut self.pool_ids),
            ("/filters/new_health/", &mut self.new_health),
            ("/filters/event_source/", &mut self.event_source),
        ] {
            let mut holes: Vec<usize> = unknown.iter().filter_map(|u| u.field.strip_prefix(list)?.parse().ok()).collect();
            if holes.is_empty() {
                continue;
            }
            holes.sort_unstable();
            holes.dedup();
            // The n-th known element is at the n-th place no hole takes.
            let mut places = (0..).filter(|i| holes.binary_search(i).is_err());
            for value in values.iter_mut() {
                value.index = places.next().unwrap_or(value.index);
            }
        }
    }
}

/// `notification_email` as the API gives it: `""`, null, absent, or a
/// comma-separated list.
pub fn parse_recipients(field: Option<&str>) -> Vec<String> {
    field
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// The events a legacy notification e-mails about (§2.1), from each
/// source's `notification_filter.<source>` setting: `disable`, `healthy`.
pub fn legacy_events(settings: [(EventSource, Option<bool>, Option<bool>); 2]) -> EventSet {
    let mut events = EventSet::default();
    for (source, disable, healthy) in settings {
        if disable == Some(true) {
            continue;
        }
        for &health in healths_for(healthy) {
            events.insert(Event { source, health });
        }
    }
    events
}

/// The healths a `notification_filter.<source>.healthy` value selects.
pub fn healths_for(healthy: Option<bool>) -> &'static [Health] {
    match healthy {
        None => &Health::ALL,
        Some(true) => &[Health::Healthy],
        Some(false) => &[Health::Unhealthy],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `new_health = [var.x, "unhealthy", var.y, "Healthy"]`: the record
    /// holds the two known values; they are the document's second and fourth.
    #[test]
    fn known_elements_keep_their_places_around_unknown_ones() {
        let mut policy = crate::model::samples::health_policy(&["a@x.io"]);
        policy.new_health = crate::model::samples::valued(&["unhealthy", "Healthy"]);
        policy.pool_ids = crate::model::samples::valued(&["p1"]);
        let hole = |field: &str| super::super::unknown::UnknownValue {
            field: field.into(),
            at: field.into(),
            why: super::super::unknown::Why::expression(""),
        };
        policy.leave_holes(&[
            hole("/filters/new_health/2"),
            hole("/filters/new_health/0"),
            hole("/filters/pool_id"),
        ]);
        let places: Vec<usize> = policy.new_health.iter().map(|v| v.index).collect();
        assert_eq!(places, [1, 3]);
        assert_eq!(policy.new_health[1].path("/filters/new_health"), "/filters/new_health/3");
        assert_eq!(policy.pool_ids[0].index, 0, "a whole list unknown is no hole");
    }

    #[test]
    fn recipients_are_split_trimmed_and_empty_means_none() {
        assert_eq!(parse_recipients(Some(" a@x.io, b@y.io ,,")), vec!["a@x.io", "b@y.io"]);
        assert!(parse_recipients(Some("")).is_empty());
        assert!(parse_recipients(Some("  ")).is_empty());
        assert!(parse_recipients(None).is_empty());
    }

    #[test]
    fn event_sets_iterate_in_source_then_health_order() {
        let set: EventSet = [
            Event {
                source: EventSource::Origin,
                health: Health::Healthy,
            },
            Event {
                source: EventSource::Pool,
                health: Health::Unhealthy,
            },
        ]
        .into_iter()
        .collect();
        assert_eq!(
            set.iter().map(|e| e.to_string()).collect::<Vec<_>>(),
            vec!["pool Unhealthy", "origin Healthy"]
        );
        assert!(EventSet::default().to_vec().is_empty());
    }

    #[test]
    fn healthy_null_means_both_true_healthy_false_unhealthy() {
        assert_eq!(healths_for(None), &[Health::Healthy, Health::Unhealthy]);
        assert_eq!(healths_for(Some(true)), &[Health::Healthy]);
        assert_eq!(healths_for(Some(false)), &[Health::Unhealthy]);
    }
}
