#!/usr/bin/env bash
# Foundation benchmark: import (+ type inference) and reference-run times of
# the real models and of a ~100 MB model. Builds what it needs, creates the
# models when missing, prints the table for docs/PERFORMANCE.md.
#   BUILD_DIR  build folder (default: <repo>/build; configured if needed)
#   JOBS       ninja jobs (default 1)
#   REPEAT, RUNS  imports / reference runs per model (default 5 / 3)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-$root/build}
python=/usr/bin/python3

if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRAMMER_BUILD_GUI=OFF
fi
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$build/CMakeCache.txt")
if [ "$build_type" != "Release" ]; then
  echo "run_foundation_bench.sh: warning: $build is a '$build_type' build; timings are meant for Release" >&2
fi
ninja -C "$build" -j"${JOBS:-1}" rammer-bench-import-run

models="$build/real_models"
"$python" "$root/tests/real_models/export_models.py" --out "$models"
"$python" "$root/tests/bench/make_big_model.py" --out "$build/bench_models/big_gemm"

echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p')"
"$build/bin/rammer-bench-import-run" --repeat "${REPEAT:-5}" --runs "${RUNS:-3}" \
  "$models/resnet18" "$models/squeezenet1_1" "$models/mobilenet_v2" "$models/lstm" \
  "$build/bench_models/big_gemm"
