//! Rule documentation, rendered from the rule's metadata only: the same text
//! serves `edgeaudit explain`, `edgeaudit rules` and SARIF `help`.

use std::fmt::Write;

use super::rule::Rule;
use crate::model::Kind;

fn conditions(rule: &Rule) -> String {
    let mut parts: Vec<String> = rule.when.iter().map(|c| c.to_string()).collect();
    if let Some(each) = &rule.for_each {
        parts.push(format!("one finding per element of {each}"));
    }
    parts.join("; ")
}

fn effective(rule: &Rule) -> Option<String> {
    match (rule.effective_from, rule.effective_until) {
        (None, None) => None,
        (Some(f), None) => Some(format!("from {f}")),
        (None, Some(u)) => Some(format!("until {u} (exclusive)")),
        (Some(f), Some(u)) => Some(format!("from {f} until {u} (exclusive)")),
    }
}

/// A date as the docs show it: `2024-09-09 (cross_sign_unused)`.
fn day(d: chrono::NaiveDate) -> String {
    match super::dates::name_of(d) {
        Some(name) => format!("{d} ({name})"),
        None => d.to_string(),
    }
}

/// One line per phase, by the as-of date, the last one the rule's own
/// severity and summary: "before 2024-09-09 (cross_sign_unused): warning — …".
fn phases(rule: &Rule) -> Vec<String> {
    let mut out = Vec::new();
    let mut from: Option<chrono::NaiveDate> = None;
    for phase in &rule.phases {
        let span = match from {
            None => format!("before {}", day(phase.before)),
            Some(f) => format!("from {} until {}", day(f), day(phase.before)),
        };
        let says = phase.summary.as_deref().map(|s| format!(" — {s}")).unwrap_or_default();
        out.push(format!("{span}: {}{says}", phase.severity));
        from = Some(phase.before);
    }
    if let Some(f) = from {
        out.push(format!("from {}: {} — {}", day(f), rule.severity, sentence_part(&rule.summary)));
    }
    out
}

/// A sentence as part of another: its first letter lower-cased (unless it
/// starts an abbreviation) and its full stop dropped.
fn sentence_part(sentence: &str) -> String {
    let sentence = sentence.trim().trim_end_matches('.');
    let mut chars = sentence.chars();
    match (chars.next(), chars.next()) {
        (Some(first), Some(second)) if first.is_uppercase() && !second.is_uppercase() => {
            first.to_lowercase().chain(sentence[first.len_utf8()..].chars()).collect()
        }
        _ => sentence.to_string(),
    }
}

/// How reports group the rule's findings: `Migration: Pool notifications ·
/// action: Create a policy first` (a pack's rule may name neither).
fn grouping(rule: &Rule) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(m) = rule.migration {
        parts.push(format!("Migration: {}", m.words()));
    }
    if let Some(a) = rule.action {
        parts.push(format!("action: {}", a.words()));
    }
    if let Some(r) = rule.remedy {
        parts.push(format!("remedy: `{}`", r.as_str()));
    }
    (!parts.is_empty()).then(|| parts.join(" · "))
}

pub fn text(rule: &Rule) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} {} ({}, subject: {})",
        rule.id,
        rule.name,
        rule.severity,
        rule.subject_names()
    );
    let _ = writeln!(s, "\n{}", rule.summary);
    if let Some(grouped) = grouping(rule) {
        let _ = writeln!(s, "\n{grouped}");
    }
    let _ = writeln!(s, "\nWhy it matters:\n  {}", rule.rationale.trim());
    let _ = writeln!(s, "\nWhat to do:\n  {}", rule.remediation.trim());
    let _ = writeln!(s, "\nFires when:\n  {}", conditions(rule));
    if let Some(e) = effective(rule) {
        let _ = writeln!(s, "\nEffective: {e}");
    }
    let phases = phases(rule);
    if !phases.is_empty() {
        let _ = writeln!(s, "\nPhases (by the as-of date):");
        for p in &phases {
            let _ = writeln!(s, "  - {p}");
        }
    }
    if !rule.assumptions.is_empty() {
        let _ = writeln!(s, "\nAssumptions:");
        for a in &rule.assumptions {
            let _ = writeln!(s, "  - {a}");
        }
    }
    if let Some(example) = &rule.example {
        let _ = writeln!(s, "\nExample:");
        for line in example.trim_end().lines() {
            let _ = writeln!(s, "  {line}");
        }
    }
    if !rule.references.is_empty() {
        let _ = writeln!(s, "\nReferences:");
        for r in &rule.references {
            let _ = writeln!(s, "  - {r}");
        }
    }
    s
}

