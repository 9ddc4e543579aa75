//! The two commands that reach the live account, and only when asked
//! (docs/src/commands/apply.md): `export` reads it, `apply` runs a reviewed plan on it.
//! Every other command is offline.

pub mod apply;
pub mod boundary;
pub mod client;
pub mod credentials;
pub mod export;
pub mod pace;
