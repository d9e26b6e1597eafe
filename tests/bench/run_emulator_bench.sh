#!/usr/bin/env bash
# The CPU emulator on every sample under every policy (issue #44 item 2: the
# emulator stays within 1.5x of its time before the CPU tiles went). One
# `rammer run --backend emulator` per sample, policy and repeat, H100
# preset; the time is the emulator's own ("emulated on T threads in X ms",
# the programs' wall clock, not the import, plan or reference check); the
# median of REPEAT runs. With BASE_BUILD set, the same runs on that build's
# rammer too, side by side, and the ratio. Prints the table for
# docs/PERFORMANCE.md.
#   BUILD_DIR    build folder (default: <repo>/build)
#   BASE_BUILD   a second build folder to compare with (optional)
#   MODELS       comma-separated sample names (default: every sample)
#   POLICIES     comma-separated policies (default: every policy)
#   THREADS      emulator worker threads (default: one per core)
#   REPEAT       runs per measurement (default 3)
#   NO_BUILD     set: run BUILD_DIR's rammer as it is (a copy, so that the
#                build folder can move on while the benchmark runs)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-$root/build}
[ -n "${NO_BUILD:-}" ] || ninja -C "$build" rammer sample_models >/dev/null
policies=${POLICIES:-$("$build/bin/rammer" schedule --help | sed -n 's/^ \{20,\}\([a-z]*\)\( (or [a-z]*)\)\?: .*/\1/p' | paste -sd,)}
models=${MODELS:-$(ls "$build/samples" | sed -n 's/\.onnx$//p' | paste -sd,)}
out=$(mktemp -d /tmp/rammer-bench-emulator.XXXXXX)
trap 'rm -rf "$out"' EXIT

# Median emulated milliseconds of REPEAT runs of $1's rammer on model $2, policy $3.
emulated() {
  local times=()
  for _ in $(seq "${REPEAT:-3}"); do
    local line
    line=$("$1/bin/rammer" run "$build/samples/$2.onnx" --backend emulator --random --policy "$3" --no-check \
      ${THREADS:+--threads "$THREADS"} --outputs "$out" 2>&1 >/dev/null |
      sed -n -e 's/^emulated on .* in \([0-9.]*\) ms$/\1/p' -e 's/^emulated on .* in \([0-9.]*\) s$/\1e3/p')
    [ -n "$line" ] || { echo "no emulator time for $2 under $3" >&2; exit 1; }
    times+=("$line")
  done
  printf '%s\n' "${times[@]}" | sort -g | sed -n "$(( (${#times[@]} + 1) / 2 ))p" | xargs printf '%.1f\n'
}

echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'), $(free -g | awk '/Mem:/{print $2}') GiB"
echo
if [ -n "${BASE_BUILD:-}" ]; then
  echo "| model | policy | before (ms) | after (ms) | after / before |"
  echo "|---|---|---|---|---|"
else
  echo "| model | policy | emulated (ms) |"
  echo "|---|---|---|"
fi
for m in ${models//,/ }; do
  for p in ${policies//,/ }; do
    now=$(emulated "$build" "$m" "$p")
    if [ -n "${BASE_BUILD:-}" ]; then
      before=$(emulated "$BASE_BUILD" "$m" "$p")
      echo "| $m | $p | $before | $now | $(python3 -c "print(f'{$now / max($before, 1e-9):.2f}x')") |"
    else
      echo "| $m | $p | $now |"
    fi
  done
done
