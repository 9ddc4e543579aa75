//! What is generated from the definitions: shell completions and man pages
//! from the clap command, the config's JSON Schema from the config types —
//! and the committed schema must be what the types generate.

use crate::common;

use common::{path_str, run, run_in, temp_dir};

fn yaml(text: &str) -> serde_json::Value {
    serde_saphyr::from_str(text).expect("YAML")
}

fn schema() -> serde_json::Value {
    let r = run(&["config-schema"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    serde_json::from_str(&r.stdout).expect("the schema is JSON")
}

#[test]
fn the_committed_schema_is_the_generated_one() {
    let generated = run(&["config-schema"]).stdout;
    let committed = std::fs::read_to_string(common::root().join("docs/edgeaudit.schema.json")).expect("docs/edgeaudit.schema.json");
    assert_eq!(
        committed, generated,
        "docs/edgeaudit.schema.json is stale: run `cargo run -- config-schema > docs/edgeaudit.schema.json`"
    );
}

/// The plan's schema is generated from the types `apply` reads a plan
/// into: one declaration of a step, read, written and published.
#[test]
fn the_committed_plan_schema_is_the_generated_one() {
    let committed = std::fs::read_to_string(common::root().join("docs/schemas/plan.schema.json")).expect("docs/schemas/plan.schema.json");
    assert_eq!(
        committed,
        edgeaudit::plan::document::json_schema(),
        "docs/schemas/plan.schema.json is stale: run `cargo run --example docs`"
    );
}

#[test]
fn the_schema_accepts_what_the_parser_accepts_and_rejects_what_it_rejects() {
    let validator = jsonschema::validator_for(&schema()).expect("the schema compiles");
    // The starter config as `init` writes it, and one that uses every key.
    let dir = temp_dir(&[]);
    let init = run_in(dir.path(), &["init"]);
    assert_eq!(init.code, 0);
    assert!(
        init.stderr.contains("use it for the paths in this directory and below"),
        "{}",
        init.stderr
    );
    let starter = std::fs::read_to_string(dir.path().join(".edgeaudit.yaml")).unwrap();
    assert!(
        starter.starts_with("# yaml-language-server: $schema=./edgeaudit.schema.json\n"),
        "editors find the schema: {starter}"
    );
    // Another name is only used when named: `init` says so.
    let custom = run_in(dir.path(), &["init", "custom.yaml"]);
    assert!(custom.stderr.contains("pass `--config custom.yaml`"), "{}", custom.stderr);
    let full = r#"
as_of: 2024-10-01
fail_on: note
select: [LB, CA00]
ignore: [CA009]
severity: {LB004: warning, CA: error}
packs: [rules/ours.yaml]
exclude: ["exports/archive/"]
waivers:
  - rule: LB002
    resource: pool/17b5962d*
    reason: Reviewed in CHG-1234
    expires: 2024-12-31
  - {rule: "*", resource: "*", reason: everything}
"#;
    for (name, text) in [("starter", starter.as_str()), ("full", full)] {
        let errors: Vec<String> = validator.iter_errors(&yaml(text)).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
    }

    // Each of these is an error for the parser (exit 2) and for the schema.
    let bad = [
        "fail_on: fatal\n",
        "as_of: 1st October\n",
        "severity: {LB004: critical}\n",
        "selct: [LB]\n",
        "waivers:\n  - {rule: LB002, resource: pool/x}\n",
        "waivers:\n  - {rule: LB002, resource: pool/x, reason: \"  \"}\n",
        "waivers:\n  - {rule: LB002, resource: justaname, reason: r}\n",
        "waivers:\n  - {rule: LB002, resource: pool/x, reason: r, until: 2024-12-31}\n",
    ];
    for text in bad {
        assert!(!validator.is_valid(&yaml(text)), "the schema accepts {text:?}");
        let dir = temp_dir(&[("c.yaml", text.as_bytes())]);
        let r = run(&["check", "fixtures/demo", "--config", &path_str(&dir.path().join("c.yaml"))]);
        assert_eq!(r.code, 2, "the parser accepts {text:?}: {}", r.stderr);
    }
}

#[test]
fn completions_are_generated_for_every_shell_and_know_every_option() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let r = run(&["completions", shell]);
        assert_eq!(r.code, 0, "{shell}: {}", r.stderr);
        // fish writes `-l max-findings`, the others `--max-findings`.
        for option in ["max-findings", "stdin-filename", "fail-on", "as-of"] {
            assert!(r.stdout.contains(option), "{shell} completes {option}");
        }
    }
    // The bash script is valid bash (bash -n parses without running).
    let script = run(&["completions", "bash"]).stdout;
    let dir = temp_dir(&[("edgeaudit.bash", script.as_bytes())]);
    let status = std::process::Command::new("bash")
        .arg("-n")
        .arg(dir.path().join("edgeaudit.bash"))
        .status()
        .expect("bash is installed (.ci/run installs it)");
    assert!(status.success());
    assert_eq!(run(&["completions", "tcsh"]).code, 2, "an unknown shell is a usage error");
}

