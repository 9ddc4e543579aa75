//! YAML documents through serde-saphyr, typed like JSON, with budgets scaled
//! to the input so that a large export loads and an alias bomb does not.

use serde_saphyr::options::DuplicateKeyPolicy;

use crate::text::error::InputError;
use serde::de::DeserializeSeed;

use crate::input::source::SourceFile;
use crate::input::walk::Walker;

/// The parser's options for an input of `input_len` bytes (also the
/// benchmark's YAML floor, `examples/scan_floor.rs`).
pub fn options(input_len: usize) -> serde_saphyr::Options {
    // Every event, node and scalar byte needs at least one input byte, so
    // these budgets never reject a plain export, whatever its size; aliases
    // are the only way to exceed them, and those are held small.
    let scaled = input_len.saturating_mul(2).saturating_add(4096);
    serde_saphyr::options! {
        duplicate_keys: DuplicateKeyPolicy::Error,
        // A value edgeaudit does not read never fails the file: an id such as
        // `000000000000000091374159037e3054` would otherwise read as an infinite float.
        non_finite_float_policy: serde_saphyr::NonFiniteFloatPolicy::AsString,
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

/// Parses the file and walks it in the same pass.
pub fn walk(file: &SourceFile, walker: Walker<'_>) -> Result<(), Vec<InputError>> {
    walker.run(
        |seed| serde_saphyr::with_deserializer_from_str_with_options(&file.text, options(file.text.len()), |de| seed.deserialize(de)),
        |e| {
            let (line, column) = e.location().map_or((1, 1), |l| (l.line() as usize, l.column() as usize));
            let message = explain(&first_line(&e.without_snippet().to_string()), &file.text);
            let not_an_export = message.contains("expected an array of records or an object") && line == 1;
            let offset = crate::text::position::offset_of_line(&file.text, line);
            let offset = offset
                + file.text[offset..]
                    .chars()
                    .take(column.saturating_sub(1))
                    .map(char::len_utf8)
                    .sum::<usize>();
            let pointer = crate::text::pointer::abbreviate(&pointer_at(&file.text, offset));
            let place = if pointer.is_empty() {
                String::new()
            } else {
                format!("{pointer}: ")
            };
            let error = InputError::at_offset(&file.name, &file.text, offset, format!("invalid YAML export: {place}{message}"));
            if not_an_export {
                error.not_analysed(format!("it holds no records (objects): {message}"))
            } else {
                error
            }
        },
    )
}

/// Parses one of edgeaudit's own small YAML files (a rule pack, a config):
/// duplicate keys are errors, aliases are bounded, and an error names the
/// file, line and column with `what` the file was meant to be.
pub fn parse_small<T: serde::de::DeserializeOwned>(name: &str, text: &str, what: &str) -> Result<T, InputError> {
    serde_saphyr::from_str_with_options(text, options(text.len())).map_err(|e| {
        let (line, column) = e.location().map_or((1, 1), |l| (l.line() as usize, l.column() as usize));
        let message = explain(&first_line(&e.without_snippet().to_string()), text);
        InputError::at_line_column(name, line, column, format!("invalid {what}: {message}"))
    })
}

/// The pointer of the node starting at `offset`, if the document's events
/// reach it (they stop at a syntax error).
fn pointer_at(text: &str, offset: usize) -> String {
    crate::input::yaml::locate::node_ranges(text)
        .into_iter()
        .filter(|(_, (start, end))| *start <= offset && offset <= (*end).max(*start))
        .max_by_key(|(pointer, (start, _))| (*start, pointer.len()))
        .map(|(pointer, _)| pointer)
        .unwrap_or_default()
}

/// Budget breaches and the parser's own jargon in words (`text` is the
/// document, read again only for a breach that may be an alias bomb).
fn explain(message: &str, text: &str) -> String {
    let Some(detail) = message.strip_prefix("budget breached: ") else {
        return in_plain_words(message);
    };
    let what = detail.split([' ', '{']).next().unwrap_or("");
    let plain = match what {
        "AliasReplayEvents" | "RecordedAnchorEvents" => "its aliases expand to more than edgeaudit replays (an alias bomb?)",
        "Events" | "Nodes" if has_aliases(text) => "the document expands to more YAML events than its size allows (an alias bomb?)",
        "Events" | "Nodes" => "the document holds more YAML events than its size allows",
        "Depth" => "nesting deeper than 64 levels",
        "Aliases" | "Anchors" => "too many anchors or aliases (at most 1,000)",
        _ => "the document exceeds edgeaudit's YAML limits",
    };
    format!("{plain} [{detail}]")
}

/// Whether the text could hold an alias (`*name`): only then is a budget
/// breach worth calling a possible alias bomb.
fn has_aliases(text: &str) -> bool {
    text.as_bytes()
        .windows(2)
        .any(|w| w[0] == b'*' && (w[1].is_ascii_alphanumeric() || w[1] == b'_'))
}

/// The parser's messages that speak of its own API, in the user's terms.
fn in_plain_words(message: &str) -> String {
    if let Some(rest) = message.strip_prefix("duplicate mapping key") {
        let key = rest
            .trim_start_matches(':')
            .split(", set DuplicateKeyPolicy")
            .next()
            .unwrap_or("")
            .trim();
        return if key.is_empty() || key.starts_with(',') {
            "a key appears twice in this mapping: keep one".to_string()
        } else {
            format!("the key `{key}` appears twice in this mapping: keep one")
        };
    }
    match message {
        "cannot deserialize null into string; use Option<String>" => {
            "expected a string, found null (`~`, `null` or nothing): write the value, or leave the key out".to_string()
        }
        "invalid char: cannot deserialize null; use Option<char>" => "expected a character, found null".to_string(),
        "invalid boolean" | "invalid boolean (strict mode expects true/false)" => "expected `true` or `false`".to_string(),
        _ => message.to_string(),
    }
}

/// serde-saphyr's message without its own location suffix.
fn first_line(rendered: &str) -> String {
    let line = rendered.lines().next().unwrap_or(rendered);
    match line.find(" at line ") {
        Some(i) => line[..i].to_string(),
        None => line.to_string(),
    }
}
