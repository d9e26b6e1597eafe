#!/usr/bin/env bash
# Scale benchmark (issue #18 item 4): chains of 1k, 10k and 100k element-wise
# nodes and a 10k-wide fan-out (tests/bench/make_scale_models.py) through
# import and the passes (`rammer info --optimize`) and through every policy
# (`rammer schedule`: import, passes, plan, validation), one process per
# cell, with wall time and peak RSS from /usr/bin/time. Prints the table for
# docs/PERFORMANCE.md. Goal: 100k nodes under 10 s and 1 GB.
#   BUILD_DIR   build folder with bin/rammer (default: <repo>/build)
#   OUT         where the models go (default: a temporary folder)
#   LIMIT       seconds a cell may take before it counts as "> LIMIT" (default 120)
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-$root/build}
rammer=$build/bin/rammer
out=${OUT:-$(mktemp -d)}
limit=${LIMIT:-120}
[[ -x $rammer ]] || { echo "missing $rammer: build it first" >&2; exit 2; }
/usr/bin/python3 "$root/tests/bench/make_scale_models.py" --out "$out" > /dev/null || exit 2

# cell ARGS...: "seconds / MB" of one rammer command, or why not.
cell() {
  local log=$out/cell.log
  /usr/bin/time -f "%e %M" -o "$out/time.txt" timeout "$limit" "$rammer" -q "$@" > /dev/null 2> "$log"
  local rc=$?
  if [[ $rc -eq 124 ]]; then echo "> ${limit} s"; return; fi
  if [[ $rc -ne 0 ]]; then echo "error: $(grep -m1 'error' "$log" | cut -c1-60)"; return; fi
  awk '{printf "%.2f s / %.0f MB", $1, $2 / 1024}' "$out/time.txt"
}

policies="sequential wavefront greedy ios graphturbo"
printf '| model | nodes | import + passes |'; for p in $policies; do printf ' %s |' "$p"; done; echo
printf '|---|---:|---:|'; for p in $policies; do printf -- '---:|'; done; echo
for m in chain_1000 chain_10000 chain_100000 fanout_10000; do
  nodes=${m#*_}
  [[ $m == fanout_* ]] && nodes=$((nodes + 1))
  printf '| %s | %s | %s |' "$m" "$nodes" "$(cell info --optimize "$out/$m.onnx")"
  for p in $policies; do printf ' %s |' "$(cell schedule "$out/$m.onnx" --policy "$p")"; done
  echo
done
