//! Which files to read: paths as given, directories walked recursively in
//! sorted order for the extensions of the input formats' registry
//! (`input::FORMATS`; a named `.tf` file brings the other `.tf` files of its
//! directory, its configuration, as a module needs all of them), respecting `.gitignore`, `.ignore` and the
//! `exclude` patterns. Hidden entries are skipped. A symbolic link to a file
//! is read as that file; a link to a directory is not followed (no cycles).
//! An entry the walk does not read although its name looks like an export (a
//! linked directory, a broken link, a FIFO or a device) is listed as skipped
//! with its reason, never passed over in silence. The walk is the `ignore`
//! crate's, as ripgrep's is.

use std::path::{Path, PathBuf};

use super::exclude::Exclude;
use crate::text::error::InputError;

#[derive(Debug, Clone)]
pub struct Input {
    /// Display name: as given, `/`-separated; `-` is stdin.
    pub name: String,
    pub path: Option<PathBuf>,
    /// Found by walking a directory rather than named.
    pub discovered: bool,
    /// Brought in only as the configuration of a named `.tf` file: read
    /// whole (its references need it), but its own findings are not reported.
    pub context: bool,
}

/// What to read, what a walk met but does not read (with why), and the
/// paths that cannot be read at all: every one of them, not only the first.
#[derive(Debug, Default)]
pub struct Discovered {
    pub inputs: Vec<Input>,
    pub skipped: Vec<InputError>,
    pub errors: Vec<InputError>,
}

/// `stdin_name` is what standard input (`-`) is called in reports
/// (`--stdin-filename`); `-` when not given.
pub fn discover(paths: &[String], exclude: &Exclude, stdin_name: Option<&str>) -> Discovered {
    let mut found = Discovered::default();
    discover_into(paths, exclude, stdin_name, &mut found);
    let Discovered {
        mut inputs,
        skipped,
        errors,
    } = found;
    // The same file named twice, or named and met in a directory, is read once
    // (where it was first met): loading it twice would count its resources twice.
    // A file named (or walked) as well as brought in as context is the user's.
    let canonical = |path: &PathBuf| std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
    let asked: std::collections::HashSet<PathBuf> = inputs
        .iter()
        .filter(|i| !i.context)
        .filter_map(|i| i.path.as_ref().map(canonical))
        .collect();
    let mut seen = std::collections::HashSet::new();
    inputs.retain_mut(|input| match &input.path {
        None => true,
        Some(path) => {
            let path = canonical(path);
            if input.context && asked.contains(&path) {
                input.context = false;
            }
            seen.insert(path)
        }
    });
    Discovered { inputs, skipped, errors }
}

fn discover_into(paths: &[String], exclude: &Exclude, stdin_name: Option<&str>, found: &mut Discovered) {
    // Directories whose `.tf` files a named one brought in: pre-commit names
    // every changed file of a configuration, which is read once.
    let mut configurations = std::collections::HashSet::new();
    for given in paths {
        if given == "-" {
            // Named, standard input is excluded as the file it stands for would be.
            if let Some(name) = stdin_name
                && exclude.force
                && exclude.excludes(Path::new(name), false)
            {
                continue;
            }
            found.inputs.push(Input {
                name: stdin_name.map_or_else(|| "-".to_string(), display),
                path: None,
                discovered: false,
                context: false,
            });
            continue;
        }
        let path = Path::new(given);
        let meta = match std::fs::metadata(path) {
            Ok(meta) => meta,
            Err(e) => {
                found
                    .errors
                    .push(InputError::unreadable(&display(given), format!("cannot read: {e}")));
                continue;
            }
        };
        // A path named on the command line is read even when excluded, unless
        // `--force-exclude` says otherwise (pre-commit names every staged file).
        if exclude.force && exclude.excludes(path, meta.is_dir()) {
            continue;
        }
        if meta.is_dir() {
            let (inputs_before, skipped_before) = (found.inputs.len(), found.skipped.len());
            let errors_before = found.errors.len();
            walk(path, &display(given), exclude, found, None);
            if found.inputs.len() == inputs_before && found.errors.len() == errors_before {
                // Nothing to read: a run that passed would be a silent pass.
                let skipped: Vec<InputError> = found.skipped.drain(skipped_before..).collect();
                found.errors.extend(skipped);
                found.errors.push(InputError::unreadable(
                    &display(given),
                    format!(
                        "no exports ({}) in this directory, once .gitignore, .ignore and the exclude patterns are applied",
                        crate::input::extension_globs()
                    ),
                ));
            }
        } else {
            found.inputs.push(Input {
                name: display(given),
                path: Some(path.to_path_buf()),
                discovered: false,
                context: false,
            });
            if crate::input::from_path(given).is_some_and(|f| f.is_configuration()) {
                configuration_of(path, &display(given), exclude, found, &mut configurations);
            }
        }
    }
}

