#!/usr/bin/env bash
# Issue #45 item 5's starting point: what the persistent programs of every
# sample's plans spill once compiled (NVRTC, sm_90, H100 preset; `rammer
# schedule --compile`). Prints a markdown table: per sample and policy, the
# programs, the largest register count, the spill stores of the kernels and
# of their rKernel functions (bytes, summed over programs), how many
# programs spill at all, and the predicted latency of the compiled plan
# beside that of the policy's plan as `rammer schedule` gives it (--compile
# fits the registers: pipeline/register_fit.h). No GPU needed; NVRTC must
# load.
#   KEEP_SPILLS=1  compile the policy's plans as they are (--keep-spills)
#   POLICIES   default: sequential wavefront greedy ios graphturbo
#   MODELS     default: every model in <build>/samples and samples/models
#   BUILD_DIR  default: <repo>/build
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-$root/build}
policies=${POLICIES:-sequential wavefront greedy ios graphturbo}
out=$(mktemp -d /tmp/rammer-spills.XXXXXX)
trap 'rm -rf "$out"' EXIT
if [[ -n "${MODELS:-}" ]]; then
  models=$MODELS
else
  models=$(ls "$build"/samples/*.onnx "$root"/samples/models/*.onnx 2>/dev/null | xargs -n1 basename | sed 's/\.onnx$//' | sort -u)
fi
echo "| model | policy | programs | most registers | kernel spill B | rKernel spill B | programs spilling | predicted us | as planned us |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
for m in $models; do
  f=$build/samples/$m.onnx
  [[ -f $f ]] || f=$root/samples/models/$m.onnx
  for p in $policies; do
    if ! "$build/bin/rammer" -q schedule "$f" --policy "$p" --compile ${KEEP_SPILLS:+--keep-spills} --json > "$out/s.json" 2> "$out/err" ||
       ! "$build/bin/rammer" -q schedule "$f" --policy "$p" --json > "$out/plain.json" 2>> "$out/err"; then
      echo "| $m | $p | failed: $(head -c 120 "$out/err" | tr '\n|' '  ') | | | | | | |"
      continue
    fi
    python3 - "$m" "$p" "$out/s.json" "$out/plain.json" <<'PY'
import json, sys
m, p, path, plain = sys.argv[1:5]
j = json.load(open(path))
progs = j["compiled"]["programs"]
kern = sum(x["spill_bytes"] - x["function_spill_bytes"] for x in progs)
fn = sum(x["function_spill_bytes"] for x in progs)
spilling = sum(1 for x in progs if x["spill_bytes"] > 0)
planned = json.load(open(plain))["predicted_latency_us"]
print(f"| {m} | {p} | {len(progs)} | {max(x['registers'] for x in progs)} | {kern} | {fn} | {spilling} | "
      f"{j['predicted_latency_us']:.1f} | {planned:.1f} |")
PY
  done
done
