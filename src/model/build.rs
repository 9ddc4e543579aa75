//! Turns classified records into model resources.

use super::notification::Event;
use super::notification::{EventSource, Mechanism, Policy, Pool, Valued, healths_for, parse_recipients};
use super::origin::RecordOrigin;
use super::{Account, Inventory, Kind};
use crate::load::shape::{Shape, SourceFilter, Text};
use crate::load::walk::{FieldError, RecordSink};

#[derive(Default)]
pub struct Builder {
    inventory: Inventory,
}

impl Builder {
    pub fn finish(mut self) -> Inventory {
        self.inventory.accounts.sort_by(|a, b| a.id.cmp(&b.id));
        self.inventory
    }

    fn account(&mut self, id: Option<&str>) -> &mut Account {
        let accounts = &mut self.inventory.accounts;
        let index = match accounts.iter().position(|a| a.id.as_deref() == id) {
            Some(i) => i,
            None => {
                accounts.push(Account {
                    id: id.map(str::to_string),
                    ..Account::default()
                });
                accounts.len() - 1
            }
        };
        &mut accounts[index]
    }
}

impl RecordSink for Builder {
    fn record(&mut self, kind: Kind, origin: RecordOrigin, account: Option<&str>, shape: &Shape<'_>) -> Result<(), FieldError> {
        *self.inventory.records.entry(kind).or_default() += 1;
        match kind {
            Kind::Pool => {
                let pool = pool(origin, shape)?;
                let account = self.account(account);
                // Account-level findings point at the list the pools are in.
                let list = pool_list(&pool.origin);
                if account.pool_lists.last() != Some(&list) {
                    account.pool_lists.push(list);
                }
                account.pools.push(pool);
            }
            Kind::NotificationPolicy => {
                let policy = policy(origin, shape);
                self.account(account).policies.push(policy);
            }
            _ => {}
        }
        Ok(())
    }
}

fn pool_list(origin: &RecordOrigin) -> RecordOrigin {
    let parent = origin.pointer.rfind('/').map_or("", |i| &origin.pointer[..i]);
    RecordOrigin {
        file: origin.file,
        pointer: parent.to_string(),
        anchor: None,
    }
}

fn text(t: &Option<Text<'_>>) -> String {
    t.as_ref().map(|t| t.as_str().to_string()).unwrap_or_default()
}

fn pool(origin: RecordOrigin, shape: &Shape<'_>) -> Result<Pool, FieldError> {
    let id = text(&shape.id);
    if id.is_empty() {
        return Err(FieldError {
            path: "/id".into(),
            message: "this pool has no `id`: policies name pools by id, so it cannot be checked".into(),
        });
    }
    let email = shape.notification_email.as_ref().and_then(|e| e.as_ref()).map(Text::as_str);
    let filter = shape.notification_filter.clone().unwrap_or_default();
    let mut legacy_events = Vec::new();
    for (source, setting) in [(EventSource::Pool, filter.pool), (EventSource::Origin, filter.origin)] {
        let SourceFilter { disable, healthy } = setting.unwrap_or_default();
        if disable == Some(true) {
            continue;
        }
        legacy_events.extend(healths_for(healthy).iter().map(|&health| Event { source, health }));
    }
    legacy_events.sort();
    Ok(Pool {
        origin,
        id,
        name: text(&shape.name),
        legacy_recipients: parse_recipients(email),
        legacy_events,
    })
}

fn policy(origin: RecordOrigin, shape: &Shape<'_>) -> Policy {
    let mut mechanisms = Vec::new();
    for (kind, targets) in shape.mechanisms.iter().flatten() {
        for target in targets.iter().flatten() {
            mechanisms.push(Mechanism {
                kind: kind.clone(),
                target: target.id.as_ref().map(|t| t.as_str().to_string()),
            });
        }
    }
    let valued = |field: &str, values: Option<&Vec<Text<'_>>>| -> Vec<Valued> {
        values
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(i, v)| Valued {
                value: v.as_str().to_string(),
                path: format!("/filters/{field}/{i}"),
            })
            .collect()
    };
    let filters = shape.filters.as_ref();
    Policy {
        origin,
        id: text(&shape.id),
        name: text(&shape.name),
        alert_type: text(&shape.alert_type),
        enabled: shape.enabled.unwrap_or(true),
        mechanisms,
        pool_ids: valued("pool_id", filters.and_then(|f| f.pool_id.as_ref())),
        new_health: valued("new_health", filters.and_then(|f| f.new_health.as_ref())),
        event_source: valued("event_source", filters.and_then(|f| f.event_source.as_ref())),
    }
}
