#!/usr/bin/env bash
# GPU checks, for a machine with an NVIDIA GPU and driver (CI has none):
#   1. the runtime tests, which must run rather than skip there;
#   2. `rammer run --backend cuda` on every sample model x policy, printing a
#      table of latency (median, p10, p90 in us) and the output check.
# Usage: tests/bench/gpu/run_gpu_checks.sh [BUILD_DIR] [REPEAT] [MODEL_REGEX]
# Exit status: 0 when every test passed and every run matched the reference.
set -uo pipefail

root=$(cd "$(dirname "$0")/../../.." && pwd)
build=${1:-$root/build}
repeat=${2:-20}
only=${3:-.}
rammer=$build/bin/rammer
tests=$build/bin/runtime_tests
out=$(mktemp -d)
status=0

source "$root/tests/bench/gpu/gpu_check_common.sh"
require_built "$rammer" "$tests"
run_gpu_tests "runtime tests" "$tests" "$out/tests.log" || status=1

echo
echo "== rammer run --backend cuda (repeat $repeat)"
# Committed small models first; generated ones of the same name are copies.
models=()
declare -A seen
for m in "$root"/samples/models/*.onnx "$build"/samples/*.onnx; do
  name=$(basename "$m" .onnx)
  [[ -f $m && -z ${seen[$name]:-} && $name =~ $only ]] || continue
  seen[$name]=1
  models+=("$m")
done
printf '%-18s %-11s %10s %10s %10s %12s %s\n' model policy median_us p10_us p90_us max_rel_err check
for m in "${models[@]}"; do
  name=$(basename "$m" .onnx)
  for policy in sequential wavefront greedy; do
    log=$out/$name.$policy.txt
    timeout 600 "$rammer" -q run "$m" --backend cuda --policy "$policy" --repeat "$repeat" \
      --trace "$out/$name.$policy.trace.json" > "$log" 2>&1
    rc=$?
    # "latency   median 12.3 us over 20 runs (min 11.9, p10 12.0, p90 12.9, max 14.1)"
    lat=$(grep '^latency' "$log" | sed -E 's/.*median ([0-9.]+) us .*p10 ([0-9.]+), p90 ([0-9.]+),.*/\1 \2 \3/')
    # "outputs   PASS: max rel error 1.23e-06 (tolerance 1e-03) ..."
    check=$(grep '^outputs' "$log" | awk '{print $2}' | tr -d ':')
    err=$(grep '^outputs' "$log" | sed -E 's/.*max rel error ([^ ]+) .*/\1/')
    if [[ $rc -ne 0 || $check != PASS ]]; then
      status=1
      [[ -n $check ]] || check="ERROR (exit $rc): $(grep -m1 'error:' "$log")"
    fi
    read -r median p10 p90 <<< "${lat:-- - -}"
    printf '%-18s %-11s %10s %10s %10s %12s %s\n' "$name" "$policy" "$median" "$p10" "$p90" "${err:--}" "$check"
  done
done
echo
echo "logs and measured traces: $out"
exit $status
