//! The integration tests: one crate, one module per stage or concern, the
//! helpers once (`common`, the stand-in service, its contract, the browser).
//! One binary to link instead of one per file; `rule_fixtures` stays its own
//! (libtest-mimic makes a test per fixture at run time, which needs its own
//! `main`).

mod browser;
mod common;
mod contract;
mod service;

mod architecture;
mod as_of;
mod bad_input;
mod certificates;
mod ci_integrations;
mod cli;
mod closed_pipe;
mod delivery;
mod doc_commands;
mod engine;
mod generated;
mod hostile_input;
mod hostile_output;
mod html_report;
mod invariance;
mod invariance_properties;
mod inventory;
mod live;
mod locations;
mod markdown_report;
mod one_config;
mod parallel;
mod plan;
mod plan_binding;
mod pre_commit;
mod real_exports;
mod registries;
mod report_schemas;
mod reports;
mod rules;
mod terminal;
mod terraform;
mod terraform_source;
mod traffic;
mod triage;
mod unknown_properties;
