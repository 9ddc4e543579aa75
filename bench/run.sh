#!/usr/bin/env bash
# The DESIGN §6 benchmark: on one generated export, time in one run
#   - edgeaudit check --format json            (the job)
#   - serde_json::from_slice::<IgnoredAny>      (the floor)
#   - jq with one equivalent filter             (the usual alternative)
# and print the ratios, plus edgeaudit's peak RSS against the file size.
# Machines are noisy: each command runs RUNS times and the best time counts,
# and all three are measured in the same run so the ratios are comparable.
#
#   bench/run.sh [COUNT]                    (default 200000 pools, about 260 MB)
#   KIND=hostnames bench/run.sh [COUNT]     (default 250000 custom hostnames, about 280 MB)
set -euo pipefail
cd "$(dirname "$0")/.."

kind="${KIND:-pools}"
runs="${RUNS:-3}"
data=bench-data
case "$kind" in
  pools)
    count="${1:-200000}"
    generate=(--count "$count")
    filter='[.result[] | select(.notification_email != "")] | length'
    ;;
  hostnames)
    count="${1:-250000}"
    generate=(--custom-hostnames --count "$count")
    filter='[.result[] | select(.ssl.certificate_authority == "lets_encrypt")] | length'
    ;;
  *) echo "KIND is pools or hostnames" >&2; exit 2 ;;
esac
file="$data/$kind-$count.json"
# The Let's Encrypt rules as they stood in the autumn of 2024.
as_of=(--as-of 2024-10-01)

command -v jq >/dev/null || { echo "installing jq"; apt-get install -y jq >/dev/null; }
[ -x /usr/bin/time ] || { echo "installing time"; apt-get install -y time >/dev/null; }

cargo build --release --quiet --bin edgeaudit --example generate --example scan_floor
mkdir -p "$data"
if [ ! -s "$file" ]; then
  ./target/release/examples/generate "${generate[@]}" > "$file"
fi
size=$(stat -c %s "$file")

# best of N wall-clock seconds for a command (stdout discarded)
best() {
  local best_s=""
  for _ in $(seq "$runs"); do
    local s
    /usr/bin/time -o "$data/.time" -f "%e" "$@" > /dev/null 2>&1 || true
    s=$(tail -n 1 "$data/.time")
    if [ -z "$best_s" ] || awk -v a="$s" -v b="$best_s" 'BEGIN{exit !(a<b)}'; then best_s=$s; fi
  done
  echo "$best_s"
}

# Warm the page cache so every command reads from memory.
cat "$file" > /dev/null

floor=$(best ./target/release/examples/scan_floor "$file")
check=$(best ./target/release/edgeaudit check "$file" --format json --fail-on never --no-config "${as_of[@]}")
jq_s=$(best jq "$filter" "$file")
# The other report formats on the same findings (DESIGN §6: SARIF at most
# 1.2x JSON; issue 10: the one-page Markdown linear, i.e. no dearer than JSON).
sarif=$(best ./target/release/edgeaudit check "$file" --format sarif --fail-on never --no-config "${as_of[@]}")
markdown=$(best ./target/release/edgeaudit check "$file" --format markdown --fail-on never --no-config "${as_of[@]}")
# The migration plan of the same account (informational, pools only): load,
# rules, planner and replay; linear like check.
plan_s=0
if [ "$kind" = pools ]; then
  plan_s=$(best ./target/release/edgeaudit plan "$file" --format json "${as_of[@]}")
fi
/usr/bin/time -o "$data/.time" -f "%M" ./target/release/edgeaudit check "$file" --format json --fail-on never --no-config "${as_of[@]}" > /dev/null
rss_kb=$(tail -n 1 "$data/.time")

# The triage stage at scale (informational, no target): every finding in a
# baseline, and 50 waivers with globs that each finding is matched against.
./target/release/edgeaudit check "$file" --no-config --quiet "${as_of[@]}" --write-baseline "$data/baseline.json" > /dev/null 2>&1 || true
{
  echo "waivers:"
  for i in $(seq 1 50); do
    printf '  - {rule: "*", resource: "*/%04x*", reason: "benchmark", expires: 2999-12-31}\n' "$i"
  done
} > "$data/waivers.yaml"
triaged=$(best ./target/release/edgeaudit check "$file" --format json --fail-on never "${as_of[@]}" --config "$data/waivers.yaml" --baseline "$data/baseline.json")

echo "edgeaudit benchmark: $file ($(awk -v b="$size" 'BEGIN{printf "%.1f MB", b/1e6}'), $count $kind), best of $runs"
printf "  %-44s %8.3f s\n" "serde_json IgnoredAny scan (floor)" "$floor"
printf "  %-44s %8.3f s\n" "edgeaudit check --format json" "$check"
printf "  %-44s %8.3f s\n" "jq (one filter)" "$jq_s"
printf "  %-44s %8.3f s\n" "edgeaudit check --format sarif" "$sarif"
printf "  %-44s %8.3f s\n" "edgeaudit check --format markdown" "$markdown"
printf "  %-44s %8.3f s\n" "check with a full baseline and 50 waivers" "$triaged"
if [ "$kind" = pools ]; then printf "  %-44s %8.3f s\n" "edgeaudit plan --format json" "$plan_s"; fi
awk -v c="$check" -v f="$floor" -v j="$jq_s" -v r="$rss_kb" -v s="$size" -v t="$triaged" -v sa="$sarif" -v md="$markdown" -v pl="$plan_s" 'BEGIN{
  printf "  check / floor   = %5.2fx   (target <= 4x)\n", c/f
  printf "  jq / check      = %5.2fx   (target >= 10x)\n", j/c
  printf "  peak RSS / size = %5.2fx   (%.0f MB; target < 1.5x)\n", r*1024/s, r/1024
  printf "  sarif / json    = %5.2fx   (target <= 1.2x)\n", sa/c
  printf "  markdown / json = %5.2fx   (target <= 1x: one page, linear)\n", md/c
  printf "  triaged / check = %5.2fx   (informational)\n", t/c
  if (pl > 0) printf "  plan / check    = %5.2fx   (informational)\n", pl/c
}'
