//! Stage 4: rules as data. Rule packs (`rules/*.yaml`, embedded at build
//! time, plus `--rules` packs) are conditions over facts with message
//! templates and documentation; evaluating them yields findings.

pub mod condition;
pub mod dates;
pub mod docs;
pub mod evaluate;
pub mod registry;
pub mod rule;
pub mod template;
pub mod unjudged;

pub use registry::RuleSet;
