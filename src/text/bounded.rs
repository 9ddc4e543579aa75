//! Every input is read with a size bound: a file larger than memory (a sparse
//! terabyte), `/dev/zero` or an endless pipe is an error with its size and
//! the bound, never an allocation failure or a read that does not end.

use std::io::Read;
use std::path::Path;

/// The default bound for exports and baselines: three times the largest real
/// account we know of (a million custom hostnames, about 1.2 GB).
pub const DEFAULT_MAX_INPUT: u64 = 4 << 30;

/// The bound for edgeaudit's own small files: configs and rule packs.
pub const MAX_SMALL_FILE: u64 = 16 << 20;

/// Reads `path` (standard input when `None`) whole, refusing more than `bound`
/// bytes. `flag` names how to raise the bound, for the message.
pub fn read(path: Option<&Path>, bound: u64, flag: &str) -> Result<Vec<u8>, String> {
    let raise = if flag.is_empty() {
        String::new()
    } else {
        format!(" ({flag} raises it)")
    };
    let limit = format!("the limit of {}{raise}", bytes(bound));
    // The reader, and the size a regular file says it has (0 for a stream).
    let (reader, expected): (Box<dyn Read>, u64) = match path {
        None => (Box::new(std::io::stdin().lock()), 0),
        Some(path) => {
            let file = std::fs::File::open(path).map_err(|e| format!("cannot read: {e}"))?;
            let meta = file.metadata().map_err(|e| format!("cannot read: {e}"))?;
            if meta.is_dir() {
                return Err("it is a directory".into());
            }
            // A regular file says its size: refuse it before reading a byte.
            // Devices and pipes are read up to the bound instead.
            let size = if meta.is_file() { meta.len() } else { 0 };
            if size > bound {
                return Err(format!("it is {}, more than {limit}", bytes(size)));
            }
            (Box::new(file), size)
        }
    };
    let mut out = Vec::new();
    // Sized up front (growing by doubling would briefly hold twice a large
    // export), without aborting when memory cannot hold it.
    out.try_reserve_exact(expected.saturating_add(1) as usize)
        .map_err(|_| format!("cannot hold its {} in memory", bytes(expected)))?;
    // Straight into the reserved buffer; one byte past the bound tells an
    // input that goes on. std reserves with `try_reserve`, so a stream that
    // outgrows memory is an error here too, not an abort.
    reader
        .take(bound.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::OutOfMemory => format!("cannot hold more than {} in memory", bytes(out.len() as u64)),
            _ => format!("cannot read: {e}"),
        })?;
    if out.len() as u64 > bound {
        return Err(format!("it goes on past {limit}"));
    }
    Ok(out)
}

/// Reads one of edgeaudit's own small files as text.
pub fn read_small(path: &Path) -> Result<String, String> {
    read_text(path, MAX_SMALL_FILE)
}

/// Reads a file as UTF-8 text, refusing more than `bound` bytes.
pub fn read_text(path: &Path, bound: u64) -> Result<String, String> {
    let raw = read(Some(path), bound, "")?;
    String::from_utf8(raw).map_err(|e| format!("invalid UTF-8 (byte {})", e.utf8_error().valid_up_to()))
}

/// A size in words: `1.5 GiB (1610612736 bytes)`.
pub fn bytes(n: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    match UNITS.iter().find(|(_, size)| n >= *size) {
        Some((unit, size)) => format!("{:.1} {unit} ({n} bytes)", n as f64 / *size as f64),
        None => format!("{n} bytes"),
    }
}

/// A size as `--max-input-size` takes it: bytes, or with K, M, G (binary).
pub fn parse_size(text: &str) -> Option<u64> {
    let t = text.trim();
    let (digits, shift) = match t.char_indices().last()? {
        (i, 'K' | 'k') => (&t[..i], 10),
        (i, 'M' | 'm') => (&t[..i], 20),
        (i, 'G' | 'g') => (&t[..i], 30),
        _ => (t, 0),
    };
    digits.trim().parse::<u64>().ok()?.checked_mul(1 << shift)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_print() {
        assert_eq!(parse_size("1024"), Some(1024));
        assert_eq!(parse_size("8G"), Some(8 << 30));
        assert_eq!(parse_size("16m"), Some(16 << 20));
        assert_eq!(parse_size("x"), None);
        assert_eq!(parse_size("99999999999G"), None, "overflow");
        assert_eq!(bytes(1 << 30), "1.0 GiB (1073741824 bytes)");
        assert_eq!(bytes(12), "12 bytes");
    }

    #[test]
    fn a_file_over_the_bound_is_refused_before_it_is_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("big.json");
        let file = std::fs::File::create(&path).expect("create");
        // Sparse: a terabyte that takes no disk.
        file.set_len(1 << 40).expect("set_len");
        let err = read(Some(&path), DEFAULT_MAX_INPUT, "--max-input-size").expect_err("refused");
        assert!(err.contains("1024.0 GiB") && err.contains("--max-input-size"), "{err}");
    }

    #[test]
    fn a_device_is_read_up_to_the_bound() {
        let err = read(Some(Path::new("/dev/zero")), 1 << 20, "--max-input-size").expect_err("refused");
        assert!(err.contains("it goes on past the limit of 1.0 MiB"), "{err}");
    }
}
