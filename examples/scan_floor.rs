//! The floors of docs/src/performance.md: read the file and run a bare parse into
//! `IgnoredAny` over it — `serde_json::from_slice` for JSON, serde-saphyr
//! with edgeaudit's own parser options (budgets scaled to the file) for
//! `.yaml`/`.yml`. Prints the seconds taken.
//!
//! With the system allocator, not the binary's mimalloc: the floor is a
//! fixed yardstick, and the stricter one. Its one large buffer (the whole
//! file) is read about as fast with glibc as the binary maps it; mimalloc
//! made that read 2x slower without transparent huge pages, and erratic
//! with them (0.7-2.6 s at 1.13 GB). The YAML floor measures the same
//! with either.

use std::time::Instant;

use serde::de::IgnoredAny;

fn main() {
    let path = std::env::args().nth(1).unwrap_or_else(|| panic!("usage: scan_floor FILE"));
    let start = Instant::now();
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let ok = if path.ends_with(".yaml") || path.ends_with(".yml") {
        let text = std::str::from_utf8(&bytes).unwrap_or_else(|e| panic!("{path}: {e}"));
        let options = edgeaudit::input::yaml::options(text.len());
        serde_saphyr::from_str_with_options::<IgnoredAny>(text, options).is_ok()
    } else {
        serde_json::from_slice::<IgnoredAny>(&bytes).is_ok()
    };
    let elapsed = start.elapsed().as_secs_f64();
    assert!(ok, "{path} does not parse");
    println!("{elapsed:.3}");
}
