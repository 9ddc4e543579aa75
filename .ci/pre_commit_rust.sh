#!/usr/bin/env bash
# The `language: rust` pre-commit hooks, built from this repository the way a
# user's pre-commit builds them (`cargo install`, a release build): a clean
# export passes both, the demo export fails both and names LB001. `cargo test`
# runs the `-system` twins with the test build instead (tests/it/pre_commit.rs,
# which also holds each pair to the same entry and files), so this is the one
# release build of a CI run.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
export PRE_COMMIT_HOME="$work/.pre-commit-home"
# One build for both hooks and both runs: a configuration naming this
# repository at HEAD (CI's fresh clone: the code under test), whose
# environment pre-commit builds once and keeps in its store. (`try-repo`
# would build again on every run, from a new shadow clone each time.)
export CARGO_TARGET_DIR="$repo/target/pre-commit"
if [ -n "$(git -C "$repo" status --porcelain)" ]; then
  echo "pre-commit: NOTICE: $repo has uncommitted changes; the hooks are built from its HEAD"
fi
head="$(git -C "$repo" rev-parse HEAD)"
export GIT_AUTHOR_NAME=ci GIT_AUTHOR_EMAIL=ci@example.com GIT_COMMITTER_NAME=ci GIT_COMMITTER_EMAIL=ci@example.com
git init -q -b main
printf '.pre-commit-home/\n' > .gitignore
printf 'repos:\n  - repo: %s\n    rev: %s\n    hooks:\n      - id: edgeaudit\n      - id: edgeaudit-baseline\n' "$repo" "$head" > .pre-commit-config.yaml
mkdir exports
printf '%s\n' '{"result": [{"id": "aaaa0000000000000000000000000001", "name": "web", "notification_email": "", "origins": []}]}' > exports/pools.json
git add -A

run_hooks() { # expected status, then what the log must contain
  local expected="$1" must="$2" hook log
  for hook in edgeaudit edgeaudit-baseline; do
    if [ "$hook" = edgeaudit-baseline ] && [ ! -f .edgeaudit-baseline.json ]; then
      # The baseline of the clean export, written by the test build (built
      # already by `cargo test` in CI; try-repo keeps no binary).
      env -u CARGO_TARGET_DIR cargo run --quiet --manifest-path "$repo/Cargo.toml" -- \
        check exports --write-baseline .edgeaudit-baseline.json -q
      git add -A
    fi
    set +e
    log="$(python3 -m pre_commit run "$hook" --all-files --color never 2>&1)"
    status=$?
    set -e
    echo "$log" | grep -E '\.(Passed|Failed)$' || true
    if { [ "$expected" = pass ] && [ $status -ne 0 ]; } || { [ "$expected" = fail ] && [ $status -eq 0 ]; }; then
      echo "pre-commit hook $hook: expected to $expected:" >&2
      echo "$log" >&2
      exit 1
    fi
    if [ -n "$must" ] && ! grep -q "$must" <<<"$log"; then
      echo "pre-commit hook $hook: the output lacks $must:" >&2
      echo "$log" >&2
      exit 1
    fi
  done
}

run_hooks pass ""
cp "$repo"/fixtures/demo/* exports/
git add -A
run_hooks fail "LB001"
echo "pre-commit: the language: rust hooks pass a clean export and fail the demo"
