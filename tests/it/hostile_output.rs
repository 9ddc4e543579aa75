//! Nothing edgeaudit writes can be turned against its reader (DESIGN §4.1,
//! docs/src/reliability.md). `tests/fixtures/hostile/` is an account whose
//! names attack whoever reads the output, and a rule pack whose words do;
//! each test runs them through a command in every format and reads what
//! comes out as that reader would: a terminal, GitHub's runner, a Markdown
//! renderer, Terraform, a spreadsheet, a JUnit consumer. The checks here are
//! written from those readers' rules, not from edgeaudit's escaping code, so
//! that weakening any one escaping step fails a test.

use crate::common;

use common::{Run, path_str, run, run_with_env};

const ACCOUNT: &str = "tests/fixtures/hostile";
const PACK: &str = "tests/fixtures/hostile/pack.yaml";
const AS_OF: &str = "2024-10-01";

/// A character that acts on a terminal: C0 and C1 controls, and the format
/// characters that reorder or hide text (bidi marks and isolates, zero-width
/// characters, the BOM). Tab and line feed are text.
fn acts_on_terminal(c: char) -> bool {
    (c.is_control() && c != '\t' && c != '\n')
        || matches!(c, '\u{061C}' | '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}')
}

/// As GitHub's runner and Azure's agent read a log line: a workflow command
/// when its first non-blank characters are `::`, or when it holds `##[` or
/// `##vso[` anywhere.
fn is_workflow_command(line: &str) -> bool {
    line.trim_start().starts_with("::") || line.contains("##[") || line.contains("##vso[")
}

/// Text a terminal shows and a CI runner reads: no character that acts on
/// the terminal, no workflow command, on any line (a CRLF line end is one).
#[track_caller]
pub fn assert_log_safe(what: &str, text: &str) {
    for (n, line) in text.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        assert!(!is_workflow_command(line), "{what}: line {} is a workflow command: {line:?}", n + 1);
        if let Some(c) = line.chars().find(|&c| acts_on_terminal(c)) {
            panic!("{what}: line {} holds U+{:04X}: {line:?}", n + 1, c as u32);
        }
    }
}

/// Markdown with its code spans and fenced blocks taken out, as CommonMark
/// reads them: a span opened by a run of N backticks closes at the next run
/// of exactly N. What is left is what a renderer reads as Markdown.
fn outside_code(markdown: &str) -> String {
    let mut out = String::new();
    let mut in_fence = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            out.push('\n');
            continue;
        }
        if in_fence {
            out.push('\n');
            continue;
        }
        let chars: Vec<char> = line.chars().collect();
        let run_at = |i: usize| chars[i..].iter().take_while(|&&c| c == '`').count();
        let mut i = 0;
        while i < chars.len() {
            if chars[i] == '`' {
                let n = run_at(i);
                let mut j = i + n;
                let mut close = None;
                while j < chars.len() {
                    if chars[j] == '`' {
                        let m = run_at(j);
                        if m == n {
                            close = Some(j + m);
                            break;
                        }
                        j += m;
                    } else {
                        j += 1;
                    }
                }
                match close {
                    Some(end) => {
                        out.push_str("<code>");
                        i = end;
                    }
                    // An unclosed run is literal backticks.
                    None => {
                        out.extend(&chars[i..i + n]);
                        i += n;
                    }
                }
            } else {
                out.push(chars[i]);
                i += 1;
            }
        }
        out.push('\n');
    }
    out
}

/// What a GitHub comment or summary reads outside code: no link, autolink,
/// image, HTML or comment, no `@mention`, no `#reference`; every table row
/// as many cells as its header.
#[track_caller]
fn assert_markdown_safe(what: &str, markdown: &str) {
    let rest = outside_code(markdown);
    for (n, line) in rest.lines().enumerate() {
        let place = format!("{what}: line {} ({line:?})", n + 1);
        let without_ours = line.replace("<code>", "");
        assert!(!without_ours.contains("]("), "{place}: a link");
        assert!(!without_ours.contains('<'), "{place}: HTML or an autolink");
        assert!(
            !without_ours.contains("http://") && !without_ours.contains("https://"),
            "{place}: a bare link"
        );
        assert!(!without_ours.contains("www."), "{place}: a bare link");
        let chars: Vec<char> = without_ours.chars().collect();
        for w in chars.windows(2) {
            assert!(!(w[0] == '@' && w[1].is_alphanumeric()), "{place}: a mention");
            assert!(!(w[0] == '#' && w[1].is_ascii_digit()), "{place}: a reference");
        }
    }
    // Tables stay whole: a row has the header's cells (`\|` is no separator).
    let cells = |line: &str| {
        let bytes = line.as_bytes();
        (0..bytes.len())
            .filter(|&i| bytes[i] == b'|' && (i == 0 || bytes[i - 1] != b'\\'))
            .count()
    };
    let mut header = None;
    for line in markdown.lines() {
        if !line.starts_with('|') {
            header = None;
            continue;
        }
        match header {
            None => header = Some(cells(line)),
            Some(h) => assert_eq!(cells(line), h, "{what}: a table row of another width: {line:?}"),
        }
    }
    // A comment or an HTML block that hides what follows can only come from raw text.
    assert!(!rest.contains("<!--"), "{what}: an HTML comment");
}

