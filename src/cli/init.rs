//! `edgeaudit init`: writes the starter config, never over an existing file
//! unless told to.

use super::{EXIT_CLEAN, fail};
use crate::config::starter::STARTER;

pub fn run(path: &str, force: bool) -> u8 {
    let target = std::path::Path::new(path);
    // A link there (dangling or not) would have the config written wherever it points.
    if crate::files::is_link(target) {
        return fail(format!(
            "{path} is a symbolic link: not written through, even with --force; remove it, or name another path"
        ));
    }
    if !force && target.exists() {
        return fail(format!("{path} already exists: edit it, or pass --force to replace it"));
    }
    let written = if force {
        crate::files::write_atomically(target, STARTER.as_bytes())
    } else {
        crate::files::create_new(target).and_then(|mut f| std::io::Write::write_all(&mut f, STARTER.as_bytes()))
    };
    match written {
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
