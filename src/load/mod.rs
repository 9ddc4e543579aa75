//! Stage 1: find the inputs and read each once, then hand each to its
//! format (`input/`), which parses it into typed shapes and classifies its
//! records, keeping where each came from.

pub mod discover;
pub mod exclude;

use std::sync::Arc;

use crate::input::source::{FileId, SourceFile};
use crate::input::walk::RecordSink;
use crate::input::{InputFormat, Shared};
use crate::text::bounded;
use crate::text::error::{InputError, InputErrors};
use crate::text::mapped as text;

use crate::model::Kind;

#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// `--kind`: what a single-object document (or every record) is.
    pub kind: Option<Kind>,
    /// `--input-format`, for stdin and files without a known extension.
    pub input_format: Option<&'static dyn InputFormat>,
    /// The config's and the command line's `exclude` patterns.
    pub exclude: exclude::Exclude,
    /// The size bound of each input (`--max-input-size`); 0 means the default.
    pub max_input: u64,
    /// What standard input is called in reports (`--stdin-filename`); its
    /// extension names its format when `--input-format` does not.
    pub stdin_name: Option<String>,
}

#[derive(Debug)]
pub struct Loaded {
    pub files: Vec<SourceFile>,
    /// Files met while walking a directory that are not exports, or that the
    /// walk does not read (linked directories, FIFOs).
    pub skipped: Vec<InputError>,
    /// How many of `files` were analysed (the others are among `skipped`).
    pub analysed: usize,
    /// The mapped files, by index in `files`, and their paths.
    mapped: Vec<(usize, std::path::PathBuf)>,
}

impl Loaded {
    /// An error for each mapped file whose size or modification time changed
    /// since it was mapped. Asked when loading ends, and again after the
    /// last stage that reads the text (pages given back are read again from
    /// the file): a file rewritten in place during the run is an input
    /// error, not a report about a mix of two texts.
    pub fn unchanged(&self) -> Result<(), InputErrors> {
        let changed: Vec<InputError> = self
            .mapped
            .iter()
            .filter(|(i, path)| self.files.get(*i).is_some_and(|f| f.text.changed(path)))
            .map(|(i, _)| {
                InputError::unreadable(
                    self.files.get(*i).map_or("", |f| f.name.as_str()),
                    "the file changed while it was being read; check it again once it is written whole",
                )
            })
            .collect();
        if changed.is_empty() { Ok(()) } else { Err(InputErrors(changed)) }
    }
}

/// Loads every input. All broken files are reported, not only the first:
/// the rest of the input is still read to find them.
pub fn load<S: RecordSink>(paths: &[String], options: &LoadOptions, sink: &mut S) -> Result<Loaded, InputErrors> {
    let discovered = discover::discover(paths, &options.exclude, options.stdin_name.as_deref());
    let mut files = Vec::with_capacity(discovered.inputs.len());
    let mut errors = discovered.errors;
    // Mapped files, to see whether they changed while they were read.
    let mut mapped = Vec::new();
    for input in discovered.inputs {
        match read(&input, options) {
            Ok(file) => {
                if let (true, Some(path)) = (file.text.is_mapped(), input.path) {
                    mapped.push((files.len(), path));
                }
                files.push(file)
            }
            Err(e) => errors.push(e),
        }
    }
    let mut loaded = parse_files(files, errors, options, sink)?;
    loaded.mapped = mapped;
    loaded.unchanged()?;
    if !discovered.skipped.is_empty() {
        loaded.skipped.extend(discovered.skipped);
        loaded.skipped.sort_by(|a, b| a.file.cmp(&b.file));
    }
    Ok(loaded)
}

/// Parses files already read (the fuzz targets start here, with text in memory).
pub fn parse_files<S: RecordSink>(
    files: Vec<SourceFile>,
    mut errors: Vec<InputError>,
    options: &LoadOptions,
    sink: &mut S,
) -> Result<Loaded, InputErrors> {
    let mut skipped = Vec::new();
    let mut shared = Shared::default();
    for i in 0..files.len() {
        match parse_file(&files, FileId(i as u32), options, sink, &mut shared) {
            Ok(()) => {}
            // A `.tf` file without resources of ours (variables, providers) is
            // part of its configuration even when named: listed, not an error.
            Err(mut e) if e.len() == 1 && e[0].not_an_export && (files[i].discovered || files[i].format.is_configuration()) => {
                skipped.extend(e.pop())
            }
            Err(e) => errors.extend(e),
        }
    }
    if !errors.is_empty() {
        return Err(InputErrors(errors));
    }
    if !skipped.is_empty() && skipped.len() == files.len() {
        // Nothing at all to analyse: a run that passed would be a silent pass.
        for e in &mut skipped {
            e.message = format!("{} (and no file found holds an export edgeaudit analyses)", e.message);
        }
        return Err(InputErrors(skipped));
    }
    let analysed = files.len() - skipped.len();
    Ok(Loaded {
        files,
        skipped,
        analysed,
        mapped: Vec::new(),
    })
}

