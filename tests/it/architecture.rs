//! Rules of the house that the compiler does not keep: no Rust code outside
//! tests matches a rule id (a rule's behaviour is named in its YAML, so a
//! pack's rule can have it too).

use std::path::{Path, PathBuf};

/// The Rust files below `dir`.
fn sources(dir: &Path) -> Vec<PathBuf> {
    crate::common::files_with(dir, "rs", &[])
}

/// The code of a file without its `#[cfg(test)]` items: from the attribute
/// to the end of the item's braces (braces in string and char literals are
/// not counted).
fn without_tests(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        let Some(open) = after.find('{') else {
            return out;
        };
        let mut depth = 0usize;
        let mut end = after.len();
        let mut chars = after[open..].char_indices().peekable();
        let mut in_string = false;
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' if in_string => {
                    chars.next();
                }
                '"' => in_string = !in_string,
                '\'' if !in_string => {
                    // A char literal: skip to its closing quote (a lifetime has none close by).
                    let ahead: String = after[open + i + 1..].chars().take(3).collect();
                    if let Some(close) = ahead.find('\'') {
                        for _ in 0..=close {
                            chars.next();
                        }
                    }
                }
                '{' if !in_string => depth += 1,
                '}' if !in_string => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// `"LB001"`: a quoted rule id.
fn quoted_rule_ids(code: &str) -> Vec<String> {
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    for (i, _) in code.match_indices('"') {
        let id = &bytes[i + 1..];
        let letters = id.iter().take_while(|b| b.is_ascii_uppercase()).count();
        let digits = id[letters..].iter().take_while(|b| b.is_ascii_digit()).count();
        if (2..=3).contains(&letters) && digits == 3 && id.get(letters + digits) == Some(&b'"') {
            found.push(String::from_utf8_lossy(&id[..letters + digits]).into_owned());
        }
    }
    found
}

#[test]
fn no_code_outside_tests_matches_a_rule_id() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let files = sources(&root.join("src"));
    assert!(files.len() > 50, "the sources are found");
    let mut offenders = Vec::new();
    for file in files {
        let code = std::fs::read_to_string(&file).expect("read");
        for id in quoted_rule_ids(&without_tests(&code)) {
            offenders.push(format!("{}: \"{id}\"", file.strip_prefix(&root).unwrap_or(&file).display()));
        }
    }
    assert!(
        offenders.is_empty(),
        "a rule's behaviour belongs in its YAML (`remedy:`, `action:`, conditions), not in Rust matching its id:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn the_scan_sees_rule_ids_and_skips_tests() {
    let code = "fn a() { match id { \"LB001\" => 1, _ => 2 } }\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() { let s = \"{\"; assert_eq!(\"CA004\", x('}')); }\n}\nfn b() { \"EX005\" }\n";
    assert_eq!(quoted_rule_ids(&without_tests(code)), ["LB001", "EX005"]);
}

/// `unsafe` is denied by the compiler everywhere but in the modules that
/// need it, and every block there carries its SAFETY comment (clippy's
/// `undocumented_unsafe_blocks`, denied in Cargo.toml).
#[test]
fn unsafe_code_is_allowed_only_where_it_is_needed() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    for lint in [
        "unsafe_code = \"deny\"",
        "undocumented_unsafe_blocks = \"deny\"",
        "unsafe_op_in_unsafe_fn = \"deny\"",
    ] {
        assert!(manifest.contains(lint), "Cargo.toml's [lints] keep {lint}");
    }
    let files = sources(&root.join("src"));
    let allowed: Vec<String> = files
        .iter()
        .filter(|f| std::fs::read_to_string(f).is_ok_and(|code| code.contains("allow(unsafe_code)")))
        .map(|f| f.strip_prefix(&root).unwrap_or(f).display().to_string())
        .collect();
    assert_eq!(allowed, ["src/input/json/structural.rs", "src/main.rs", "src/text/mapped.rs"]);
}

/// Files under `dir` (recursively) that still hold scaffold text.
fn scaffold_left(dir: &Path) -> Vec<String> {
    let mut left = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if std::fs::read_to_string(&path).is_ok_and(|t| t.contains("SCAFFOLD:")) {
                left.push(path.display().to_string());
            }
        }
    }
    left.sort();
    left
}

