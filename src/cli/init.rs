//! `edgeaudit init`: writes the starter config, never over an existing file
//! unless told to.

use super::{EXIT_CLEAN, fail};
use crate::config::starter::STARTER;

pub fn run(path: &str, force: bool) -> u8 {
    if !force && std::path::Path::new(path).exists() {
        return fail(format!("{path} already exists: edit it, or pass --force to replace it"));
    }
    match std::fs::write(path, STARTER) {
        Ok(()) => {
            crate::say!("edgeaudit: wrote {path}; {}", init_says(path));
            EXIT_CLEAN
        }
        Err(e) => fail(format!("cannot write {path}: {e}")),
    }
}

/// What the written file will do: found by name (`.edgeaudit.yaml`), or
/// only when named with `--config`.
fn init_says(path: &str) -> String {
    let file_name = std::path::Path::new(path).file_name().and_then(|n| n.to_str());
    if file_name == Some(crate::config::FILE_NAME) {
        "`edgeaudit check`, `plan` and `inventory` use it for the paths in this directory and below".to_string()
    } else {
        format!(
            "only a file named {} is found by itself: pass `--config {path}` to use this one",
            crate::config::FILE_NAME
        )
    }
}
