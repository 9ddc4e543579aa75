//! `edgeaudit init`: the commented starter config.

/// Valid as it stands (a test loads it), with every setting explained.
pub const STARTER: &str = include_str!("starter.yaml");
