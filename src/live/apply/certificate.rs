//! Certificate changes (a custom hostname's CA, Total TLS, Universal SSL):
//! sent only while the resource is still as the plan saw it (on Let's
//! Encrypt, the hostname's validation method and type unchanged), as the
//! resource's whole setting just read with only the CA changed — the
//! contract does not say whether a partial `ssl` keeps what it omits — and
//! read back after: a change the service answered but did not make is
//! reported with the way to make it by hand. A resource deleted since the
//! export is nothing to do. The custom hostnames of one zone are checked from
//! pages of its list, fifty at a time, when that takes fewer reads than one
//! each.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::plan_file::{Kind, Step};
use super::{AccountRun, Ready, Stop, Summary, read_failed, stop};
use crate::api::operations::HOSTNAME_SSL;
use crate::api::{Call, Op, Operation};
use crate::live::client::MAX_PAGES;

/// Where a person makes the change the service did not take.
fn by_hand(kind: &Kind) -> &'static str {
    match kind {
        Kind::SetUniversalSsl => {
            "in the dashboard: SSL/TLS > Edge Certificates > Edge Certificates, the universal certificate's Certificate Authority"
        }
        Kind::SetTotalTls => "in the dashboard: SSL/TLS > Edge Certificates > Total TLS, its Certificate Authority",
        _ => "in the dashboard: SSL/TLS > Custom Hostnames, the hostname's Edit > Certificate Authority",
    }
}

/// The setting a step changes, in a resource as the API gives it.
fn setting<'v>(kind: &Kind, resource: &'v Value) -> &'v Value {
    match kind {
        Kind::EditCustomHostname => resource.get("ssl").unwrap_or(&Value::Null),
        _ => resource,
    }
}

fn ca(setting: &Value) -> &str {
    setting.get("certificate_authority").and_then(Value::as_str).unwrap_or("")
}

/// The custom hostname's `ssl` to send: every writable field as just read,
/// the CA changed (a key is never read back, and never sent).
fn hostname_ssl(live: &Value, authority: &str) -> Value {
    let mut ssl = Map::new();
    if let Some(now) = live.as_object() {
        for field in HOSTNAME_SSL
            .iter()
            .filter(|f| !matches!(f.name, "custom_key" | "custom_certificate"))
        {
            if let Some(value) = now.get(field.name).filter(|v| !v.is_null()) {
                ssl.insert(field.name.to_string(), value.clone());
            }
        }
    }
    ssl.insert("certificate_authority".into(), Value::String(authority.to_string()));
    serde_json::json!({ "ssl": ssl })
}