/// A page for a browser: no markup, comment or escape sequence from the
/// account, and safe in a log too.
#[track_caller]
fn assert_page_safe(what: &str, page: &str) {
    for raw in ["<img src=x", "<!-- `", "\u{1b}]52", "\u{202e}"] {
        assert!(!page.contains(raw), "{what}: {raw:?} reached the page raw");
    }
    assert_log_safe(what, page);
}

#[track_caller]
fn assert_ran(what: &str, r: &Run) {
    assert!(matches!(r.code, 0 | 1), "{what}: exit {}: {}", r.code, r.stderr);
    assert_log_safe(&format!("{what} (stderr)"), &r.stderr);
}

fn check(format: &str, extra: &[&str]) -> Run {
    let mut args = vec!["check", ACCOUNT, "--as-of", AS_OF, "--format", format, "--rules", PACK];
    args.extend_from_slice(extra);
    run(&args)
}

#[test]
fn every_check_format_holds_against_a_hostile_account() {
    for format in common::report_formats() {
        let r = check(&format, &[]);
        assert_ran(&format!("check --format {format}"), &r);
        let out = &r.stdout;
        match format.as_str() {
            "human" | "concise" => assert_log_safe(&format, out),
            "markdown" => {
                assert_log_safe(&format, out);
                assert_markdown_safe(&format, out);
            }
            "github" => {
                // Every line is a command of ours, one per finding or note:
                // none starts where a value from the account put it.
                for line in out.lines() {
                    assert!(
                        ["::error ", "::warning ", "::notice "].iter().any(|c| line.starts_with(c)),
                        "github: a line that is no annotation of ours: {line:?}"
                    );
                    assert!(!line.contains("##[") && !line.contains("##vso["), "{line:?}");
                    assert!(!line.chars().any(acts_on_terminal), "github: {line:?}");
                }
            }
            "json" | "sarif" | "gitlab" => {
                // Valid JSON that decodes to the account's own strings, and
                // no `##[` for a log that shows the file.
                let doc: serde_json::Value = serde_json::from_str(out).unwrap_or_else(|e| panic!("{format}: not JSON: {e}"));
                assert!(
                    !out.contains("##[") && !out.contains("##vso["),
                    "{format}: a command a runner could read"
                );
                for line in out.lines() {
                    assert!(!is_workflow_command(line), "{format}: {line:?}");
                }
                if format == "json" {
                    let names: Vec<&str> = doc["findings"]
                        .as_array()
                        .expect("findings")
                        .iter()
                        .filter_map(|f| f["resource"]["name"].as_str())
                        .collect();
                    assert!(names.contains(&"web ##[stop-commands]x1"), "decoded as it was: {names:?}");
                    assert!(names.contains(&"x\n::error file=README.md,line=1::forged annotation"));
                }
            }
            "junit" => {
                let doc = roxmltree::Document::parse(out).unwrap_or_else(|e| panic!("junit: not XML 1.0: {e}"));
                assert!(doc.descendants().any(|n| n.has_tag_name("testcase")));
                assert_log_safe("junit", out);
            }
            "html" => assert_page_safe("html", out),
            other => panic!("a report format this test does not read: {other}: add how its reader reads it"),
        }
    }
}

