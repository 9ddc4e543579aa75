#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let mut rules = edgeaudit::engine::RuleSet::builtin().expect("built-in rules");
        let _ = rules.add_pack("pack.yaml", text);
    }
});
