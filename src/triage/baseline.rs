//! Baselines: the findings a team has accepted, recorded by fingerprint.
//!
//! A baseline fingerprint is the rule, the resource (`kind/id`), the field
//! the finding points at inside its record and, for a rule with one finding
//! per element, the element. It holds no file name, array index or line:
//! exports are re-pulled, split and reordered, and a known problem on the
//! same resource must stay known.

use std::collections::HashMap;
use std::io::Write;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::Place;
use crate::text::error::InputError;
use crate::text::position::{offset_of_line_byte_column, positions_of_offsets};

pub const FORMAT_VERSION: u32 = 1;

/// What a baseline says of one finding. `name` and `rule` are for people
/// reading the file in review; only the fingerprint is matched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub fingerprint: String,
    pub rule: String,
    pub resource: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub field: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Document {
    version: u32,
    tool: String,
    findings: Vec<Entry>,
}

#[derive(Debug, Clone, Default)]
pub struct Baseline {
    /// The file, as given on the command line.
    pub file: String,
    pub entries: Vec<Entry>,
    /// Where each entry is written, as line and column (for notes about
    /// stale entries).
    pub places: Vec<(u32, u32)>,
    /// Fingerprint → index of its entry.
    fingerprints: HashMap<String, usize>,
}

/// The fingerprint of a finding, from the parts named above.
pub fn fingerprint(rule: &str, resource: &str, field: &str, item: Option<&str>) -> String {
    let mut hasher = Sha256::new();
    for part in [rule, resource, field, item.unwrap_or("")] {
        hasher.update(part.as_bytes());
        hasher.update([0]);
    }
    // 128 bits are plenty to tell findings apart and keep review diffs short.
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(32);
    for b in &hasher.finalize()[..16] {
        out.push(HEX[usize::from(b >> 4)] as char);
        out.push(HEX[usize::from(b & 15)] as char);
    }
    out
}

impl Baseline {
    pub fn new(file: &str, mut entries: Vec<Entry>) -> Baseline {
        entries.sort_by(|a, b| {
            (&a.rule, &a.resource, &a.field, &a.item, &a.fingerprint).cmp(&(&b.rule, &b.resource, &b.field, &b.item, &b.fingerprint))
        });
        entries.dedup_by(|a, b| a.fingerprint == b.fingerprint);
        let fingerprints = entries.iter().enumerate().map(|(i, e)| (e.fingerprint.clone(), i)).collect();
        Baseline {
            file: file.to_string(),
            places: Vec::new(),
            entries,
            fingerprints,
        }
    }

    pub fn contains(&self, fingerprint: &str) -> bool {
        self.fingerprints.contains_key(fingerprint)
    }

    /// The index of the entry with this fingerprint.
    pub fn position(&self, fingerprint: &str) -> Option<usize> {
        self.fingerprints.get(fingerprint).copied()
    }

    /// Where entry `i` is written.
    pub fn place(&self, i: usize) -> Place {
        let (line, column) = self.places.get(i).copied().unwrap_or((1, 1));
        Place {
            file: self.file.clone(),
            line: line as usize,
            column: column as usize,
        }
    }

    /// Reads a baseline of at most `max_input` bytes (0: the default bound of exports).
    pub fn read(file: &str, max_input: u64) -> Result<Baseline, InputError> {
        let path = std::path::Path::new(file);
        if !path.exists() {
            return Err(InputError::unreadable(
                file,
                "cannot read baseline: no such file (record one with `edgeaudit check … --write-baseline FILE`)",
            ));
        }
        let bound = if max_input == 0 {
            crate::text::bounded::DEFAULT_MAX_INPUT
        } else {
            max_input
        };
        let raw = crate::text::bounded::read(Some(path), bound, "--max-input-size")
            .map_err(|e| InputError::unreadable(file, format!("cannot read baseline: {e}")))?;
        let text = String::from_utf8(raw).map_err(|e| {
            InputError::unreadable(
                file,
                format!("cannot read baseline: invalid UTF-8 (byte {})", e.utf8_error().valid_up_to()),
            )
        })?;
        Baseline::parse(file, &text)
    }

    pub fn parse(file: &str, text: &str) -> Result<Baseline, InputError> {
        let doc: Document = serde_json::from_str(text).map_err(|e| {
            let offset = offset_of_line_byte_column(text, e.line(), e.column());
            let message = e.to_string();
            let message = message.rfind(" at line ").map_or(message.as_str(), |i| &message[..i]);
            let message = if message.contains("struct Document") {
                "expected an object with `version`, `tool` and `findings`, as --write-baseline writes it"
            } else {
                message
            };
            InputError::at_offset(file, text, offset, format!("invalid baseline: {message}"))
        })?;
        let starts = crate::input::json::locate::find(text, 0, &["findings"]);
        let starts = crate::input::json::locate::element_starts(text, starts.start);
        let positions = positions_of_offsets(text, &starts);
        let at = |i: usize| {
            let (line, column) = positions.get(i).copied().unwrap_or((1, 1));
            (line, column, starts.get(i).copied().unwrap_or(0))
        };
        if doc.tool != "edgeaudit" || doc.version != FORMAT_VERSION {
            return Err(InputError::at_offset(
                file,
                text,
                0,
                format!(
                    "invalid baseline: expected an edgeaudit baseline of version {FORMAT_VERSION}, found tool `{}` version {}",
                    doc.tool, doc.version
                ),
            ));
        }
        for (i, entry) in doc.findings.iter().enumerate() {
            let well_formed = entry.fingerprint.len() == 32 && entry.fingerprint.bytes().all(|b| b.is_ascii_hexdigit());
            if !well_formed {
                let (_, _, offset) = at(i);
                return Err(InputError::at_offset(
                    file,
                    text,
                    offset,
                    format!(
                        "invalid baseline: /findings/{i}: fingerprint `{}` is not 32 hexadecimal digits (rewrite the baseline with --write-baseline)",
                        entry.fingerprint
                    ),
                ));
            }
        }
        let places = (0..doc.findings.len())
            .map(|i| {
                let (line, column, _) = at(i);
                (line as u32, column as u32)
            })
            .collect();
        let mut fingerprints = HashMap::with_capacity(doc.findings.len());
        for (i, e) in doc.findings.iter().enumerate() {
            fingerprints.entry(e.fingerprint.to_ascii_lowercase()).or_insert(i);
        }
        Ok(Baseline {
            file: file.to_string(),
            entries: doc.findings,
            places,
            fingerprints,
        })
    }

