//! Which files to read: paths as given, directories walked recursively in
//! sorted order for `*.json`, `*.yaml`, `*.yml` and BIND zone exports
//! (`*.zone`, `*.bind`), respecting `.gitignore`, `.ignore` and the
//! `exclude` patterns. Hidden entries are skipped and symbolic links are not
//! followed (no cycles). The walk is the `ignore` crate's, as ripgrep's is.

use std::path::{Path, PathBuf};

use super::error::InputError;
use super::exclude::Exclude;
use super::source::Format;

#[derive(Debug, Clone)]
pub struct Input {
    /// Display name: as given, `/`-separated; `-` is stdin.
    pub name: String,
    pub path: Option<PathBuf>,
    /// Found by walking a directory rather than named.
    pub discovered: bool,
}

pub fn discover(paths: &[String], exclude: &Exclude) -> Result<Vec<Input>, InputError> {
    let mut inputs = Vec::new();
    discover_into(paths, exclude, &mut inputs)?;
    // The same file named twice, or named and met in a directory, is read once
    // (where it was first met): loading it twice would count its resources twice.
    let mut seen = std::collections::HashSet::new();
    inputs.retain(|input| match &input.path {
        None => true,
        Some(path) => seen.insert(std::fs::canonicalize(path).unwrap_or_else(|_| path.clone())),
    });
    Ok(inputs)
}

fn discover_into(paths: &[String], exclude: &Exclude, inputs: &mut Vec<Input>) -> Result<(), InputError> {
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
        let meta = std::fs::metadata(path).map_err(|e| InputError::unreadable(&display(given), format!("cannot read: {e}")))?;
        // A path named on the command line is read even when excluded, unless
        // `--force-exclude` says otherwise (pre-commit names every staged file).
        if exclude.force && exclude.excludes(path, meta.is_dir()) {
            continue;
        }
        if meta.is_dir() {
            let before = inputs.len();
            walk(path, &display(given), exclude, inputs)?;
            if inputs.len() == before {
                return Err(InputError::unreadable(
                    &display(given),
                    "no exports (*.json, *.yaml, *.yml, *.zone, *.bind) in this directory, once .gitignore, .ignore and the exclude patterns are applied",
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
    Ok(())
}

fn display(given: &str) -> String {
    let s = given.replace('\\', "/");
    let s = s.strip_prefix("./").unwrap_or(&s);
    let trimmed = s.trim_end_matches('/');
    if trimmed.is_empty() { s.to_string() } else { trimmed.to_string() }
}

fn walk(dir: &Path, name: &str, exclude: &Exclude, out: &mut Vec<Input>) -> Result<(), InputError> {
    let excluded = exclude.clone();
    let walker = ignore::WalkBuilder::new(dir)
        .hidden(true)
        .parents(true)
        .ignore(true)
        .git_ignore(true)
        .git_exclude(true)
        // A user's global gitignore is not part of the project: runs must not
        // differ between machines.
        .git_global(false)
        // Exports kept outside a git repository still mean their .gitignore.
        .require_git(false)
        .follow_links(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        // Entries below the named directory: the directory itself was named, so it is read.
        .filter_entry(move |e| e.depth() == 0 || !excluded.excludes_entry(e.path(), e.file_type().is_some_and(|t| t.is_dir())))
        .build();
    for entry in walker {
        let entry = entry.map_err(|e| InputError::unreadable(name, format!("cannot read directory: {e}")))?;
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let file_name = entry.file_name().to_string_lossy();
        if Format::from_path(&file_name).is_none() {
            continue;
        }
        let relative = entry.path().strip_prefix(dir).unwrap_or(entry.path());
        let relative = relative.to_string_lossy().replace('\\', "/");
        let child = if name == "." || name.is_empty() {
            relative
        } else {
            format!("{name}/{relative}")
        };
        out.push(Input {
            name: child,
            path: Some(entry.path().to_path_buf()),
            discovered: true,
        });
    }
    Ok(())
}
