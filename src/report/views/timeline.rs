//! The certificates to draw against the chain change: each certificate
//! with both an upload and an expiry date, the ones the change is about
//! first (a cross-signed chain, then Let's Encrypt, soonest expiry first),
//! at most a given number kept while the inventory streams past (a million
//! hostnames are never held); the rest counted.

use chrono::NaiveDate;

use super::super::Context;
use crate::inventory::Row;

/// The CA as people name it.
pub fn ca_words(ca: &str) -> &str {
    match ca {
        "lets_encrypt" => "Let's Encrypt",
        "google" => "Google Trust Services",
        "ssl_com" => "SSL.com",
        "digicert" => "DigiCert",
        "default" => "Default CA",
        "unknown" => "CA not exported",
        "other" => "Other CAs",
        other => other,
    }
}

/// A chain through the retired cross-signed ISRG Root X1 (or DST Root CA X3).
pub fn cross_signed(row: &Row) -> bool {
    matches!(row.chain, "cross_signed" | "dst_cross_signed")
}

/// A bar: what it is drawn from, and its order (smaller first).
pub struct Bar {
    order: (bool, bool, NaiveDate, String),
    pub row: Row,
    pub from: NaiveDate,
    pub until: NaiveDate,
}

fn date(s: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").ok()
}

/// What is drawn and what is counted.
pub struct Timeline {
    /// At most the number asked for, in drawing order.
    pub bars: Vec<Bar>,
    /// Every certificate of the inventory.
    pub certificates: usize,
    /// Those with both dates (drawn or not).
    pub drawable: usize,
    /// Those without an upload or an expiry date (or with an expiry before the upload).
    pub undated: usize,
}

pub fn timeline(ctx: &Context, max_bars: usize) -> Timeline {
    let mut bars: Vec<Bar> = Vec::new();
    let (mut certificates, mut undated) = (0usize, 0usize);
    crate::inventory::for_each_row(
        ctx.analysis.inventory(),
        |_| String::new(),
        |row| {
            certificates += 1;
            let (Some(from), Some(until)) = (date(&row.uploaded), date(&row.expires)) else {
                undated += 1;
                return;
            };
            if until < from {
                undated += 1;
                return;
            }
            let order = (!cross_signed(&row), row.ca != "lets_encrypt", until, row.hosts.clone());
            bars.push(Bar { order, row, from, until });
            // Keep the first bars only: a million hostnames are never held.
            if bars.len() >= max_bars * 8 {
                bars.sort_by(|a, b| a.order.cmp(&b.order));
                bars.truncate(max_bars);
            }
        },
    );
    bars.sort_by(|a, b| a.order.cmp(&b.order));
    let drawable = bars.len();
    bars.truncate(max_bars);
    Timeline {
        bars,
        certificates,
        drawable,
        undated,
    }
}
