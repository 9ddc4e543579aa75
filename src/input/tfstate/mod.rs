//! Terraform's JSON documents: `terraform show -json` of a state or a plan,
//! and a raw `terraform.tfstate` ([`walk`]). Told from an API export by what
//! the document holds, whatever the file is called; located like any JSON.

pub mod walk;

use super::json::locate;
use super::locate::FileCache;
use super::shape::Shape;
use super::source::{FileId, SourceFile};
use super::walk::{RecordSink, Walker};
use super::{InputFormat, Shared};
use crate::model::Kind;
use crate::model::origin::RecordOrigin;
use crate::text::error::InputError;

pub struct Tfstate;

/// Terraform state and plan JSON's entry in the registry.
pub static TFSTATE: Tfstate = Tfstate;

impl InputFormat for Tfstate {
    fn name(&self) -> &'static str {
        "tfstate"
    }

    fn description(&self) -> &'static str {
        "Terraform state (`terraform show -json`, `.tfstate`) and plan JSON: recognised by content whatever the file is called"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["tfstate"]
    }

    /// A JSON text (named `.json` or sniffed) that is one of Terraform's documents.
    fn takes_over(&self, given: &dyn InputFormat, text: &str) -> bool {
        given == &super::json::JSON as &dyn InputFormat && walk::is_terraform(text)
    }

    fn walk(
        &self,
        files: &[SourceFile],
        id: FileId,
        kind: Option<Kind>,
        sink: &mut dyn RecordSink,
        _: &mut Shared,
    ) -> Result<(), Vec<InputError>> {
        let file = &files[id.0 as usize];
        // A `.tfstate` that holds no Terraform document is read as the JSON it is.
        if !walk::is_terraform(&file.text) {
            return super::json::walk::walk(files, id, sink, kind);
        }
        walk::walk(file, Walker::new(files, id, sink, kind))
    }

    fn anchor(&self, shape: &Shape<'_>, text: &str) -> Option<usize> {
        shape.json_offset(text)
    }

    fn locates_alone(&self) -> bool {
        true
    }

    fn locate(&self, file: &SourceFile, _: &mut FileCache, origin: &RecordOrigin, path: &str) -> (String, usize, usize) {
        locate::field(&file.text, origin, path)
    }

    // No `read_record`: a Terraform resource's attributes are not an API
    // body, and a PUT behind Terraform's back would be undone by its next apply.
}