#[test]
fn man_pages_cover_the_tool_and_each_command() {
    let top = run(&["man"]);
    assert_eq!(top.code, 0, "{}", top.stderr);
    assert!(top.stdout.contains(".TH edgeaudit 1"), "{}", top.stdout);
    assert!(top.stdout.contains("inventory"), "the subcommands are listed");
    let check = run(&["man", "check"]);
    assert_eq!(check.code, 0, "{}", check.stderr);
    assert!(check.stdout.contains(".TH edgeaudit-check 1"), "{}", check.stdout);
    assert!(check.stdout.contains("\\-\\-max\\-findings"), "options are documented");
    // Only what the command takes: `check -V` is an error, so the page offers no -V.
    assert!(!check.stdout.contains("\\-V"), "{}", check.stdout);
    assert_eq!(run(&["check", "-V"]).code, 2);
    let unknown = run(&["man", "nope"]);
    assert_eq!(unknown.code, 2);
    assert!(unknown.stderr.contains("no command `nope`"), "{}", unknown.stderr);
}

/// The book's rule pages and their lines in SUMMARY.md are what the rules'
/// metadata generates (`cargo run --example docs` writes them).
#[test]
fn the_books_rule_pages_match_the_metadata() {
    let rules = edgeaudit::engine::RuleSet::builtin().expect("built-in rules");
    let src = common::root().join("docs/src");
    let stale = "is stale: run `cargo run --example docs`";
    let pages = edgeaudit::engine::docs::book_pages(&rules.rules);
    for (path, text) in &pages {
        let committed = std::fs::read_to_string(src.join(path)).unwrap_or_default();
        assert!(committed == *text, "docs/src/{path} {stale}");
    }
    let on_disk: Vec<String> = std::fs::read_dir(src.join("rules"))
        .expect("docs/src/rules")
        .filter_map(Result::ok)
        .map(|e| format!("rules/{}", e.file_name().to_string_lossy()))
        .filter(|p| p != "rules/index.md" && p != "rules/writing.md")
        .collect();
    assert_eq!(on_disk.len(), pages.len(), "a page of a rule that is gone {stale}");
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).expect("SUMMARY.md");
    assert!(
        summary.contains(&edgeaudit::engine::docs::book_summary_lines(&rules.rules)),
        "docs/src/SUMMARY.md {stale}"
    );
}

/// The book's page of client classes is the one the table generates.
#[test]
fn the_books_client_classes_page_matches_the_table() {
    let committed =
        std::fs::read_to_string(common::root().join("docs/src").join(edgeaudit::traffic::page::PATH)).expect("the classes page");
    assert!(
        committed == edgeaudit::traffic::page::book_page().expect("the table"),
        "docs/src/{} is stale: run `cargo run --example docs`",
        edgeaudit::traffic::page::PATH
    );
}

/// The book's table of remedy kinds is the one `RemedyKind::ALL` generates.
#[test]
fn the_books_remedy_kinds_match_the_registry() {
    let path = common::root().join("docs/src/rules/writing.md");
    let committed = std::fs::read_to_string(&path).expect("writing.md");
    assert_eq!(
        edgeaudit::engine::docs::with_generated_tables(&committed).as_deref(),
        Some(committed.as_str()),
        "docs/src/rules/writing.md is stale: run `cargo run --example docs`"
    );
}

/// The book's table of input formats is the one the registry generates.
#[test]
fn the_books_input_formats_match_the_registry() {
    let path = common::root().join("docs/src").join(edgeaudit::input::page::PATH);
    let committed = std::fs::read_to_string(&path).expect("the inputs page");
    assert_eq!(
        edgeaudit::input::page::regenerate(&committed).as_deref(),
        Some(committed.as_str()),
        "docs/src/{} is stale: run `cargo run --example docs`",
        edgeaudit::input::page::PATH
    );
}

/// No page of the book keeps a table of rules by hand: the rules' table is
/// `rules/list.md`, generated. A row that starts with a rule's id anywhere
/// else is a copy that would fall behind.
#[test]
fn no_page_keeps_a_rule_table_by_hand() {
    let rules = edgeaudit::engine::RuleSet::builtin().expect("built-in rules");
    let generated: Vec<String> = edgeaudit::engine::docs::book_pages(&rules.rules)
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    let src = common::root().join("docs/src");
    let pages = common::files_with(&src, "md", &[]);
    let mut copies = Vec::new();
    for page in pages {
        let relative = page.strip_prefix(&src).unwrap_or(&page).to_string_lossy().replace('\\', "/");
        if generated.contains(&relative) {
            continue;
        }
        let text = std::fs::read_to_string(&page).unwrap_or_default();
        for line in text.lines() {
            let cell = line
                .strip_prefix('|')
                .map(|l| l.trim_start().trim_start_matches('[').trim_start_matches('`'));
            if let Some(rule) = cell.and_then(|c| rules.rules.iter().find(|r| c.starts_with(r.id.as_str()))) {
                copies.push(format!("{relative}: {} ({line})", rule.id));
            }
        }
    }
    assert!(
        copies.is_empty(),
        "hand-kept rule tables (link to rules/list.md instead):\n{}",
        copies.join("\n")
    );
}

/// The book's page of API operations is the one the registry generates.
#[test]
fn the_books_api_page_matches_the_registry() {
    let committed = std::fs::read_to_string(common::root().join("docs/src").join(edgeaudit::api::page::PATH)).expect("the API page");
    assert!(
        committed == edgeaudit::api::page::book_page(),
        "docs/src/{} is stale: run `cargo run --example docs`",
        edgeaudit::api::page::PATH
    );
}
