//! Records that shifted across a page boundary while a list was paged.
//!
//! Paging by `page` and `per_page` is safe against records added anywhere
//! (a record pushed from a page read already onto the next is read twice,
//! never missed) but not against a record deleted on a page read already:
//! every later record moves one place towards the start, and the one that
//! crossed the boundary between the page read and the next is on neither. A
//! deletion and a creation at once leave the count as it was, so counting
//! cannot tell. After each page after the first, the [`WINDOW`] places
//! before its start are read again: the records there after the last one the
//! page before ended with are the ones that crossed, and are kept with the
//! page (read from that window, as it came). Only what shifted is read
//! again; a shift of more places than the window holds is said
//! ([`Boundaries::lost`]), and the list is read again whole.

use serde_json::Value;

use super::client::{Client, LiveError};
use crate::api::Call;

/// The places before a page's start read again: the contract's smallest page.
pub const WINDOW: usize = 5;

/// The boundaries of one read of a list.
#[derive(Debug, Default)]
pub struct Boundaries {
    /// The ids the page read last ended with (at most [`WINDOW`]).
    tail: Vec<String>,
    /// Records found that had crossed a boundary, in all.
    pub recovered: usize,
    /// A boundary whose window held none of the page before's last records:
    /// more moved than the window shows.
    pub lost: bool,
    /// Whether every boundary could be read again (the page size a multiple of the window).
    pub probed: bool,
}

fn id_of(record: &Value) -> Option<&str> {
    record.get("id").and_then(Value::as_str)
}

fn records(envelope: &Value) -> &[Value] {
    envelope.get("result").and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

impl Boundaries {
    /// A read that starts after a kept page (a resumed export): its last records.
    pub fn after(kept: &Value) -> Boundaries {
        let mut boundaries = Boundaries::new();
        boundaries.remember(kept);
        boundaries
    }

    pub fn new() -> Boundaries {
        Boundaries {
            probed: true,
            ..Boundaries::default()
        }
    }

    fn remember(&mut self, page: &Value) {
        let ids: Vec<String> = records(page).iter().filter_map(id_of).map(str::to_string).collect();
        self.tail = ids[ids.len().saturating_sub(WINDOW)..].to_vec();
    }

    /// Page `number` (read at `per_page`) has just been read: the window
    /// before its start is read again, and the records that crossed the
    /// boundary since the page before was read are added to `page` (its
    /// `recovered_by_edgeaudit` names the request they came from).
    pub fn next(&mut self, client: &mut Client, call: &Call, number: u64, per_page: usize, page: &mut Value) -> Result<(), LiveError> {
        let start = (number.saturating_sub(1) as usize).saturating_mul(per_page);
        let readable = per_page.is_multiple_of(WINDOW) && start >= WINDOW && !self.tail.is_empty();
        if number > 1 && !readable {
            self.probed = false;
        }
        if number > 1 && readable {
            let window = call.clone().with("page", start / WINDOW).with("per_page", WINDOW);
            let before = client.read(&window)?;
            let seen: Vec<&str> = records(page).iter().filter_map(id_of).collect();
            let held = records(&before);
            match held
                .iter()
                .rposition(|r| id_of(r).is_some_and(|id| self.tail.iter().any(|t| t == id)))
            {
                None => self.lost = true,
                Some(anchor) => {
                    let crossed: Vec<Value> = held[anchor + 1..]
                        .iter()
                        .filter(|r| id_of(r).is_some_and(|id| !seen.contains(&id) && !self.tail.iter().any(|t| t == id)))
                        .cloned()
                        .collect();
                    self.remember(page);
                    if !crossed.is_empty() {
                        self.recovered += crossed.len();
                        if let Some(list) = page.get_mut("result").and_then(Value::as_array_mut) {
                            list.extend(crossed.iter().cloned());
                        }
                        page["recovered_by_edgeaudit"] = serde_json::json!({
                            "records": crossed.len(),
                            "from": window.name(),
                            "why": "they crossed the boundary before this page while the list was paged (a record deleted on a page read already)",
                        });
                    }
                    return Ok(());
                }
            }
        }
        self.remember(page);
        Ok(())
    }
}
