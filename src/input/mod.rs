//! Stage 1, the input formats: one folder per format (`json`, `yaml`,
//! `bind`, `tfstate`, `hcl`), each behind [`InputFormat`], and the registry
//! [`FORMATS`]. A format says which file names are its own, recognises an
//! unnamed text, walks its records into a [`RecordSink`] (the model's
//! builder), finds where a field of one of its records is, and reads a
//! record back. Nothing outside this file asks which format a file is:
//! adding a format adds a folder and an entry here (CONTRIBUTING.md).
//!
//! Shared by the formats: the file and its text ([`source`]), typed record
//! shapes ([`shape`]), the walker that classifies records ([`walk`]) and
//! the one-pass streaming parse behind it ([`stream`]), locating
//! ([`locate`]), and Terraform resources in the API's shape ([`terraform`],
//! for both Terraform formats).

pub mod bind;
pub mod hcl;
pub mod json;
pub mod jsonl;
pub mod locate;
pub mod page;
pub mod shape;
pub mod source;
pub mod stream;
pub mod terraform;
pub mod tfstate;
pub mod walk;
pub mod yaml;

use serde_json::Value;

use crate::model::Kind;
use crate::model::origin::RecordOrigin;
use crate::text::error::InputError;
use locate::FileCache;
use shape::{RecordSpans, Shape};
use source::{FileId, SourceFile};
use walk::RecordSink;

/// One input format. Implementations are unit structs in their folder,
/// listed once in [`FORMATS`].
pub trait InputFormat: Sync + 'static {
    /// What `--input-format` calls it, and messages.
    fn name(&self) -> &'static str;

    /// File-name endings, lower-case, that name it.
    fn extensions(&self) -> &'static [&'static str];

    /// What it is, for a person: a phrase in the book's table of formats
    /// (`docs/src/inputs.md`, generated from the registry).
    fn description(&self) -> &'static str;

    /// Endings of files that are read with this format's files but are no
    /// input of their own (Terraform's `.tfvars` beside a `.tf`): a change
    /// to one changes the verdict, so hooks watch them too.
    fn companion_extensions(&self) -> &'static [&'static str] {
        &[]
    }

    /// Whether a text whose first significant byte is `first` is of this
    /// format, when nothing names it (asked in the registry's order).
    fn sniffs(&self, _first: Option<u8>) -> bool {
        false
    }

    /// Whether a text that its name or its first byte gives to format
    /// `given` is really of this one (a JSON document that is Terraform's
    /// state or plan, whatever the file is called).
    fn takes_over(&self, _given: &dyn InputFormat, _text: &str) -> bool {
        false
    }

    /// A directory's files are one configuration (Terraform source): a file
    /// without resources is part of it, listed rather than refused, and an
    /// empty file is one without resources.
    fn is_configuration(&self) -> bool {
        false
    }

    /// Walks file `id`'s records into `sink`.
    fn walk(
        &self,
        files: &[SourceFile],
        id: FileId,
        kind: Option<Kind>,
        sink: &mut dyn RecordSink,
        shared: &mut Shared,
    ) -> Result<(), Vec<InputError>>;

    /// Where a record starts, so that its fields can be located from there
    /// alone (a JSON object's `{`, a YAML mapping's first key); `None` when
    /// its records are located otherwise.
    fn anchor(&self, _shape: &Shape<'_>, _text: &str) -> Option<usize> {
        None
    }

    /// Where the values findings point at most lie in a record whose
    /// [`anchor`](Self::anchor) is `record`, when the format locates a
    /// value by where its text lies (JSON); none otherwise.
    fn value_spans(&self, _shape: &Shape<'_>, _text: &str, _record: usize) -> RecordSpans {
        RecordSpans::NONE
    }

    /// Whether a field is located from its record alone, with nothing kept
    /// of the file ([`locate`](Self::locate) with an empty cache): such
    /// findings are located on every thread, in file order.
    fn locates_alone(&self) -> bool {
        false
    }

    /// Whether locating is cheaper when told in advance which fields of the
    /// file will be asked for ([`prepare`](Self::prepare)).
    fn prepares(&self) -> bool {
        false
    }

    /// The fields of the file that will be asked for.
    fn prepare(&self, _cache: &mut FileCache, _fields: std::collections::HashSet<String>) {}

    /// The pointer of the value found for field `path` of the record at
    /// `origin` (the field, or its nearest parent that exists) and its
    /// bytes `start..end` in the file.
    fn locate(&self, file: &SourceFile, cache: &mut FileCache, origin: &RecordOrigin, path: &str) -> (String, usize, usize);

    /// The record at `origin` read back whole as the API returned it, when
    /// the format holds API records.
    fn read_record(&self, _file: &SourceFile, _cache: &mut FileCache, _origin: &RecordOrigin) -> Option<Value> {
        None
    }
}

