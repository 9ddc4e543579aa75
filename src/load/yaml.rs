//! YAML documents through serde-saphyr, typed like JSON, with budgets scaled
//! to the input so that a large export loads and an alias bomb does not.

use serde_saphyr::options::DuplicateKeyPolicy;

use super::error::InputError;
use super::shape::{Container, YamlNode};
use super::source::SourceFile;

fn options(input_len: usize) -> serde_saphyr::Options {
    // Every event, node and scalar byte needs at least one input byte, so
    // these budgets never reject a plain export, whatever its size; aliases
    // are the only way to exceed them, and those are held small.
    let scaled = input_len.saturating_mul(2).saturating_add(4096);
    serde_saphyr::options! {
        duplicate_keys: DuplicateKeyPolicy::Error,
        budget: serde_saphyr::budget! {
            max_events: scaled,
            max_nodes: scaled,
            max_total_scalar_bytes: scaled,
            max_depth: 64,
            max_documents: 1,
            max_aliases: 1_000,
            max_anchors: 1_000,
            max_recorded_anchor_events: 10_000,
            max_merge_keys: 1_000,
        },
        alias_limits: serde_saphyr::alias_limits! {
            max_total_replayed_events: 10_000,
            max_replay_stack_depth: 8,
            max_alias_expansions_per_anchor: 100,
        },
    }
}

pub fn parse(file: &SourceFile) -> Result<Container<'_, YamlNode<'_>>, InputError> {
    serde_saphyr::from_str_with_options(&file.text, options(file.text.len())).map_err(|e| {
        let (line, column) = e.location().map_or((1, 1), |l| (l.line() as usize, l.column() as usize));
        let message = first_line(&e.without_snippet().to_string());
        let not_an_export = message.contains("expected an array of records or an object") && line == 1;
        let error = InputError::at_line_column(&file.name, line, column, format!("invalid YAML export: {message}"));
        if not_an_export { error.not_an_export() } else { error }
    })
}

/// serde-saphyr's message without its own location suffix.
fn first_line(rendered: &str) -> String {
    let line = rendered.lines().next().unwrap_or(rendered);
    match line.rfind(" at line ") {
        Some(i) => line[..i].to_string(),
        None => line.to_string(),
    }
}
