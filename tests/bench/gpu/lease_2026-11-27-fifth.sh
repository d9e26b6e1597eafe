#!/usr/bin/env bash
# The fifth lease (2026-11-27, late; tests/data/gpu_traces/2026-11-27b-h100), in one call, most valuable first; each
# step writes under OUT as it goes, so a call cut short keeps what ran:
#   t/       record_lease.sh: tier 5 first (the dynamic policy, #31 item 5:
#            every paper model and small model, measured trace + latency,
#            outputs checked), then tiers 1-3 (this build's barrier wait and
#            split-K arena under every static policy; bert_tokens and
#            gpt_tokens, #30 item 4, in tier 2), then CUPTI SM efficiency
#            and warp activity of dynamic beside wavefront
#   san/     compute-sanitizer racecheck, synccheck, memcheck on
#            inception_block: the ready queue (dynamic) first, then the
#            barrier shapes (wavefront, greedy, sequential)
#   tests.log the runtime's GPU tests (GpuSample.* includes *_dynamic)
# Usage: source .gpu/env.sh; tests/bench/gpu/lease_2026-11-27-fifth.sh SECONDS
set -u
end=$((SECONDS + ${1:-520}))
root=$(cd "$(dirname "$0")/../../.." && pwd)
g=$root/tests/bench/gpu
out=${OUT:-/tmp/lease-out}
mkdir -p "$out"
left() { echo $((end - SECONDS)); }

echo "### traces (left $(left) s)"
keys="alexnet.dynamic alexnet.wavefront resnext29_cifar.dynamic resnext29_cifar.wavefront
  inception_block.dynamic inception_block.wavefront nasbench_cells.dynamic nasbench_cells.wavefront
  seq2seq.dynamic seq2seq.wavefront"
$g/record_lease.sh --seconds $(( $(left) - 250 )) --metrics-seconds 70 --metrics-keys "$keys" \
  --tiers "5 1 2 3" --jobs 4 --repeat 50 --out "$out/t" 2>&1 | grep -vE "^ *$" | cut -c1-150

echo "### sanitizers (left $(left) s)"
b=$(( $(left) - 70 ))
(( b > 40 )) && $g/run_gpu_checks.sh --budget "$b" --steps sanitize --sanitizers "racecheck synccheck memcheck" \
  --policies "dynamic wavefront greedy sequential" --out "$out/san" > "$out/san.log" 2>&1
grep -E "^(racecheck|synccheck|memcheck|skipped)" "$out/san.log"

echo "### GPU tests (left $(left) s)"
b=$(( $(left) - 5 ))
(( b > 20 )) && (cd "$(mktemp -d)" && timeout "$b" runtime_tests --gtest_brief=1 \
  --gtest_filter='Runtime/GpuSample.*:GpuRun.*:GpuExecution.*:RuntimeProbe.*' > "$out/tests.log" 2>&1)
echo "tests exit $?"; tail -n 8 "$out/tests.log"
echo "lease done, $(left) s left"
