//! Pointer → byte range for `.tf` files: the file parsed again, only when
//! it has findings (a configuration's files are small).

use std::collections::HashMap;

use super::tree;

pub fn node_ranges(text: &str) -> HashMap<String, (usize, usize)> {
    // The file parsed when it was loaded; had it not, it would have no findings.
    hcl_edit::parser::parse_body(text)
        .map(|body| tree::node_ranges(&body))
        .unwrap_or_default()
}
