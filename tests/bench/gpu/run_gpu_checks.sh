#!/usr/bin/env bash
# The GPU measurement of ../shared/GPU.md in one call, for a machine with an
# NVIDIA GPU and driver (CI has none). Steps, in this order:
#   tests     the runtime and profiler tests that need a GPU (must run, not skip)
#   run       per model: seeded inputs, the CPU reference, then
#             `rammer run --backend cuda` per policy (sequential = RammerBase,
#             wavefront = Rammer, greedy, ios, graphturbo) and PyTorch eager,
#             each output checked by relative L2 error against the reference
#             before its CUDA-event latency counts
#   sanitize  compute-sanitizer memcheck, racecheck and synccheck on small
#             plans of every barrier shape
#   compile   torch.compile, default and mode="reduce-overhead" (CUDA graphs)
#   metrics   CUPTI SM efficiency and warp activity (`rammer run --metrics`)
# A lease is short, so the script keeps to --budget seconds: a step that would
# not fit is skipped and named in the summary. Results go to OUT (default
# $OUT, else a temporary folder): results.jsonl (one row per system run),
# summary.txt (the table, also printed last) and logs.tgz.
# Usage: tests/bench/gpu/run_gpu_checks.sh [--build DIR] [--budget S] [--repeat N]
#          [--models "a b"] [--policies "p q"] [--steps "tests run ..."] [--out DIR]
# Exit status: 0 when every step that ran passed.
set -uo pipefail

root=$(cd "$(dirname "$0")/../../.." && pwd)
build=$root/build
budget=540
repeat=200
models="alexnet resnext29_cifar nasnet_cifar deepspeech2 lstm_tc seq2seq"
policies="sequential wavefront greedy ios graphturbo"
steps="tests run sanitize compile metrics"
out=${OUT:-}
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$2 ;;
    --budget) budget=$2 ;;
    --repeat) repeat=$2 ;;
    --models) models=$2 ;;
    --policies) policies=$2 ;;
    --steps) steps=$2 ;;
    --out) out=$2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
[[ -n $out ]] || out=$(mktemp -d)
mkdir -p "$out"
bin=$(cd "$build" 2>/dev/null && pwd)/bin
[[ -x $bin/rammer ]] || bin=$(dirname "$(command -v rammer || echo /missing/rammer)")
rammer=$bin/rammer
python=$(command -v python3 || echo /usr/bin/python3)
tb=$root/tests/bench/gpu/torch_baseline.py
work=$(mktemp -d)
logs=$work/logs
mkdir -p "$logs"
results=$out/results.jsonl
: > "$results"
start=$SECONDS
status=0
skipped=()

source "$root/tests/bench/gpu/gpu_check_common.sh"
require_built "$rammer"

has_step() { [[ " $steps " == *" $1 "* ]]; }
left() { echo $((budget - (SECONDS - start))); }
# fits SECONDS WHAT: true when SECONDS of the budget are left, else records WHAT as skipped.
fits() {
  if (( $(left) >= $1 )); then return 0; fi
  skipped+=("$2")
  echo "skipped (budget): $2"
  return 1
}
pack() { tar czf "$out/logs.tgz" -C "$work" logs 2>/dev/null; }
# A time limit per command that never runs past the budget.
limit() { local l; l=$(left); (( l < $1 )) && echo $(( l > 5 ? l : 5 )) || echo "$1"; }

echo "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$logs/machine.txt"
"$python" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1 | tee -a "$logs/machine.txt"

if has_step tests; then
  fits 200 "GPU tests" && {
    mkdir -p "$work/tests"
    (cd "$work/tests" && run_gpu_tests "runtime GPU tests" "$bin/runtime_tests" "$logs/runtime_tests.log" \
      '' "--gtest_filter=GpuRun.*:Runtime/GpuSample.*:GpuExecution.*:RuntimeProbe.*") || status=1
    # The stand-in driver tests run in CI; the stand-in library is not bundled.
    run_gpu_tests "profiler tests" "$bin/profiler_tests" "$logs/profiler_tests.log" '^capability:' \
      "--gtest_filter=-*OnStandIn*" || status=1
  }
fi

# The samples: the build's when there, else generated here.
declare -A path
for m in $models; do
  for f in "$root/samples/models/$m.onnx" "$build/samples/$m.onnx" "$work/samples/$m.onnx"; do
    [[ -f $f ]] && { path[$m]=$f; break; }
  done