impl std::fmt::Debug for dyn InputFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl PartialEq for dyn InputFormat {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

/// Every format, in the order sniffing asks them (YAML, which takes any
/// text, last).
pub static FORMATS: [&dyn InputFormat; 6] = [&json::JSON, &jsonl::JSONL, &tfstate::TFSTATE, &bind::BIND, &hcl::HCL, &yaml::YAML];

/// What the formats keep between the files of one load.
#[derive(Default)]
pub struct Shared {
    /// Terraform source: a directory's `.tf` files are parsed together.
    pub configurations: hcl::Configurations,
}

/// Every format's name, in the registry's order (`--input-format`'s values).
pub fn names() -> Vec<&'static str> {
    FORMATS.iter().map(|f| f.name()).collect()
}

/// Every ending a change to which can change a verdict: the formats' own and
/// their companions' (pre-commit's `files` pattern).
pub fn watched_extensions() -> Vec<&'static str> {
    FORMATS
        .iter()
        .flat_map(|f| f.extensions().iter().chain(f.companion_extensions()))
        .copied()
        .collect()
}

/// The format called `name` (`--input-format`).
pub fn named(name: &str) -> Option<&'static dyn InputFormat> {
    FORMATS.iter().copied().find(|f| f.name() == name)
}

/// The format a path's extension names, if any.
pub fn from_path(path: &str) -> Option<&'static dyn InputFormat> {
    let lower = path.to_ascii_lowercase();
    let extension = lower.rsplit_once('.').map(|(_, e)| e)?;
    FORMATS.iter().copied().find(|f| f.extensions().contains(&extension))
}

/// The format of a text nothing names, by its first significant byte.
pub fn sniff(text: &str) -> &'static dyn InputFormat {
    let first = text.trim_start().as_bytes().first().copied();
    FORMATS.iter().copied().find(|f| f.sniffs(first)).unwrap_or(&yaml::YAML)
}

/// The format of a text: the one its name or the user gave, else sniffed,
/// unless another format takes the text over for what it holds.
pub fn of_text(given: Option<&'static dyn InputFormat>, text: &str) -> &'static dyn InputFormat {
    let format = given.unwrap_or_else(|| sniff(text));
    FORMATS.iter().copied().find(|f| f.takes_over(format, text)).unwrap_or(format)
}

/// `*.json, *.tfstate, …`: every extension a directory walk reads.
pub fn extension_globs() -> String {
    FORMATS
        .iter()
        .flat_map(|f| f.extensions().iter().map(|e| format!("*.{e}")))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(format: Option<&'static dyn InputFormat>) -> Option<&'static str> {
        format.map(|f| f.name())
    }

    #[test]
    fn names_and_sniffing_pick_the_format() {
        assert_eq!(name(from_path("exports/Pools.JSON")), Some("json"));
        assert_eq!(name(from_path("terraform.tfstate")), Some("tfstate"));
        assert_eq!(name(from_path("a.yml")), Some("yaml"));
        assert_eq!(name(from_path("example.com.zone")), Some("bind"));
        assert_eq!(name(from_path("main.tf")), Some("hcl"));
        assert_eq!(
            from_path("main.tfvars").map(|f| f.name()),
            None,
            "read with its configuration, not alone"
        );
        assert_eq!(name(from_path("README")), None);
        assert_eq!(sniff("  {\"result\": []}").name(), "json");
        assert_eq!(sniff("[1]").name(), "json");
        assert_eq!(sniff("; zone\n$ORIGIN example.com.").name(), "bind");
        assert_eq!(sniff("pools: []").name(), "yaml");
        assert_eq!(sniff("").name(), "yaml");
        assert!(hcl::HCL.is_configuration() && !json::JSON.is_configuration());
        assert_eq!(
            extension_globs(),
            "*.json, *.jsonl, *.ndjson, *.tfstate, *.zone, *.bind, *.tf, *.yaml, *.yml"
        );
        assert_eq!(name(from_path("hostnames.ndjson")), Some("jsonl"));
        for format in FORMATS {
            assert_eq!(named(format.name()), Some(format));
        }
    }

    #[test]
    fn terraform_documents_are_told_from_json_exports_by_what_they_hold() {
        let state = r#"{"format_version": "1.0", "terraform_version": "1.9.0", "values": {}}"#;
        let export = r#"{"result": [{"id": "p", "custom_metadata": {"terraform_version": "1"}}]}"#;
        assert_eq!(of_text(None, state).name(), "tfstate");
        assert_eq!(of_text(from_path("show.json"), state).name(), "tfstate");
        assert_eq!(of_text(from_path("pools.json"), export).name(), "json");
        // Named `.tfstate`, it stays one (and is read as the JSON it is when
        // it holds no Terraform document: `tfstate::Tfstate::walk`).
        assert_eq!(of_text(from_path("old.tfstate"), export).name(), "tfstate");
    }
}