    /// One entry per line, sorted: a baseline is committed and reviewed, and
    /// a diff of it should show exactly the findings accepted or gone.
    pub fn write(&self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "{{")?;
        writeln!(out, "  \"version\": {FORMAT_VERSION},")?;
        writeln!(out, "  \"tool\": \"edgeaudit\",")?;
        if self.entries.is_empty() {
            writeln!(out, "  \"findings\": []")?;
        } else {
            writeln!(out, "  \"findings\": [")?;
            for (i, entry) in self.entries.iter().enumerate() {
                let comma = if i + 1 < self.entries.len() { "," } else { "" };
                writeln!(out, "    {}{comma}", serde_json::to_string(entry)?)?;
            }
            writeln!(out, "  ]")?;
        }
        writeln!(out, "}}")
    }

    pub fn write_to(&self, path: &str) -> Result<(), String> {
        let mut text = Vec::new();
        self.write(&mut text).map_err(|e| format!("cannot write {path}: {e}"))?;
        crate::files::write_output(std::path::Path::new(path), &text).map_err(|e| format!("cannot write {path}: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(rule: &str, resource: &str) -> Entry {
        Entry {
            fingerprint: fingerprint(rule, resource, "/notification_email", None),
            rule: rule.into(),
            resource: resource.into(),
            name: "web".into(),
            field: "/notification_email".into(),
            item: None,
        }
    }

    #[test]
    fn written_baselines_read_back_with_entry_lines() {
        let baseline = Baseline::new(
            "b.json",
            vec![entry("LB002", "pool/b"), entry("LB001", "pool/a"), entry("LB001", "pool/a")],
        );
        let mut text = Vec::new();
        baseline.write(&mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        let read = Baseline::parse("b.json", &text).unwrap();
        assert_eq!(read.entries, baseline.entries);
        assert_eq!(read.entries.len(), 2, "duplicates are recorded once");
        assert_eq!(read.entries[0].rule, "LB001", "sorted by rule");
        assert_eq!((read.place(0).line, read.place(0).column), (5, 5));
        assert_eq!((read.place(1).file.as_str(), read.place(1).line), ("b.json", 6));
        assert!(read.contains(&fingerprint("LB002", "pool/b", "/notification_email", None)));
        assert!(!text.contains("line"), "no line numbers in a baseline");
    }

    #[test]
    fn every_truncation_of_a_baseline_is_an_error_inside_it() {
        let baseline = Baseline::new("b.json", vec![entry("LB001", "pool/a"), entry("LB002", "pool/b")]);
        let mut text = Vec::new();
        baseline.write(&mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        let full = text.trim_end().len();
        for end in 0..full {
            let e = Baseline::parse("b.json", &text[..end]).expect_err("a cut baseline is not a baseline");
            assert!(e.line <= text[..end].matches('\n').count() + 1, "cut at {end}: {e}");
            assert!(e.message.starts_with("invalid baseline"), "cut at {end}: {e}");
        }
    }

    #[test]
    fn fingerprints_depend_on_rule_resource_field_and_item_only() {
        let a = fingerprint("LB001", "pool/a", "/notification_email", None);
        assert_eq!(a.len(), 32);
        assert_ne!(a, fingerprint("LB002", "pool/a", "/notification_email", None));
        assert_ne!(a, fingerprint("LB001", "pool/b", "/notification_email", None));
        assert_ne!(a, fingerprint("LB001", "pool/a", "/origins", None));
        assert_ne!(a, fingerprint("LB001", "pool/a", "/notification_email", Some("x")));
        // The separator keeps parts from running into each other.
        assert_ne!(fingerprint("LB00", "1pool/a", "", None), fingerprint("LB001", "pool/a", "", None));
    }

    #[test]
    fn bad_baselines_name_line_and_column() {
        let e = Baseline::parse(
            "b.json",
            "{\n  \"version\": 1,\n  \"tool\": \"edgeaudit\",\n  \"findings\": [\n    {\"rule\": 1}\n  ]\n}",
        )
        .unwrap_err();
        assert_eq!((e.file.as_str(), e.line), ("b.json", 5), "{e}");
        let e = Baseline::parse("b.json", "{\"version\": 1, \"tool\": \"edgeaudit\", \"findings\": [{\"fingerprint\": \"xyz\", \"rule\": \"LB001\", \"resource\": \"pool/a\"}]}").unwrap_err();
        assert!(e.message.contains("/findings/0: fingerprint `xyz`"), "{e}");
        assert_eq!((e.line, e.column), (1, 50));
        let e = Baseline::parse("b.json", "{\"version\": 2, \"tool\": \"edgeaudit\", \"findings\": []}").unwrap_err();
        assert!(e.message.contains("version 1"), "{e}");
        let e = Baseline::parse("b.json", "{\"version\": 1, \"tool\": \"edgeaudit\", \"findings\": [").unwrap_err();
        assert!(e.message.starts_with("invalid baseline: EOF"), "{e}");
    }
}
