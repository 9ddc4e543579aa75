use serde_json::json;

use super::args::{RulesArgs, RulesFormat};
use super::{EXIT_ERROR, fail, rule_set};
use crate::engine::docs;

pub fn list(args: &RulesArgs) -> u8 {
    let rules = match rule_set(&args.rules) {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    let shield = match args.format {
        RulesFormat::Json => crate::report::Shield::Json,
        RulesFormat::Text | RulesFormat::Markdown => crate::report::Shield::Log,
    };
    let out = match args.format {
        RulesFormat::Text => {
            let subject_width = rules.rules.iter().map(|r| r.subject_names().len()).max().unwrap_or(0);
            let name_width = rules.rules.iter().map(|r| r.name.len()).max().unwrap_or(0);
            rules
                .rules
                .iter()
                .map(|r| {
                    format!(
                        "{:<6}  {:<8} {:<subject_width$}  {:<name_width$}  {}\n",
                        r.id,
                        r.severity.as_str(),
                        r.subject_names(),
                        r.name,
                        r.summary
                    )
                })
                .collect::<String>()
        }
        RulesFormat::Markdown => {
            let mut s = String::from("# edgeaudit rules\n\n");
            for r in &rules.rules {
                s.push_str(&docs::markdown(r));
                s.push('\n');
            }
            s
        }
        RulesFormat::Json => {
            let list: Vec<_> = rules
                .rules
                .iter()
                .map(|r| {
                    json!({
                        "id": r.id, "name": r.name, "subject": r.subject_names(), "subjects": r.subjects, "severity": r.severity,
                        "summary": r.summary, "rationale": r.rationale.trim(), "remediation": r.remediation.trim(),
                        "assumptions": r.assumptions, "references": r.references, "tags": r.tags,
                        "fires_when": r.when.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
                        "effective_from": r.effective_from.map(|d| d.to_string()), "effective_until": r.effective_until.map(|d| d.to_string()),
                        "pack": r.pack, "migration": r.migration, "action": r.action, "remedy": r.remedy,
                    })
                })
                .collect();
            let mut s = serde_json::to_string_pretty(&list).unwrap_or_default();
            s.push('\n');
            s
        }
    };
    super::print(shield, out.as_bytes())
}

pub fn explain(id: &str, extra: &[String]) -> u8 {
    let rules = match rule_set(extra) {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    match rules.get(id) {
        Some(rule) => super::print(crate::report::Shield::Log, docs::text(rule).as_bytes()),
        None => {
            let ids: Vec<&str> = rules.rules.iter().map(|r| r.id.as_str()).collect();
            match rules.closest(id) {
                Some(near) => crate::say!("edgeaudit: error: no rule `{id}`: did you mean `{near}`? Rules: {}", ids.join(", ")),
                None => crate::say!("edgeaudit: error: no rule `{id}`; rules: {}", ids.join(", ")),
            }
            EXIT_ERROR
        }
    }
}