/// `cargo run --example new_rule` writes a template; nothing of it may be
/// left behind (as zlint's scaffold test).
#[test]
fn no_scaffold_text_is_left_behind() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut left = scaffold_left(&root.join("rules"));
    left.extend(scaffold_left(&root.join("tests/fixtures/rules")));
    assert!(left.is_empty(), "write the rule and its fixture where it says SCAFFOLD: {left:?}");
}

/// The scaffold writes a pack entry that compiles and a fixture, refuses an
/// id that exists, and what it writes is what the test above catches.
#[test]
fn the_rule_scaffold_writes_a_rule_and_its_fixture() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let bin = Path::new(env!("CARGO_BIN_EXE_edgeaudit"))
        .parent()
        .expect("target dir")
        .join("examples/new_rule");
    if !bin.exists() {
        // `cargo test` builds the examples; a filtered build may not have.
        eprintln!("NOTICE: {} not built; skipping", bin.display());
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(dir.path().join("rules")).expect("rules/");
    std::fs::create_dir_all(dir.path().join("tests/fixtures/rules")).expect("fixtures/");
    for pack in ["lb.yaml", "ca.yaml", "ex.yaml"] {
        std::fs::copy(root.join("rules").join(pack), dir.path().join("rules").join(pack)).expect("copy");
    }
    let scaffold = |args: &[&str]| {
        std::process::Command::new(&bin)
            .args(args)
            .args(["--root", &dir.path().display().to_string()])
            .output()
            .expect("the scaffold runs")
    };
    let out = scaffold(&["LB099", "pool-example", "pool"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let pack = std::fs::read_to_string(dir.path().join("rules/lb.yaml")).expect("pack");
    assert!(
        pack.contains("  - id: LB099\n    name: pool-example\n    subject: pool\n"),
        "{pack}"
    );
    let fixture = std::fs::read_to_string(dir.path().join("tests/fixtures/rules/LB099.yaml")).expect("fixture");
    assert!(fixture.contains("fires-") && fixture.contains("near-miss-"), "{fixture}");
    assert_eq!(scaffold_left(dir.path()).len(), 2, "both files say what is left to write");
    let again = scaffold(&["LB099", "pool-example", "pool"]);
    assert_eq!(again.status.code(), Some(2), "an existing id is refused");
    assert_eq!(scaffold(&["XX001", "x", "pool"]).status.code(), Some(2));
    assert_eq!(scaffold(&["LB100", "x", "no_such_subject"]).status.code(), Some(2));
}

/// No import circles between modules or between the files of a folder
/// (`.ci/import_graph.py` finds them, outside test code).
#[test]
fn no_import_circles() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = match std::process::Command::new("python3").arg(root.join(".ci/import_graph.py")).output() {
        Ok(out) => out,
        Err(e) => {
            eprintln!("NOTICE: python3 not found ({e}); skipping the import graph");
            return;
        }
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let circles: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("      "))
        .map(str::trim)
        .collect();
    assert!(circles.is_empty(), "import circles:\n{text}");
    assert!(text.contains("circles inside a folder:"), "the script ran:\n{text}");
}

/// The registry entries' names in code: each format's static is its name in
/// capitals (`json::JSON`, `jsonl::JSONL`, …), as
/// `every_format_is_declared_under_its_name` holds.
fn registry_entries() -> Vec<String> {
    edgeaudit::input::names().iter().map(|n| n.to_uppercase()).collect()
}

#[test]
fn every_format_is_declared_under_its_name() {
    for name in edgeaudit::input::names() {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("src/input/{name}/mod.rs"));
        let code = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            code.contains(&format!("pub static {}: ", name.to_uppercase())),
            "format `{name}`: its folder src/input/{name}/ declares `pub static {}`",
            name.to_uppercase()
        );
    }
}

/// What names one input format in code: its registry entry (`json::JSON`, …)
/// or a comparison of a format's name.
fn format_names(code: &str) -> Vec<String> {
    let entries = registry_entries();
    let mut found = Vec::new();
    for (i, _) in code.match_indices("::") {
        let word: String = code[i + 2..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if entries.contains(&word) {
            found.push(word);
        }
    }
    for needle in ["format.name() ==", "format.name() !="] {
        found.extend(code.match_indices(needle).map(|(_, m)| m.to_string()));
    }
    found
}

/// Input formats are known to the registry only (`src/input/mod.rs` and the
/// formats' own folders): nothing else asks which format a file is, it asks
/// the file's format (`SourceFile::format`) what it can do.
#[test]
fn no_code_outside_the_input_stage_names_a_format() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let files = sources(&root.join("src"));
    let mut offenders = Vec::new();
    for file in files.iter().filter(|f| !f.starts_with(root.join("src/input"))) {
        let code = std::fs::read_to_string(file).expect("read");
        for name in format_names(&without_tests(&code)) {
            offenders.push(format!("{}: {name}", file.strip_prefix(&root).unwrap_or(file).display()));
        }
    }
    assert!(offenders.is_empty(), "ask the file's format instead:\n{}", offenders.join("\n"));
}