pub fn markdown(rule: &Rule) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "## {} `{}`\n", rule.id, rule.name);
    let _ = writeln!(s, "*Severity:* {} · *Subject:* `{}`\n", rule.severity, rule.subject_names());
    if let Some(grouped) = grouping(rule) {
        let _ = writeln!(s, "*{grouped}*\n");
    }
    let _ = writeln!(s, "{}\n", rule.summary);
    let _ = writeln!(s, "### Why it matters\n\n{}\n", rule.rationale.trim());
    let _ = writeln!(s, "### What to do\n\n{}\n", rule.remediation.trim());
    let _ = writeln!(s, "### Fires when\n\n{}\n", conditions(rule));
    if let Some(e) = effective(rule) {
        let _ = writeln!(s, "### Effective\n\n{e}\n");
    }
    let phases = phases(rule);
    if !phases.is_empty() {
        let _ = writeln!(s, "### Phases (by the as-of date)\n");
        for p in &phases {
            let _ = writeln!(s, "- {p}");
        }
        s.push('\n');
    }
    if !rule.assumptions.is_empty() {
        let _ = writeln!(s, "### Assumptions\n");
        for a in &rule.assumptions {
            let _ = writeln!(s, "- {a}");
        }
        s.push('\n');
    }
    if let Some(example) = &rule.example {
        let _ = writeln!(s, "### Example\n\n```\n{}\n```\n", example.trim_end());
    }
    if !rule.references.is_empty() {
        let _ = writeln!(s, "### References\n");
        for r in &rule.references {
            let _ = writeln!(s, "- <{r}>");
        }
    }
    s
}

/// The book's pages of the rules (`docs/src/rules/`): one per rule,
/// `<ID>.md`, and `list.md`, the table of them all; each path relative to
/// `docs/src/`. Written by `cargo run --example docs`; a test fails when
/// the committed pages differ.
pub fn book_pages(rules: &[std::sync::Arc<Rule>]) -> Vec<(String, String)> {
    let mut pages = Vec::with_capacity(rules.len() + 1);
    let mut list = String::from(
        "# The rules\n\nEvery rule, generated from its metadata in `rules/*.yaml` (the same text as `edgeaudit explain ID` and SARIF's help).\n\n| Rule | Name | Subject | Severity | Migration | Action | What it means |\n|---|---|---|---|---|---|---|\n",
    );
    for rule in rules {
        let page = markdown(rule).replacen("## ", "# ", 1).replace("\n### ", "\n## ");
        pages.push((format!("rules/{}.md", rule.id), page));
        let _ = writeln!(
            list,
            "| [{id}]({id}.md) | `{}` | {} | {} | {} | {} | {} |",
            rule.name,
            rule.subjects.iter().map(|k| k.as_str()).collect::<Vec<_>>().join(", "),
            rule.severity,
            rule.migration.map_or("—", |m| m.words()),
            rule.action.map_or("—", |a| a.words()),
            rule.summary.replace('|', "\\|"),
            id = rule.id,
        );
    }
    pages.push(("rules/list.md".to_string(), list));
    pages
}

/// The markers of the remedy kinds' table in `docs/src/rules/writing.md`.
pub const REMEDY_KINDS_BEGIN: &str = "<!-- remedy kinds: generated by `cargo run --example docs` from src/engine/rule.rs -->\n";
pub const REMEDY_KINDS_END: &str = "<!-- end of generated remedy kinds -->\n";

/// The table of remedy kinds, from `RemedyKind::ALL`.
pub fn remedy_kinds_table() -> String {
    let mut s = String::from("| `remedy:` | subject | what it builds |\n|---|---|---|\n");
    for kind in super::rule::RemedyKind::ALL {
        let _ = writeln!(
            s,
            "| `{}` | {} | {} |",
            kind.as_str(),
            kind.subject().map_or("any", |k| k.as_str()),
            kind.description()
        );
    }
    s
}

