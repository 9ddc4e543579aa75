//! Which files to read: paths as given, directories walked recursively in
//! sorted order for `*.json`, `*.yaml`, `*.yml` and BIND zone exports
//! (`*.zone`, `*.bind`).

use std::fs;
use std::path::{Path, PathBuf};

use super::error::InputError;
use super::source::Format;

#[derive(Debug, Clone)]
pub struct Input {
    /// Display name: as given, `/`-separated; `-` is stdin.
    pub name: String,
    pub path: Option<PathBuf>,
    /// Found by walking a directory rather than named.
    pub discovered: bool,
}

pub fn discover(paths: &[String]) -> Result<Vec<Input>, InputError> {
    let mut inputs = Vec::new();
    for given in paths {
        if given == "-" {
            inputs.push(Input {
                name: "-".into(),
                path: None,
                discovered: false,
            });
            continue;
        }
        let path = Path::new(given);
        let meta = fs::metadata(path).map_err(|e| InputError::unreadable(&display(given), format!("cannot read: {e}")))?;
        if meta.is_dir() {
            let before = inputs.len();
            walk(path, &display(given), &mut inputs)?;
            if inputs.len() == before {
                return Err(InputError::unreadable(
                    &display(given),
                    "no exports (*.json, *.yaml, *.yml, *.zone, *.bind) in this directory",
                ));
            }
        } else {
            inputs.push(Input {
                name: display(given),
                path: Some(path.to_path_buf()),
                discovered: false,
            });
        }
    }
    Ok(inputs)
}

fn display(given: &str) -> String {
    let s = given.replace('\\', "/");
    let s = s.strip_prefix("./").unwrap_or(&s);
    let trimmed = s.trim_end_matches('/');
    if trimmed.is_empty() { s.to_string() } else { trimmed.to_string() }
}

fn walk(dir: &Path, name: &str, out: &mut Vec<Input>) -> Result<(), InputError> {
    let entries = fs::read_dir(dir).map_err(|e| InputError::unreadable(name, format!("cannot read directory: {e}")))?;
    let mut children: Vec<(String, PathBuf)> = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| InputError::unreadable(name, format!("cannot read directory: {e}")))?;
        let file_name = entry.file_name().to_string_lossy().into_owned();
        if !file_name.starts_with('.') {
            children.push((file_name, entry.path()));
        }
    }
    children.sort();
    for (file_name, path) in children {
        let child = if name == "." || name.is_empty() {
            file_name.clone()
        } else {
            format!("{name}/{file_name}")
        };
        // Symbolic links to directories are not followed (no cycles).
        let Ok(link_meta) = fs::symlink_metadata(&path) else { continue };
        if link_meta.is_dir() {
            walk(&path, &child, out)?;
        } else if Format::from_path(&file_name).is_some() && fs::metadata(&path).is_ok_and(|m| m.is_file()) {
            out.push(Input {
                name: child,
                path: Some(path),
                discovered: true,
            });
        }
    }
    Ok(())
}
