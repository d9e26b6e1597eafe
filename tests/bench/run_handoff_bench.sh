#!/usr/bin/env bash
# Issue #45 item 2: the hand-off microbenchmark. The handoff_chain sample
# (samples/zoo/handoff_chain.h: 128 dependent GEMV links and nothing
# beside them) runs with per-rTask timing; its measured critical path is the
# chain, and each link's hand-off (the producer's last rTask's end to the
# consumer's first start, rammer schedule --measured) is one sample. Prints
# a markdown table of their median and p99 per backend and policy, beside
# the run's latency. The goal on a GPU: median <= 1.5 us, p99 <= 4 us.
#   BACKENDS  default: host (this machine's CPU); on a lease: cuda
#   POLICIES  default: wavefront dynamic
#   BUILD_DIR default: <repo>/build
#   OUT_DIR   keep the model, traces and JSON there (default: a temporary folder)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-$root/build}
policies=${POLICIES:-wavefront dynamic}
backends=${BACKENDS:-host}
if [[ -n "${OUT_DIR:-}" ]]; then
  out=$OUT_DIR
  mkdir -p "$out"
else
  out=$(mktemp -d /tmp/rammer-handoff.XXXXXX)
  trap 'rm -rf "$out"' EXIT
fi
rammer=${RAMMER:-$build/bin/rammer}
samples=${RAMMER_SAMPLES:-$build/bin/rammer-samples}
"$samples" "$out" --only handoff_chain --batch 1 --seed 1 > /dev/null
model=$out/handoff_chain.onnx
echo "| backend | policy | check | run us | path us | hand-offs | median us | p99 us | max us |"
echo "|---|---|---|---:|---:|---:|---:|---:|---:|"
for b in $backends; do
  for p in $policies; do
    trace=$out/$b-$p.trace.json
    # The outputs are checked against the reference; a failed check is
    # reported in the row (the lease's dry run has kernels that do nothing).
    check=PASS
    "$rammer" -q run "$model" --backend "$b" --policy "$p" --random --seed 1 --outputs "$out/$b-$p.out" \
      --trace "$trace" > "$out/$b-$p.run.txt" 2>&1 || check=FAIL
    if [[ ! -f $trace ]]; then
      echo "| $b | $p | $check, no trace | - | - | - | - | - | - |"
      continue
    fi
    python3 "$root/tests/bench/gpu/compact_trace.py" "$trace" "$out/$b-$p.trace.json.xz" && rm -f "$trace"
    "$rammer" -q schedule "$model" --policy "$p" --measured "$out/$b-$p.trace.json.xz" --json > "$out/$b-$p.json"
    python3 - "$b" "$p" "$check" "$out/$b-$p.json" <<'PY'
import json, sys
backend, policy, check, path = sys.argv[1:5]
m = json.load(open(path))["measured"]
c = m["critical_path"]
print(f"| {backend} | {policy} | {check} | {m['total_us']:.1f} | {c['length_us']:.1f} | {c['handoffs']} | "
      f"{c['handoff_median_us']:.2f} | {c['handoff_p99_us']:.2f} | {c['handoff_max_us']:.2f} |")
PY
  done
done