done
missing=$(for m in $models; do [[ -n ${path[$m]:-} ]] || echo "$m"; done | paste -sd,)
if [[ -n $missing ]]; then
  echo "== generating $missing"
  "$bin/rammer-samples" --only "$missing" "$work/samples" > "$logs/samples.log" 2>&1 || { status=1; tail -3 "$logs/samples.log"; }
  for m in $models; do [[ -f $work/samples/$m.onnx ]] && path[$m]=$work/samples/$m.onnx; done
fi

# row JSON...: appends one result row.
row() { echo "$1" >> "$results"; }

# rammer_cuda MODEL POLICY: one `rammer run --backend cuda`, its outputs checked by relative L2.
rammer_cuda() {
  local m=$1 p=$2 d=$work/$1 log=$logs/$1.$2.json rc
  timeout "$(limit 240)" "$rammer" -q run "${path[$m]}" --backend cuda --policy "$p" --inputs "$d/in" \
    --outputs "$d/out.$p" --repeat "$repeat" --json > "$log" 2> "$logs/$m.$p.err"
  rc=$?
  "$python" - "$log" "$m" "$p" "$rc" "$d" "$tb" "$logs/$m.$p.err" <<'PY' >> "$results"
import json, subprocess, sys
log, model, policy, rc, d, tb, err = sys.argv[1:]
system = {"sequential": "rammerbase", "wavefront": "rammer"}.get(policy, "rammer-" + policy)
row = {"model": model, "system": system, "policy": policy}
try:
    j = json.load(open(log))
    row["latency_us"] = j["latency_us"]
    row["max_rel_error"] = j["output_check"]["max_rel_error"]
    row["programs"] = j["programs"]
    row["max_registers"] = j["max_registers"]
    c = json.loads(subprocess.run([sys.executable, tb, "-", "--compare", d + "/out." + policy, "--expected", d + "/ref"],
                                  capture_output=True, text=True).stdout)
    row["rel_l2"] = c["rel_l2"]
    row["check"] = "PASS" if c["pass"] and rc == "0" else "FAIL"
except Exception as e:
    lines = [l for l in open(err).read().splitlines() if l.strip()]
    row["check"] = "ERROR"
    row["error"] = "exit %s: %s" % (rc, (lines[-1] if lines else repr(e))[:300])
print(json.dumps(row))
PY
  tail -n 1 "$results"
  grep -q '"check": "PASS"' <(tail -n 1 "$results") || status=1
}

# torch_modes MODEL MODES TIMEOUT
torch_modes() {
  local m=$1 d=$work/$1
  timeout "$(limit "$3")" "$python" "$tb" "${path[$m]}" --inputs "$d/in" --expected "$d/ref" --repeat "$repeat" \
    --modes "$2" > "$logs/$m.torch.$2.jsonl" 2> "$logs/$m.torch.$2.err"
  local rc=$?
  cat "$logs/$m.torch.$2.jsonl" | tee -a "$results"
  [[ $rc -eq 0 ]] || status=1
  if [[ ! -s $logs/$m.torch.$2.jsonl ]]; then
    local why="exit $rc: $(grep -v '^\s*$' "$logs/$m.torch.$2.err" | tail -n 1 | tr -d '"\\' | cut -c1-200)"
    [[ $rc -eq 124 ]] && why="timed out"
    row "{\"model\": \"$m\", \"system\": \"pytorch-$2\", \"check\": \"ERROR\", \"error\": \"$why\"}"
    tail -n 1 "$results"
  fi
}

if has_step run; then
  echo
  echo "== rammer run --backend cuda and PyTorch eager (repeat $repeat)"
  for m in $models; do
    [[ -n ${path[$m]:-} ]] || { status=1; echo "no model $m"; continue; }
    d=$work/$m
    fits 30 "$m: all systems" || continue
    "$python" "$tb" "${path[$m]}" --write-inputs "$d/in" &&
      "$rammer" -q run "${path[$m]}" --backend reference --inputs "$d/in" --outputs "$d/ref" > "$logs/$m.ref.log" 2>&1 ||
      { status=1; echo "$m: inputs or reference failed"; continue; }
    for p in $policies; do
      fits 20 "$m: $p" && rammer_cuda "$m" "$p"
    done
    fits 20 "$m: pytorch eager" && torch_modes "$m" eager 120
    pack
  done
fi

sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer \
  /usr/local/cuda/compute-sanitizer/compute-sanitizer 2>/dev/null | head -n 1)
