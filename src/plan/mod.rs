//! `edgeaudit plan`: the migration as ordered API calls (docs/src/commands/plan.md),
//! proved on a model of the service before it is shown.

pub mod build;
pub mod complete;
pub mod document;
pub mod html;
pub mod record;
pub mod remedy;
pub mod render;
pub mod request;
pub mod service;
pub mod state;
pub mod step;
pub mod steps;
pub mod terraform;

pub use build::{AccountPlan, Proof, Refusal, build, replay};
pub use request::Request;
