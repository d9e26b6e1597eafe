#!/usr/bin/env bash
# What the next lease owes (issue #43 item 4), most valuable first, in one
# call or two (`--steps`). Each step keeps to the deadline, writes its rows
# with their provenance as it goes and packs its folder into OUT, so a call
# cut short keeps what ran:
#   traces   t/lease.tgz.NN: record_lease.sh tiers 1, 5, 2, 3: every
#            sample and tiny transformer under every policy, the paper
#            models' RammerBase, Rammer, dynamic and the other policies,
#            with this build's kernels and per-rTask traces (the
#            calibration's input), CUPTI beside a few
#   handoff  handoff.tgz: the hand-off microbenchmark (issue #45 item 2,
#            tests/bench/run_handoff_bench.sh): the handoff_chain sample's
#            128 dependent links under wavefront and dynamic, traced; the
#            median and p99 hand-off against the goal (<= 1.5 / 4 us)
#   cells    cells.tgz: persistent cells (issue #45 item 3): lstm_tc,
#            seq2seq and deepspeech2 under wavefront with their cells'
#            weights kept on chip where the analytic model keeps them and
#            with --reload-weights, traced (`dynamic_table.py DIR/cells
#            --baseline wavefrontReload --policy wavefront`)
#   shards   shards.tgz: the dynamic policy's claim shards (issue #31 item
#            1): resnext29, nasnet and lstm_tc at 1, 2 and 4 vEUs per SM x
#            K = 1, 8, 132 shards, traced (`dynamic_table.py DIR --baseline
#            dynamicV4K1 --policy dynamicV4K132`): does the 3.3 us dispatch
#            fall with fewer contenders on one counter?
#   nodes    nodes.tgz: PyTorch eager (200 runs) and every Conv, Gemm,
#            MatMul and LSTM node alone (torch_baseline.py --per-node) on
#            the six paper models: the per-rKernel table against
#            cuDNN/cuBLAS (rkernel_table.py) with tier 1's traces
#   graph    graph.tgz: RammerBase and Rammer of the six paper models with
#            their launches replayed as one CUDA graph (`rammer run --launch
#            graph`), the baseline torch.compile's reduce-overhead and
#            TensorRT pick, beside tier 1's stream launches
#   compile  compile.tgz: torch.compile reduce-overhead, default and
#            max-autotune on the six at batch 1, each with its compile time
#   race     race.tgz: compute-sanitizer racecheck on lstm_tc's wavefront
#            plan (barriers on up to 223 vEUs; 75 s did not do)
# Then, here (no GPU): tests/bench/gpu/after_lease.sh OUT NAME unpacks
# everything into tests/data/gpu_traces/NAME, refits the efficiencies and
# the calibration from the rows and prints the tables (the doc's blocks
# come from `doc_tables.py --write` once they name the lease).
#
# Before the lease, here: build (Release, -DCMAKE_CUDA_ARCHITECTURES=90),
# `../shared/tools/gpu-bundle .gpu build/bin/rammer build/bin/rammer-samples`,
# `python3 tests/bench/gpu/provenance.py --write-commit .gpu/commit.txt` (the
# GPU machine gets no .git), and `tests/bench/gpu/lease_dry_run.sh` (CI's
# cli.lease_dry_run) for the script itself. The device call: carry .gpu,
# `source .gpu/env.sh; tests/bench/gpu/lease_next.sh 500 --steps ...`.
#
# Usage: source .gpu/env.sh; tests/bench/gpu/lease_next.sh SECONDS
#          [--steps "traces handoff cells shards nodes graph compile race"] [--lease NAME]
# The lease's two calls (15 minutes of device time, the machine's start among
# them): `lease_next.sh 500 --steps "traces handoff cells shards nodes
# graph"`, then `lease_next.sh 180 --steps "compile race"`.
# LEASE_MODELS="a b" narrows every step to those models (the dry run against
# the stand-in driver, lease_dry_run.sh, keeps to small ones).
set -u
seconds=${1:-540}
shift
steps="traces handoff cells shards nodes graph compile race"
lease_name=auto
while [[ $# -gt 0 ]]; do
  case $1 in
    --steps) steps=$2 ;;
    --lease) lease_name=$2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