/// The markers of the table of a rule's closed values in `docs/src/rules/writing.md`.
pub const RULE_VALUES_BEGIN: &str = "<!-- rule values: generated by `cargo run --example docs` from src/engine -->\n";
pub const RULE_VALUES_END: &str = "<!-- end of generated rule values -->\n";

/// How a rule file writes a value: its serde name (`choose_ca`).
fn written<T: serde::Serialize>(value: T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The table of the values a rule's keys take from a closed set: subjects
/// (the kinds with facts), severities, migrations, actions and named dates,
/// each from its registry.
pub fn rule_values_table() -> String {
    let code = |values: Vec<String>| values.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(", ");
    let subjects = Kind::all()
        .filter(|k| !crate::facts::catalogue(*k).is_empty())
        .map(|k| k.as_str().to_string())
        .collect();
    let severities = super::severity::Severity::ALL.iter().map(|s| s.as_str().to_string()).collect();
    let migrations = super::rule::Migration::ALL.into_iter().map(written).collect();
    let actions = super::rule::RuleAction::ALL.into_iter().map(written).collect();
    let dates: Vec<String> = super::dates::DATES
        .iter()
        .map(|d| format!("`{}` ({}: {})", d.name, d.day, d.meaning))
        .collect();
    let mut s = String::from("| key | values |\n|---|---|\n");
    let _ = writeln!(s, "| `subject` | {} — or a list of them |", code(subjects));
    let _ = writeln!(s, "| `severity` | {} |", code(severities));
    let _ = writeln!(s, "| `migration` | {} |", code(migrations));
    let _ = writeln!(s, "| `action` | {} — how reports group its findings |", code(actions));
    let _ = writeln!(s, "| a date | `YYYY-MM-DD`, or a named date: {} |", dates.join("; "));
    s
}

/// `page` with its generated tables (remedy kinds, a rule's values) made
/// again; `None` without their markers.
pub fn with_generated_tables(page: &str) -> Option<String> {
    let page = crate::text::generated::between(page, REMEDY_KINDS_BEGIN, REMEDY_KINDS_END, &remedy_kinds_table())?;
    crate::text::generated::between(&page, RULE_VALUES_BEGIN, RULE_VALUES_END, &rule_values_table())
}

/// The lines of `docs/src/SUMMARY.md` that list the rule pages.
pub fn book_summary_lines(rules: &[std::sync::Arc<Rule>]) -> String {
    let mut s = String::from("  - [The rules](rules/list.md)\n");
    for rule in rules {
        let _ = writeln!(s, "    - [{} {}](rules/{}.md)", rule.id, rule.name, rule.id);
    }
    s
}

/// Where the book this build was made for is published; empty when unknown.
const PUBLISHED: &str = env!("EDGEAUDIT_DOCS_URL");

/// The address of a rule's page in the book published at `base`
/// (`https://owner.github.io/repo`); `None` without one.
pub fn page_url_at(base: &str, id: &str) -> Option<String> {
    let base = base.trim_end_matches('/');
    let safe = !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric());
    (!base.is_empty() && safe).then(|| format!("{base}/rules/{id}.html"))
}

/// The rule's page in the book this build links to (`EDGEAUDIT_DOCS_URL` at
/// build time); `None` when the build names none, or for a pack's rule,
/// which has no page there.
pub fn page_url(rule: &Rule) -> Option<String> {
    if rule.builtin { page_url_at(PUBLISHED, &rule.id) } else { None }
}

#[cfg(test)]
mod page_tests {
    #[test]
    fn a_rule_page_is_linked_only_where_the_book_is_published() {
        assert_eq!(
            super::page_url_at("https://acme.github.io/edgeaudit/", "LB001").as_deref(),
            Some("https://acme.github.io/edgeaudit/rules/LB001.html")
        );
        assert_eq!(super::page_url_at("", "LB001"), None);
        assert_eq!(super::page_url_at("https://x", "../x"), None);
    }
}
