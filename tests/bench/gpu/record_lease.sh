#!/usr/bin/env bash
# The lease recorder (issue #28 item 1; ../shared/GPU.md, step 1): on a lent
# GPU, runs sample models under policies with the instrumented kernels and
# keeps, per run, what the cost model is fitted and tested against:
#   M.P.run.json.xz     `rammer run --backend cuda --json`: device, arch,
#                       latency (median, spread), output check, per-launch
#                       registers / shared memory / spills / blocks per SM,
#                       the source hash, the instrumented run's latency
#   M.P.trace.json.xz   the measured trace (every rTask's op, rTask, program,
#                       vEU, order, SM, start and duration; per-program launch
#                       times) as columns (compact_trace.py)
#   M.P.metrics.json.xz `rammer run --metrics` (CUPTI SM efficiency, warp
#                       activity per program), in the metrics phase
# The plans themselves are not recorded: `rammer schedule` remakes them
# from the same commit (the run's source hash says whether it did).
# plus machine.txt (nvidia-smi, nvcc, torch), provenance.json (what
# tests/bench/gpu/lease_rows.py needs to read the folder: lease, commit,
# device, driver, CUDA, PyTorch and this command line, from
# tests/bench/gpu/provenance.py; LEASE_COMMAND in the environment names the
# script that called this one) and index.jsonl (one row per
# task: status, wall seconds), in a folder lease/ that is packed into
# OUT/lease.tgz.NN after each task, so a lease cut short keeps what ran.
#
# Tasks run in the order given by the task list (most valuable first):
# TIER 1 RammerBase and Rammer of the six paper models; 2 every policy of
# the small samples and tiny transformers; 3 the paper models' other
# policies; 4 the larger catalog models; 5 the dynamic policy (issue #31)
# of the paper models and the small ones. JOBS tasks run side by side: they
# generate, plan and compile at once, but `--gpu-lock` makes their GPU runs
# take turns, so no timed run overlaps another. The metrics phase runs
# alone after the traces (CUPTI replays kernels; nothing else may run).
#
# Usage: source .gpu/env.sh; tests/bench/gpu/record_lease.sh --seconds S
#          [--metrics-seconds S] [--metrics-keys "M.P ..."] [--jobs N] [--repeat N] [--skip FILE]
#          [--tiers "1 2 3 4"] [--only "MODEL ..."] [--out DIR] [--lease NAME] [--dry-run]
# --skip FILE: task keys (MODEL.POLICY) already recorded by an earlier call.
# --only "MODEL ...": the tiers' tasks of these models alone (a dry run
#   against the stand-in driver keeps to small models: lease_dry_run.sh).
# --lease NAME: the name provenance.json gives the folder (default DATE-CARD
#   of today and this card; commit the folder under the same name).
# --dry-run: list the tasks and exit (no GPU needed).
set -uo pipefail
cmdline="tests/bench/gpu/record_lease.sh$(printf ' %q' "$@")"

root=$(cd "$(dirname "$0")/../../.." && pwd)
seconds=480
metrics_seconds=0
# Every Rammer plan, then the RammerBase plans of few launches: a
# sequential plan of thousands of launches (deepspeech2, lstm_tc, seq2seq)
# replays each one for the counters and does not finish in the lease
# (lstm_tc's took over 130 s on an H200).
metrics_keys="alexnet.wavefront resnext29_cifar.wavefront nasnet_cifar.wavefront deepspeech2.wavefront
  lstm_tc.wavefront seq2seq.wavefront alexnet.sequential resnext29_cifar.sequential nasnet_cifar.sequential"
jobs=3
repeat=50
skip=""
only=""
tiers="1 2 3 4"
out=${OUT:-}
lease_name=auto
dry=no
while [[ $# -gt 0 ]]; do
  case $1 in
    --seconds) seconds=$2 ;;
    --metrics-seconds) metrics_seconds=$2 ;;
    --metrics-keys) metrics_keys=$2 ;;
    --jobs) jobs=$2 ;;
    --repeat) repeat=$2 ;;
    --skip) skip=$2 ;;
    --tiers) tiers=$2 ;;
    --only) only=$2 ;;
    --out) out=$2 ;;
    --lease) lease_name=$2 ;;
    --dry-run) dry=yes; shift; continue ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
[[ -n $out ]] || out=$(mktemp -d)

paper="alexnet resnext29_cifar nasnet_cifar deepspeech2 lstm_tc seq2seq"
small="sample_cnn inception_block nasbench_cells encoder decoder vit_tiny swin_tiny encoder_opset14 bert_tokens gpt_tokens"
large="squeezenet inception_v3 randwire bert_base gpt2_small vit_b16 swin_t"
all_policies="sequential wavefront greedy ios graphturbo"

