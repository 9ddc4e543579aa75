use super::FactName;
use super::coverage::CoverageIndex;
use super::{Fact, Facts, Item, Subject, Value, static_text, text};
use crate::model::delivery::can_deliver;
use crate::model::notification::{EventSource, Health, Policy, Valued};

pub struct PolicyFacts<'a> {
    policy: &'a Policy,
    index: &'a CoverageIndex<'a>,
}

impl<'a> PolicyFacts<'a> {
    pub fn new(policy: &'a Policy, index: &'a CoverageIndex<'a>) -> Self {
        PolicyFacts { policy, index }
    }

    /// Whether it can alert anyone, and the field that says why not.
    fn delivery(&self) -> (&'static str, &'static str) {
        let p = self.policy;
        if can_deliver(p) || !p.is_health_alert() {
            ("delivers", "")
        } else if !p.enabled {
            ("disabled", p.fields.enabled)
        } else {
            ("no_mechanisms", p.fields.mechanisms)
        }
    }
}

impl Facts for PolicyFacts<'_> {
    fn subject(&self) -> Subject<'_> {
        self.policy.subject()
    }

    fn decided_by(&self, name: FactName) -> Option<FactName> {
        // A policy of another alert type has no health filter to misspell
        // and alerts nobody about pools, whatever its other values are.
        let health_only = matches!(name, FactName::InvalidFilterValues | FactName::Delivery | FactName::DeliveryReason);
        (health_only && !self.policy.is_health_alert()).then_some(FactName::IsHealthAlert)
    }

    fn get(&self, name: FactName) -> Option<Fact> {
        let p = self.policy;
        let at = p.fields;
        Some(match name {
            FactName::Id => Fact::new(text(&p.id), at.id),
            FactName::Name => Fact::new(text(&p.name), at.name),
            FactName::AlertType => Fact::new(text(&p.alert_type), at.alert_type),
            FactName::IsHealthAlert => Fact::new(Value::Bool(p.is_health_alert()), at.alert_type),
            FactName::Enabled => Fact::new(Value::Bool(p.enabled), at.enabled),
            FactName::MechanismCount => Fact::new(Value::Int(p.mechanisms.len() as i64), at.mechanisms),
            FactName::Delivery => {
                let (delivery, at) = self.delivery();
                Fact::new(static_text(delivery), at)
            }
            FactName::DeliveryReason => {
                let (delivery, at) = self.delivery();
                let reason = match delivery {
                    "disabled" => "it is disabled (`enabled: false`)",
                    "no_mechanisms" => "it has no delivery mechanism under `mechanisms`",
                    _ => "",
                };
                Fact::new(static_text(reason), at)
            }
            FactName::InvalidFilterValues => {
                let mut invalid = Vec::new();
                if p.is_health_alert() {
                    invalid.extend(invalid_values(&p.new_health, at.filters, "new_health", &Health::API_VALUES));
                    invalid.extend(invalid_values(
                        &p.event_source,
                        at.filters,
                        "event_source",
                        &EventSource::API_VALUES,
                    ));
                }
                Fact::new(Value::List(invalid), at.filters)
            }
            FactName::UnknownPoolIds => {
                // Only meaningful when the account's pools were exported too.
                let unknown = if self.index.pool_count() == 0 {
                    Vec::new()
                } else {
                    p.pool_ids
                        .iter()
                        .filter(|v| !self.index.has_pool(&v.value))
                        .map(|v| Item {
                            text: v.value.clone(),
                            path: Some(v.path(at.pool_id)),
                            elsewhere: None,
                        })
                        .collect()
                };
                Fact::new(Value::List(unknown), at.pool_id)
            }
            FactName::LoadedPoolCount => Fact::new(Value::Int(self.index.pool_count() as i64), ""),
            _ => return None,
        })
    }
}

/// The allowed value a misspelt one was meant to be: the same up to case and
/// surrounding blanks (`unhealthy`, ` Pool`). `edgeaudit plan` corrects these.
pub fn intended_value<'a>(value: &str, allowed: &[&'a str]) -> Option<&'a str> {
    allowed.iter().copied().find(|a| a.eq_ignore_ascii_case(value.trim()))
}

fn invalid_values(values: &[Valued], filters: &str, field: &str, allowed: &[&str]) -> Vec<Item> {
    let list = format!("{filters}/{field}");
    values
        .iter()
        .filter(|v| !allowed.contains(&v.value.as_str()))
        .map(|v| {
            let hint = intended_value(&v.value, allowed)
                .map(|a| format!("; did you mean `{a}`?"))
                .unwrap_or_default();
            Item {
                text: format!("`{}` in filters.{field} (allowed: {}{hint})", v.value, allowed.join(", ")),
                path: Some(v.path(&list)),
                elsewhere: None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Account;
    use crate::model::samples::{health_policy, pool, valued};

    fn account() -> Account {
        let policy = Policy {
            enabled: false,
            mechanisms: vec![],
            pool_ids: valued(&["P1", "gone"]),
            new_health: valued(&["unhealthy", "Healthy"]),
            event_source: valued(&["Pool"]),
            ..health_policy(&[])
        };
        Account {
            pools: vec![pool("p1", &[], vec![])],
            policies: vec![policy],
            ..Account::default()
        }
    }

    #[test]
    fn provides_every_catalogue_fact() {
        let account = account();
        let index = CoverageIndex::new(&account);
        crate::facts::tests::provides_its_catalogue(&PolicyFacts::new(&account.policies[0], &index));
    }

    #[test]
    fn invalid_values_point_at_their_element_and_suggest_the_spelling() {
        let account = account();
        let index = CoverageIndex::new(&account);
        let facts = PolicyFacts::new(&account.policies[0], &index);
        let Some(Fact {
            value: Value::List(items), ..
        }) = facts.get(FactName::InvalidFilterValues)
        else {
            panic!("list")
        };
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].path.as_deref(), Some("/filters/new_health/0"));
        assert!(items[0].text.contains("did you mean `Unhealthy`?"), "{}", items[0].text);
        assert_eq!(items[1].path.as_deref(), Some("/filters/event_source/0"));
        let Some(Fact {
            value: Value::List(unknown),
            ..
        }) = facts.get(FactName::UnknownPoolIds)
        else {
            panic!("list")
        };
        assert_eq!(
            unknown.iter().map(|i| i.text.as_str()).collect::<Vec<_>>(),
            vec!["gone"],
            "P1 matches p1"
        );
        assert_eq!(
            facts.get(FactName::Delivery).map(|f| (f.value, f.path.into_owned())),
            Some((text("disabled"), "/enabled".to_string()))
        );
    }
}
