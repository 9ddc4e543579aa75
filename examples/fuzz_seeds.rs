//! Seeds the `check_file` fuzz target from the input formats' registry:
//! every fixture whose name a format reads, prefixed with that format's
//! index in `input::FORMATS` (the byte by which the target picks the
//! format). A new format is seeded the day it is registered.
//!
//!     cargo run --example fuzz_seeds -- fuzz/corpus/check_file
//!
//! (`fuzz/seed.sh` runs it.)

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use edgeaudit::input::FORMATS;

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn main() -> ExitCode {
    let Some(corpus) = std::env::args().nth(1) else {
        eprintln!("usage: cargo run --example fuzz_seeds -- CORPUS_DIR");
        return ExitCode::FAILURE;
    };
    let corpus = PathBuf::from(corpus);
    if let Err(e) = std::fs::create_dir_all(&corpus) {
        eprintln!("{}: {e}", corpus.display());
        return ExitCode::FAILURE;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut fixtures = Vec::new();
    files(&root.join("fixtures"), &mut fixtures);
    files(&root.join("tests/fixtures"), &mut fixtures);
    let mut written = 0;
    let mut unseeded = Vec::new();
    for (index, format) in FORMATS.iter().enumerate() {
        let Ok(byte) = u8::try_from(index) else { continue };
        let before = written;
        for path in &fixtures {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_ascii_lowercase();
            let Some((_, extension)) = name.rsplit_once('.') else { continue };
            if !format.extensions().contains(&extension) {
                continue;
            }
            let Ok(text) = std::fs::read(path) else { continue };
            let mut seed = vec![byte];
            seed.extend(text);
            let relative = path.strip_prefix(root).unwrap_or(path).to_string_lossy().replace(['/', '\\'], "_");
            if std::fs::write(corpus.join(format!("{}-{relative}", format.name())), seed).is_ok() {
                written += 1;
            }
        }
        if written == before {
            unseeded.push(format.name());
        }
    }
    if !unseeded.is_empty() {
        eprintln!(
            "no fixture under fixtures/ or tests/fixtures/ seeds {}: add one",
            unseeded.join(", ")
        );
        return ExitCode::FAILURE;
    }
    println!("check_file: {written} seeds, every format of the registry");
    ExitCode::SUCCESS
}
