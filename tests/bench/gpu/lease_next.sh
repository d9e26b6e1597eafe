#!/usr/bin/env bash
# What the next lease owes (written 2026-11-27 after the fourth lease), in
# one call, most valuable first, each step writing under OUT as it goes:
#   san/   compute-sanitizer racecheck and synccheck, then memcheck, on the
#          barrier wait that polls all of a barrier's counters at once
#          (440baac) and the split-K arena (67853b1): inception_block's
#          sequential, wavefront and greedy plans, and lstm_tc's wavefront
#          plan (barriers of up to 64 wait runs, 1,000 split-K outputs)
#   t1/    record_lease.sh tier 1 and the RNN models' other policies: the
#          traces that show what the two fixes did (lstm_tc, seq2seq and
#          deepspeech2 lost 1.0-1.6 ms of clears; hand-offs of many runs)
#   b16/   the batch-16 rows the fourth lease did not reach, torch.compile
#          at batch 1 (tests/bench/gpu/lease_2026-11-27b.sh's loop)
#   dyn/   issue #31 item 5: the dynamic policy's kernels (the ready queue)
#          under racecheck and synccheck on inception_block, then dynamic
#          against wavefront at batch 1 on the paper models: latency and the
#          measured per-rTask trace (each record names the vEU that took it)
# Usage: source .gpu/env.sh; tests/bench/gpu/lease_next.sh SECONDS
set -u
end=$((SECONDS + ${1:-540}))
root=$(cd "$(dirname "$0")/../../.." && pwd)
g=$root/tests/bench/gpu
out=${OUT:-/tmp/lease-out}
mkdir -p "$out"
left() { echo $((end - SECONDS)); }

echo "### sanitizers (left $(left) s)"
$g/run_gpu_checks.sh --build .gpu --budget 150 --steps sanitize --sanitizers "racecheck synccheck memcheck" \
  --policies "wavefront sequential greedy dynamic" --out "$out/san" > "$out/san.log" 2>&1
tail -n 12 "$out/san.log"
w=$(mktemp -d)
rammer-samples --only lstm_tc "$w" > /dev/null 2>&1
for tool in racecheck synccheck; do
  (( $(left) > 200 )) || break
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 rammer -q run "$w/lstm_tc.onnx" --backend cuda \
    --policy wavefront --random --repeat 1 --watchdog 60 > "$out/san_lstm_$tool.log" 2>&1
  echo "lstm_tc wavefront $tool: exit $? $(grep -m1 -E '(ERROR|RACECHECK) SUMMARY' "$out/san_lstm_$tool.log")"
done

echo "### dynamic against wavefront (left $(left) s)"
mkdir -p "$out/dyn"
rammer-samples --only resnext29_cifar,nasnet_cifar,alexnet,deepspeech2,lstm_tc,seq2seq "$w" > /dev/null 2>&1
for m in resnext29_cifar nasnet_cifar alexnet deepspeech2 lstm_tc seq2seq; do
  for policy in wavefront dynamic; do
    (( $(left) > 300 )) || break 2
    timeout 60 rammer -q run "$w/$m.onnx" --backend cuda --policy $policy --random --batch 1 --repeat 50 --json \
      --trace "$out/dyn/${m}_$policy.trace.json" --outputs "$out/dyn/out" > "$out/dyn/${m}_$policy.json" 2> "$out/dyn/${m}_$policy.err"
    echo "$m $policy: exit $? $(grep -o '"median": *[0-9.e+]*' "$out/dyn/${m}_$policy.json" | head -1)"
  done
done
xz -9 "$out"/dyn/*.trace.json 2>/dev/null

echo "### t1 (left $(left) s)"
b=$(( $(left) - 90 ))
(( b > 60 )) && $g/record_lease.sh --seconds "$b" --tiers "1 3" --jobs 4 --repeat 50 --out "$out/t1" |
  grep -E "^(alexnet|resnext29|nasnet|deepspeech2|lstm_tc|seq2seq)|done"

echo "### batch 16 and torch.compile (left $(left) s)"
b=$(( $(left) - 10 ))
(( b > 40 )) && $g/lease_2026-11-27b.sh "$b" "16 1" > "$out/b16.log" 2>&1
tail -n 5 "$out/b16.log" 2>/dev/null
echo "lease done, $(left) s left"
