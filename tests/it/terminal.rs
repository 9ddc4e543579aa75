//! What a person sees: export strings that cannot act on the terminal,
//! messages wrapped to its width, PEMs shown by their first line, the as-of
//! date and config stated, CRLF files numbered right, colour as other tools
//! decide it, and a one-page Markdown report at any size.

use crate::common;
use edgeaudit::report::Format;

use common::{json, path_str, run, run_with_env, run_with_stdin, temp_dir};

/// A pool whose name and e-mail carry escape sequences: a clear screen, a
/// window title with a bell, a C1 CSI, a carriage return that would overwrite
/// the line, and a bidi override.
const HOSTILE_POOL: &str = r#"{"result": [{"id": "p1", "name": "evil\u001b[2J\u001b]0;pwned\u0007\u009b31m\rOK\u202e", "origins": [], "notification_email": "a@example.com"}]}"#;

fn hostile() -> (tempfile::TempDir, String) {
    let dir = temp_dir(&[("pools.json", HOSTILE_POOL.as_bytes())]);
    let file = path_str(&dir.path().join("pools.json"));
    (dir, file)
}

/// The characters that would act on a terminal, if any is in `s`, ignoring
/// the colour sequences edgeaudit writes itself (`ESC [ … m`).
fn acting_characters(s: &str) -> Vec<char> {
    let mut found = Vec::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            // Our own SGR colour: digits and `;` up to `m`.
            chars.next();
            let mut sgr = true;
            for d in chars.by_ref() {
                if d == 'm' {
                    break;
                }
                if !(d.is_ascii_digit() || d == ';') {
                    sgr = false;
                    break;
                }
            }
            if !sgr {
                found.push(c);
            }
            continue;
        }
        if (c.is_control() && c != '\n') || ('\u{202a}'..='\u{202e}').contains(&c) {
            found.push(c);
        }
    }
    found
}

/// Whether a report format is text a person reads as it is printed (in a
/// terminal or a CI log), not data another program parses: such a report
/// shows an export's strings escaped. A new format stops this match from
/// compiling until it says which it is.
fn is_read_as_printed(format: Format) -> bool {
    match format {
        Format::Human | Format::Concise | Format::Github | Format::Markdown => true,
        Format::Json | Format::Sarif | Format::Gitlab | Format::Junit | Format::Html => false,
    }
}

#[test]
fn export_strings_with_escape_sequences_are_rendered_harmless_in_every_terminal_format() {
    let (_dir, file) = hostile();
    let printed = <Format as clap::ValueEnum>::value_variants()
        .iter()
        .filter(|f| is_read_as_printed(**f))
        .filter_map(|f| clap::ValueEnum::to_possible_value(f).map(|v| v.get_name().to_string()));
    for format in printed {
        let format = format.as_str();
        for color in ["never", "always"] {
            let r = run(&[
                "check",
                &file,
                "--no-config",
                "--format",
                format,
                "--color",
                color,
                "--as-of",
                "2024-10-01",
            ]);
            assert_eq!(r.code, 1, "{format}: {}", r.stderr);
            assert_eq!(
                acting_characters(&r.stdout),
                Vec::<char>::new(),
                "{format} --color {color}:\n{}",
                r.stdout
            );
            // The runner's own escape for CR in workflow commands is `%0D`.
            let cr = if format == "github" { "%0D" } else { r"\u000d" };
            assert!(
                r.stdout
                    .contains(&format!(r"evil\u001b[2J\u001b]0;pwned\u0007\u009b31m{cr}OK\u202e")),
                "{format}: the name is shown, escaped:\n{}",
                r.stdout
            );
        }
    }
    // JSON carries the true string: its own escaping makes it harmless.
    let r = run(&["check", &file, "--no-config", "--format", "json", "--as-of", "2024-10-01"]);
    let doc = json(&r);
    let lb001 = common::finding(&doc, "LB001");
    assert_eq!(lb001["resource"]["name"], "evil\u{1b}[2J\u{1b}]0;pwned\u{7}\u{9b}31m\rOK\u{202e}");
}

#[test]
fn a_file_name_with_control_characters_is_shown_escaped() {
    let dir = temp_dir(&[("pools\u{1b}[2J.json", HOSTILE_POOL.as_bytes())]);
    let file = path_str(&dir.path().join("pools\u{1b}[2J.json"));
    for format in ["human", "concise"] {
        let r = run(&["check", &file, "--no-config", "--format", format, "--as-of", "2024-10-01"]);
        assert_eq!(acting_characters(&r.stdout), Vec::<char>::new(), "{format}:\n{}", r.stdout);
        assert!(r.stdout.contains(r"pools\u001b[2J.json"), "{}", r.stdout);
    }
}

