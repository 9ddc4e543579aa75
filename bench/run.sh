#!/usr/bin/env bash
# The benchmark of docs/src/performance.md. In one run, on the same generated files:
#   1. a million custom hostnames, JSON: edgeaudit check --format json and
#      --format sarif, against the serde_json IgnoredAny floor and jq running
#      one equivalent filter; then the same records as JSON Lines against
#      DuckDB (from PyPI, here only) asking the Let's Encrypt question, and
#      the output at 1, 2 and 8 threads compared
#   2. 200 000 pools + 10 000 policies, JSON: check against floor and jq
#   3. 100 000 custom hostnames as YAML: check against serde-saphyr's own
#      IgnoredAny parse (the YAML floor)
#   4. linearity: custom hostnames at 10k, 100k and 1M, time and peak RSS per
#      record
#   5. the HTML report's size and Chromium's time to render it
#   6. an export of 200 000 custom hostnames from the stand-in: peak RSS / file
#   7. traffic: 6 million gzip'd Logpush lines against 100 000 custom hostnames,
#      check --traffic against DuckDB's GROUP BY (TRAFFIC_LINES=… for fewer)
#   8. apply of plans of 20 000 and 60 000 custom hostname changes against the
#      stand-in: memory each step adds, CPU against the steps (bench/apply.sh)
# and print time ratios and peak RSS / input size. edgeaudit and the floor are
# built as the published binaries are (`--profile dist`, Cargo.toml). Machines are noisy: each
# command runs RUNS times (default 5), the commands of a section in turn
# (floor, check, jq, floor, check, jq, …), each timed run after an untimed
# one of the same command, and the median counts; every ratio
# compares commands measured in this run (EXTRA's and section 4's commands
# are measured five runs each, against the section's interleaved check).
#
#   bench/run.sh                 the whole suite (about a quarter of an hour on 2 cores)
#   HOSTNAMES=250000 bench/run.sh   a smaller first section
#   EXTRA=1 bench/run.sh         also markdown, plan, and a baseline + waivers (pools)
#   EDGEAUDIT=/tmp/old/edgeaudit bench/run.sh   measure another build (a before/after
#                                  comparison runs the script once with each)
set -euo pipefail
# EPOCHREALTIME and awk read a point as the decimal separator.
export LC_ALL=C
cd "$(dirname "$0")/.."

runs="${RUNS:-5}"
hostnames="${HOSTNAMES:-1000000}"
pools=200000
yaml_hostnames=100000
data=bench-data
as_of=(--as-of 2024-10-01)
edgeaudit="${EDGEAUDIT:-./target/dist/edgeaudit}"
check=("$edgeaudit" check --fail-on never --no-config "${as_of[@]}")

command -v jq >/dev/null || { echo "installing jq"; apt-get install -y jq >/dev/null; }
[ -x /usr/bin/time ] || { echo "installing time"; apt-get install -y time >/dev/null; }

cargo build --profile dist --quiet --bin edgeaudit --example generate --example scan_floor
mkdir -p "$data"
generate() { # FILE ARGS...
  local file=$1; shift
  [ -s "$file" ] || ./target/dist/examples/generate "$@" > "$file"
}
generate "$data/hostnames-$hostnames.json" --custom-hostnames --count "$hostnames"
generate "$data/pools-$pools.json" --count "$pools"
generate "$data/hostnames-$yaml_hostnames.yaml" --custom-hostnames --count "$yaml_hostnames" --yaml
for n in 10000 100000 1000000; do generate "$data/hostnames-$n.json" --custom-hostnames --count "$n"; done