# The task list, most valuable first.
tasks=()
for t in $tiers; do
  case $t in
    1) for m in $paper; do tasks+=("$m.sequential" "$m.wavefront"); done ;;
    2) for m in $small; do for p in $all_policies; do tasks+=("$m.$p"); done; done ;;
    3) for p in greedy graphturbo ios; do for m in $paper; do tasks+=("$m.$p"); done; done ;;
    4) for m in $large; do tasks+=("$m.sequential" "$m.wavefront"); done ;;
    5) for m in $paper $small; do tasks+=("$m.dynamic"); done ;;
  esac
done
if [[ -n $only ]]; then
  kept=()
  for k in "${tasks[@]}"; do [[ " $only " == *" ${k%.*} "* ]] && kept+=("$k"); done
  tasks=("${kept[@]}")
fi
if [[ -n $skip && -f $skip ]]; then
  kept=()
  for k in "${tasks[@]}"; do grep -qxF "$k" "$skip" || kept+=("$k"); done
  tasks=("${kept[@]}")
fi
if [[ $dry == yes ]]; then printf '%s\n' "${tasks[@]}"; exit 0; fi

start=$(date +%s)  # epoch seconds: the tasks run in child shells, where SECONDS restarts
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT  # everything worth keeping is packed into OUT
lease=$work/lease
runs=$lease/runs
mkdir -p "$out"
mkdir -p "$runs" "$work/samples"
index=$lease/index.jsonl
lock=$work/gpu.lock
touch "$index"
rammer=$(command -v rammer) || { echo "rammer is not on PATH (source .gpu/env.sh)" >&2; exit 2; }
samples_bin=$(dirname "$rammer")/rammer-samples

# xzip FILE: FILE.xz in its place (Python's lzma: the GPU image may lack
# xz), else FILE.gz; FILE stays when neither works.
xzip() {
  python3 -c 'import lzma, shutil, sys
with open(sys.argv[1], "rb") as i, lzma.open(sys.argv[1] + ".xz", "wb") as o: shutil.copyfileobj(i, o)' "$1" ||
    { rm -f "$1.xz"; gzip -f "$1"; } && rm -f "$1"
}
now() { echo $(( $(date +%s) - start )); }
left() { echo $((seconds - $(now))); }
# Packs the lease folder into OUT/lease.tgz.00, .01, ... (15 MiB pieces:
# the device tool returns files of up to 16 MiB; `cat lease.tgz.* | tar xz`
# unpacks), one packer at a time.
pack() {
  (
    flock 9
    tar czf "$work/lease.tgz" -C "$work" lease || exit
    rm -f "$out"/lease.tgz.*
    split -b 15m -d "$work/lease.tgz" "$out/lease.tgz."
  ) 9> "$work/pack.lock"
}

{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  nvidia-smi | sed -n 3p
  nvcc --version 2>/dev/null | tail -n 2
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1
  "$rammer" --version 2>&1 | head -n 1
  # The device gets the tree without .git: the bundle carries the commit.
  git -C "$root" log -1 --format='commit %H %s' 2>/dev/null || cat "$(dirname "$rammer")/../commit.txt" 2>/dev/null
  echo "repeat $repeat, jobs $jobs"
} > "$lease/machine.txt" 2>&1
cat "$lease/machine.txt"
# Written before any task, so that a folder cut short still says what it is.
python3 "$root/tests/bench/gpu/provenance.py" --lease "$lease_name" --rammer "$rammer" \
  --command "${LEASE_COMMAND:+$LEASE_COMMAND, running: }$cmdline" > "$lease/provenance.json" ||
  echo "provenance.py failed: the folder needs a provenance.json before it is committed" >&2

# Where each model is: bundled, a committed transformer export, or
# generated here in the background (the catalog's models are too large to
# carry); a task whose model is still being generated waits for it.
model_path() {
  local m=$1 f i
  for ((i = 0; i < 180; ++i)); do
    for f in "$root/samples/models/$m.onnx" "$root/tests/data/transformers/$m/model.onnx" "$work/samples/$m.onnx"; do
      [[ -f $f ]] && { echo "$f"; return; }
    done
    [[ -f $work/gen/$m.failed || ! -d $work/gen/$m ]] && return
    sleep 1
  done
}
gen() {
  local m=$1
  # Written aside, then moved: a waiting task never reads half a file.
  "$samples_bin" --only "$m" "$work/gen/$m" > "$work/gen/$m.log" 2>&1 && mv "$work/gen/$m/$m.onnx" "$work/samples/" ||
    touch "$work/gen/$m.failed"
}
export -f gen
export samples_bin work
to_generate=()
for m in $(for k in "${tasks[@]}"; do echo "${k%.*}"; done | awk '!seen[$0]++'); do
  [[ -f $root/samples/models/$m.onnx || -f $root/tests/data/transformers/$m/model.onnx ]] && continue
  mkdir -p "$work/gen/$m"
  to_generate+=("$m")