fn parse_file<S: RecordSink>(
    files: &[SourceFile],
    id: FileId,
    options: &LoadOptions,
    sink: &mut S,
    shared: &mut Shared,
) -> Result<(), Vec<InputError>> {
    let file = &files[id.0 as usize];
    // An empty `.tf` file (an `outputs.tf` placeholder) is one without
    // resources, listed like the others by the Terraform reader.
    if file.text.trim().is_empty() && !file.format.is_configuration() {
        return Err(vec![InputError::at_line_column(
            &file.name,
            1,
            1,
            "the file is empty: expected a JSON or YAML export",
        )]);
    }
    file.format.walk(files, id, options.kind, sink, shared)
}

fn read(input: &discover::Input, options: &LoadOptions) -> Result<SourceFile, InputError> {
    let bound = if options.max_input == 0 {
        bounded::DEFAULT_MAX_INPUT
    } else {
        options.max_input
    };
    // A large file is mapped, not copied (text.rs says what that guarantees).
    if let Some(text) = input.path.as_deref().and_then(|path| text::Text::map(path, &input.name, bound)) {
        return Ok(source_file(input, options, text));
    }
    let mut bytes = bounded::read(input.path.as_deref(), bound, "--max-input-size").map_err(|e| InputError::unreadable(&input.name, e))?;
    lone_carriage_returns_to_line_feeds(&mut bytes);
    let mut text = String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let prefix = std::str::from_utf8(&e.as_bytes()[..valid]).unwrap_or_default();
        InputError::at_offset(
            &input.name,
            prefix,
            valid,
            format!("invalid UTF-8 (byte {valid}): exports must be UTF-8 text"),
        )
    })?;
    if text.starts_with('\u{feff}') {
        // Dropped, not blanked: three spaces would indent a YAML document's
        // first line. Editors do not count the mark in columns either.
        text.drain(..3);
    }
    Ok(source_file(input, options, text::Text::from(text)))
}

fn source_file(input: &discover::Input, options: &LoadOptions, text: text::Text) -> SourceFile {
    // A file's extension wins over `--input-format`; for standard input the
    // option wins over the extension of `--stdin-filename`.
    let by_name = crate::input::from_path(&input.name);
    let given = match input.path {
        Some(_) => by_name.or(options.input_format),
        None => options.input_format.or(by_name),
    };
    let format = crate::input::of_text(given, &text);
    SourceFile {
        name: input.name.clone(),
        text: Arc::new(text),
        format,
        discovered: input.discovered,
        context: input.context,
    }
}

/// A lone CR (old Mac line ends) becomes an LF, in place: the same length, so
/// every offset holds, and the same meaning in JSON (whitespace; a raw CR is
/// never allowed inside a JSON string), YAML (a line break either way) and
/// BIND (a line end). Every later stage — parsers, locations, snippets in
/// every format — then sees lines as a person's editor does.
fn lone_carriage_returns_to_line_feeds(bytes: &mut [u8]) {
    let mut from = 0;
    while let Some(j) = memchr::memchr(b'\r', &bytes[from..]) {
        let at = from + j;
        if bytes.get(at + 1) != Some(&b'\n') {
            bytes[at] = b'\n';
        }
        from = at + 1;
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_mapped_file_rewritten_after_loading_is_an_input_error_when_asked_again() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("hostnames.json");
        let record =
            r#"{"id":"0d89c70d-ad9f-4843-b99f-6cc0252067e9","hostname":"app.example.com","ssl":{"certificate_authority":"google"}}"#;
        let body = format!(r#"{{"result":[{}]}}"#, vec![record; 12_000].join(","));
        std::fs::write(&path, &body).expect("write");
        let name = path.to_string_lossy().into_owned();
        let mut builder = crate::adapt::api::Builder::default();
        let loaded = super::load(std::slice::from_ref(&name), &super::LoadOptions::default(), &mut builder).expect("loads");
        assert!(loaded.files[0].text.is_mapped(), "over 1 MiB: mapped");
        assert!(loaded.unchanged().is_ok());
        std::fs::write(&path, format!("{body} ")).expect("rewrite in place");
        let errors = loaded.unchanged().expect_err("a rewritten file is noticed");
        assert_eq!(errors.0.len(), 1);
        assert!(
            errors.0[0].message.contains("changed while it was being read"),
            "{}",
            errors.0[0].message
        );
    }

    #[test]
    fn lone_carriage_returns_become_line_feeds_and_crlf_stays() {
        let mut bytes = b"a\rb\r\nc\r".to_vec();
        super::lone_carriage_returns_to_line_feeds(&mut bytes);
        assert_eq!(bytes, b"a\nb\r\nc\n");
    }
}
