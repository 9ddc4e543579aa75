//! Traffic impact (docs/src/traffic.md): who is actually hurt. Requests from logs or
//! aggregates are classified by their client (`classes`, from the table in
//! `rules/user-agents.yaml`) and counted per host, and each certificate
//! finding on a resource that serves hosts gets the requests from impacted
//! clients among them.

pub mod classes;
