//! Rule documentation, rendered from the rule's metadata only: the same text
//! serves `edgeaudit explain`, `edgeaudit rules` and SARIF `help`.

use std::fmt::Write;

use super::rule::Rule;

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
    let _ = writeln!(s, "\nWhy it matters:\n  {}", rule.rationale.trim());
    let _ = writeln!(s, "\nWhat to do:\n  {}", rule.remediation.trim());
    let _ = writeln!(s, "\nFires when:\n  {}", conditions(rule));
    if let Some(e) = effective(rule) {
        let _ = writeln!(s, "\nEffective: {e}");
    }
    for phase in &rule.phases {
        let _ = writeln!(s, "\nBefore {}: {}", phase.before, phase.severity);
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
    let _ = writeln!(s, "{}\n", rule.summary);
    let _ = writeln!(s, "### Why it matters\n\n{}\n", rule.rationale.trim());
    let _ = writeln!(s, "### What to do\n\n{}\n", rule.remediation.trim());
    let _ = writeln!(s, "### Fires when\n\n{}\n", conditions(rule));
    if let Some(e) = effective(rule) {
        let _ = writeln!(s, "### Effective\n\n{e}\n");
    }
    for phase in &rule.phases {
        let _ = writeln!(s, "*Before {}:* {}\n", phase.before, phase.severity);
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
