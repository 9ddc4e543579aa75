//! The exit codes of every command, and nothing else: 0, 1 and 2. A leaf,
//! so that the reports that state a run's code need not import the CLI.

/// No finding at or above `--fail-on`; for the live commands, done.
pub const EXIT_CLEAN: u8 = 0;
/// Findings at or above `--fail-on`; for the live commands, stopped.
pub const EXIT_FINDINGS: u8 = 1;
/// A usage, config, rule-file or input error.
pub const EXIT_ERROR: u8 = 2;
