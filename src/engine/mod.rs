//! Stage 4: rules as data. Rule packs (`rules/*.yaml`, embedded at build
//! time, plus `--rules` packs) are conditions over facts with message
//! templates and documentation; `findings::evaluate` applies them.

pub mod condition;
pub mod dates;
pub mod docs;
pub mod registry;
pub mod rule;
pub mod severity;
pub mod template;

pub use registry::RuleSet;