#[test]
fn the_format_scan_sees_registry_entries_and_name_comparisons() {
    let code = "fn a(f: &SourceFile) -> bool { f.format == &input::yaml::YAML || f.format.name() == \"bind\" }";
    assert_eq!(format_names(code), ["YAML", "format.name() =="]);
    for entry in registry_entries() {
        assert_eq!(
            format_names(&format!("let f = &input::x::{entry};")),
            std::slice::from_ref(&entry),
            "{entry}"
        );
    }
    assert!(format_names("fn b(f: &SourceFile) -> bool { f.format.locates_alone() }").is_empty());
}

/// Where code reads a fact by a string name: `FactName::parse("…")` (a
/// `FactName` is what `Facts::get` takes), a helper
/// handed a name (`fact("…")`, `items(facts, "…")`), or a rule's `at`/`for_each`
/// compared with one. Outside the facts stage a fact is read through its
/// typed key (`facts::catalogue::keys`), so a renamed fact is a compile
/// error, not an empty value.
fn fact_reads_by_name(code: &str) -> Vec<String> {
    let pattern = regex::Regex::new(
        r#"facts\s*\.\s*get\s*\(\s*"|FactName::parse\s*\(\s*"|\bfact(_text)?\(\s*(facts,\s*)?"|\b(items|word)\(\s*facts,\s*"|\b(at|for_each)\.as_deref\(\)\s*==\s*Some\(\s*""#,
    )
    .expect("pattern");
    pattern.find_iter(code).map(|m| m.as_str().to_string()).collect()
}

#[test]
fn no_code_outside_the_facts_stage_reads_a_fact_by_its_name() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let files = sources(&root.join("src"));
    let mut offenders = Vec::new();
    for file in files.iter().filter(|f| !f.starts_with(root.join("src/facts"))) {
        let code = std::fs::read_to_string(file).expect("read");
        for read in fact_reads_by_name(&without_tests(&code)) {
            offenders.push(format!("{}: {read}", file.strip_prefix(&root).unwrap_or(file).display()));
        }
    }
    assert!(
        offenders.is_empty(),
        "read these facts through their keys (facts::catalogue::keys):\n{}",
        offenders.join("\n")
    );
}

#[test]
fn the_fact_read_scan_sees_each_way_of_naming_a_fact() {
    for code in [
        r#"let t = facts.get("terraform_source");"#,
        r#"let t = FactName::parse("terraform_source");"#,
        r#"let id = fact("id");"#,
        r#"let id = fact_text(facts, "id");"#,
        r#"let r = items(facts, "legacy_recipients");"#,
        r#"let c = word(facts, "coverage");"#,
        r#"f.rule.at.as_deref() == Some("legacy_recipients")"#,
    ] {
        assert_eq!(fact_reads_by_name(code).len(), 1, "{code}");
    }
    assert!(fact_reads_by_name("let t = keys::TERRAFORM_SOURCE.of(facts); let v = facts.get(name);").is_empty());
}

/// Every key names a fact of the catalogue, with the key's type, for some kind.
#[test]
fn every_fact_key_is_in_the_catalogue_with_its_type() {
    use edgeaudit::model::Kind;
    let kinds: Vec<Kind> = Kind::RECORD_KINDS.into_iter().chain([Kind::Account, Kind::List]).collect();
    for (name, value_type) in edgeaudit::facts::catalogue::keys::ALL {
        let specs: Vec<_> = kinds
            .iter()
            .flat_map(|k| edgeaudit::facts::catalogue(*k).iter())
            .filter(|s| s.name == *name)
            .collect();
        assert!(!specs.is_empty(), "key {name} is in no kind's catalogue");
        for spec in specs {
            assert_eq!(spec.value_type, *value_type, "{name}");
        }
    }
}
