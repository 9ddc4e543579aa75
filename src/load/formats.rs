//! The input formats, one entry each: the file names that name it, how an
//! unnamed text is recognised, whether its files make a configuration
//! together, and how it is walked into the model. The one place that
//! matches on [`Format`] on the load side: adding a format adds an entry
//! here (and its reader), not a branch in every stage.

use super::source::{FileId, Format, SourceFile};
use super::walk::{RecordSink, Walker};
use super::{LoadOptions, bind, hcl, json, terraform, yaml};
use crate::text::error::InputError;

/// What the load side knows of a format.
pub struct Spec {
    pub format: Format,
    /// File-name endings, lower-case, that name it.
    pub extensions: &'static [&'static str],
    /// Whether a text whose first significant byte is this one is of the
    /// format, when nothing names it (asked in the registry's order).
    pub sniffs: fn(Option<u8>) -> bool,
    /// A directory's files are one configuration (Terraform source): a file
    /// without resources is part of it, listed rather than refused, and an
    /// empty file is one without resources.
    pub is_configuration: bool,
}

/// Every format, in the order sniffing asks them.
pub const FORMATS: [Spec; 4] = [
    Spec {
        format: Format::Json,
        // A Terraform state file is JSON.
        extensions: &["json", "tfstate"],
        sniffs: |first| matches!(first, Some(b'{' | b'[')),
        is_configuration: false,
    },
    Spec {
        format: Format::Bind,
        extensions: &["zone", "bind"],
        // A BIND zone file starts with `;` comments or a `$` directive; YAML comments use `#`.
        sniffs: |first| matches!(first, Some(b';' | b'$')),
        is_configuration: false,
    },
    Spec {
        format: Format::Hcl,
        extensions: &["tf"],
        // Only ever named: `.tf` files are found by their name.
        sniffs: |_| false,
        is_configuration: true,
    },
    Spec {
        format: Format::Yaml,
        extensions: &["yaml", "yml"],
        // What is neither JSON nor BIND is read as YAML.
        sniffs: |_| true,
        is_configuration: false,
    },
];

/// The entry of a format.
pub fn spec(format: Format) -> &'static Spec {
    FORMATS.iter().find(|s| s.format == format).unwrap_or(&FORMATS[0])
}

/// The format a path's extension names, if any.
pub fn from_path(path: &str) -> Option<Format> {
    let lower = path.to_ascii_lowercase();
    let extension = lower.rsplit_once('.').map(|(_, e)| e)?;
    FORMATS.iter().find(|s| s.extensions.contains(&extension)).map(|s| s.format)
}

/// The format of a text nothing names, by its first significant byte.
pub fn sniff(text: &str) -> Format {
    let first = text.trim_start().as_bytes().first().copied();
    FORMATS.iter().find(|s| (s.sniffs)(first)).map_or(Format::Yaml, |s| s.format)
}

/// `*.json, *.tfstate, …`: every extension a directory walk reads.
pub fn extension_globs() -> String {
    FORMATS
        .iter()
        .flat_map(|s| s.extensions.iter().map(|e| format!("*.{e}")))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Walks file `id`'s records into `sink`, with the reader of its format.
pub fn walk<S: RecordSink>(
    files: &[SourceFile],
    id: FileId,
    options: &LoadOptions,
    sink: &mut S,
    configurations: &mut hcl::Configurations,
) -> Result<(), Vec<InputError>> {
    let file = &files[id.0 as usize];
    let walker = |sink| Walker::new(files, id, sink, options.kind);
    match file.format {
        Format::Json if terraform::is_terraform(&file.text) => terraform::walk(file, walker(sink)),
        Format::Json => json::walk(files, id, sink, options.kind),
        Format::Yaml => yaml::walk(file, walker(sink)),
        Format::Bind => bind::walk(file, walker(sink)),
        Format::Hcl => {
            let (body, configuration) = configurations.take(files, id);
            hcl::walk(file, walker(sink), body, configuration)
        }
    }
}

/// Where a record starts, so that its fields can be located from there
/// alone: a JSON object's `{`, a YAML mapping's first key; `None` for a
/// format whose records are located otherwise.
pub fn anchor(format: Format, shape: &super::shape::Shape<'_>, text: &str) -> Option<usize> {
    match format {
        Format::Json => shape.json_offset(text),
        Format::Yaml => shape.key_offset(text),
        Format::Bind | Format::Hcl => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_sniffing_pick_the_format() {
        assert_eq!(from_path("exports/Pools.JSON"), Some(Format::Json));
        assert_eq!(from_path("terraform.tfstate"), Some(Format::Json));
        assert_eq!(from_path("a.yml"), Some(Format::Yaml));
        assert_eq!(from_path("example.com.zone"), Some(Format::Bind));
        assert_eq!(from_path("main.tf"), Some(Format::Hcl));
        assert_eq!(from_path("main.tfvars"), None, "read with its configuration, not alone");
        assert_eq!(from_path("README"), None);
        assert_eq!(sniff("  {\"result\": []}"), Format::Json);
        assert_eq!(sniff("[1]"), Format::Json);
        assert_eq!(sniff("; zone\n$ORIGIN example.com."), Format::Bind);
        assert_eq!(sniff("pools: []"), Format::Yaml);
        assert_eq!(sniff(""), Format::Yaml);
        assert!(spec(Format::Hcl).is_configuration && !spec(Format::Json).is_configuration);
        assert_eq!(extension_globs(), "*.json, *.tfstate, *.zone, *.bind, *.tf, *.yaml, *.yml");
    }
}