#[test]
fn under_github_actions_log_text_is_inside_a_stop_commands_stretch() {
    for format in ["human", "concise", "markdown"] {
        let r = run_with_env(
            &["check", ACCOUNT, "--as-of", AS_OF, "--format", format],
            &[("GITHUB_ACTIONS", "true")],
        );
        assert_ran(format, &r);
        let lines: Vec<&str> = r.stdout.lines().collect();
        let token = lines
            .first()
            .and_then(|l| l.strip_prefix("::stop-commands::"))
            .unwrap_or_else(|| panic!("{format}: no stop-commands line first: {:?}", lines.first()));
        assert!(token.len() >= 32, "{format}: a token one could guess: {token}");
        assert_eq!(lines.last().copied(), Some(format!("::{token}::").as_str()), "{format}");
        let inside = lines[1..lines.len() - 1].join("\n");
        assert!(!inside.contains(token), "{format}: the token inside the stretch");
        assert_log_safe(format, &inside);
        // A new token each run: no text written before can end the stretch.
        let again = run_with_env(
            &["check", ACCOUNT, "--as-of", AS_OF, "--format", format],
            &[("GITHUB_ACTIONS", "true")],
        );
        assert_ne!(again.stdout.lines().next(), r.stdout.lines().next(), "{format}");
    }
    // Machine formats stay what their readers parse: no wrapper.
    let r = run_with_env(
        &["check", ACCOUNT, "--as-of", AS_OF, "--format", "json"],
        &[("GITHUB_ACTIONS", "true")],
    );
    serde_json::from_str::<serde_json::Value>(&r.stdout).expect("JSON as it is");
}

#[test]
fn the_plan_holds_in_every_format() {
    for format in common::plan_formats() {
        if format == "shell" {
            continue; // retired: an error that names its replacement
        }
        let r = run(&["plan", ACCOUNT, "--as-of", AS_OF, "--format", &format]);
        assert_ran(&format!("plan --format {format}"), &r);
        let out = &r.stdout;
        match format.as_str() {
            "terraform" => {
                assert_log_safe("plan terraform", out);
                let body = hcl_edit::parser::parse_body(out).unwrap_or_else(|e| panic!("not HCL: {e}\n{out}"));
                let mut resources = 0;
                for structure in body.iter() {
                    let block = structure
                        .as_block()
                        .unwrap_or_else(|| panic!("a top-level attribute from the account: {structure:?}"));
                    let labels: Vec<&str> = block.labels.iter().map(|l| l.as_str()).collect();
                    match block.ident.as_str() {
                        "resource" => {
                            assert_eq!(labels.first(), Some(&"cloudflare_notification_policy"), "{labels:?}");
                            resources += 1;
                        }
                        "import" => {}
                        other => panic!("a top-level block that is not edgeaudit's: {other} {labels:?}"),
                    }
                    // Inside a policy block too: only its own attributes and blocks.
                    for inner in block.body.iter() {
                        if let Some(b) = inner.as_block() {
                            assert!(
                                ["filters", "email_integration"].contains(&b.ident.as_str()),
                                "a block from the account: {}",
                                b.ident.as_str()
                            );
                        }
                    }
                }
                assert!(resources >= 2, "the policies are there: {resources}\n{out}");
                // A pool is named by a string or a resource address, never by code
                // (an API pool id `${file("/etc/passwd")}` is a string).
                let element = r#"("([^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_\-]*(\.[A-Za-z_][A-Za-z0-9_\-]*|\[[0-9]+\])*)"#;
                let pool_ids = regex::Regex::new(&format!(r"^\s*pool_id\s*=\s*\[({element}(, {element})*)?\]$")).expect("regex");
                let lines: Vec<&str> = out.lines().filter(|l| l.trim_start().starts_with("pool_id")).collect();
                assert!(!lines.is_empty(), "{out}");
                for line in lines {
                    assert!(pool_ids.is_match(line), "a pool named by code: {line}");
                }
                // Every comment is one line of ours: a name's line break stays escaped.
                for line in out.lines() {
                    assert!(
                        !line.trim_start().starts_with("# ::") && !line.starts_with("resource \"terraform_data\""),
                        "{line:?}"
                    );
                }
            }
            "markdown" => {
                assert_log_safe("plan markdown", out);
                assert_markdown_safe("plan markdown", out);
                assert!(out.contains("Plan `"), "the plan's id is shown: {out}");
            }
            "json" => {
                let doc: serde_json::Value = serde_json::from_str(out).expect("JSON");
                assert!(doc["accounts"][0]["steps"].as_array().is_some_and(|s| !s.is_empty()));
                assert!(
                    !out.contains("##[") && !out.contains("##vso["),
                    "plan json: a command a runner could read"
                );
            }
            "html" => assert_page_safe("plan html", out),
            other => panic!("a plan format this test does not read: {other}"),
        }
    }
}

