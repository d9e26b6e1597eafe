#!/usr/bin/env bash
# CI check of the PyTorch baseline of the GPU comparison, on the CPU: each
# model's ONNX graph run as torch calls (torch_baseline.py, eager) must match
# the reference executor on the same seeded inputs, or the GPU table would
# time a different function. The row must carry its provenance and check rule.
# Usage: check_torch_baseline.sh PYTHON RAMMER WORK_DIR MODEL.onnx...
set -euo pipefail
py=$1 rammer=$2 work=$3
shift 3
tb=$(cd "$(dirname "$0")" && pwd)/torch_baseline.py
for m in "$@"; do
  d=$work/$(basename "$m" .onnx)
  rm -rf "$d"
  "$py" "$tb" "$m" --write-inputs "$d/in"
  "$rammer" -q run "$m" --backend reference --inputs "$d/in" --outputs "$d/ref" > /dev/null
  "$py" "$tb" "$m" --inputs "$d/in" --expected "$d/ref" --modes eager --device cpu | tee "$d/row.json"
  grep -q '"check": "PASS"' "$d/row.json"
  # The row says what it ran on and by which rule it passed (issue #43 item 1).
  "$py" - "$d/row.json" "$(dirname "$tb")" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[2])
import lease_rows
row = json.load(open(sys.argv[1]))
missing = lease_rows.missing_fields(row.get("provenance"))
assert not missing and row.get("check_rule"), "row without provenance %s or check_rule" % missing
PY
done