/// The other `.tf` files beside a named one: checked with it, since its
/// policies may cover their pools and its references name their resources.
/// Found by the walk of its directory, one level deep, so hidden, ignored
/// and excluded files stay out as they do in a walk.
/// `done` holds the directories already brought in.
fn configuration_of(file: &Path, name: &str, exclude: &Exclude, found: &mut Discovered, done: &mut std::collections::HashSet<String>) {
    let dir = file.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let dir_name = crate::input::hcl::config::dir_of(name);
    if !done.insert(dir_name.clone()) {
        return;
    }
    let mut beside = Discovered::default();
    walk(dir, &dir_name, exclude, &mut beside, Some(1));
    let is_tf = |file: &str| crate::input::from_path(file).is_some_and(|f| f.is_configuration());
    found.inputs.extend(
        beside
            .inputs
            .into_iter()
            .filter(|i| is_tf(&i.name))
            .map(|i| Input { context: true, ..i }),
    );
    found.skipped.extend(beside.skipped.into_iter().filter(|s| is_tf(&s.file)));
    // A configuration's file, or its directory, that cannot be read leaves
    // the configuration incomplete: an error, never judged on half of it.
    found
        .errors
        .extend(beside.errors.into_iter().filter(|e| is_tf(&e.file) || e.file == dir_name));
}

fn display(given: &str) -> String {
    let s = given.replace('\\', "/");
    let s = s.strip_prefix("./").unwrap_or(&s);
    let trimmed = s.trim_end_matches('/');
    if trimmed.is_empty() { s.to_string() } else { trimmed.to_string() }
}

/// Walks `dir` (named `name` in reports), `max_depth` levels deep when given.
fn walk(dir: &Path, name: &str, exclude: &Exclude, found: &mut Discovered, max_depth: Option<usize>) {
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
        .max_depth(max_depth)
        .sort_by_file_name(|a, b| a.cmp(b))
        // Entries below the named directory: the directory itself was named, so it is read.
        .filter_entry(move |e| e.depth() == 0 || !excluded.excludes_entry(e.path(), e.file_type().is_some_and(|t| t.is_dir())))
        .build();
    for entry in walker {
        let entry = match entry {
            Ok(entry) => entry,
            // A subdirectory that cannot be read is reported; the walk goes on.
            Err(e) => {
                found
                    .errors
                    .push(InputError::unreadable(name, format!("cannot read directory: {e}")));
                continue;
            }
        };
        let Some(file_type) = entry.file_type() else { continue };
        if file_type.is_dir() {
            continue;
        }
        let relative = entry.path().strip_prefix(dir).unwrap_or(entry.path());
        let relative = relative.to_string_lossy().replace('\\', "/");
        let child = if name == "." || name.is_empty() {
            relative
        } else {
            format!("{name}/{relative}")
        };
        let looks_like_export = crate::input::from_path(&entry.file_name().to_string_lossy()).is_some();
        let skip = |reason: &str| InputError::unreadable(&child, "").not_analysed(reason);
        if file_type.is_symlink() {
            match std::fs::metadata(entry.path()) {
                Ok(target) if target.is_dir() => {
                    found.skipped.push(skip(
                        "a symbolic link to a directory, not followed (links could loop); name the directory to check it",
                    ));
                    continue;
                }
                Ok(target) if target.is_file() => {}
                Ok(_) if looks_like_export => {
                    found.skipped.push(skip(NOT_REGULAR));
                    continue;
                }
                Err(e) if looks_like_export => {
                    found
                        .skipped
                        .push(skip(&format!("a symbolic link whose target cannot be read ({e})")));
                    continue;
                }
                _ => continue,
            }
        } else if !file_type.is_file() {
            if looks_like_export {
                found.skipped.push(skip(NOT_REGULAR));
            }
            continue;
        }
        if !looks_like_export {
            continue;
        }
        found.inputs.push(Input {
            name: child,
            path: Some(entry.path().to_path_buf()),
            discovered: true,
            context: false,
        });
    }
}

/// Why a walk does not read a FIFO, socket or device: reading one could wait
/// for ever, or without end.
const NOT_REGULAR: &str = "not a regular file (a FIFO, socket or device), not read in a walk; name it to read it";
