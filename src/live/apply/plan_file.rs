//! A plan as `plan --format json` writes it (version 4), as `apply` holds
//! it: typed, each step's request built from its operation's path template
//! and its typed ids. `read::plan` reads and checks it.

pub use crate::plan::document::{PlanAccount, PlanFile, PlanState};
pub use crate::plan::request::StepKind as Kind;

/// A step as the plan's JSON holds it: the planner's own type.
pub use crate::plan::step::PlanStep as Step;
