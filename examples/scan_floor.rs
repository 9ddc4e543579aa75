//! The floor of DESIGN §6: read the file and run a bare
//! `serde_json::from_slice::<IgnoredAny>` over it. Prints the seconds taken.

use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).unwrap_or_else(|| panic!("usage: scan_floor FILE"));
    let start = Instant::now();
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let parsed = serde_json::from_slice::<serde::de::IgnoredAny>(&bytes);
    let elapsed = start.elapsed().as_secs_f64();
    assert!(parsed.is_ok(), "{path} is not valid JSON");
    println!("{elapsed:.3}");
}
