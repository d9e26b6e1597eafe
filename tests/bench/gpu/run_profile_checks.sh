#!/usr/bin/env bash
# Profiler checks, for a machine with an NVIDIA GPU and driver (CI has none):
#   1. the profiler tests, which must run rather than skip there;
#   2. `rammer profile` on the six models of the Rammer evaluation x
#      policies, each into its own profile database, printing per run the
#      measured latency, the plan predicted by the analytic model and with
#      the database it just filled, what measured the kernel times and the
#      counters (CUPTI, or why not), and the kernel-time-weighted SM
#      efficiency and warp activity over its rPrograms ("~": estimates).
# Usage: tests/bench/gpu/run_profile_checks.sh [BUILD_DIR] [REPEAT] [MODEL_REGEX] [POLICIES]
# Exit status: 0 when every test passed and every profile run succeeded.
set -uo pipefail

root=$(cd "$(dirname "$0")/../../.." && pwd)
build=${1:-$root/build}
repeat=${2:-10}
only=${3:-.}
policies=${4:-sequential wavefront greedy}
rammer=$build/bin/rammer
tests=$build/bin/profiler_tests
python=$(command -v python3 || echo /usr/bin/python3)
out=$(mktemp -d)
status=0

source "$root/tests/bench/gpu/gpu_check_common.sh"
require_built "$rammer" "$tests"
run_gpu_tests "profiler tests" "$tests" "$out/tests.log" '^capability:' || status=1

echo
echo "== rammer profile (repeat $repeat)"
printf '%-16s %-11s %10s %12s %12s %8s %8s  %s\n' model policy meas_us analytic_us profiled_us sm_eff% warp_%  "kernel times | counters"
for name in resnext29_cifar nasnet_cifar alexnet deepspeech2 lstm_tc seq2seq; do
  m=$build/samples/$name.onnx
  [[ $name =~ $only ]] || continue
  if [[ ! -f $m ]]; then
    echo "missing $m: build the samples first" >&2
    status=1
    continue
  fi
  for policy in $policies; do
    json=$out/$name.$policy.json
    timeout 900 "$rammer" -q profile "$m" --policy "$policy" --repeat "$repeat" --db "$out/$name.$policy.db.json" \
      --json > "$json" 2> "$out/$name.$policy.err"
    rc=$?
    if [[ $rc -ne 0 ]]; then
      status=1
      printf '%-16s %-11s ERROR (exit %d): %s\n' "$name" "$policy" "$rc" "$(grep -m1 'error:' "$out/$name.$policy.err")"
      continue
    fi
    "$python" - "$json" "$name" "$policy" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
def weighted(key):
    num = den = 0.0
    measured = True
    for l in j["launches"]:
        w = (l["kernel_us"] or {}).get("median") or l["rtask_span_us"] or 0.0
        num += w * l[key]["value"]
        den += w
        measured = measured and l[key]["measured"]
    return ("%.1f" % (num / den) if den else "-") + ("" if measured else "~")
print("%-16s %-11s %10.1f %12.1f %12.1f %8s %8s  %s | %s" % (
    sys.argv[2], sys.argv[3], j["latency_us"]["median"], j["predicted_us"]["analytic"],
    j["predicted_us"]["profiled"], weighted("sm_efficiency_pct"), weighted("warp_activity_pct"),
    j["kernel_times"], j["counters"]))
PY
  done
done
echo
echo "profile JSON, databases and logs: $out"
exit $status
