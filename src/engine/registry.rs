//! The rule packs of a run: built-in ones embedded at build time, then any
//! `--rules` packs, then `--select`/`--ignore`.

use std::sync::Arc;

use super::rule::{PackSpec, Rule};
use crate::load::error::InputError;

/// Built-in packs, embedded so the binary needs no files at run time.
const BUILTIN: &[(&str, &str)] = &[
    ("rules/lb.yaml", include_str!("../../rules/lb.yaml")),
    ("rules/ca.yaml", include_str!("../../rules/ca.yaml")),
];

#[derive(Debug, Clone)]
pub struct RuleSet {
    pub rules: Vec<Arc<Rule>>,
}

impl RuleSet {
    pub fn builtin() -> Result<RuleSet, InputError> {
        let mut set = RuleSet { rules: Vec::new() };
        for (name, text) in BUILTIN {
            set.add_pack(name, text)?;
        }
        Ok(set)
    }

    pub fn add_pack_file(&mut self, path: &str) -> Result<(), InputError> {
        let text = std::fs::read_to_string(path).map_err(|e| InputError::unreadable(path, format!("cannot read rule pack: {e}")))?;
        self.add_pack(path, &text)
    }

    pub fn add_pack(&mut self, name: &str, text: &str) -> Result<(), InputError> {
        let pack: PackSpec = serde_saphyr::from_str(text).map_err(|e| {
            let (line, column) = e.location().map_or((1, 1), |l| (l.line() as usize, l.column() as usize));
            let rendered = e.without_snippet().to_string();
            let message = rendered.lines().next().unwrap_or("").to_string();
            let message = message.rfind(" at line ").map_or(message.clone(), |i| message[..i].to_string());
            InputError::at_line_column(name, line, column, format!("invalid rule pack: {message}"))
        })?;
        for spec in pack.rules {
            let (line, column) = (spec.id.referenced.line() as usize, spec.id.referenced.column() as usize);
            let rule = spec.compile(name).map_err(|e| {
                let (l, c) = if e.line == 0 { (line, column) } else { (e.line, e.column) };
                InputError::at_line_column(name, l, c, format!("invalid rule: {}", e.message))
            })?;
            if let Some(existing) = self.rules.iter().find(|r| r.id == rule.id) {
                return Err(InputError::at_line_column(
                    name,
                    line,
                    column,
                    format!("rule id {} is already defined in {}", rule.id, existing.pack),
                ));
            }
            self.rules.push(Arc::new(rule));
        }
        self.rules.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(())
    }

    /// Keeps the rules whose id starts with a `select` prefix (all when none is
    /// given, or `ALL`) and with no `ignore` prefix. A selector that matches no
    /// rule is an error: it is almost always a typo.
    pub fn select(&mut self, select: &[String], ignore: &[String]) -> Result<(), String> {
        for selector in select.iter().chain(ignore) {
            if selector != "ALL" && !self.rules.iter().any(|r| r.id.starts_with(selector.as_str())) {
                return Err(format!("`{selector}` matches no rule id (see `edgeaudit rules`)"));
            }
        }
        let matches = |id: &str, list: &[String]| list.iter().any(|s| s == "ALL" || id.starts_with(s.as_str()));
        self.rules
            .retain(|r| (select.is_empty() || matches(&r.id, select)) && !matches(&r.id, ignore));
        Ok(())
    }

    pub fn get(&self, id: &str) -> Option<&Arc<Rule>> {
        self.rules.iter().find(|r| r.id.eq_ignore_ascii_case(id))
    }
}