#[test]
fn the_inventory_holds_in_a_terminal_and_a_spreadsheet() {
    let table = run(&["inventory", ACCOUNT]);
    assert_ran("inventory", &table);
    assert_log_safe("inventory table", &table.stdout);
    let dir = common::temp_dir(&[]);
    let file = dir.path().join("certificates.csv");
    let r = run(&["inventory", ACCOUNT, "--format", "csv", "--output", &path_str(&file)]);
    assert_ran("inventory csv", &r);
    let text = std::fs::read_to_string(&file).expect("the CSV");
    let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(text.as_bytes());
    let mut cells = 0;
    let mut hosts = Vec::new();
    for record in reader.records() {
        let record = record.expect("RFC 4180");
        for cell in record.iter() {
            cells += 1;
            assert!(
                !cell.starts_with(['=', '+', '-', '@', '\t', '\r']),
                "a cell a spreadsheet takes for a formula: {cell:?}"
            );
        }
        hosts.push(record.get(2).unwrap_or("").to_string());
    }
    assert!(cells > 0);
    assert!(
        hosts.iter().any(|h| h.contains("'=HYPERLINK(")) || hosts.iter().any(|h| h.contains("'@SUM")),
        "the formulas are kept as text: {hosts:?}"
    );
    // On standard output, the CSV is log text.
    let r = run(&["inventory", ACCOUNT, "--format", "csv"]);
    assert_log_safe("inventory csv on stdout", &r.stdout);
}

#[test]
fn a_hostile_rule_pack_is_shown_escaped() {
    let explain = run(&["explain", "HOS001", "--rules", PACK]);
    assert_ran("explain", &explain);
    assert_log_safe("explain", &explain.stdout);
    for format in ["text", "markdown"] {
        let r = run(&["rules", "--rules", PACK, "--format", format]);
        assert_ran(&format!("rules --format {format}"), &r);
        assert_log_safe(&format!("rules --format {format}"), &r.stdout);
    }
    let r = run(&[
        "check", ACCOUNT, "--as-of", AS_OF, "--rules", PACK, "--select", "HOS", "--format", "markdown",
    ]);
    assert_ran("check with the pack", &r);
    assert_markdown_safe("check markdown with the pack", &r.stdout);
}

#[test]
fn an_input_error_quoting_a_value_stays_on_its_line() {
    let text = r#"{"result": [{"id": "c1", "bundle_method": "ubiquitous", "uploaded_on": "x\n::error title=t::forged \u001b[2J", "issuer": "R3", "expires_on": "2025-01-01T00:00:00Z", "status": "active"}]}"#;
    let dir = common::temp_dir(&[("certificates.json", text.as_bytes())]);
    let file = path_str(&dir.path().join("certificates.json"));
    for format in ["human", "concise", "markdown", "junit"] {
        let r = run(&["check", &file, "--format", format]);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(r.stderr.contains("is not an RFC 3339 timestamp"), "{}", r.stderr);
        assert_log_safe(&format!("input error ({format}, stderr)"), &r.stderr);
        assert_log_safe(&format!("input error ({format}, stdout)"), &r.stdout);
        if format == "junit" {
            roxmltree::Document::parse(&r.stdout).expect("XML 1.0");
        }
    }
}

#[cfg(unix)]
#[test]
fn nothing_is_written_through_a_planted_link() {
    use std::os::unix::fs::{PermissionsExt, symlink};
    let dir = common::temp_dir(&[("target", b"keep")]);
    let target = dir.path().join("target");
    // A report named in CI, a link planted at its name by a pull request.
    symlink(&target, dir.path().join("report.sarif")).expect("link");
    let sarif = format!("sarif={}", path_str(&dir.path().join("report.sarif")));
    let r = run(&["check", ACCOUNT, "--as-of", AS_OF, "--format", &sarif]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(std::fs::read_to_string(&target).expect("target"), "keep");
    assert!(std::fs::symlink_metadata(dir.path().join("report.sarif")).is_ok_and(|m| m.is_file()));
    // A plan replaced keeps its mode.
    let plan = dir.path().join("plan.json");
    std::fs::write(&plan, "{}").expect("plan");
    std::fs::set_permissions(&plan, std::fs::Permissions::from_mode(0o600)).expect("mode");
    let r = run(&["plan", ACCOUNT, "--as-of", AS_OF, "--format", "json", "-o", &path_str(&plan)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(std::fs::metadata(&plan).expect("plan").permissions().mode() & 0o777, 0o600);
    // `init` refuses a link, dangling or not, even with --force.
    let config = dir.path().join(".edgeaudit.yaml");
    symlink(dir.path().join("nowhere"), &config).expect("link");
    for force in [false, true] {
        let mut args = vec!["init"];
        if force {
            args.push("--force");
        }
        let r = common::run_in(dir.path(), &args);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(r.stderr.contains("symbolic link"), "{}", r.stderr);
        assert!(!dir.path().join("nowhere").exists(), "written through the link");
    }
    // No temporary file is left behind.
    let left: Vec<String> = std::fs::read_dir(dir.path())
        .expect("list")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".part"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
