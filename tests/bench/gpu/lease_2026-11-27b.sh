#!/usr/bin/env bash
# Second call of the 2026-11-27 lease: the end-to-end table at batch 4 and 16
# (RammerBase = sequential, Rammer = wavefront, PyTorch eager; outputs checked
# against the CPU reference before timing), then torch.compile at batch 1 on
# the models whose goals name eager (#27 item 8), rows to OUT/batch.jsonl.
# Usage: source .gpu/env.sh; tests/bench/gpu/lease_2026-11-27b.sh SECONDS ["BATCHES"]
# (BATCHES: default "4 16 1"; 1 stands for torch.compile at batch 1)
# Since issue #43 every row carries provenance, check and check_rule (the
# fourth lease's rows were given theirs by backfill_provenance.py).
set -u
end=$((SECONDS + ${1:-300}))
root=$(cd "$(dirname "$0")/../../.." && pwd)
tb=$root/tests/bench/gpu/torch_baseline.py
out=${OUT:-/tmp/lease-out}
rows=$out/batch.jsonl
left() { echo $((end - SECONDS)); }
w=$(mktemp -d)
mkdir -p "$out"
prov=$out/provenance.json
python3 "$root/tests/bench/gpu/provenance.py" --rammer "$(command -v rammer)" --command \
  "${LEASE_COMMAND:+$LEASE_COMMAND, running: }tests/bench/gpu/lease_2026-11-27b.sh$(printf ' %q' "$@")" > "$prov"
for b in ${2:-4 16 1}; do
  models="alexnet resnext29_cifar nasnet_cifar deepspeech2 lstm_tc seq2seq"
  [[ $b == 1 ]] && models="alexnet resnext29_cifar"
  rammer-samples --batch $b --only "$(echo $models | tr ' ' ,)" "$w/b$b" > "$w/b$b.log" 2>&1
  for m in $models; do
    (( $(left) > 25 )) || { echo "no time: $m batch $b"; continue; }
    f=$w/b$b/$m.onnx d=$w/b$b/$m
    python3 $tb "$f" --write-inputs "$d/in" && timeout 60 rammer -q run "$f" --backend reference --inputs "$d/in" \
      --outputs "$d/ref" > /dev/null 2>&1 || { echo "$m b$b: no reference"; continue; }
    if [[ $b == 1 ]]; then
      timeout $(( $(left) - 5 )) python3 $tb "$f" --inputs "$d/in" --expected "$d/ref" --modes compile,reduce-overhead \
        --repeat 100 --provenance "$prov" | sed "s/^{/{\"batch\": $b, /" | tee -a "$rows" | cut -c1-160
      continue
    fi
    for p in sequential wavefront; do
      timeout 60 rammer -q run "$f" --backend cuda --policy $p --inputs "$d/in" --repeat 50 --json > "$d.$p.json" 2> "$d.$p.err"
      python3 - "$d.$p.json" $m $p $b "$prov" <<'PY' | tee -a "$rows"
import json, sys
path, m, p, b, prov = sys.argv[1:]
rule = "rammer run's output check against the CPU reference executor"
try:
    j = json.load(open(path))
    c = j["output_check"]
    rule = c["rule"] + " for every output element against the CPU reference executor (rammer run's check)"
    row = {"batch": int(b), "model": m, "system": {"sequential": "rammerbase", "wavefront": "rammer"}[p],
           "latency_us": j["latency_us"], "max_rel_error": c["max_rel_error"], "max_registers": j["max_registers"],
           "check": "PASS" if c["pass"] else "FAIL"}
except Exception as e:
    row = {"batch": int(b), "model": m, "system": p, "error": repr(e)[:200], "check": "ERROR"}
row.update(provenance=json.load(open(prov)), check_rule=rule)
print(json.dumps(row))
PY
    done
    timeout 60 python3 $tb "$f" --inputs "$d/in" --expected "$d/ref" --modes eager --repeat 100 --provenance "$prov" |
      sed "s/^{/{\"batch\": $b, /" | tee -a "$rows" | cut -c1-160
  done
done
echo "done, $(left) s left"
