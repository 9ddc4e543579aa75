//! edgeaudit: an offline compliance analyzer for edge-service configuration
//! exports. Data flows one way: load (each file read by its input format)
//! → adapt → model → facts → rules → findings → triage → reports.

// Standard output and error are written through `say`, which never panics
// on a closed pipe; the compiler keeps it so.
#![cfg_attr(not(test), deny(clippy::print_stdout, clippy::print_stderr))]

pub mod adapt;
pub mod api;
pub mod check;
pub mod cli;
pub mod config;
pub mod engine;
pub mod exit;
pub mod facts;
pub mod files;
pub mod findings;
pub mod html;
pub mod input;
pub mod inventory;
pub mod listed;
pub mod live;
pub mod load;
pub mod model;
pub mod notices;
pub mod plan;
pub mod report;
pub mod say;
pub mod text;
pub mod threads;
pub mod traffic;
pub mod triage;
pub mod words;