impl AccountRun<'_> {
    /// The resource as the service holds it now; `None` when it was deleted.
    fn read_resource(&mut self, step: &Step) -> Result<Option<Value>, Stop> {
        // The same resource as the change: its read, from the step's typed ids.
        let zone = step.zone_id.as_deref().unwrap_or("");
        let get = match step.kind {
            Kind::EditCustomHostname => Operation::of(Op::GetCustomHostname).call(&[zone, step.hostname_id.as_deref().unwrap_or("")]),
            Kind::SetTotalTls => Operation::of(Op::GetTotalTls).call(&[zone]),
            _ => Operation::of(Op::GetUniversalSsl).call(&[zone]),
        };
        match self.client.read(&get) {
            Ok(mut envelope) => Ok(Some(envelope.get_mut("result").map(Value::take).unwrap_or(Value::Null))),
            Err(e) if e.is_gone() => Ok(None),
            Err(e) => Err(read_failed(step, e)),
        }
    }

    pub(super) fn check_certificate(&mut self, step: &Step, from_page: Option<&Value>) -> Result<Ready, Stop> {
        let body = step.body.clone().unwrap_or(Value::Null);
        let expected = step
            .expects
            .as_ref()
            .and_then(|e| e.get("certificate_authority"))
            .and_then(Value::as_str)
            .unwrap_or(crate::plan::Request::MOVES_OFF)
            .to_string();
        let target = ca(setting(&step.kind, &body)).to_string();
        let live = match from_page {
            Some(record) => record.clone(),
            None => match self.read_resource(step)? {
                Some(live) => live,
                None => return Ok(Ready::Gone("the resource was deleted since the export".into())),
            },
        };
        let now = setting(&step.kind, &live);
        if ca(now) == target && now.get("enabled") != Some(&Value::Bool(false)) {
            return Ok(Ready::Done(format!("it is on `{target}`")));
        }
        let wanted = setting(&step.kind, &body);
        let keeps = |field: &str| wanted.get(field).is_none_or(|w| now.get(field) == Some(w));
        if !ca(now).eq_ignore_ascii_case(&expected) || !keeps("method") || !keeps("type") {
            return Err(stop(
                step,
                format!(
                    "the resource changed since the plan (certificate authority `{}`, expected `{expected}`; or its validation method or type differ); export and plan again",
                    ca(now)
                ),
            ));
        }
        let send = match step.kind {
            Kind::EditCustomHostname => hostname_ssl(now, &target),
            _ => body,
        };
        Ok(Ready::Send(Box::new(self.call_of(step, send)), None))
    }

    /// After a certificate change: the setting read back (or as the answer
    /// gives it) is on the new CA, and nothing else in it changed.
    pub(super) fn after_certificate(&mut self, step: &Step, call: &Call, result: &Value, summary: &mut Summary) -> Result<(), Stop> {
        let sent = setting(&step.kind, call.body.as_ref().unwrap_or(&Value::Null)).clone();
        let target = ca(&sent).to_string();
        // A hostname's answer is the hostname; the settings are read back.
        let now = match step.kind {
            Kind::EditCustomHostname if result.get("ssl").is_some() => result.clone(),
            _ => match self.read_resource(step)? {
                Some(now) => now,
                None => return Ok(()),
            },
        };
        let now = setting(&step.kind, &now);
        let changed: Vec<&str> = sent
            .as_object()
            .map(|fields| {
                fields
                    .iter()
                    .filter(|(name, value)| now.get(name.as_str()) != Some(value))
                    .map(|(name, _)| name.as_str())
                    .collect()
            })
            .unwrap_or_default();
        if changed.is_empty() {
            return Ok(());
        }
        let what = if ca(now) != target {
            format!(
                "the service answered but the certificate authority read back is `{}`, not `{target}`: it did not take the change",
                ca(now)
            )
        } else {
            format!("the service changed {} besides the CA", changed.join(", "))
        };
        self.say(step, &what);
        summary.not_taken.push(format!(
            "step {}: {}: {what}; make it {}",
            step.step,
            step.request(),
            by_hand(&step.kind)
        ));
        Ok(())
    }

    /// Runs the custom hostname steps of `step`'s zone from pages of the
    /// zone's list, where that takes fewer reads than a read each; whether it
    /// did. Where the service filters the list by certificate authority (the
    /// current reference), the pages are of the hostnames still on Let's
    /// Encrypt, read until none planned is left on them: churn in the zone
    /// cannot hide one. Else the whole list is paged. A planned hostname not
    /// met on the pages is read by its id; only the service's 404 says it is gone.
    pub(super) fn batch_hostnames(&mut self, step: &Step, summary: &mut Summary) -> Result<bool, Stop> {
        let Some(zone) = step.zone_id.as_deref() else {
            return Ok(false);
        };
        let zone = zone.to_string();
        if !self.zones_seen.insert(zone.clone()) {
            return Ok(false);
        }
        // The steps left, by hostname id: each page's records found in
        // constant time, none removed from the middle of a list.
        // (By the step's place in the plan: a step is decoded when it runs.)
        let mut left: Left = self
            .account
            .steps
            .iter()
            .enumerate()
            .filter(|(_, s)| s.kind == Kind::EditCustomHostname && s.zone_id.as_deref() == Some(zone.as_str()))
            .map(|(i, s)| (s.hostname_id.unwrap_or_default().into_boxed_str(), i))
            .collect();
        if left.len() < 2 {
            return Ok(false);
        }
        let list = Operation::of(Op::ListCustomHostnames).call(&[&zone]);
        let mut unplanned = UnplannedSeen {
            planned: self.account.state.custom_hostnames.iter().map(|h| h.id.as_str()).collect(),
            named: HashSet::new(),
        };
        let filtered = self.client.takes_reference(Op::ListCustomHostnames)
            && self.work_filtered_list(step, &list, &mut left, &mut unplanned, summary)?;
        if !filtered && !self.work_whole_list(step, &list, &mut left, &mut unplanned, summary)? {
            return Ok(false);
        }
        // Not met in the pages: a hostname deleted elsewhere in the list while
        // it was paged shifts later ones onto pages already read. Each is read
        // by its id, in the plan's order.
        let mut missed: Vec<usize> = left.into_values().collect();
        missed.sort_unstable();
        for i in missed {
            self.run_hostname(i, summary, None)?;
        }
        Ok(true)
    }

    /// Runs the `i`-th step of the account, a hostname's, as part of its zone's batch.
    fn run_hostname(&mut self, i: usize, summary: &mut Summary, from_page: Option<&Value>) -> Result<(), Stop> {
        if let Some(s) = self.account.step_at(i) {
            self.step(&s, summary, from_page)?;
            self.batched.insert(s.step);
        }
        Ok(())
    }

    /// Runs the planned hostnames met on pages of the zone's list filtered to
    /// Let's Encrypt. A page on which hostnames were moved off is read again
    /// (the list shrank under it: what came after moved onto it); a pass that
    /// moved any is followed by another from page 1 while planned ones are
    /// left. False when the service refused the filter (nothing was run).
    fn work_filtered_list(
        &mut self,
        step: &Step,
        list: &Call,
        left: &mut Left,
        unplanned: &mut UnplannedSeen<'_>,
        summary: &mut Summary,
    ) -> Result<bool, Stop> {
        let filtered = list.clone().with("certificate_authority", "lets_encrypt");
        let mut number = 1;
        let mut moved_in_pass = 0;
        // The filtered list holds at most the zone's hostnames (its
        // `total_count`): a service that serves full pages past them, paging
        // ignored, is an error, never a loop.
        let mut pages_held = MAX_PAGES;
        while !left.is_empty() {
            if number > pages_held {
                return Err(stop(
                    step,
                    format!("the service answered page {number} of a list of {pages_held} pages (it ignores `page`?)"),
                ));
            }
            let (envelope, per_page) = self.read_hostnames_page(step, &filtered, number)?;
            if let Some(total) = envelope.pointer("/result_info/total_count").and_then(Value::as_u64) {
                pages_held = pages_held.min(total.div_ceil(per_page.max(1) as u64) + 1);
            }
            if !self.client.takes_reference(Op::ListCustomHostnames) {
                // The service refused the filter: that answer was of the whole list.
                let _ = writeln!(
                    self.log,
                    "apply: the service does not filter custom hostnames by certificate authority (HTTP 400): paging the whole list"
                );
                return Ok(false);
            }
            let records = records_of(envelope);
            let sent = summary.sent;
            self.run_page(&records, left, unplanned, summary)?;
            let moved = summary.sent - sent;
            moved_in_pass += moved;
            if records.len() < per_page {
                if moved_in_pass == 0 {
                    break;
                }
                (number, moved_in_pass) = (1, 0);
            } else if moved == 0 {
                number += 1;
            }
        }
        Ok(true)
    }

    /// Page `number` of a zone's hostnames list and its page size, noting
    /// when it was read: a hostname is changed from the page only while it
    /// is fresh.
    fn read_hostnames_page(&mut self, step: &Step, list: &Call, number: u64) -> Result<(Value, usize), Stop> {
        let page = self.client.read_page(list, number).map_err(|e| read_failed(step, e))?;
        self.page_read_at = Some(self.client.clock().now());
        Ok(page)
    }

    /// Runs the planned hostnames met on pages of the zone's whole list,
    /// when its pages are fewer than the steps; false (nothing run) otherwise.
    fn work_whole_list(
        &mut self,
        step: &Step,
        list: &Call,
        left: &mut Left,
        unplanned: &mut UnplannedSeen<'_>,
        summary: &mut Summary,
    ) -> Result<bool, Stop> {
        let (first, per_page) = self.read_hostnames_page(step, list, 1)?;
        let total = first
            .pointer("/result_info/total_count")
            .and_then(Value::as_u64)
            .unwrap_or(u64::MAX);
        if total.div_ceil(per_page as u64) >= left.len() as u64 {
            return Ok(false);
        }
        let mut page = Some(first);
        let mut number = 1;
        while let Some(envelope) = page.take() {
            let records = records_of(envelope);
            self.run_page(&records, left, unplanned, summary)?;
            if records.len() < per_page || left.is_empty() {
                break;
            }
            number += 1;
            if number >= MAX_PAGES {
                return Err(stop(step, format!("more than the {MAX_PAGES} pages edgeaudit reads of one list")));
            }
            page = Some(self.read_hostnames_page(step, list, number)?.0);
        }
        Ok(true)
    }
}

