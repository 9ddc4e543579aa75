use std::io::IsTerminal;
use std::sync::Arc;

use super::args::{ExportArgs, LiveArgs};
use super::{EXIT_CLEAN, EXIT_FINDINGS, fail, note};
use crate::live::client::{Client, Settings, base_from_env};
use crate::live::credentials::Credentials;
use crate::live::export::{Scope, export, write_atomically};
use crate::live::pace::RealClock;

/// A client from the environment and the flags; errors are usage errors.
pub(crate) fn client(live: &LiveArgs) -> Result<Client, String> {
    let credentials = Credentials::from_env()?;
    let mut settings = Settings::new(base_from_env()?);
    if !(live.timeout.is_finite() && live.timeout > 0.0) {
        return Err(format!("--timeout {} is not a number of seconds above 0", live.timeout));
    }
    settings.timeout = std::time::Duration::from_secs_f64(live.timeout.min(86_400.0));
    settings.connect_timeout = settings.connect_timeout.min(settings.timeout);
    settings.rate = live.rate;
    settings.retries = live.retries;
    let mut client = Client::new(settings, credentials, Arc::new(RealClock::default()));
    if std::io::stderr().is_terminal() {
        client.show_progress("edgeaudit");
    }
    Ok(client)
}

/// Reads the account and writes the bundle; on any failed request, exit 1
/// naming it, and no file.
pub fn run(args: &ExportArgs) -> u8 {
    let mut client = match client(&args.live) {
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
            note(&format!(
                "edgeaudit export: error: {e}\nedgeaudit export: nothing was written{}",
                if std::path::Path::new(&args.output).exists() {
                    format!(" ({} is left as it was)", args.output)
                } else {
                    String::new()
                }
            ));
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
    note(&format!(
        "edgeaudit export: wrote {} ({} requests, {} retried)",
        args.output, counts.reads, counts.retries
    ));
    EXIT_CLEAN
}
