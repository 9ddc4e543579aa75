#!/usr/bin/env bash
# Two builds on the benchmark's files in one run, their commands interleaved
# (A, B, A, B, …: a busy moment of the machine falls on both): the median
# time and peak RSS of each, and B against A. Run bench/run.sh first to
# generate bench-data/.
#
#   bench/compare.sh /tmp/edgeaudit-before ./target/dist/edgeaudit
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."
a=$1 b=$2 runs="${RUNS:-5}" data=bench-data
[ -x /usr/bin/time ] || { echo "installing time"; apt-get install -y time >/dev/null; }
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
measure() { # BINARY ARGS… -> "seconds kilobytes"
  /usr/bin/time -f "%e %M" -o /tmp/compare.time "$@" > /dev/null 2>&1 || true
  cat /tmp/compare.time
}
printf '%-44s %10s %10s %7s %9s %9s %7s\n' "" "A s" "B s" "B/A" "A MiB" "B MiB" "B/A"
compare() { # LABEL ARGS…
  local label=$1; shift
  local at=() bt=() am=() bm=()
  for _ in $(seq "$runs"); do
    read -r t m < <(measure "$a" "$@"); at+=("$t"); am+=("$m")
    read -r t m < <(measure "$b" "$@"); bt+=("$t"); bm+=("$m")
  done
  local ta tb ma mb
  ta=$(printf '%s\n' "${at[@]}" | median); tb=$(printf '%s\n' "${bt[@]}" | median)
  ma=$(printf '%s\n' "${am[@]}" | median); mb=$(printf '%s\n' "${bm[@]}" | median)
  awk -v l="$label" -v ta="$ta" -v tb="$tb" -v ma="$ma" -v mb="$mb" \
    'BEGIN {printf "%-44s %10.3f %10.3f %6.2fx %9.0f %9.0f %6.2fx\n", l, ta, tb, tb/ta, ma/1024, mb/1024, mb/ma}'
}
flags=(check --fail-on never --no-config --as-of 2024-10-01)
compare "1M hostnames, --format json" "${flags[@]}" "$data/hostnames-1000000.json" --format json
compare "1M hostnames JSON Lines, --format json" "${flags[@]}" "$data/hostnames-1000000.jsonl" --format json
compare "1M hostnames, --format sarif" "${flags[@]}" "$data/hostnames-1000000.json" --format sarif
compare "200k pools, --format json" "${flags[@]}" "$data/pools-200000.json" --format json
compare "100k hostnames YAML, --format json" "${flags[@]}" "$data/hostnames-100000.yaml" --format json
compare "100k hostnames, --format json" "${flags[@]}" "$data/hostnames-100000.json" --format json
compare "10k hostnames, --format json" "${flags[@]}" "$data/hostnames-10000.json" --format json
compare "200k pools, --format markdown" "${flags[@]}" "$data/pools-200000.json" --format markdown
compare "200k pools, plan --format json" plan "$data/pools-200000.json" --format json --as-of 2024-10-01 --no-config
