#![no_main]
#[path = "common.rs"]
mod common;

// A whole check of one file: the first byte picks the format among every
// format of the registry (0 JSON, 1 JSON Lines, …, in `FORMATS`' order), the
// rest is the file.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    use edgeaudit::input::FORMATS;
    let Some((&pick, rest)) = data.split_first() else { return };
    common::load(rest, FORMATS[pick as usize % FORMATS.len()], "input", true);
});
