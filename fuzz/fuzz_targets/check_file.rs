#![no_main]
#[path = "common.rs"]
mod common;

// A whole check of one file: the first byte picks the format, the rest is the file.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    use edgeaudit::input::source::Format;
    let Some((&pick, rest)) = data.split_first() else { return };
    let format = match pick % 3 {
        0 => Format::Json,
        1 => Format::Yaml,
        _ => Format::Bind,
    };
    common::load(rest, format, "input", true);
});
