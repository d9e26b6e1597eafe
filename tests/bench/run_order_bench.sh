#!/usr/bin/env bash
# Issue #45 item 1: what the critical-path order (core/schedule/critical_order.h)
# changes in the predictions. For every sample and static policy, the
# predicted latency of a base build (before the order) and of this build,
# and this build's critical path: its length, compute, hand-off and
# queueing shares. Prints a markdown table.
#   BASE_BUILD   the build folder to compare with (required; its bin/rammer)
#   BUILD_DIR    this build (default: <repo>/build)
#   POLICIES     default: wavefront greedy ios graphturbo
#   EXTRA        more `rammer schedule` flags for both (e.g. --calibration FILE)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-$root/build}
base=${BASE_BUILD:?set BASE_BUILD to the build folder to compare with}
policies=${POLICIES:-wavefront greedy ios graphturbo}
out=$(mktemp -d /tmp/rammer-order.XXXXXX)
trap 'rm -rf "$out"' EXIT
echo "| model | policy | base us | this us | ratio | critical path us | compute | hand-off | queueing |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
for m in "$build"/samples/*.onnx; do
  for p in $policies; do
    # shellcheck disable=SC2086
    "$base/bin/rammer" -q schedule "$m" --policy "$p" ${EXTRA:-} --json > "$out/base.json"
    # shellcheck disable=SC2086
    "$build/bin/rammer" -q schedule "$m" --policy "$p" ${EXTRA:-} --json > "$out/this.json"
    python3 - "$(basename "$m" .onnx)" "$p" "$out/base.json" "$out/this.json" <<'PY'
import json, sys
name, policy = sys.argv[1], sys.argv[2]
a, b = json.load(open(sys.argv[3])), json.load(open(sys.argv[4]))
x, y, c = a["predicted_latency_us"], b["predicted_latency_us"], b["critical_path"]
share = lambda k: f"{100 * c[k] / c['length_us']:.0f}%"
print(f"| {name} | {policy} | {x:.1f} | {y:.1f} | {y / x:.3f} | {c['length_us']:.1f} | "
      f"{share('compute_us')} | {share('handoff_us')} | {share('queueing_us')} |")
PY
  done
done
