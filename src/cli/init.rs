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
            crate::say!("edgeaudit: wrote {path}; `edgeaudit check` will use it from this directory and below");
            EXIT_CLEAN
        }
        Err(e) => fail(format!("cannot write {path}: {e}")),
    }
}
