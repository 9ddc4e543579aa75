//! Where a resource came from, kept per record so that any field a rule points
//! at can be located later without keeping a tree of the file.

/// Which input file, by its index in the run's list of files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u32);

/// A byte offset at which a value starts in a JSON file, and how many tokens of
/// the record's pointer lead to that value. Lets a finding be located by
/// scanning one record instead of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Anchor {
    pub offset: usize,
    pub tokens: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordOrigin {
    pub file: FileId,
    /// JSON pointer of the record in its document.
    pub pointer: String,
    pub anchor: Option<Anchor>,
    /// The Terraform address of the resource the record is
    /// (`module.lb.cloudflare_load_balancer_pool.web`), when it is one.
    pub address: Option<std::sync::Arc<str>>,
}

impl RecordOrigin {
    /// The pointer of a field of this record (`path` is itself a pointer,
    /// relative to the record, e.g. `/filters/pool_id/0`).
    pub fn field(&self, path: &str) -> String {
        format!("{}{}", self.pointer, path)
    }
}