/// The hostname steps of a zone not run yet: hostname id → the step's place in the plan.
type Left = HashMap<Box<str>, usize>;

/// The hostnames the plan holds, and those on Let's Encrypt it does not
/// hold already named (a page read again shows them again).
struct UnplannedSeen<'a> {
    planned: HashSet<&'a str>,
    named: HashSet<String>,
}

impl AccountRun<'_> {
    /// Runs the planned hostnames a page of the zone's list shows, from the
    /// page; names once each hostname on Let's Encrypt the plan does not hold.
    fn run_page(
        &mut self,
        records: &[Value],
        left: &mut Left,
        unplanned: &mut UnplannedSeen<'_>,
        summary: &mut Summary,
    ) -> Result<(), Stop> {
        for record in records {
            let id = record.get("id").and_then(Value::as_str).unwrap_or("");
            if let Some(i) = left.remove(id) {
                self.run_hostname(i, summary, Some(record))?;
            } else if !unplanned.planned.contains(id)
                && ca(record.get("ssl").unwrap_or(&Value::Null)).eq_ignore_ascii_case("lets_encrypt")
                && unplanned.named.insert(id.to_string())
            {
                summary.unplanned.add(id);
            }
        }
        Ok(())
    }
}

/// The records of a list page.
fn records_of(mut envelope: Value) -> Vec<Value> {
    match envelope.get_mut("result").map(Value::take) {
        Some(Value::Array(records)) => records,
        _ => Vec::new(),
    }
}
