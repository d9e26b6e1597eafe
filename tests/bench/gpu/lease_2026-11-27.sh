#!/usr/bin/env bash
# The lease of 2026-11-27 in one call, under one deadline, most valuable
# first (../shared/GPU.md): each step writes under OUT as it goes, so a call
# cut short keeps what ran.
#   t1/      record_lease.sh tier 1: RammerBase and Rammer of the six paper
#            models, per-rTask traces (issue #28 item 1)
#   torch/   PyTorch on the same seeded inputs: eager end to end, and every
#            Conv/Gemm/MatMul/LSTM node alone (torch_baseline.py --per-node),
#            for the per-rKernel table against t1's sequential traces (#27 item 8)
#   t23/     record_lease.sh tiers 2 and 3 (every policy of the small samples
#            and tiny transformers, the paper models' other policies), then
#            the CUPTI metrics
#   san/     compute-sanitizer on the cp.async mainloop and every barrier shape
# Usage: source .gpu/env.sh; tests/bench/gpu/lease_2026-11-27.sh SECONDS
set -u
end=$((SECONDS + ${1:-540}))
root=$(cd "$(dirname "$0")/../../.." && pwd)
g=$root/tests/bench/gpu
out=${OUT:-/tmp/lease-out}
mkdir -p "$out/torch"
left() { echo $((end - SECONDS)); }
paper="alexnet resnext29_cifar nasnet_cifar deepspeech2 lstm_tc seq2seq"

echo "### t1 (left $(left) s)"
$g/record_lease.sh --seconds 200 --tiers 1 --jobs 4 --repeat 50 --out "$out/t1"

echo "### torch (left $(left) s)"
tw=$(mktemp -d)
rammer-samples --only "$(echo $paper | tr ' ' ,)" "$tw/samples" > "$tw/samples.log" 2>&1
tb=$g/torch_baseline.py
for m in $paper; do
  (( $(left) > 200 )) || { echo "torch: no time for $m"; break; }
  f=$root/samples/models/$m.onnx
  [[ -f $f ]] || f=$tw/samples/$m.onnx
  [[ -f $f ]] || { echo "torch: no model $m"; continue; }
  d=$tw/$m
  python3 $tb "$f" --write-inputs "$d/in" &&
    rammer -q run "$f" --backend reference --inputs "$d/in" --outputs "$d/ref" > "$d.ref.log" 2>&1 || { echo "$m: no reference"; continue; }
  timeout 60 python3 $tb "$f" --inputs "$d/in" --expected "$d/ref" --modes eager --repeat 200 >> "$out/torch/eager.jsonl" 2>> "$out/torch/err.log"
  timeout 60 python3 $tb "$f" --inputs "$d/in" --per-node --repeat 50 --warmup 5 >> "$out/torch/per_node.jsonl" 2>> "$out/torch/err.log"
  tail -n 1 "$out/torch/eager.jsonl" | cut -c1-200
done
tar czf "$out/torch.tgz" -C "$out" torch && rm -rf "$out/torch"

echo "### t23 (left $(left) s)"
b=$(( $(left) - 130 ))
(( b > 30 )) && $g/record_lease.sh --seconds "$b" --tiers "2 3" --jobs 4 --repeat 50 --metrics-seconds 50 --out "$out/t23"

echo "### sanitizers (left $(left) s)"
b=$(( $(left) - 10 ))
(( b > 30 )) && $g/run_gpu_checks.sh --build .gpu --budget "$b" --steps sanitize --policies "sequential wavefront greedy" \
  --out "$out/san" > "$out/san.log" 2>&1
tail -n 12 "$out/san.log"
echo "lease done, $(left) s left"