end=$((SECONDS + seconds))
root=$(cd "$(dirname "$0")/../../.." && pwd)
g=$root/tests/bench/gpu
out=${OUT:-/tmp/lease-out}
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT  # every step packs what it keeps into OUT
mkdir -p "$out"
rammer=$(command -v rammer) || { echo "rammer is not on PATH (source .gpu/env.sh)" >&2; exit 2; }
export LEASE_COMMAND="tests/bench/gpu/lease_next.sh $seconds --steps \"$steps\""
prov=$w/provenance.json
python3 "$g/provenance.py" --lease "$lease_name" --rammer "$rammer" --command "$LEASE_COMMAND" > "$prov" ||
  { echo "provenance.py failed" >&2; exit 2; }
lease_name=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["lease"])' "$prov")

paper=${LEASE_MODELS:-alexnet resnext29_cifar nasnet_cifar deepspeech2 lstm_tc seq2seq}
shard_models=${LEASE_MODELS:-resnext29_cifar nasnet_cifar lstm_tc}
cell_models=${LEASE_MODELS:-lstm_tc seq2seq deepspeech2}
has() { [[ " $steps " == *" $1 "* ]]; }
left() { echo $((end - SECONDS)); }
# The seconds the later steps of this call need at least, kept back from an
# earlier one.
reserve() {
  local s=0 step
  for step in "$@"; do
    has "$step" || continue
    case $step in handoff) s=$((s + 60)) ;; cells) s=$((s + 90)) ;; shards) s=$((s + 90)) ;; nodes) s=$((s + 90)) ;; graph) s=$((s + 60)) ;;
      compile) s=$((s + 60)) ;; race) s=$((s + 70)) ;; esac
  done
  echo $s
}
pack() { tar czf "$out/$1.tgz.part" -C "$w" "$1" && mv "$out/$1.tgz.part" "$out/$1.tgz"; }
# step_provenance DIR STEP: DIR/provenance.json, the lease's with the step named.
step_provenance() {
  mkdir -p "$1"
  python3 - "$prov" "$2" > "$1/provenance.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["command"] += " (its step %s)" % sys.argv[2]
print(json.dumps(p, indent=1))
PY
}
echo "lease $lease_name: $(python3 -c 'import json, sys; p = json.load(open(sys.argv[1])); print(p["device"], "driver", p["driver"], "CUDA", p["cuda"], "torch", p["torch"], "commit", p["commit"])' "$prov")"
models=$w/m
# shellcheck disable=SC2086
"$(dirname "$rammer")/rammer-samples" --only "$(echo $paper $shard_models $cell_models | tr ' ' '\n' | sort -u | paste -sd,)" \
  "$models" > /dev/null 2>&1
model_file() {
  local f=$models/$1.onnx
  [[ -f $f ]] || f=$root/samples/models/$1.onnx
  [[ -f $f ]] || f=$root/tests/data/transformers/$1/model.onnx
  echo "$f"
}

if has traces; then
  b=$(( $(left) - $(reserve handoff cells shards nodes graph compile race) ))
  echo "### traces ($b s of $(left))"
  if (( b > 60 )); then
    "$g/record_lease.sh" --seconds "$b" --tiers "1 5 2 3" --jobs 4 --repeat 50 --metrics-seconds 40 \
      --metrics-keys "alexnet.wavefront resnext29_cifar.wavefront lstm_tc.wavefront lstm_tc.dynamic" \
      --lease "$lease_name" --out "$out/t" ${LEASE_MODELS:+--only "$LEASE_MODELS"} 2>&1 | grep -vE "^ *$" | cut -c1-150
  fi
fi