# One run of a command, its output discarded. A command that fails stops
# the benchmark (its figures would measure no work; `set -e` and `pipefail`
# carry the failure out of the command substitutions these run in).
run_once() {
  if ! "$@" > /dev/null 2>&1; then
    echo "bench: failed: $*" >&2
    return 1
  fi
}
# Wall-clock seconds of one run of a command, to the microsecond: GNU time's
# %e counts hundredths, and 10k hostnames take two of them (the linearity
# figures compare what 90k records add against that).
seconds() {
  local start=$EPOCHREALTIME
  run_once "$@" || return 1
  awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.4f\n", b - a}'
}
# Peak RSS in KiB of one run of a command.
peak() {
  run_once /usr/bin/time -o "$data/.time" -f "%M" "$@" || return 1
  tail -n 1 "$data/.time"
}
# The median of the numbers on standard input, one a line.
median_of() {
  sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'
}
# median of RUNS wall-clock seconds of a command
median() {
  for _ in $(seq "$runs"); do seconds "$@" || exit 1; done | median_of
}
# The medians of commands measured in rounds: each round runs every command
# once, so a slow spell of the machine falls on all of them rather than on
# the five runs of one. Each timed run follows an untimed run of the same
# command, so that it is measured after its own kind, not in what another
# left: on this machine (a VM) the first process after jq, which frees 6 GB,
# pays for memory it touches first (a check 1.96 s, the three after it
# 1.66-1.71 s; bench/RESULTS.md, issue 44). Commands are given as
# NAME=ARRAY, the array holding the command's words; the medians are left in
# the associative array `med`.
declare -A med
interleaved() {
  local -A all
  local pair name
  for _ in $(seq "$runs"); do
    for pair in "$@"; do
      name=${pair%%=*}
      local -n argv=${pair#*=}
      run_once "${argv[@]}"
      all[$name]+="$(seconds "${argv[@]}")"$'\n'
      unset -n argv
    done
  done
  for pair in "$@"; do
    name=${pair%%=*}
    med[$name]=$(printf '%s' "${all[$name]}" | median_of)
  done
}
size() { stat -c %s "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a/b}'; }
line() { printf "  %-46s %s\n" "$1" "$2"; }
mb() { awk -v b="$(size "$1")" 'BEGIN{printf "%.0f MB", b/1e6}'; }
rss_line() { # FILE PEAK_KIB TARGET
  local r; r=$(ratio "$(($2 * 1024))" "$(size "$1")")
  line "peak RSS / input" "${r}x ($(($2 / 1024)) MiB; target <= $3x: $(verdict "$r" '<=' "$3"))"
}
verdict() { # VALUE OP TARGET; OP is <=, >= or within (|VALUE - 1| <= TARGET)
  awk -v v="$1" -v t="$3" -v op="$2" 'BEGIN{d = v - 1; if (d < 0) d = -d; ok = (op == "<=") ? v <= t : (op == ">=") ? v >= t : d <= t; printf "%s", ok ? "met" : "MISSED"}'
}

echo "edgeaudit benchmark, $(nproc) cores, median of $runs runs, $(date -u +%F)"

# 1. A million custom hostnames, JSON.
file="$data/hostnames-$hostnames.json"
cat "$file" > /dev/null
run_floor=(./target/dist/examples/scan_floor "$file")
run_json=("${check[@]}" "$file" --format json)
run_sarif=("${check[@]}" "$file" --format sarif)
run_jq=(jq '[.result[] | select(.ssl.certificate_authority == "lets_encrypt")] | length' "$file")
interleaved floor=run_floor json=run_json sarif=run_sarif jq=run_jq
floor=${med[floor]} json=${med[json]} sarif=${med[sarif]} jq_s=${med[jq]}
json_1m=$json
rss=$(peak "${check[@]}" "$file" --format json)
echo
echo "1. $hostnames custom hostnames, JSON ($(mb "$file"))"
line "serde_json IgnoredAny floor" "$floor s"
line "check --format json" "$json s"
line "check --format sarif" "$sarif s"
line "jq (one filter)" "$jq_s s"
r=$(ratio "$json" "$floor"); line "json / floor" "${r}x (target <= 1.5x: $(verdict "$r" '<=' 1.5))"
r=$(ratio "$jq_s" "$json"); line "jq / json" "${r}x (target >= 12x: $(verdict "$r" '>=' 12))"
r=$(ratio "$sarif" "$json"); line "sarif / json" "${r}x (target <= 1.2x: $(verdict "$r" '<=' 1.2))"
rss_line "$file" "$rss" 0.5
# Section 4 takes these for its million rather than measuring it again.
hostnames_json=$json hostnames_rss=$rss

# 1b. The same records as JSON Lines (`jq -c '.result[]'` of the export, which
# the generator writes byte for byte), against DuckDB asking the Let's Encrypt
# question and writing the matching rows as JSON: whole rows (what the issue's
# user asks for), and only id, hostname and CA (DuckDB then parses no other
# column: its best case).
file="$data/hostnames-$hostnames.jsonl"
generate "$file" --custom-hostnames --count "$hostnames" --jsonl
cat "$file" > /dev/null
python3 -c "import duckdb" 2>/dev/null || python3 -m pip install --quiet --disable-pip-version-check duckdb
cat > "$data/duckdb-lets-encrypt.py" <<'PY'
import sys, duckdb
columns = "*" if sys.argv[1] == "rows" else "id, hostname, ssl.certificate_authority AS certificate_authority"
duckdb.sql(f"""COPY (SELECT {columns} FROM read_json('{sys.argv[2]}', format='newline_delimited')
  WHERE ssl.certificate_authority = 'lets_encrypt') TO '{sys.argv[3]}' (FORMAT JSON)""")
PY
run_jsonl=("${check[@]}" "$file" --format json)
run_rows=(python3 "$data/duckdb-lets-encrypt.py" rows "$file" "$data/duckdb-lets-encrypt.json")
run_columns=(python3 "$data/duckdb-lets-encrypt.py" columns "$file" "$data/duckdb-lets-encrypt.json")
interleaved jsonl=run_jsonl rows=run_rows columns=run_columns
rss=$(peak "${run_jsonl[@]}")
rows_peak=$(peak "${run_rows[@]}")
echo
echo "1b. $hostnames custom hostnames, JSON Lines ($(mb "$file"))"
line "check --format json" "${med[jsonl]} s"
line "DuckDB, matching rows as JSON" "${med[rows]} s, $((rows_peak / 1024)) MiB"
line "DuckDB, id, hostname and CA as JSON" "${med[columns]} s"
r=$(ratio "${med[jsonl]}" "${med[rows]}"); line "check / DuckDB rows" "${r}x (target <= 1: $(verdict "$r" '<=' 1))"
r=$(ratio "${med[jsonl]}" "${med[columns]}"); line "check / DuckDB three columns" "${r}x (informational)"
rss_line "$file" "$rss" 0.5
# The same output whatever the thread count, on both shapes.
for f in "$data/hostnames-$hostnames.json" "$file"; do
  sums=$(for t in 1 2 8; do EDGEAUDIT_THREADS=$t "${check[@]}" "$f" --format json | md5sum; done | sort -u | wc -l)
  line "$(basename "$f") at 1, 2 and 8 threads" "$([ "$sums" = 1 ] && echo "identical" || echo "DIFFERENT")"
done

# 2. 200 000 pools and their policies.
file="$data/pools-$pools.json"
cat "$file" > /dev/null
run_floor=(./target/dist/examples/scan_floor "$file")
run_json=("${check[@]}" "$file" --format json)
run_jq=(jq '[.result[] | select(.notification_email != "")] | length' "$file")
interleaved floor=run_floor json=run_json jq=run_jq
floor=${med[floor]} json=${med[json]} jq_s=${med[jq]}
rss=$(peak "${check[@]}" "$file" --format json)
echo
echo "2. $pools pools + $((pools / 20)) policies, JSON ($(mb "$file"))"
line "serde_json IgnoredAny floor" "$floor s"
line "check --format json" "$json s"
line "jq (one filter)" "$jq_s s"
r=$(ratio "$json" "$floor"); line "json / floor" "${r}x (informational)"
r=$(ratio "$jq_s" "$json"); line "jq / json" "${r}x (target >= 10x: $(verdict "$r" '>=' 10))"
rss_line "$file" "$rss" 1.3
if [ -n "${EXTRA:-}" ]; then
  markdown=$(median "${check[@]}" "$file" --format markdown)
  plan_s=$(median "$edgeaudit" plan "$file" --format json "${as_of[@]}")
  "$edgeaudit" check "$file" --no-config --quiet "${as_of[@]}" --write-baseline "$data/baseline.json" > /dev/null 2>&1 || true
  {
    echo "waivers:"
    for i in $(seq 1 50); do
      printf '  - {rule: "*", resource: "*/%04x*", reason: "benchmark", expires: 2999-12-31}\n' "$i"
    done
  } > "$data/waivers.yaml"
  triaged=$(median "$edgeaudit" check "$file" --format json --fail-on never "${as_of[@]}" --config "$data/waivers.yaml" --baseline "$data/baseline.json")
  r=$(ratio "$markdown" "$json"); line "markdown / json" "${r}x (one page, linear)"
  r=$(ratio "$plan_s" "$json"); line "plan / check" "${r}x (informational)"
  r=$(ratio "$triaged" "$json"); line "full baseline + 50 waivers / check" "${r}x (informational)"
fi

# 3. 100 000 custom hostnames as YAML.
file="$data/hostnames-$yaml_hostnames.yaml"
cat "$file" > /dev/null
run_floor=(./target/dist/examples/scan_floor "$file")
run_json=("${check[@]}" "$file" --format json)
interleaved floor=run_floor json=run_json
floor=${med[floor]} json=${med[json]}
rss=$(peak "${check[@]}" "$file" --format json)
echo
echo "3. $yaml_hostnames custom hostnames, YAML ($(mb "$file"))"
line "serde-saphyr IgnoredAny floor" "$floor s"
line "check --format json" "$json s"
r=$(ratio "$json" "$floor"); line "check / YAML floor" "${r}x (target <= 1.5x: $(verdict "$r" '<=' 1.5))"
rss_line "$file" "$rss" 2

# 4. Linearity: per record at 10k, 100k, 1M custom hostnames, against 1M.
echo
echo "4. linearity, custom hostnames (per record against the 1M figure; and the cost of each added"
echo "   record, 10k->100k against 100k->1M: a fixed cost (the binary, the rules, the release"
echo "   windows) weighs on the small runs' per-record figures but not on what each record adds)"
declare -A per_time per_rss total_time total_rss
for n in 10000 100000 1000000; do
  file="$data/hostnames-$n.json"
  if [ "$n" = "$hostnames" ]; then
    t=$hostnames_json m=$hostnames_rss
  else
    cat "$file" > /dev/null
    t=$(median "${check[@]}" "$file" --format json)
    m=$(peak "${check[@]}" "$file" --format json)
  fi
  total_time[$n]=$t total_rss[$n]=$m
  per_time[$n]=$(awk -v t="$t" -v n="$n" 'BEGIN{printf "%.3f", t * 1e6 / n}')
  per_rss[$n]=$(awk -v m="$m" -v n="$n" 'BEGIN{printf "%.0f", m * 1024 / n}')
done
for n in 10000 100000 1000000; do
  line "$n: µs and bytes of peak RSS per record" "${per_time[$n]} µs ($(ratio "${per_time[$n]}" "${per_time[1000000]}")x), ${per_rss[$n]} B ($(ratio "${per_rss[$n]}" "${per_rss[1000000]}")x)"
done
# per added record between two sizes: time in µs, peak RSS in bytes
added() { # SMALL LARGE
  awk -v a="${total_time[$1]}" -v b="${total_time[$2]}" -v ma="${total_rss[$1]}" -v mb="${total_rss[$2]}" -v n="$(( $2 - $1 ))" \
    'BEGIN{printf "%.3f %.0f", (b - a) * 1e6 / n, (mb - ma) * 1024 / n}'
}
read -r small_time small_rss <<< "$(added 10000 100000)"
read -r large_time large_rss <<< "$(added 100000 1000000)"
time_ratio=$(ratio "$small_time" "$large_time")
rss_ratio=$(ratio "$small_rss" "$large_rss")
line "each added record, 10k->100k / 100k->1M" "$small_time / $large_time µs (${time_ratio}x, $(verdict "$time_ratio" within 0.15)), $small_rss / $large_rss B (${rss_ratio}x, $(verdict "$rss_ratio" within 0.15))"

# 5. The HTML report: its size, and the time Debian's Chromium (headless)
# takes to load, run and lay it out — a dump of the laid-out page less the
# same dump of an empty page, measured in the same rounds (the browser's own
# start-up cancels out). About 10,000 findings (38,000 hostnames), and the
# million hostnames of section 1.
echo
if [ -x /usr/bin/chromium ]; then
  html_hostnames=38000
  generate "$data/hostnames-$html_hostnames.json" --custom-hostnames --count "$html_hostnames"
  run_once "${check[@]}" "$data/hostnames-$html_hostnames.json" --format "html=$data/report-10k.html" --format "json=$data/report-10k.json"
  run_html_1m=("${check[@]}" "$data/hostnames-$hostnames.json" --format "html=$data/report-1m.html")
  html_1m=$(median "${run_html_1m[@]}")
  printf '<!DOCTYPE html>\n<title>empty</title>\n' > "$data/empty.html"
  profile=$(mktemp -d)
  browser=(chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run
    --disable-background-networking --disable-component-update --disable-sync "--user-data-dir=$profile" --dump-dom)
  run_empty=("${browser[@]}" "file://$PWD/$data/empty.html")
  run_10k=("${browser[@]}" "file://$PWD/$data/report-10k.html")
  run_1m=("${browser[@]}" "file://$PWD/$data/report-1m.html")
  interleaved empty=run_empty ten_k=run_10k one_m=run_1m
  render_10k=$(awk -v a="${med[ten_k]}" -v b="${med[empty]}" 'BEGIN{printf "%.2f", a - b}')
  render_1m=$(awk -v a="${med[one_m]}" -v b="${med[empty]}" 'BEGIN{printf "%.2f", a - b}')
  findings_10k=$(jq '.findings | length' "$data/report-10k.json")
  listed_10k=$(grep -c '<li class="finding' "$data/report-10k.html")
  listed_1m=$(grep -c '<li class="finding' "$data/report-1m.html")
  mb_of() { awk -v b="$(size "$1")" 'BEGIN{printf "%.1f", b/1e6}'; }
  echo "5. The HTML report (--format html) in Chromium, headless (an empty page: ${med[empty]} s)"
  line "$findings_10k findings: size, findings listed" "$(mb_of "$data/report-10k.html") MB, $listed_10k"
  line "$findings_10k findings: load and layout" "$render_10k s (target <= 2 s: $(verdict "$render_10k" '<=' 2))"
  line "$hostnames hostnames: size, findings listed" "$(mb_of "$data/report-1m.html") MB, $listed_1m (target <= 20 MB: $(verdict "$(mb_of "$data/report-1m.html")" '<=' 20))"
  line "$hostnames hostnames: load and layout" "$render_1m s"
  line "$hostnames hostnames: check --format html" "$html_1m s ($(ratio "$html_1m" "$json_1m")x the JSON report)"
  rm -rf "$profile"
else
  echo "5. The HTML report: skipped, no /usr/bin/chromium (apt-get install chromium)"
fi

# 6. Export at the size of a SaaS zone: 200 000 custom hostnames from the
# tests' stand-in service (pacing off), through loopback. Memory is held to a
# page, not the account: peak RSS against the size of the file written.
export_hostnames="${EXPORT_HOSTNAMES:-200000}"
cargo build --profile dist --quiet --example serve_account
coproc SERVE { ./target/dist/examples/serve_account --custom-hostnames "$export_hostnames"; }
read -r served <&"${SERVE[0]}"
export_env=(env "$(echo "$served" | cut -d' ' -f1)" CLOUDFLARE_API_TOKEN=test-token)
account=$(echo "$served" | sed 's/.*ACCOUNT=\([^ ]*\).*/\1/')
zone=$(echo "$served" | sed 's/.*ZONE=\([^ ]*\).*/\1/')
run_export=("${export_env[@]}" "$edgeaudit" export "$account" "$zone" -o "$data/export-$export_hostnames.json" --rate 0)
export_seconds=$(median "${run_export[@]}")
export_peak=$(for _ in $(seq "$runs"); do peak "${run_export[@]}" || exit 1; done | median_of)
export_size=$(size "$data/export-$export_hostnames.json")
exec {SERVE[1]}>&-
wait "$SERVE_PID" 2>/dev/null || true
echo "6. Export of $export_hostnames custom hostnames from the stand-in over loopback (pacing off)"
line "export: time" "$export_seconds s"
line "export: peak RSS, file written" "$(awk -v k="$export_peak" 'BEGIN{printf "%.0f", k/1024}') MiB, $(awk -v b="$export_size" 'BEGIN{printf "%.0f", b/1048576}') MiB"
line "export: peak RSS / file size" "$(awk -v k="$export_peak" -v b="$export_size" 'BEGIN{printf "%.3f", k*1024/b}') (target < 1: $(verdict "$(awk -v k="$export_peak" -v b="$export_size" 'BEGIN{printf "%.3f", k*1024/b}')" '<=' 1))"

# 7. Traffic: about 6 million Logpush lines in 12 gzip'd files (2.9 GB of JSON), about
# 100,000 custom hostnames of the exports. edgeaudit's whole check with --traffic against
# DuckDB's GROUP BY host, user agent over the same files (DuckDB from PyPI, here only), and
# edgeaudit's peak RSS (target: no slower than DuckDB, at most 256 MiB).
traffic_lines="${TRAFFIC_LINES:-6000000}"
traffic_dir="$data/logs-$traffic_lines"
cargo build --profile dist --quiet --example generate
[ -d "$traffic_dir" ] || ./target/dist/examples/generate --logpush "$traffic_dir" --count "$traffic_lines" --hosts 100000
generate "$data/hostnames-100000.json" --custom-hostnames --count 100000
python3 -c "import duckdb" 2>/dev/null || python3 -m pip install --quiet --disable-pip-version-check duckdb
cat > "$data/duckdb-traffic.py" <<PY
import duckdb
duckdb.sql("""COPY (SELECT ClientRequestHost AS host, ClientRequestUserAgent AS user_agent, count(*) AS requests
  FROM read_json('$traffic_dir/*/*.log.gz', format='newline_delimited',
    columns={'ClientRequestHost': 'VARCHAR', 'ClientRequestUserAgent': 'VARCHAR'})
  GROUP BY ALL) TO '$data/duckdb-traffic.csv' (HEADER)""")
PY
run_traffic=("${check[@]}" "$data/hostnames-100000.json" --format json --traffic "$traffic_dir")
run_duckdb=(python3 "$data/duckdb-traffic.py")
interleaved traffic=run_traffic duckdb=run_duckdb
traffic_peak=$(for _ in $(seq "$runs"); do peak "${run_traffic[@]}" || exit 1; done | median_of)
duckdb_peak=$(peak "${run_duckdb[@]}")
traffic_ratio=$(ratio "${med[traffic]}" "${med[duckdb]}")
echo "7. Traffic: $traffic_lines Logpush lines (gzip'd, $(du -sh "$traffic_dir" | cut -f1)) against 100,000 custom hostnames"
line "check --traffic (the whole check)" "${med[traffic]} s, $((traffic_peak / 1024)) MiB"
line "DuckDB GROUP BY host, user agent" "${med[duckdb]} s, $((duckdb_peak / 1024)) MiB"
line "edgeaudit / DuckDB" "${traffic_ratio}x (target <= 1: $(verdict "$traffic_ratio" '<=' 1))"
line "peak RSS" "$((traffic_peak / 1024)) MiB (target <= 256 MiB: $(verdict "$((traffic_peak / 1024))" '<=' 256))"

# 8. Apply at the size of a SaaS zone: plans of 20,000 and 60,000 custom
# hostname changes, memory a step and CPU against the steps (bench/apply.sh).
RUNS="$runs" EDGEAUDIT="$edgeaudit" bench/apply.sh
