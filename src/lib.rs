//! edgeaudit: an offline compliance analyzer for edge-service configuration
//! exports. Data flows one way: load → (adapt →) model → facts → rules →
//! findings → triage → reports.

pub mod adapt;
pub mod check;
pub mod cli;
pub mod config;
pub mod engine;
pub mod facts;
pub mod findings;
pub mod inventory;
pub mod live;
pub mod load;
pub mod locate;
pub mod model;
pub mod plan;
pub mod report;
pub mod threads;
pub mod triage;
pub mod words;
