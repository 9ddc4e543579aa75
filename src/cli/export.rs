use super::args::ExportArgs;
use super::{EXIT_CLEAN, EXIT_FINDINGS, fail};
use crate::live::export::{Scope, export, write_atomically};

/// Reads the account and writes the bundle; on any failed request, exit 1
/// naming it, and no file.
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
    let exported = export(&mut client, &scope, chrono::Utc::now());
    client.finish_progress();
    let bundle = match exported {
        Ok(b) => b,
        Err(e) => {
            crate::say!(
                "edgeaudit export: error: {e}\nedgeaudit export: nothing was written{}",
                if std::path::Path::new(&args.output).exists() {
                    format!(" ({} is left as it was)", args.output)
                } else {
                    String::new()
                }
            );
            return EXIT_FINDINGS;
        }
    };
    let mut text = serde_json::to_string_pretty(&bundle).unwrap_or_default();
    text.push('\n');
    let output = std::path::Path::new(&args.output);
    if let Some(dir) = output.parent().filter(|d| !d.as_os_str().is_empty())
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        return fail(format!("cannot create {}: {e}", dir.display()));
    }
    if let Err(e) = write_atomically(output, text.as_bytes()) {
        return fail(format!("cannot write {}: {e}", args.output));
    }
    let counts = &client.counts;
    crate::say!(
        "edgeaudit export: wrote {} ({} requests, {} retried)",
        args.output,
        counts.reads,
        counts.retries
    );
    EXIT_CLEAN
}