#[test]
fn messages_wrap_at_80_columns_and_json_bodies_stay_whole() {
    let r = run_with_env(
        &["check", "fixtures/demo", "--as-of", "2024-10-01", "--color", "never"],
        &[("COLUMNS", "80")],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    let mut message_lines = 0;
    for line in r.stdout.lines() {
        // Message lines follow the severity mark (`  × `, `  ⚠ `, `  ☞ `) or the bar of a wrapped one.
        let is_message = ["  × ", "  ⚠ ", "  ☞ ", "  │ "].iter().any(|p| line.starts_with(p));
        if !is_message {
            continue;
        }
        message_lines += 1;
        if line.contains("{\"") {
            // A body is one word: it has a line of its own when it is longer than the width.
            let body = line["  │ ".len()..].trim_end_matches([';', '.']);
            assert!(
                serde_json::from_str::<serde_json::Value>(body).is_ok() || line.chars().count() <= 80,
                "a body was broken: {line}"
            );
        } else {
            // A single word longer than the line (a long API path) has a line of its own.
            let single_word = !line.chars().skip(4).collect::<String>().trim().contains(" ");
            assert!(line.chars().count() <= 80 || single_word, "longer than 80 columns: {line:?}");
        }
    }
    assert!(
        message_lines > 40,
        "the demo's messages span many lines at 80 columns:\n{}",
        r.stdout
    );
    // The closing lines stay whole: scripts grep for them.
    assert!(
        r.stdout
            .contains("Found 21 findings (6 errors, 11 warnings, 4 notes) in 6 files (30 records: 6 pools,")
    );
}

#[test]
fn a_pem_value_is_shown_as_its_first_line() {
    let r = run(&[
        "check",
        "fixtures/demo",
        "--as-of",
        "2024-10-01",
        "--select",
        "CA008",
        "--color",
        "never",
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.contains(r#""certificate": "-----BEGIN CERTIFICATE-----"#), "{}", r.stdout);
    assert!(!r.stdout.contains("MII"), "no base64 on screen:\n{}", r.stdout);
}

#[test]
fn the_as_of_date_and_its_source_and_the_config_are_stated() {
    let r = run(&["check", "fixtures/demo", "--no-config", "--as-of", "2024-10-01"]);
    assert!(
        r.stdout.contains("Judged as of 2024-10-01 (--as-of); no config file."),
        "{}",
        r.stdout
    );
    let r = run(&["check", "fixtures/demo", "--no-config", "--fail-on", "never"]);
    assert!(r.stdout.contains("(today, UTC); no config file."), "{}", r.stdout);

    let dir = temp_dir(&[("audit.yaml", b"as_of: 2024-06-01\n")]);
    let config = path_str(&dir.path().join("audit.yaml"));
    let r = run(&["check", "fixtures/demo", "--config", &config]);
    assert!(
        r.stdout
            .contains(&format!("Judged as of 2024-06-01 (as_of in {config}); config: {config}.")),
        "{}",
        r.stdout
    );
    let doc = json(&run(&["check", "fixtures/demo", "--config", &config, "--format", "json"]));
    assert_eq!(doc["as_of"], "2024-06-01");
    assert_eq!(doc["as_of_source"], "config");
    assert_eq!(doc["config"], config.as_str());
    let sarif = json(&run(&["check", "fixtures/demo", "--config", &config, "--format", "sarif"]));
    assert_eq!(sarif["runs"][0]["properties"]["asOfSource"], "config");
    let md = run(&["check", "fixtures/demo", "--config", &config, "--format", "markdown"]).stdout;
    assert!(
        md.contains(&format!("As of 2024-06-01 (as_of in {config}) · config `{config}`")),
        "{md}"
    );
}

#[test]
fn crlf_files_number_their_context_lines_right() {
    let crlf = "{\r\n  \"result\": [\r\n    {\r\n      \"id\": \"p1\",\r\n      \"name\": \"web\",\r\n      \"origins\": [],\r\n      \"notification_email\": \"a@example.com\"\r\n    }\r\n  ]\r\n}\r\n";
    let dir = temp_dir(&[("pools.json", crlf.as_bytes())]);
    let file = path_str(&dir.path().join("pools.json"));
    let r = run(&[
        "check",
        &file,
        "--no-config",
        "--select",
        "LB001",
        "--color",
        "never",
        "--as-of",
        "2024-10-01",
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let numbered: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.contains(" │ ") && l.trim_start().starts_with(char::is_numeric))
        .collect();
    assert_eq!(
        numbered,
        vec![
            " 6 │       \"origins\": [],",
            " 7 │       \"notification_email\": \"a@example.com\"",
            " 8 │     }"
        ],
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains('\r'));
}

#[test]
fn colour_and_drawing_follow_the_environment_as_other_tools_do() {
    let args = ["check", "fixtures/demo", "--as-of", "2024-10-01", "--select", "LB005"];
    let coloured = |env: &[(&str, &str)], extra: &[&str]| {
        let mut a = args.to_vec();
        a.extend(extra);
        run_with_env(&a, env).stdout.contains("\u{1b}[")
    };
    // Not a terminal: no colour unless forced.
    assert!(!coloured(&[], &[]));
    assert!(coloured(&[("FORCE_COLOR", "1")], &[]));
    assert!(coloured(&[("CLICOLOR_FORCE", "1")], &[]));
    assert!(!coloured(&[("FORCE_COLOR", "0")], &[]));
    assert!(!coloured(&[("FORCE_COLOR", "1")], &["--color", "never"]), "the flag wins");
    assert!(coloured(&[("NO_COLOR", "1")], &["--color", "always"]), "the flag wins");
    // TERM=dumb: no colour and no box drawing.
    let dumb = run_with_env(&args, &[("TERM", "dumb")]).stdout;
    assert!(!dumb.contains('\u{1b}') && !dumb.contains('╭') && !dumb.contains('│'), "{dumb}");
    assert!(dumb.contains("filters on `unhealthy`"), "{dumb}");
}

#[test]
fn stdin_takes_the_name_and_format_of_stdin_filename() {
    // Flow YAML that starts like JSON: sniffing alone would read it as JSON and fail.
    let yaml = b"[{id: p1, name: web, origins: [], notification_email: a@example.com}]\n";
    let sniffed = run_with_stdin(&["check", "-", "--no-config", "--as-of", "2024-10-01"], Some(yaml));
    assert_eq!(sniffed.code, 2, "{}", sniffed.stderr);
    let named = run_with_stdin(
        &[
            "check",
            "-",
            "--stdin-filename",
            "exports/pools.yaml",
            "--no-config",
            "--format",
            "concise",
            "--as-of",
            "2024-10-01",
        ],
        Some(yaml),
    );
    assert_eq!(named.code, 1, "{}", named.stderr);
    assert!(named.stdout.starts_with("exports/pools.yaml:1:"), "{}", named.stdout);
    // `--force-exclude` applies to the name, as to a file named on the command line.
    let excluded = run_with_stdin(
        &[
            "check",
            "-",
            "--stdin-filename",
            "exports/pools.yaml",
            "--exclude",
            "exports/",
            "--force-exclude",
            "--no-config",
            "--format",
            "json",
        ],
        Some(yaml),
    );
    assert_eq!(excluded.code, 0, "{}", excluded.stderr);
    assert_eq!(json(&excluded)["summary"]["files"], 0);
}

/// A rule pack of `rules` rules that each fire on every pool with a long message.
fn noisy_pack(rules: usize) -> String {
    let mut pack = String::from("rules:\n");
    for i in 1..=rules {
        pack.push_str(&format!(
            "  - id: ORG{i:03}\n    name: noisy-{i}\n    subject: pool\n    severity: warning\n    summary: s\n    when: []\n    message: Pool {{name}} {}\n    rationale: r\n    remediation: r\n",
            "is noisy. ".repeat(40)
        ));
    }
    pack
}

#[test]
fn the_markdown_report_is_one_page_at_any_size() {
    let pools: Vec<String> = (0..2000)
        .map(|i| format!(r#"{{"id": "p{i}", "name": "pool-{i}", "origins": [], "notification_email": "ops@example.com"}}"#))
        .collect();
    let export = format!(r#"{{"result": [{}]}}"#, pools.join(","));
    let pack = noisy_pack(30);
    let dir = temp_dir(&[("pools.json", export.as_bytes()), ("pack.yaml", pack.as_bytes())]);
    let file = path_str(&dir.path().join("pools.json"));
    let pack = path_str(&dir.path().join("pack.yaml"));
    let base = ["check", &file, "--no-config", "--as-of", "2024-10-01", "--format", "markdown"];

    // 2000 LB001 findings: ten listed, the rest counted.
    let r = run(&[&base[..], &["--select", "LB"]].concat());
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stdout.contains("| LB001 | legacy-email-without-replacement | error | 2000 |"),
        "{}",
        r.stdout
    );
    assert_eq!(r.stdout.matches("\n- pool `").count(), 10);
    assert!(r.stdout.contains("- … and 1990 more findings"), "{}", r.stdout);
    let r = run(&[&base[..], &["--select", "LB", "--max-findings", "3"]].concat());
    assert_eq!(r.stdout.matches("\n- pool `").count(), 3);
    assert!(r.stdout.contains("- … and 1997 more findings"));

    // 30 rules × 2000 findings with long messages: the default page stays
    // within a pull-request comment (65,536 characters) and says what it left out.
    let r = run(&[&base[..], &["--select", "ORG", "--rules", &pack]].concat());
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.chars().count() < 65_536, "{} characters", r.stdout.chars().count());
    assert!(
        r.stdout.contains("| ORG030 | `noisy-30` | warning | 2000 |"),
        "every rule is in the table"
    );
    assert!(
        r.stdout.contains("## ORG030 `noisy-30` · warning · 2000 findings"),
        "every rule has its section"
    );
    assert!(r.stdout.contains("left out to keep this page within a pull-request comment's size"));
    // Asked for, `--max-findings` lists what it names, whatever the size.
    let r = run(&[&base[..], &["--select", "ORG", "--rules", &pack, "--max-findings", "10"]].concat());
    assert_eq!(r.stdout.matches("\n- pool `").count(), 300);
}