if has_step sanitize; then
  echo
  echo "== compute-sanitizer on small plans"
  # inception_block: parallel branches, so wavefront, greedy, ios and
  # graphturbo plans hold barriers of every kind; sequential has none.
  for tool in memcheck racecheck synccheck; do
    for p in wavefront greedy ios graphturbo sequential; do
      fits 40 "sanitizer $tool $p" || continue
      log=$logs/sanitize.$tool.$p.log
      timeout "$(limit 120)" "${sanitizer:-compute-sanitizer}" --tool "$tool" --error-exitcode 9 "$rammer" -q run \
        "$root/samples/models/inception_block.onnx" --backend cuda --policy "$p" --random --repeat 1 > "$log" 2>&1
      rc=$?
      summary=$(grep -m1 'ERROR SUMMARY' "$log" || echo "no summary (exit $rc)")
      check=PASS
      [[ $rc -eq 0 ]] || { check=FAIL; status=1; }
      row "{\"model\": \"inception_block\", \"system\": \"compute-sanitizer $tool\", \"policy\": \"$p\", \"check\": \"$check\", \"summary\": \"$summary\"}"
      echo "$tool $p: $check ($summary)"
    done
  done
  pack
fi

if has_step compile; then
  echo
  echo "== torch.compile (default, reduce-overhead)"
  for m in $models; do
    [[ -d $work/$m/ref ]] || continue
    fits 60 "$m: torch.compile" && torch_modes "$m" compile,reduce-overhead 300
    pack
  done
fi

if has_step metrics; then
  echo
  echo "== CUPTI metrics (rammer run --metrics)"
  for m in $models; do
    [[ -d $work/$m/ref ]] || continue
    for p in sequential wavefront; do
      fits 40 "$m: metrics $p" || continue
      timeout "$(limit 180)" "$rammer" -q run "${path[$m]}" --backend cuda --policy "$p" --inputs "$work/$m/in" \
        --repeat 20 --metrics --json > "$logs/$m.$p.metrics.json" 2> "$logs/$m.$p.metrics.err" || status=1
      "$python" - "$logs/$m.$p.metrics.json" "$m" "$p" <<'PY' | tee -a "$results"
import json, sys
model, policy = sys.argv[2], sys.argv[3]
system = {"sequential": "rammerbase", "wavefront": "rammer"}.get(policy, "rammer-" + policy)
row = {"model": model, "system": system + " metrics", "policy": policy}
try:
    m = json.load(open(sys.argv[1]))["metrics"]
    row.update({"available": m["available"], "counters": m["counters"], "kernel_times": m["kernel_times"],
                "sm_efficiency_pct": m["total"]["sm_efficiency_pct"], "warp_activity_pct": m["total"]["warp_activity_pct"]})
    if not m["available"]:
        row["reason"] = m.get("reason")
except Exception as e:
    row["error"] = repr(e)[:200]
print(json.dumps(row))
PY
    done
  done
  pack
fi

pack
echo
"$python" - "$results" "${skipped[@]}" <<'PY' | tee "$out/summary.txt"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print("%-16s %-22s %10s %10s %10s %10s  %s" % ("model", "system", "median_us", "p10_us", "p90_us", "rel_l2", "check"))
for r in rows:
    if "latency_us" in r or r.get("check") in ("ERROR", "FAIL") and "summary" not in r:
        lat = r.get("latency_us") or {}
        f = lambda k: "%.1f" % lat[k] if k in lat else "-"
        err = "%.1e" % r["rel_l2"] if isinstance(r.get("rel_l2"), float) else "-"
        print("%-16s %-22s %10s %10s %10s %10s  %s %s" % (r["model"], r["system"], f("median"), f("p10"), f("p90"), err,
              r.get("check", "ERROR"), r.get("error", "")))
for r in rows:
    if "summary" in r:
        print("%-16s %-34s %-10s %s %s" % (r["model"], r["system"], r["policy"], r["check"], r["summary"]))
    if "sm_efficiency_pct" in r or " metrics" in r["system"]:
        g = lambda k: ("%.1f" % r[k]["value"] + ("" if r[k]["measured"] else "~")) if r.get(k) and r[k]["value"] is not None else "-"
        print("%-16s %-22s sm_eff %6s%%  warp_act %6s%%  %s" % (r["model"], r["system"], g("sm_efficiency_pct"),
              g("warp_activity_pct"), r.get("counters") or r.get("reason") or r.get("error", "")))
for s in sys.argv[2:]:
    print("skipped (budget):", s)
PY
echo "elapsed $((SECONDS - start)) s; results in $out"
exit $status