if has handoff; then
  # Two short runs and their traces (a compile of one rKernel, 128 links):
  # at most 90 s, less what the later steps need.
  b=$(( $(left) - $(reserve cells shards nodes graph compile race) ))
  (( b > 90 )) && b=90
  echo "### hand-offs ($b s of $(left))"
  d=$w/handoff
  step_provenance "$d" handoff
  if (( b > 20 )); then
    BACKENDS=cuda OUT_DIR=$d/runs RAMMER=$rammer RAMMER_SAMPLES=$(dirname "$rammer")/rammer-samples \
      timeout "$b" "$root/tests/bench/run_handoff_bench.sh" | tee "$d/handoff.md"
    rm -f "$d"/runs/*.onnx
  fi
  pack handoff
fi

# keep_run DIR KEY: DIR/KEY.trace.json as columns (compact_trace.py) and
# DIR/runs/KEY.run.json xz-packed, both under DIR/runs.
keep_run() {
  local d=$1 key=$2
  [[ -f $d/$key.trace.json ]] && python3 "$g/compact_trace.py" "$d/$key.trace.json" "$d/runs/$key.trace.json.xz" &&
    rm -f "$d/$key.trace.json"
  if [[ -s $d/runs/$key.run.json ]]; then
    python3 -c 'import lzma, shutil, sys
with open(sys.argv[1], "rb") as i, lzma.open(sys.argv[1] + ".xz", "wb") as o: shutil.copyfileobj(i, o)' \
      "$d/runs/$key.run.json"
  fi
  rm -f "$d/runs/$key.run.json"
}

# shard_run MODEL VEUS K: one dynamic run with its claim shards, traced.
shard_run() {
  local m=$1 v=$2 k=$3 node
  case $m in lstm_tc) node=rnn.lstm0/l0/t0/x ;; sample_cnn) node=stem ;; *) node=stem.conv ;; esac
  local key=$m.dynamicV${v}K$k d=$w/shards budget=$((shards_deadline - $(date +%s)))
  (( budget > 15 )) || { echo "$key: no time"; return; }
  echo "{\"version\": 1, \"edits\": [{\"op\": \"vdevice\", \"node\": \"$node\", \"veus_per_sm\": $v}," \
    "{\"op\": \"claim_shards\", \"node\": \"$node\", \"shards\": $k}]}" > "$d/$key.edits.json"
  timeout "$budget" rammer -q run "$(model_file "$m")" --backend cuda --policy dynamic \
    --schedule "$d/$key.edits.json" --random --seed 1 --repeat 50 --gpu-lock "$d/gpu.lock" --json \
    --trace "$d/$key.trace.json" > "$d/runs/$key.run.json" 2> "$d/$key.err"
  echo "$key: exit $? $(grep -o '"median": *[0-9.]*' "$d/runs/$key.run.json" | head -1)"
  keep_run "$d" "$key"
}

# cell_run MODEL LABEL [FLAGS]: one wavefront run (FLAGS: --reload-weights), traced.
cell_run() {
  local m=$1 label=$2
  shift 2
  local key=$m.$label d=$w/cells budget=$((cells_deadline - $(date +%s)))
  (( budget > 15 )) || { echo "$key: no time"; return; }
  timeout "$budget" rammer -q run "$(model_file "$m")" --backend cuda --policy wavefront "$@" --random --seed 1 \
    --repeat 50 --json --trace "$d/$key.trace.json" > "$d/runs/$key.run.json" 2> "$d/$key.err"
  echo "$key: exit $? $(grep -o '"median": *[0-9.]*' "$d/runs/$key.run.json" | head -1)"
  keep_run "$d" "$key"
}
export -f shard_run keep_run model_file
export w g models root

if has cells; then
  # Each model's kept plan and its reloading plan, one after the other (the
  # A/B of one step's conditions); the paper models are generated above.
  b=$(( $(left) - $(reserve shards nodes graph compile race) ))
  echo "### persistent cells ($b s of $(left))"
  step_provenance "$w/cells" cells
  mkdir -p "$w/cells/runs"
  cells_deadline=$(( $(date +%s) + b ))
  if (( b > 30 )); then
    for m in $cell_models; do
      cell_run "$m" wavefront
      cell_run "$m" wavefrontReload --reload-weights
    done
  fi
  pack cells
fi

if has shards; then
  b=$(( $(left) - $(reserve nodes graph compile race) ))
  echo "### claim shards ($b s of $(left))"
  step_provenance "$w/shards" shards
  mkdir -p "$w/shards/runs"
  if (( b > 30 )); then
    # Epoch seconds: the runs go on in child shells, where SECONDS restarts.
    export shards_deadline=$(( $(date +%s) + b ))
    for m in $shard_models; do for v in 4 1 2; do for k in 1 132 8; do echo "$m $v $k"; done; done; done |
      xargs -P 3 -L 1 bash -c 'shard_run "$@"' _
  fi
  pack shards
fi

if has nodes; then
  b=$(( $(left) - $(reserve graph compile race) ))
  echo "### PyTorch eager and per node ($b s of $(left))"
  d=$w/nodes
  step_provenance "$d" nodes
  stop=$((SECONDS + b))
  for m in $paper; do
    (( stop - SECONDS > 15 )) || { echo "$m: no time"; continue; }
    f=$(model_file "$m") io=$w/io/$m
    python3 "$g/torch_baseline.py" "$f" --write-inputs "$io/in" > /dev/null &&
      timeout 60 rammer -q run "$f" --backend reference --inputs "$io/in" --outputs "$io/ref" > /dev/null 2>&1 ||
      { echo "$m: no reference"; continue; }
    timeout $((stop - SECONDS)) python3 "$g/torch_baseline.py" "$f" --inputs "$io/in" --expected "$io/ref" \
      --modes eager --repeat 200 --provenance "$d/provenance.json" | tee -a "$d/pytorch.jsonl" | cut -c1-150
    timeout $((stop - SECONDS)) python3 "$g/torch_baseline.py" "$f" --inputs "$io/in" --per-node --repeat 50 \
      --warmup 5 --provenance "$d/provenance.json" >> "$d/pytorch_nodes.jsonl"
    echo "$m: $(grep -c "\"model\": \"$m\"" "$d/pytorch_nodes.jsonl") nodes timed"
  done
  pack nodes
fi

if has graph; then
  b=$(( $(left) - $(reserve compile race) ))
  echo "### RammerBase and Rammer as one CUDA graph ($b s of $(left))"
  d=$w/graph
  step_provenance "$d" graph
  stop=$((SECONDS + b))
  for m in $paper; do
    for p in sequential wavefront; do
      (( stop - SECONDS > 10 )) || break 2
      system=$([[ $p == sequential ]] && echo rammerbase-graph || echo rammer-graph)
      timeout $((stop - SECONDS)) rammer -q run "$(model_file "$m")" --backend cuda --policy "$p" --launch graph \
        --random --seed 1 --repeat 50 --json > "$d/$m.$p.json" 2> "$d/$m.$p.err"
      python3 "$g/run_row.py" "$d/$m.$p.json" --model "$m" --system "$system" --provenance "$d/provenance.json" \
        --error-file "$d/$m.$p.err" | tee -a "$d/graph.jsonl" | cut -c1-150
    done
  done
  pack graph
fi

if has compile; then
  b=$(( $(left) - $(reserve race) ))
  echo "### torch.compile ($b s of $(left))"
  d=$w/compile
  step_provenance "$d" compile
  stop=$((SECONDS + b))
  for mode in reduce-overhead compile max-autotune; do
    for m in $paper; do
      (( stop - SECONDS > 20 )) || break 2
      f=$(model_file "$m") io=$w/io/$m
      [[ -d $io/ref ]] || { python3 "$g/torch_baseline.py" "$f" --write-inputs "$io/in" > /dev/null &&
        timeout 60 rammer -q run "$f" --backend reference --inputs "$io/in" --outputs "$io/ref" > /dev/null 2>&1; } ||
        continue
      # One compile may take minutes (max-autotune): each gets at most 120 s.
      t=$((stop - SECONDS)); (( t > 120 )) && t=120
      timeout "$t" python3 "$g/torch_baseline.py" "$f" --inputs "$io/in" --expected "$io/ref" --modes "$mode" \
        --repeat 100 --provenance "$d/provenance.json" | tee -a "$d/pytorch.jsonl" | cut -c1-150
    done
  done
  pack compile
fi

if has race; then
  b=$(( $(left) - 5 ))
  echo "### racecheck on lstm_tc wavefront ($b s)"
  d=$w/race
  step_provenance "$d" race
  if ! command -v compute-sanitizer > /dev/null; then
    echo "compute-sanitizer is not on PATH: skipped"
  elif (( b > 60 )); then
    timeout "$b" compute-sanitizer --tool racecheck --error-exitcode 9 rammer -q run "$(model_file lstm_tc)" \
      --backend cuda --policy wavefront --random --repeat 1 --watchdog 600 > "$d/lstm_racecheck.log" 2>&1
    rc=$?
    summary=$(grep -m1 'RACECHECK SUMMARY' "$d/lstm_racecheck.log")
    echo "lstm_tc wavefront racecheck: exit $rc $summary"
    python3 - "$rc" "$summary" "$d/provenance.json" > "$d/sanitizers.jsonl" <<'PY'
import json, sys
rc, summary, prov = int(sys.argv[1]), sys.argv[2], json.load(open(sys.argv[3]))
check = "PASS" if rc == 0 else "ERROR" if rc == 124 else "FAIL"  # 124: stopped at the deadline, no report
print(json.dumps({"model": "lstm_tc", "system": "compute-sanitizer racecheck", "policy": "wavefront", "check": check,
                  "summary": summary or "no summary (exit %d)" % rc, "provenance": prov,
                  "check_rule": "compute-sanitizer --tool racecheck --error-exitcode 9 around rammer run --backend cuda: "
                                "PASS when it exits 0 (no hazard reported and the run finished), ERROR when it was "
                                "stopped at the deadline, FAIL otherwise"}))
PY
  fi
  pack race
fi
echo "lease $lease_name done, $(left) s left; here: tests/bench/gpu/after_lease.sh OUT $lease_name"
