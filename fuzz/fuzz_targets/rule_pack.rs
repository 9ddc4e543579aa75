#![no_main]
use std::sync::OnceLock;

use edgeaudit::engine::RuleSet;

// The built-in rules are parsed once: a pack is checked against them (ids
// must not clash), and parsing them per input made the target slow.
static BUILTIN: OnceLock<RuleSet> = OnceLock::new();

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let mut rules = BUILTIN.get_or_init(|| RuleSet::builtin().expect("built-in rules")).clone();
        let _ = rules.add_pack("pack.yaml", text);
    }
});
