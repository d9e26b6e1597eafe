#!/usr/bin/env bash
# Zero-element outputs beside huge dims (issue #30 item 5): the Tile, Concat,
# Expand, Reshape, Transpose and Pad models of tests/data/fuzz-regressions
# (make_zero_element_models.py: a zero dim next to a dim of 2^30) run on the
# reference, the emulator and the host target (a first run that builds the
# program, then one from the build cache), one process per cell, with wall
# time and peak RSS from /usr/bin/time (the compiler of a first host run
# included). Prints the table for docs/RELIABILITY.md. Goal: every cached
# run under 1 s and 100 MB.
#   BUILD_DIR   build folder with bin/rammer (default: <repo>/build)
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-$root/build}
rammer=$build/bin/rammer
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[[ -x $rammer ]] || { echo "missing $rammer: build it first" >&2; exit 2; }
export RAMMER_HOST_CACHE=$work/cache  # a cold cache: the first host run compiles

cell() {
  rm -rf "$work/out"
  /usr/bin/time -f "%e %M" -o "$work/time.txt" timeout 300 "$rammer" -q run "$1" --random --outputs "$work/out" \
    "${@:2}" > /dev/null 2> "$work/log"
  local rc=$?
  if [[ $rc -ne 0 ]]; then echo "error: $(grep -m1 'error' "$work/log" | cut -c1-50)"; return; fi
  awk '{printf "%.2f s / %.0f MB", $1, $2 / 1024}' "$work/time.txt"
}

echo "| op | reference | emulator | host (builds) | host (cached) |"
echo "|---|---|---|---|---|"
for op in tile concat expand reshape transpose pad; do
  m=$root/tests/data/fuzz-regressions/model-zero-element-$op.onnx
  echo "| $op | $(cell "$m") | $(cell "$m" --backend emulator) | $(cell "$m" --backend host) |" \
       "$(cell "$m" --backend host) |"
done
