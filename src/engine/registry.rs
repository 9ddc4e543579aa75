//! The rule packs of a run: built-in ones embedded at build time, then any
//! `--rules` packs, then `--select`/`--ignore`.

use std::sync::Arc;

use super::rule::{PackSpec, Rule};
use super::severity::Severity;
use crate::text::error::InputError;

/// Built-in packs, embedded so the binary needs no files at run time.
const BUILTIN: &[(&str, &str)] = &[
    ("rules/lb.yaml", include_str!("../../rules/lb.yaml")),
    ("rules/ca.yaml", include_str!("../../rules/ca.yaml")),
    ("rules/ex.yaml", include_str!("../../rules/ex.yaml")),
];

#[derive(Debug, Clone)]
pub struct RuleSet {
    pub rules: Vec<Arc<Rule>>,
}

impl RuleSet {
    pub fn builtin() -> Result<RuleSet, InputError> {
        let mut set = RuleSet { rules: Vec::new() };
        for (name, text) in BUILTIN {
            set.add_pack_as(name, text, true)?;
        }
        Ok(set)
    }

    pub fn add_pack_file(&mut self, path: &str) -> Result<(), InputError> {
        let text = crate::text::bounded::read_small(std::path::Path::new(path))
            .map_err(|e| InputError::unreadable(path, format!("cannot read rule pack: {e}")))?;
        self.add_pack(path, &text)
    }

    pub fn add_pack(&mut self, name: &str, text: &str) -> Result<(), InputError> {
        self.add_pack_as(name, text, false)
    }

    /// `builtin`: the pack is edgeaudit's own, embedded at build time; any
    /// other pack's words are text from outside (see `Rule::builtin`).
    fn add_pack_as(&mut self, name: &str, text: &str, builtin: bool) -> Result<(), InputError> {
        let pack: PackSpec = crate::input::yaml::parse_small(name, text, "rule pack")?;
        for spec in pack.rules {
            let (line, column) = (spec.id.referenced.line() as usize, spec.id.referenced.column() as usize);
            let mut rule = spec.compile(name).map_err(|e| {
                let (l, c) = if e.line == 0 { (line, column) } else { (e.line, e.column) };
                InputError::at_line_column(name, l, c, format!("invalid rule: {}", e.message))
            })?;
            rule.builtin = builtin;
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

    /// Whether a selector (an id, a prefix or `ALL`) names any rule.
    pub fn knows(&self, selector: &str) -> bool {
        let selector = normal(selector);
        selector == "ALL" || (!selector.is_empty() && self.rules.iter().any(|r| r.id.starts_with(&selector)))
    }

    /// Why a selector is refused, for a selector [`RuleSet::knows`] does not:
    /// with the rule id it was most likely meant to be.
    pub fn unknown_selector(&self, selector: &str) -> String {
        if selector.trim().is_empty() {
            // As a prefix it would match every rule: `--ignore ''` would silence them all.
            return "an empty rule selector (a doubled or trailing comma?): remove it; as a prefix it would match every rule".to_string();
        }
        match self.closest(selector) {
            Some(id) => format!("`{selector}` matches no rule id: did you mean `{id}`? (see `edgeaudit rules`)"),
            None => format!("`{selector}` matches no rule id (see `edgeaudit rules`)"),
        }
    }

    /// The rule id nearest to `wanted` (at most two letters changed, added
    /// or removed), for "did you mean".
    pub fn closest(&self, wanted: &str) -> Option<&str> {
        let wanted = normal(wanted);
        self.rules
            .iter()
            .map(|r| (edit_distance(&wanted, &r.id), r.id.as_str()))
            .filter(|(d, _)| *d <= 2)
            .min_by_key(|(d, _)| *d)
            .map(|(_, id)| id)
    }

    /// Keeps the rules whose id starts with a `select` prefix (all when none is
    /// given, or `ALL`) and with no `ignore` prefix. A selector that matches no
    /// rule is an error: it is almost always a typo.
    pub fn select(&mut self, select: &[String], ignore: &[String]) -> Result<(), String> {
        for selector in select.iter().chain(ignore) {
            if !self.knows(selector) {
                return Err(self.unknown_selector(selector));
            }
        }
        let (select, ignore): (Vec<String>, Vec<String>) = (
            select.iter().map(|s| normal(s)).collect(),
            ignore.iter().map(|s| normal(s)).collect(),
        );
        let (select, ignore) = (select.as_slice(), ignore.as_slice());
        let matches = |id: &str, list: &[String]| list.iter().any(|s| s == "ALL" || id.starts_with(s.as_str()));
        self.rules
            .retain(|r| (select.is_empty() || matches(&r.id, select)) && !matches(&r.id, ignore));
        Ok(())
    }

    /// Gives the rules a selector (an id or prefix, as for `select`) matches
    /// one severity in every phase: a team's own judgement of a rule wins over
    /// the rule's schedule.
    pub fn override_severity(&mut self, selector: &str, severity: Severity) -> Result<(), String> {
        if !self.knows(selector) {
            return Err(self.unknown_selector(selector));
        }
        let selector = normal(selector);
        let mut matched = false;
        for rule in self.rules.iter_mut().filter(|r| selector == "ALL" || r.id.starts_with(&selector)) {
            let rule = Arc::make_mut(rule);
            rule.severity = severity;
            for phase in &mut rule.phases {
                phase.severity = severity;
            }
            matched = true;
        }
        if matched {
            Ok(())
        } else {
            Err(format!("`{selector}` matches no rule id (see `edgeaudit rules`)"))
        }
    }

    pub fn get(&self, id: &str) -> Option<&Arc<Rule>> {
        self.rules.iter().find(|r| r.id.eq_ignore_ascii_case(id))
    }
}

/// A selector as rule ids are spelt: `lb001` and `LB001` are one rule.
fn normal(selector: &str) -> String {
    selector.trim().to_ascii_uppercase()
}

/// Letters changed, added or removed to turn `a` into `b` (Levenshtein).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1).min(row[j] + 1).min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}
