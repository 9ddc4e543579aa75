//! The five lines a Markdown report opens with: each migration's findings
//! and what they are about, then the three things people act on — pools to
//! clear now, pools that need a policy first, resources that need a CA
//! chosen (`report/views/overview.rs` groups them).

use std::fmt::Write as _;

use super::super::Context;
use crate::engine::rule::Migration;
use crate::report::views::overview::{ACTIONS, tallies};

/// The five lines, as a list, and a blank line.
pub fn write(ctx: &Context, page: &mut String) {
    let (migrations, actions) = tallies(ctx);
    for migration in [Migration::Notifications, Migration::Certificates] {
        let line = match migrations.get(&migration) {
            Some(t) => format!("{} on {}", t.findings_words(), t.resources_words()),
            None => "no findings".to_string(),
        };
        let _ = writeln!(page, "- **{}**: {line}", migration.words());
    }
    for (action, what) in ACTIONS {
        let line = match actions.get(&action) {
            Some(t) => format!("{} — {what} ({})", t.resources_words(), t.rules_words()),
            None => "none".to_string(),
        };
        let _ = writeln!(page, "- **{}**: {line}", action.words());
    }
    page.push('\n');
}
