//! `exclude` globs (config and `--exclude`), gitignore-style: `*.bak`,
//! `vendor/`, `exports/old/**`. A config's patterns are relative to its
//! directory, the command line's to the working directory.

use std::path::{Component, Path, PathBuf};

use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// One source of patterns (the config, or the command line).
#[derive(Debug, Clone)]
pub struct Patterns {
    matcher: Gitignore,
}

impl Patterns {
    /// Patterns relative to `root`; an invalid one is an error naming it.
    pub fn new(root: &Path, patterns: &[String]) -> Result<Patterns, String> {
        let mut builder = GitignoreBuilder::new(absolute(root));
        for pattern in patterns {
            if pattern.trim().is_empty() {
                return Err("an empty exclude pattern: remove it".into());
            }
            builder
                .add_line(None, pattern)
                .map_err(|e| format!("`{pattern}` is not a valid exclude pattern: {e}"))?;
        }
        let matcher = builder.build().map_err(|e| format!("invalid exclude patterns: {e}"))?;
        Ok(Patterns { matcher })
    }

    /// Whether the path itself matches (a walk prunes excluded directories
    /// as it meets them, so their contents need no check of their own).
    fn matches(&self, path: &Path, is_dir: bool) -> bool {
        let path = absolute(path);
        path.starts_with(self.matcher.path()) && self.matcher.matched(&path, is_dir).is_ignore()
    }

    /// Whether the path, or a directory above it (up to the patterns' root), is excluded.
    fn excludes(&self, path: &Path, is_dir: bool) -> bool {
        let path = absolute(path);
        let root = self.matcher.path();
        let mut candidate = Some(path.as_path());
        let mut dir = is_dir;
        while let Some(p) = candidate.filter(|p| p.starts_with(root) && *p != root) {
            let found = self.matcher.matched(p, dir);
            if found.is_whitelist() {
                return false;
            }
            if found.is_ignore() {
                return true;
            }
            candidate = p.parent();
            dir = true;
        }
        false
    }
}

/// Every exclude pattern of a run, and whether they apply to paths named on
/// the command line (`--force-exclude`, for pre-commit, which passes paths).
#[derive(Debug, Clone, Default)]
pub struct Exclude {
    pub patterns: Vec<Patterns>,
    pub force: bool,
    /// [`DEFAULT_EXCLUDES`] still in force: they prune walks only. A path
    /// named on the command line is never dropped for them, even with
    /// `--force-exclude` (a repository under `/builds/dist/` is still checked).
    pub defaults: Option<Patterns>,
}

impl Exclude {
    /// A path named on the command line: excluded when it or a directory above it matches.
    pub fn excludes(&self, path: &Path, is_dir: bool) -> bool {
        self.patterns.iter().any(|p| p.excludes(path, is_dir))
    }

    /// An entry met while walking below a named path.
    pub fn excludes_entry(&self, path: &Path, is_dir: bool) -> bool {
        self.patterns.iter().chain(&self.defaults).any(|p| p.matches(path, is_dir))
    }
}

/// Directories of other tools' files that are never exports: pruned from
/// every walk, wherever they are met below a named path. A `!node_modules/` (or `!vendor/`,
/// `!dist/`) among the config's or the command line's patterns walks it again.
pub const DEFAULT_EXCLUDES: [&str; 3] = ["node_modules/", "vendor/", "dist/"];

/// The default patterns that none of `given` re-includes with `!`.
pub fn defaults_kept<'g>(given: impl Iterator<Item = &'g str> + Clone) -> Result<Option<Patterns>, String> {
    let kept: Vec<String> = DEFAULT_EXCLUDES
        .iter()
        .filter(|d| {
            let name = d.trim_end_matches('/');
            !given.clone().any(|g| {
                g.trim()
                    .strip_prefix('!')
                    .is_some_and(|g| g.trim_start_matches("**/").trim_matches('/') == name)
            })
        })
        .map(|d| d.to_string())
        .collect();
    if kept.is_empty() {
        return Ok(None);
    }
    Patterns::new(Path::new("/"), &kept).map(Some)
}

/// The path made absolute, with `.` and `..` resolved by their names (links
/// are not followed): `sub/../.edgeaudit.yaml`'s patterns are the repository's.
fn absolute(path: &Path) -> PathBuf {
    let whole = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for part in whole.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_files_and_everything_under_a_directory() {
        let root = std::env::temp_dir().join("edgeaudit-exclude-test");
        let p = Patterns::new(&root, &["*.bak.json".into(), "old/".into(), "!old/keep.json".into()]).expect("patterns");
        assert!(p.excludes(&root.join("a/pools.bak.json"), false));
        assert!(p.excludes(&root.join("old/pools.json"), false));
        assert!(p.excludes(&root.join("old/deeper/pools.json"), false));
        assert!(!p.excludes(&root.join("old/keep.json"), false));
        assert!(!p.excludes(&root.join("pools.json"), false));
        assert!(!p.excludes(Path::new("/elsewhere/pools.bak.json"), false), "outside its root");
        let from_below = Patterns::new(&root.join("sub/.."), &["old/".into()]).expect("patterns");
        assert!(
            from_below.excludes(&root.join("old/pools.json"), false),
            "a root with `..` is resolved"
        );
        assert!(from_below.excludes(&root.join("sub/../old/x.json"), false));
        let bad = Patterns::new(&root, &["{a,b".into()]).expect_err("unclosed");
        assert!(bad.contains("`{a,b` is not a valid exclude pattern"), "{bad}");
        assert!(Patterns::new(&root, &["".into()]).is_err());
    }

    #[test]
    fn tool_directories_are_skipped_unless_walked_again() {
        let all = defaults_kept(std::iter::empty()).expect("defaults").expect("some");
        let root = std::env::temp_dir().join("edgeaudit-defaults-test");
        assert!(all.matches(&root.join("web/node_modules"), true));
        assert!(all.matches(&root.join("vendor"), true));
        assert!(!all.matches(&root.join("exports"), true));
        let given = ["!vendor/", "archive/"];
        let kept = defaults_kept(given.iter().copied()).expect("defaults").expect("some");
        assert!(!kept.matches(&root.join("vendor"), true));
        assert!(kept.matches(&root.join("dist"), true));
    }
}
