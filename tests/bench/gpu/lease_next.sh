#!/usr/bin/env bash
# What the next lease owes (written 2026-11-27 after the fifth lease,
# tests/data/gpu_traces/2026-11-27b-h100), in one call, most valuable first,
# each step writing under OUT as it goes (at most 8 files come back: each
# step packs its folder into one .tgz):
#   veus.tgz  issue #31 item 1: is the ready queue's 3.3 us per rTask the
#             contention of every vEU on one claim and one gate counter?
#             The dynamic plans of resnext29_cifar, nasnet_cifar and lstm_tc
#             at 1, 2 and 4 vEUs per SM (a `vdevice` schedule edit), each
#             with its measured trace (veus/runs/MODEL.dynamicK.*, the
#             lease format: `dynamic_table.py veus --baseline dynamic1
#             --policy dynamic4`):
#             the rTask-to-rTask gap against the vEUs that contend; then
#             the claim shards (per-SM queues with stealing, a `claim_shards`
#             edit) at 4 vEUs per SM: 8 shards and one per SM (132),
#             as MODEL.dynamicS8 and MODEL.dynamicS132 (`--baseline
#             dynamic4 --policy dynamicS132`). If the gap falls with
#             fewer contenders, the shards are the default to choose.
#   t1/       record_lease.sh tier 1 (RammerBase and Rammer of the six paper
#             models): the plans the skinny-tile efficiency changed (alexnet's
#             fc1/fc2 back on the GEMV, seq2seq's steps; PERFORMANCE.md "A
#             skinny tile's efficiency"): predicted 369 us for alexnet's Rammer
#             plan, which ran 585 us on the fifth lease
#   eager.tgz PyTorch eager at batch 1 on the paper models and the tiny
#             transformers, beside the fifth lease's dynamic and wavefront
#             rows (eager depends on the lease's host CPU: rerun in the lease
#             that compares)
#   b16.tgz   the batch-16 rows and torch.compile at batch 1 that the fourth
#             lease did not reach (tests/bench/gpu/lease_2026-11-27b.sh)
#   san.tgz   racecheck on lstm_tc's wavefront plan (barriers of up to 64
#             wait runs), which did not finish in 75 s on the fifth lease
# Usage: source .gpu/env.sh; tests/bench/gpu/lease_next.sh SECONDS
set -u
end=$((SECONDS + ${1:-540}))
root=$(cd "$(dirname "$0")/../../.." && pwd)
g=$root/tests/bench/gpu
out=${OUT:-/tmp/lease-out}
w=$(mktemp -d)
mkdir -p "$out" "$w/veus/runs" "$w/eager" "$w/san"
left() { echo $((end - SECONDS)); }
pack() { tar czf "$out/$1.tgz.part" -C "$w" "$1" && mv "$out/$1.tgz.part" "$out/$1.tgz"; }

echo "### dynamic at 1, 2 and 4 vEUs per SM (left $(left) s)"
rammer-samples --only resnext29_cifar,nasnet_cifar,lstm_tc,alexnet,deepspeech2,seq2seq "$w/m" > /dev/null 2>&1
for spec in resnext29_cifar:stem.conv nasnet_cifar:stem.conv lstm_tc:rnn.lstm0/l0/t0/x; do
  m=${spec%%:*} node=${spec#*:}
  for run in 1 2 4 S8 S132; do
    (( $(left) > 330 )) || break 2
    k=4 shards=1 label=$run
    [[ $run == S* ]] && shards=${run#S} || k=$run
    r=$w/veus/runs/$m.dynamic$label e=$w/veus/$m.$label.edits.json
    echo "{\"version\": 1, \"edits\": [{\"op\": \"vdevice\", \"node\": \"$node\", \"veus_per_sm\": $k}," \
      "{\"op\": \"claim_shards\", \"node\": \"$node\", \"shards\": $shards}]}" > "$e"
    timeout 90 rammer -q run "$w/m/$m.onnx" --backend cuda --policy dynamic --schedule "$e" --random --seed 1 \
      --repeat 50 --json --trace "$r.trace.json" > "$r.run.json" 2> "$w/veus/$m.$label.err"
    echo "$m dynamic, $k vEUs/SM, $shards claim shards: exit $? $(grep -o '"median": *[0-9.]*' "$r.run.json" | head -1)"
    [[ -f $r.trace.json ]] && python3 "$g/compact_trace.py" "$r.trace.json" "$r.trace.json.xz" && rm -f "$r.trace.json"
    python3 -c 'import lzma, shutil, sys
with open(sys.argv[1], "rb") as i, lzma.open(sys.argv[1] + ".xz", "wb") as o: shutil.copyfileobj(i, o)' "$r.run.json" &&
      rm -f "$r.run.json"
  done
done
pack veus

echo "### tier 1: the paper models' RammerBase and Rammer plans (left $(left) s)"
b=$(( $(left) - 300 ))
(( b > 60 )) && "$g/record_lease.sh" --seconds "$b" --tiers 1 --jobs 4 --repeat 50 --out "$out/t1" 2>&1 |
  grep -E "^(alexnet|resnext29|nasnet|deepspeech2|lstm_tc|seq2seq)|done"

echo "### PyTorch eager at batch 1 (left $(left) s)"
for m in alexnet resnext29_cifar nasnet_cifar deepspeech2 lstm_tc seq2seq vit_tiny encoder decoder swin_tiny; do
  (( $(left) > 260 )) || break
  f=$w/m/$m.onnx d=$w/eager/$m
  [[ -f $f ]] || f=$root/tests/data/transformers/$m/model.onnx
  python3 "$g/torch_baseline.py" "$f" --write-inputs "$d/in" && timeout 60 rammer -q run "$f" --backend reference \
    --inputs "$d/in" --outputs "$d/ref" > /dev/null 2>&1 || { echo "$m: no reference"; continue; }
  timeout 60 python3 "$g/torch_baseline.py" "$f" --inputs "$d/in" --expected "$d/ref" --modes eager --repeat 200 |
    tee -a "$w/eager/pytorch.jsonl" | cut -c1-160
  rm -rf "$d"
done
pack eager

echo "### batch 16 and torch.compile (left $(left) s)"
b=$(( $(left) - 110 ))
(( b > 40 )) && OUT=$w/b16 "$g/lease_2026-11-27b.sh" "$b" "16 1" > "$w/b16.log" 2>&1
mkdir -p "$w/b16" && mv "$w/b16.log" "$w/b16/" 2>/dev/null
tail -n 5 "$w/b16/b16.log" 2>/dev/null
pack b16

echo "### racecheck on lstm_tc wavefront (left $(left) s)"
b=$(( $(left) - 10 ))
(( b > 60 )) && timeout "$b" compute-sanitizer --tool racecheck --error-exitcode 9 rammer -q run "$w/m/lstm_tc.onnx" \
  --backend cuda --policy wavefront --random --repeat 1 --watchdog 600 > "$w/san/lstm_racecheck.log" 2>&1
echo "lstm_tc wavefront racecheck: exit $? $(grep -m1 'RACECHECK SUMMARY' "$w/san/lstm_racecheck.log")"
pack san
echo "lease done, $(left) s left"
