//! Loads one in-memory file of the given format, as `check` would, and
//! (with `analyse`) runs every rule on what it loaded.

use std::sync::Arc;

use edgeaudit::adapt::Builder;
use edgeaudit::input::InputFormat;
use edgeaudit::input::source::SourceFile;
use edgeaudit::load::{LoadOptions, parse_files};

pub fn load(data: &[u8], format: &'static dyn InputFormat, name: &str, analyse: bool) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let file = SourceFile {
        name: name.to_string(),
        text: Arc::new(text.to_string().into()),
        format,
        discovered: false,
        context: false,
    };
    let mut builder = Builder::default();
    if parse_files(vec![file], Vec::new(), &LoadOptions::default(), &mut builder).is_err() {
        return;
    }
    let inventory = builder.finish();
    if analyse {
        let rules = edgeaudit::engine::RuleSet::builtin().expect("built-in rules");
        let analysis = edgeaudit::facts::Analysis::new(&inventory, vec![name.to_string()]);
        let as_of = chrono::NaiveDate::from_ymd_opt(2024, 10, 1).expect("date");
        let in_effect = edgeaudit::findings::evaluate::InEffect::new(&rules, as_of);
        let mut findings = Vec::new();
        analysis.for_each_subject(|subject, facts| edgeaudit::findings::evaluate::evaluate(&in_effect, subject, facts, &mut findings));
        for f in &findings {
            let _ = analysis.with_facts(f.subject, |facts| f.rule.message_in(f.phase).render(facts, f.item.as_deref()));
        }
    }
}
