use std::io::{BufRead, IsTerminal, Write};

use super::args::ApplyArgs;
use super::{EXIT_CLEAN, EXIT_FINDINGS, fail};
use crate::live::apply::{Options, Preview, plan_file, run as apply};

/// Runs the plan; exit 0 only when verified on the live account.
pub fn run(args: &ApplyArgs) -> u8 {
    // A plan holds every pool of the account: bounded like an export.
    let bound = crate::text::bounded::DEFAULT_MAX_INPUT;
    let text = match crate::text::bounded::read_text(std::path::Path::new(&args.plan), bound) {
        Ok(t) => t,
        Err(e) => return fail(format!("{}: cannot read the plan: {e}", args.plan)),
    };
    let plan = match plan_file::read(&text, &args.plan, args.account.as_deref()) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let terminal = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    if !args.yes && !args.dry_run && !terminal {
        return fail("standard input is not a terminal: pass --yes to run the plan without confirmation (or --dry-run to check it)");
    }
    let mut client = match super::live_client(&args.live) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    let options = Options { dry_run: args.dry_run };
    let yes = args.yes;
    let mut confirm = |preview: &Preview| -> bool {
        if yes {
            return true;
        }
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "The account {} is as the plan expects. Send up to {} changes (steps found done are skipped)? [y/N] ",
            preview.accounts.join(", "),
            preview.changes
        );
        let _ = err.flush();
        let mut answer = String::new();
        let _ = std::io::stdin().lock().read_line(&mut answer);
        matches!(answer.trim(), "y" | "Y" | "yes" | "YES" | "Yes")
    };
    let mut log = std::io::stderr();
    let outcome = apply(&mut client, &plan, &options, &mut log, &mut confirm);
    client.finish_progress();
    let counts = client.counts.clone();
    match outcome {
        Ok(summary) => {
            for manual in &summary.manual {
                crate::say!("edgeaudit apply: yours to do: {manual}");
            }
            crate::say!(
                "edgeaudit apply: {}: {} changes sent, {} steps found done{}; {} reads, {} retries, {} rate-limited answers",
                if args.dry_run { "dry run, nothing sent" } else { "done" },
                summary.sent,
                summary.skipped,
                if args.dry_run {
                    format!(", {} would be sent", summary.would_send)
                } else {
                    String::new()
                },
                counts.reads,
                counts.retries,
                counts.rate_limited
            );
            EXIT_CLEAN
        }
        Err(stop) => {
            for line in stop.to_string().lines() {
                crate::say!("edgeaudit apply: {line}");
            }
            EXIT_FINDINGS
        }
    }
}
