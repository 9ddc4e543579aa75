use clap::{Args, Parser, Subcommand, ValueEnum};

pub use crate::findings::FailOn;

#[derive(Debug, Parser)]
#[command(
    name = "edgeaudit",
    version = env!("EDGEAUDIT_VERSION"),
    about = "Offline compliance analyzer for edge-service configuration exports",
    max_term_width = 100
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check exports and report findings (the main job).
    Check(CheckArgs),
    /// Plan the migration: ordered API calls, replayed on a model of the service to prove that
    /// no alert is lost, as Markdown, JSON (what `apply` runs) or Terraform.
    Plan(PlanArgs),
    /// Export the live account (pools, notification policies, and per zone its certificates,
    /// custom hostnames, Total TLS, Universal SSL and CAA records) into one bundle file.
    Export(ExportArgs),
    /// Run a plan made by `plan --format json` on the live account, checking before every
    /// change what it relies on; run it again after any stop to finish.
    Apply(ApplyArgs),
    /// List every certificate with its CA, how the CA was chosen, bundle method, key type,
    /// dates and chain status.
    Inventory(InventoryArgs),
    /// List the rules.
    Rules(RulesArgs),
    /// Write a commented starter `.edgeaudit.yaml`.
    Init {
        /// Where to write it.
        #[arg(default_value = ".edgeaudit.yaml")]
        path: String,
        /// Replace an existing file.
        #[arg(long)]
        force: bool,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions {
        /// The shell to complete in.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print a man page (roff): edgeaudit(1), or a command's, e.g.
    /// `edgeaudit man check > edgeaudit-check.1`.
    Man {
        /// The command whose page to print (check, inventory, rules, init, explain, …).
        command: Option<String>,
    },
    /// Print the JSON Schema of `.edgeaudit.yaml`, for editors.
    ConfigSchema,
    /// Print a rule's documentation.
    Explain {
        /// A rule id, e.g. LB001.
        id: String,
        /// Extra rule packs to look the id up in.
        #[arg(long = "rules", value_name = "PATH")]
        rules: Vec<String>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Color {
    Auto,
    Always,
    Never,
}

// Help and values that name the members of a registry are built from it, so
// a new input format, record kind or report format appears here by itself.

/// `--input-format`: a name of the input formats' registry.
fn input_formats() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(crate::input::names())
}

/// `check`'s PATH: what a directory walk reads.
fn paths_help() -> String {
    let companions: Vec<String> = crate::input::FORMATS
        .iter()
        .flat_map(|f| {
            let own = f.extensions().first().copied().unwrap_or_default();
            f.companion_extensions()
                .iter()
                .map(move |c| format!("`.{c}` beside a `.{own}` are read with it"))
        })
        .collect();
    let companions = companions.iter().map(String::as_str).collect::<Vec<_>>();
    format!(
        "Files or directories (walked recursively for {}{}); `-` reads stdin.",
        crate::input::extension_globs(),
        if companions.is_empty() {
            String::new()
        } else {
            format!("; {}", crate::words::list(&companions))
        }
    )
}

/// `--kind`: the record kinds.
fn kind_help() -> String {
    let kinds: Vec<&str> = crate::model::Kind::RECORD_KINDS.iter().map(|k| k.as_str()).collect();
    format!(
        "What single-object documents (or every record of the input) are: {}",
        kinds.join(", ")
    )
}

/// `check --format`: the report formats, each with what it is when that is
/// not its name.
fn report_formats_help() -> String {
    let formats: Vec<String> = crate::report::Format::value_variants()
        .iter()
        .filter_map(ValueEnum::to_possible_value)
        .map(|v| match v.get_help() {
            Some(help) => format!("{} ({})", v.get_name(), lowercase_first(help.to_string().trim_end_matches('.'))),
            None => v.get_name().to_string(),
        })
        .collect();
    let formats: Vec<&str> = formats.iter().map(String::as_str).collect();
    format!(
        "Output format: {}; repeat it, and add `=FILE` to write one to a file (e.g. `--format human --format sarif=out.sarif`). Default: human.",
        crate::words::alternatives(&formats)
    )
}

/// `One line per finding` → `one line per finding`, to sit in a list.
fn lowercase_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  edgeaudit check exports/                          check every export below exports/
  edgeaudit check exports/ --as-of 2024-10-01       judge the account as it stood on that day
  edgeaudit check . --format human --format sarif=edgeaudit.sarif   the terminal report and SARIF for code scanning
  edgeaudit check exports/ --select LB --fail-on error              only the notification rules; fail on errors
  edgeaudit check exports/ --baseline .edgeaudit-baseline.json     fail only on new findings
  edgeaudit explain LB001                           what a rule means and what to do")]
pub struct CheckArgs {
    #[arg(default_value = ".", help = paths_help())]
    pub paths: Vec<String>,
    #[arg(help_heading = "Output", long, value_name = "FORMAT[=FILE]", help = report_formats_help())]
    pub format: Vec<String>,
    /// Write the output that has no `=FILE` to this file instead of stdout.
    #[arg(help_heading = "Output", long, short, value_name = "FILE")]
    pub output: Option<String>,
    /// Evaluate as of this date (YYYY-MM-DD, UTC). Default: the config's `as_of`, else today.
    #[arg(help_heading = "Judging", long, value_name = "DATE")]
    pub as_of: Option<String>,
    /// Only these rules: ids or prefixes, comma-separated or repeated (`LB`, `LB00`, `LB001`, `ALL`).
    /// Replaces the config's `select`.
    #[arg(help_heading = "Judging", long, value_delimiter = ',', value_name = "IDS")]
    pub select: Vec<String>,
    /// Skip these rules: ids or prefixes (added to the config's `ignore`).
    #[arg(help_heading = "Judging", long, value_delimiter = ',', value_name = "IDS")]
    pub ignore: Vec<String>,
    /// Exit 1 when a finding at or above this severity remains (not waived, not in the
    /// baseline). Default: the config's `fail_on`, else warning.
    #[arg(help_heading = "Judging", long, value_enum)]
    pub fail_on: Option<FailOn>,
    /// Exit 1 when a certificate finding's share of requests from impacted clients is at least
    /// this (0 to 1; with `--traffic`): severity does not change.
    #[arg(help_heading = "Judging", long, value_name = "SHARE")]
    pub fail_on_impact: Option<f64>,
    /// The config file (default: `.edgeaudit.yaml` found upward from the checked paths).
    #[arg(help_heading = "Configuration", long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<String>,
    /// Ignore any `.edgeaudit.yaml`.
    #[arg(help_heading = "Configuration", long)]
    pub no_config: bool,
    /// Report only findings not recorded in this baseline as failing; known ones are kept as
    /// suppressed, and entries that no longer occur are listed.
    #[arg(help_heading = "Configuration", long, value_name = "FILE")]
    pub baseline: Option<String>,
    /// Record today's findings (all that no waiver covers) in this baseline file, and accept them.
    #[arg(help_heading = "Configuration", long, value_name = "FILE")]
    pub write_baseline: Option<String>,
    #[arg(help_heading = "Input", long, value_name = "KIND", help = kind_help())]
    pub kind: Option<String>,
    /// Format of stdin and of files without a known extension (default: sniffed).
    #[arg(help_heading = "Input", long, value_name = "FORMAT", value_parser = input_formats())]
    pub input_format: Option<String>,
    /// Extra rule packs (YAML, same vocabulary as rules/*.yaml), with the config's `packs`.
    #[arg(help_heading = "Judging", long = "rules", value_name = "PATH")]
    pub rules: Vec<String>,
    #[command(flatten)]
    pub walk: WalkArgs,
    #[command(flatten)]
    pub traffic: TrafficArgs,
    #[arg(help_heading = "Output", long, value_enum, default_value = "auto")]
    pub color: Color,
    /// Print findings only: no summary and no notes about waivers or the baseline (skipped files
    /// are still listed: nothing is left out silently).
    #[arg(help_heading = "Output", long, short)]
    pub quiet: bool,
    /// Print the config file in force and the settings of the run (date, fail-on, rules,
    /// exclusions, waivers), then stop without checking.
    #[arg(help_heading = "Configuration", long)]
    pub show_config: bool,
    /// Print the number of findings per rule.
    #[arg(help_heading = "Output", long)]
    pub statistics: bool,
    /// How many findings of each rule the Markdown report lists (default 10; the rest are
    /// counted).
    #[arg(help_heading = "Output", long, value_name = "N")]
    pub max_findings: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PlanFormat {
    /// For a change review: what happens, in what order, how many requests.
    Markdown,
    /// The plan as data: steps, requests, the state each relies on, the proof; what
    /// `edgeaudit apply` runs.
    Json,
    /// Retired: a script could not check the live account before each change. Run the JSON
    /// plan with `edgeaudit apply`.
    #[value(hide = true)]
    Shell,
    /// The new `cloudflare_notification_policy` blocks, and the pools to remove `notification_email` from.
    Terraform,
    /// A page to open in a browser or attach to a change ticket: the steps in order.
    Html,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  edgeaudit plan exports/                                  the plan as Markdown, for a change review
  edgeaudit plan exports/ --format json -o plan.json       the plan `edgeaudit apply plan.json` runs
  edgeaudit plan exports/ --format terraform               the same changes in Terraform's words
  edgeaudit plan exports/ --show-config                    the config and values the plan is made with")]
pub struct PlanArgs {
    /// Files or directories, as for `check`.
    #[arg(default_value = ".")]
    pub paths: Vec<String>,
    #[arg(help_heading = "Output", long, value_enum, default_value = "markdown")]
    pub format: PlanFormat,
    /// Write the plan to this file instead of stdout.
    #[arg(help_heading = "Output", long, short, value_name = "FILE")]
    pub output: Option<String>,
    /// Judge the certificate rules as of this date (YYYY-MM-DD, UTC). Default: the config's
    /// `as_of`, else today.
    #[arg(help_heading = "Judging", long, value_name = "DATE")]
    pub as_of: Option<String>,
    /// Pools per page of the page-wide clear (the API's default is 25; a larger page needs
    /// fewer requests where the API accepts it).
    #[arg(help_heading = "Judging", long, value_name = "N", default_value_t = 25, value_parser = clap::value_parser!(u32).range(1..))]
    pub per_page: u32,
    /// The config file (default: `.edgeaudit.yaml` found upward from the checked paths), as
    /// for `check`: its `as_of`, `exclude`, rules, severities and waivers (a waived finding
    /// is not a step).
    #[arg(help_heading = "Configuration", long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<String>,
    /// Ignore any `.edgeaudit.yaml`.
    #[arg(help_heading = "Configuration", long)]
    pub no_config: bool,
    /// Print the config file in force and the settings of the plan (date, rules, exclusions,
    /// waivers), then stop without planning.
    #[arg(help_heading = "Configuration", long)]
    pub show_config: bool,
    /// What single-object documents (or every record of the input) are, as for `check`.
    #[arg(help_heading = "Input", long, value_name = "KIND")]
    pub kind: Option<String>,
    /// Format of stdin and of files without a known extension (default: sniffed).
    #[arg(help_heading = "Input", long, value_name = "FORMAT", value_parser = input_formats())]
    pub input_format: Option<String>,
    #[command(flatten)]
    pub walk: WalkArgs,
    #[command(flatten)]
    pub traffic: TrafficArgs,
}

/// How the live commands talk to the service.
#[derive(Debug, Args)]
pub struct LiveArgs {
    /// Seconds a request may take, from connecting to the end of its answer.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub timeout: f64,
    /// Requests per five minutes at most (the API's limit is 1200; 0: unpaced).
    #[arg(long, value_name = "N", default_value_t = crate::live::pace::DEFAULT_RATE)]
    pub rate: u32,
    /// Attempts after the first for a request whose answer is lost, a 5xx or a 429.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub retries: u32,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Credentials: CLOUDFLARE_API_TOKEN (read access to Load Balancing, Notifications, SSL and \
Certificates, DNS), or CLOUDFLARE_EMAIL and CLOUDFLARE_API_KEY. CLOUDFLARE_API_BASE changes the API's address \
(https, or plain http to a loopback address only); HTTPS_PROXY and NO_PROXY are honoured for it, never for \
loopback. Exit 0 when the file was written; 1 when a request failed (no file is written, an earlier one is left \
as it was, and the pages read so far are kept for --resume); 2 for a usage error."
)]
pub struct ExportArgs {
    /// The account's id.
    pub account: String,
    /// Zones whose certificate packs, custom certificates, custom hostnames, Total TLS,
    /// Universal SSL settings and CAA records to export.
    pub zones: Vec<String>,
    /// Also every zone of the account.
    #[arg(long)]
    pub all_zones: bool,
    /// The bundle file to write (atomically, and only when every request succeeded).
    #[arg(long, short, value_name = "FILE")]
    pub output: String,
    /// Finish a stopped export of the same account, zones and address from the pages it
    /// already read (kept beside the output), after checking that they still hold.
    #[arg(long)]
    pub resume: bool,
    #[command(flatten)]
    pub live: LiveArgs,
}

#[derive(Debug, Args)]
#[command(after_help = "Credentials as for `export`, with edit access. Exit 0 when every step ran (or was \
found done) and the account read afterwards is as the plan leaves it; 1 when it stopped (drift, a refused or \
unanswered request, a check that failed: nothing after the named step was sent, and running the same command \
again finishes the work); 2 for a usage error or a plan file that cannot be read.")]
pub struct ApplyArgs {
    /// The plan, from `edgeaudit plan --format json`.
    pub plan: String,
    /// Do not ask for confirmation (required when standard input is not a terminal).
    #[arg(long)]
    pub yes: bool,
    /// Read and check everything, send no change.
    #[arg(long)]
    pub dry_run: bool,
    /// The account, for a plan whose export named none.
    #[arg(long, value_name = "ACCOUNT_ID")]
    pub account: Option<String>,
    /// Run the plan only if it is the one with this id (the id a reviewer
    /// saw in `plan.md`, the HTML plan or `plan`'s last line).
    #[arg(long, value_name = "PLAN_ID")]
    pub expect_plan_id: Option<String>,
    /// Make the plan again from these exports (with the plan's date and page
    /// size, and the config found as `plan` finds it) and run it only if it
    /// is the same plan.
    #[arg(long = "from", value_name = "EXPORTS", num_args = 1..)]
    pub from: Vec<String>,
    #[command(flatten)]
    pub live: LiveArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RulesFormat {
    Text,
    Json,
    Markdown,
}

#[derive(Debug, Args)]
pub struct RulesArgs {
    #[arg(long, value_enum, default_value = "text")]
    pub format: RulesFormat,
    /// Extra rule packs to list with the built-in ones.
    #[arg(long = "rules", value_name = "PATH")]
    pub rules: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InventoryFormat {
    Table,
    Json,
    Csv,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:
  edgeaudit inventory exports/                                    every certificate, as a table
  edgeaudit inventory exports/ --ca lets_encrypt --format csv     the Let's Encrypt ones, for a spreadsheet
  edgeaudit inventory exports/ --format json                      as data (docs/schemas/inventory.schema.json)")]
pub struct InventoryArgs {
    /// Files or directories, as for `check`.
    #[arg(default_value = ".")]
    pub paths: Vec<String>,
    /// Only certificates from this CA: lets_encrypt, google, ssl_com, digicert, default, unknown, other.
    #[arg(help_heading = "Selection", long, value_name = "CA")]
    pub ca: Option<String>,
    #[arg(help_heading = "Output", long, value_enum, default_value = "table")]
    pub format: InventoryFormat,
    /// Write to this file instead of stdout.
    #[arg(help_heading = "Output", long, short, value_name = "FILE")]
    pub output: Option<String>,
    /// The config file (default: `.edgeaudit.yaml` found upward from the checked paths), as
    /// for `check`: its `exclude` applies.
    #[arg(help_heading = "Configuration", long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<String>,
    /// Ignore any `.edgeaudit.yaml`.
    #[arg(help_heading = "Configuration", long)]
    pub no_config: bool,
    /// Print the config file in force and the exclusions the inventory uses, then stop.
    #[arg(help_heading = "Configuration", long)]
    pub show_config: bool,
    /// What single-object documents (or every record of the input) are, as for `check`.
    #[arg(help_heading = "Input", long, value_name = "KIND")]
    pub kind: Option<String>,
    /// Format of stdin and of files without a known extension (default: sniffed).
    #[arg(help_heading = "Input", long, value_name = "FORMAT", value_parser = input_formats())]
    pub input_format: Option<String>,
    #[command(flatten)]
    pub walk: WalkArgs,
    #[command(flatten)]
    pub traffic: TrafficArgs,
}

/// Traffic, for who is hurt (docs/src/traffic.md).
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Traffic")]
pub struct TrafficArgs {
    /// Traffic that ranks certificate findings by the requests from impacted clients (the
    /// shapes it reads are listed from `traffic::shape::SHAPES`).
    #[arg(long, value_name = "PATH", help = crate::traffic::shape::help())]
    pub traffic: Vec<String>,
    /// The Logpush job's `sample_rate` (above 0, at most 1): not in the lines, so given here;
    /// the counts of log lines and aggregates are divided by it (GraphQL's are already corrected).
    #[arg(long, value_name = "R", default_value_t = 1.0)]
    pub traffic_sample_rate: f64,
}

/// Which files of the walked directories are read.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Files")]
pub struct WalkArgs {
    /// List every skipped file on a line of its own (by default, more than three files skipped
    /// for one reason are counted on one line).
    #[arg(long)]
    pub show_files: bool,
    /// Skip files and directories matching these gitignore-style globs (relative to the working
    /// directory), with the config's `exclude`; comma-separated or repeated.
    #[arg(long, value_delimiter = ',', value_name = "GLOBS")]
    pub exclude: Vec<String>,
    /// Apply the exclude patterns to paths named on the command line too (as pre-commit names
    /// every staged file).
    #[arg(long)]
    pub force_exclude: bool,
    /// The largest input read, in bytes or with K, M, G (default 4G); a larger file or stream is
    /// an input error, never a read without end.
    #[arg(long, value_name = "SIZE")]
    pub max_input_size: Option<String>,
    /// The file name standard input (`-`) stands for: reports name it, its extension names
    /// its format (unless `--input-format`), and `--force-exclude` applies to it.
    #[arg(long, value_name = "PATH")]
    pub stdin_filename: Option<String>,
}
