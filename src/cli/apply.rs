use std::io::{BufRead, IsTerminal, Write};

use super::args::ApplyArgs;
use super::{EXIT_CLEAN, EXIT_FINDINGS, fail};
use crate::live::apply::{Options, Preview, plan_file, run as apply};
use crate::live::credentials::Credentials;

/// Runs the plan; exit 0 only when verified on the live account.
pub fn run(args: &ApplyArgs) -> u8 {
    // A plan holds every pool of the account: bounded like an export, and
    // streamed (its steps held compact), never read whole.
    let bound = crate::text::bounded::DEFAULT_MAX_INPUT;
    let file = match std::fs::File::open(&args.plan) {
        Ok(f) => f,
        Err(e) => return fail(format!("{}: cannot read the plan: {e}", args.plan)),
    };
    let plan = match crate::live::apply::read::plan_from(std::io::Read::take(file, bound), &args.plan, args.account.as_deref()) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    if let Some(expected) = &args.expect_plan_id
        && expected.trim() != plan.plan_id
    {
        return fail(format!(
            "{}: this is plan {}, not the plan {} that was reviewed (--expect-plan-id): nothing sent",
            args.plan,
            plan.plan_id,
            crate::text::escape::terminal::value(expected.trim())
        ));
    }
    if !args.from.is_empty()
        && let Err(code) = same_as_made_from(&args.from, &plan, &args.plan)
    {
        return code;
    }
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
    let rate = client.rate();
    let mut confirm = |preview: &Preview| -> bool {
        let mut err = std::io::stderr().lock();
        // The accounts are the plan file's words.
        let line = format!("edgeaudit apply: {}", preview_words(preview, rate));
        let _ = writeln!(err, "{}", crate::text::escape::terminal::lines(&line, false));
        if yes {
            return true;
        }
        let _ = write!(err, "Send them? [y/N] ");
        let _ = err.flush();
        let mut answer = String::new();
        let _ = std::io::stdin().lock().read_line(&mut answer);
        matches!(answer.trim(), "y" | "Y" | "yes" | "YES" | "Yes")
    };
    // Whatever the service echoes, no credential reaches the terminal.
    let mut log = Redacting {
        out: crate::text::escape::terminal::LineGuard::new(std::io::stderr()),
        credentials: client.redactor(),
    };
    let outcome = apply(&mut client, &plan, &options, &mut log, &mut confirm);
    client.finish_progress();
    let counts = client.counts.clone();
    // Each line may quote the account (names, the service's answers): one line of terminal text.
    let say = |line: String| crate::say!("edgeaudit apply: {}", crate::text::escape::terminal::value(&client.redact(&line)));
    match outcome {
        Ok(summary) => {
            for manual in &summary.manual {
                say(format!("yours to do: {manual}"));
            }
            for gone in &summary.gone {
                say(format!("nothing to do: {gone}"));
            }
            if summary.copies_removed > 0 {
                say(format!(
                    "{} removed (another run of this plan created them at the same time)",
                    crate::words::plural(
                        summary.copies_removed,
                        "second copy of a policy was",
                        "second copies of policies were"
                    )
                ));
            }
            if summary.unplanned.count > 0 {
                let more = summary.unplanned.count - summary.unplanned.first.len();
                say(format!(
                    "{} on Let's Encrypt that this plan does not hold (created or moved there since the export, or left out by its review), not changed: {}{}; export and plan again to move them",
                    crate::words::plural(summary.unplanned.count, "custom hostname is", "custom hostnames are"),
                    summary.unplanned.first.join(", "),
                    if more > 0 { format!(" and {more} more") } else { String::new() }
                ));
            }
            for not_taken in &summary.not_taken {
                say(format!("not taken: {not_taken}"));
            }
            say(format!(
                "{}: {} changes sent, {} steps found done{}; {} reads, {} retries, {} rate-limited answers",
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
            ));
            if summary.not_taken.is_empty() {
                EXIT_CLEAN
            } else {
                say(format!(
                    "{} the service answered but did not make: make {} by hand as said above",
                    crate::words::plural(summary.not_taken.len(), "change", "changes"),
                    if summary.not_taken.len() == 1 { "it" } else { "them" }
                ));
                EXIT_FINDINGS
            }
        }
        Err(stop) => {
            for line in stop.to_string().lines() {
                say(line.to_string());
            }
            EXIT_FINDINGS
        }
    }
}

/// `--from`: the plan made again from the exports is this one, or the exit
/// code of a refusal (said on standard error, nothing sent).
fn same_as_made_from(exports: &[String], plan: &plan_file::PlanFile, name: &str) -> Result<(), u8> {
    let mut argv: Vec<String> = ["edgeaudit", "plan"].iter().map(|s| s.to_string()).collect();
    argv.extend(exports.iter().cloned());
    argv.extend([
        "--as-of".to_string(),
        plan.as_of.clone(),
        "--per-page".to_string(),
        plan.per_page.to_string(),
    ]);
    let args = match <super::args::Cli as clap::Parser>::try_parse_from(&argv) {
        Ok(super::args::Cli {
            command: super::args::Command::Plan(args),
            ..
        }) => args,
        Ok(_) => return Err(fail("--from: not a plan's arguments")),
        Err(e) => return Err(fail(format!("--from: {}", e.to_string().lines().next().unwrap_or("")))),
    };
    let made = super::plan::make(&args)?;
    let again = crate::plan::render::json(&made.plans, made.as_of, plan.per_page);
    if again.plan_id == plan.plan_id {
        return Ok(());
    }
    Err(fail(format!(
        "{name}: the exports make plan {}, not this plan {}: the plan is not the one these exports give (edited, or made from other exports); nothing sent",
        again.plan_id, plan.plan_id
    )))
}

/// What the plan will send and how long it takes, before the first change.
fn preview_words(preview: &Preview, rate: u32) -> String {
    let time = match preview.time {
        Some(t) => format!(", about {} at {rate} requests per five minutes", minutes(t)),
        None => ", unpaced".to_string(),
    };
    format!(
        "the account {} is as the plan expects: up to {}, each checked right before by reads (about {} requests in all{time}); steps found done are skipped",
        preview.accounts.join(", "),
        crate::words::plural(preview.changes, "change", "changes"),
        preview.changes + preview.reads
    )
}

fn minutes(t: std::time::Duration) -> String {
    let minutes = t.as_secs().div_ceil(60);
    if minutes <= 1 {
        "a minute".to_string()
    } else {
        format!("{minutes} minutes")
    }
}

/// Standard error, with every credential value replaced, line by line
/// through the terminal's escaping.
struct Redacting {
    out: crate::text::escape::terminal::LineGuard<std::io::Stderr>,
    credentials: Credentials,
}

impl Write for Redacting {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = self.credentials.redact(&String::from_utf8_lossy(buf));
        self.out.write_all(text.as_bytes())?;
        Ok(buf.len())
    }

    // A line is formatted whole before it is redacted: a value is never split across writes.
    fn write_fmt(&mut self, args: std::fmt::Arguments<'_>) -> std::io::Result<()> {
        let line = std::fmt::format(args);
        self.write_all(line.as_bytes())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}
