//! `edgeaudit --version` names the commit and its date, as tools users know
//! do (`ruff 0.6.0 (abc1234 2024-08-01)`): read from git when the build has
//! a repository, else said to be unknown (a crates.io package has none).

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !text.is_empty()).then_some(text)
}

fn main() {
    // Only this package's own repository: a copy vendored inside another
    // repository must not report that repository's commit.
    let own = git(&["rev-parse", "--show-toplevel"])
        .and_then(|top| std::fs::canonicalize(top).ok())
        .zip(std::fs::canonicalize(env!("CARGO_MANIFEST_DIR")).ok())
        .is_some_and(|(top, manifest)| top == manifest);
    let (commit, date) = if own {
        (
            git(&["rev-parse", "--short=9", "HEAD"]),
            git(&["log", "-1", "--format=%cs", "HEAD"]),
        )
    } else {
        (None, None)
    };
    let version = match (commit, date) {
        (Some(commit), Some(date)) => format!("{} ({commit} {date})", env!("CARGO_PKG_VERSION")),
        _ => format!("{} (commit unknown)", env!("CARGO_PKG_VERSION")),
    };
    println!("cargo:rustc-env=EDGEAUDIT_VERSION={version}");
    // Where the book is published (`https://owner.github.io/repo`), when the
    // build knows: SARIF's helpUri and the Markdown report then link each
    // rule's page. The release workflow and the action set it.
    let docs_url = std::env::var("EDGEAUDIT_DOCS_URL").unwrap_or_default();
    println!("cargo:rustc-env=EDGEAUDIT_DOCS_URL={}", docs_url.trim_end_matches('/'));
    println!("cargo:rerun-if-env-changed=EDGEAUDIT_DOCS_URL");
    // A new commit or checkout changes the version.
    for path in [".git/HEAD", ".git/refs", ".git/packed-refs"] {
        if std::path::Path::new(path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
