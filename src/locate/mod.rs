//! Locations of findings: file, JSON pointer, line and column of the value.
//! Computed after the rules ran, only for what they found.

pub mod hcl;
pub mod json;
pub mod yaml;

mod resolve;

pub use resolve::{Located, Locator, fill_positions, json_field};
