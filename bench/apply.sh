#!/usr/bin/env bash
# Section 8 of the benchmark (bench/run.sh runs it last; it runs alone too):
# apply at the size of a SaaS zone. Plans of 20,000 and 60,000 custom hostname
# changes (a third of 60,000 and 180,000 hostnames are on Let's Encrypt), each
# run against a fresh stand-in of the current API reference over loopback,
# pacing off. Targets: memory at most about 1 KB a step (what 40,000 more
# steps add to the peak), CPU linear in the steps (60k / 20k about 3).
#
#   bench/apply.sh                      20k and 60k steps, RUNS (default 3) runs each
#   APPLY_STEPS="2000 6000" bench/apply.sh   other sizes (the first and last are compared)
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."
runs="${RUNS:-3}"
data=bench-data
edgeaudit="${EDGEAUDIT:-./target/dist/edgeaudit}"
read -r -a sizes <<< "${APPLY_STEPS:-20000 60000}"
[ -x /usr/bin/time ] || { echo "installing time"; apt-get install -y time >/dev/null; }
cargo build --profile dist --quiet --bin edgeaudit --example serve_account
mkdir -p "$data"

# One apply of a plan of STEPS hostname changes against a fresh stand-in:
# "user_seconds system_seconds peak_kib plan_peak_kib" (the last: `plan`
# making that plan from the export).
apply_once() {
  local steps=$1 served account zone
  coproc SERVE { ./target/dist/examples/serve_account --custom-hostnames "$((steps * 3))"; }
  read -r served <&"${SERVE[0]}"
  local env_=(env "$(echo "$served" | cut -d' ' -f1)" CLOUDFLARE_API_TOKEN=test-token)
  account=$(echo "$served" | sed 's/.*ACCOUNT=\([^ ]*\).*/\1/')
  zone=$(echo "$served" | sed 's/.*ZONE=\([^ ]*\).*/\1/')
  rm -f "$data/apply-export-$steps.json"
  if ! "${env_[@]}" "$edgeaudit" export "$account" "$zone" -o "$data/apply-export-$steps.json" --rate 0 >"$data/export-$steps.log" 2>&1; then
    echo "bench: export of $steps steps failed (see $data/export-$steps.log)" >&2
    return 1
  fi
  # A plan that fails stops the bench: an earlier run's plan file must not stand in for it.
  rm -f "$data/apply-plan-$steps.json"
  if ! /usr/bin/time -o "$data/.plan-time" -f "%M" "$edgeaudit" plan "$data/apply-export-$steps.json" --format json --no-config --as-of 2024-10-01 -o "$data/apply-plan-$steps.json" >"$data/plan-$steps.log" 2>&1; then
    echo "bench: plan of $steps steps failed (see $data/plan-$steps.log)" >&2
    return 1
  fi
  if ! /usr/bin/time -o "$data/.apply-time" -f "%U %S %M" "${env_[@]}" "$edgeaudit" apply "$data/apply-plan-$steps.json" --yes --rate 0 >"$data/apply-$steps.log" 2>&1; then
    echo "bench: apply of $steps steps failed (see $data/apply-$steps.log)" >&2
    return 1
  fi
  exec {SERVE[1]}>&-
  wait "$SERVE_PID" 2>/dev/null || true
  echo "$(tail -n 1 "$data/.apply-time") $(tail -n 1 "$data/.plan-time")"
}

median() { sort -n | awk '{a[NR]=$1} END{print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

declare -A cpu peak plan_peak
for steps in "${sizes[@]}"; do
  results=()
  for _ in $(seq "$runs"); do results+=("$(apply_once "$steps")"); done
  cpu[$steps]=$(printf '%s\n' "${results[@]}" | awk '{print $1 + $2}' | median)
  peak[$steps]=$(printf '%s\n' "${results[@]}" | awk '{print $3}' | median)
  plan_peak[$steps]=$(printf '%s\n' "${results[@]}" | awk '{print $4}' | median)
done
first=${sizes[0]}
last=${sizes[${#sizes[@]}-1]}
echo "8. Apply of plans of ${sizes[*]} custom hostname changes against the stand-in (current reference, pacing off; medians of $runs)"
for steps in "${sizes[@]}"; do
  printf '  %-44s %s\n' "$steps steps: CPU, peak RSS" "${cpu[$steps]} s, $((peak[$steps] / 1024)) MiB ($(awk -v k="${peak[$steps]}" -v n="$steps" 'BEGIN{printf "%.2f", k*1024/n/1000}') KB a step all in)"
done
per_step=$(awk -v a="${peak[$first]}" -v b="${peak[$last]}" -v n="$first" -v m="$last" 'BEGIN{printf "%.2f", (b-a)*1024/(m-n)/1000}')
cpu_ratio=$(awk -v a="${cpu[$first]}" -v b="${cpu[$last]}" 'BEGIN{printf "%.2f", b/a}')
steps_ratio=$(awk -v n="$first" -v m="$last" 'BEGIN{printf "%.2f", m/n}')
printf '  %-44s %s\n' "memory each step adds ($first to $last)" "$per_step KB (target: about 1 KB or less)"
printf '  %-44s %s\n' "CPU $last / $first" "${cpu_ratio}x for ${steps_ratio}x the steps (target: linear)"
plan_per_step=$(awk -v a="${plan_peak[$first]}" -v b="${plan_peak[$last]}" -v n="$first" -v m="$last" 'BEGIN{printf "%.2f", (b-a)*1024/(m-n)/1000}')
printf '  %-44s %s\n' "plan: memory each step adds" "$plan_per_step KB (peaks $((plan_peak[$first] / 1024)) and $((plan_peak[$last] / 1024)) MiB; the export is read whole, as check reads it)"