done
# In task order, four at a time, beside the tasks.
(( ${#to_generate[@]} )) && { printf '%s\n' "${to_generate[@]}" | xargs -P 4 -I{} bash -c 'gen "$@"' _ {} & }

# record KEY: one model x policy. Writes its files and one index row.
record() {
  local key=$1 m=${1%.*} p=${1##*.} t0=$SECONDS b rc status
  local path; path=$(model_path "$m")
  b=$(left)
  if (( b < 20 )); then echo "{\"key\": \"$key\", \"status\": \"no time\"}" >> "$index"; return; fi
  (( b > 240 )) && b=240
  if [[ -z $path ]]; then
    echo "{\"key\": \"$key\", \"status\": \"no model\"}" >> "$index"; return
  fi
  local src=(--random --seed 1)
  [[ -d $(dirname "$path")/test_data_set_0 && $path == */transformers/* ]] && src=(--inputs "$(dirname "$path")/test_data_set_0")
  timeout "$b" "$rammer" -q run "$path" --backend cuda --policy "$p" "${src[@]}" --repeat "$repeat" \
    --gpu-lock "$lock" --trace "$work/$key.trace.json" --json > "$runs/$key.run.json" 2> "$work/$key.err"
  rc=$?
  status=ok
  [[ $rc -eq 0 ]] || status="exit $rc: $(grep -v '^\s*$' "$work/$key.err" | tail -n 1 | tr -d '"\\' | cut -c1-240)"
  [[ $rc -eq 1 && ! -s $work/$key.err ]] && status="exit 1: outputs differ from the reference (run.json)"
  [[ $rc -eq 124 ]] && status="timed out after $b s"
  # The Chrome trace as columns (compact_trace.py): a tenth of its gzip.
  if [[ -f $work/$key.trace.json ]]; then
    python3 "$root/tests/bench/gpu/compact_trace.py" "$work/$key.trace.json" "$runs/$key.trace.json.xz" ||
      { gzip -f "$work/$key.trace.json" && mv "$work/$key.trace.json.gz" "$runs/"; }
    rm -f "$work/$key.trace.json"
  fi
  local lat
  lat=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(round(j["latency_us"]["median"],1), j["output_check"]["max_rel_error"], j["max_registers"])' \
    "$runs/$key.run.json" 2>/dev/null || echo "- - -")
  if [[ -s $runs/$key.run.json ]]; then xzip "$runs/$key.run.json"; else rm -f "$runs/$key.run.json"; fi
  echo "{\"key\": \"$key\", \"status\": \"$status\", \"wall_s\": $((SECONDS - t0)), \"at_s\": $(now)}" >> "$index"
  printf '%-34s %-10s %6ss  median %s us, max rel err %s, regs %s\n' "$key" "${status:0:10}" $((SECONDS - t0)) $lat
  pack
}
export -f record model_path now left pack xzip
export root work runs index lock rammer repeat start seconds out

echo "== traces: ${#tasks[@]} tasks, $jobs at a time"
(( ${#tasks[@]} )) && printf '%s\n' "${tasks[@]}" | xargs -P "$jobs" -I{} bash -c 'record "$@"' _ {}

if (( metrics_seconds > 0 )); then
  echo "== CUPTI metrics (alone on the GPU)"
  mend=$((SECONDS + metrics_seconds))
  for key in $metrics_keys; do
    m=${key%.*} p=${key##*.}
    [[ -z $only || " $only " == *" $m "* ]] || continue
    b=$((mend - SECONDS)); (( b < 20 )) && break
    (( b > 90 )) && b=90
    path=$(model_path "$m")
    [[ -n $path ]] || { mkdir -p "$work/gen/$m"; gen "$m"; path=$(model_path "$m"); }
    [[ -n $path ]] || continue
    t0=$SECONDS
    timeout "$b" "$rammer" -q run "$path" --backend cuda --policy "$p" --random --seed 1 --repeat 5 --metrics \
      --json > "$runs/$m.$p.metrics.json" 2> "$work/$m.$p.metrics.err"
    echo "{\"key\": \"$m.$p.metrics\", \"status\": \"exit $?\", \"wall_s\": $((SECONDS - t0))}" >> "$index"
    python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["metrics"]["total"]; print(sys.argv[2], "sm_eff", t["sm_efficiency_pct"]["value"], "warp_act", t["warp_activity_pct"]["value"])' \
      "$runs/$m.$p.metrics.json" "$m.$p" 2>/dev/null || echo "$m.$p metrics: $(tail -n 1 "$work/$m.$p.metrics.err")"
    xzip "$runs/$m.$p.metrics.json"
    pack
  done
fi

cp "$work"/*.err "$lease/" 2>/dev/null
pack
echo "== done at $(now) s: $(grep -c '"ok"' "$index") ok of $(wc -l < "$index") rows"
grep -v '"ok"' "$index" | head -n 20
