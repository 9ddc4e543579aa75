use super::args::ExportArgs;
use super::{EXIT_CLEAN, EXIT_FINDINGS, fail};
use crate::live::export::{ExportError, Scope, export_to, parts_folder};

/// Reads the account and writes the bundle; on any failed request, exit 1
/// naming it, and no file (the pages read so far are kept for `--resume`).
pub fn run(args: &ExportArgs) -> u8 {
    let mut client = match super::live_client(&args.live) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    let scope = Scope {
        account: args.account.clone(),
        zones: args.zones.clone(),
        all_zones: args.all_zones,
    };
    let output = std::path::Path::new(&args.output);
    if let Some(dir) = output.parent().filter(|d| !d.as_os_str().is_empty())
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        return fail(format!("cannot create {}: {e}", dir.display()));
    }
    let exported = export_to(&mut client, &scope, chrono::Utc::now(), output, args.resume);
    client.finish_progress();
    let report = match exported {
        Ok(report) => report,
        Err(ExportError::Resume(why)) => return fail(why),
        Err(e) => {
            let kept = parts_folder(output);
            crate::say!(
                "edgeaudit export: error: {}\nedgeaudit export: nothing was written{}{}",
                crate::text::escape::terminal::value(&client.redact(&e.to_string())),
                if output.exists() {
                    format!(" ({} is left as it was)", args.output)
                } else {
                    String::new()
                },
                if kept.is_dir() {
                    format!(
                        "; the pages read so far are kept in {}: add --resume to the same command to finish from them",
                        kept.display()
                    )
                } else {
                    String::new()
                }
            );
            return EXIT_FINDINGS;
        }
    };
    for note in &report.notes {
        crate::say!(
            "edgeaudit export: note: {}",
            crate::text::escape::terminal::value(&client.redact(note))
        );
    }
    let counts = &client.counts;
    crate::say!(
        "edgeaudit export: wrote {} ({} requests, {} retried{})",
        args.output,
        counts.reads,
        counts.retries,
        if report.resumed_pages > 0 {
            format!(", {} pages taken over from the stopped export", report.resumed_pages)
        } else {
            String::new()
        }
    );
    EXIT_CLEAN
}
