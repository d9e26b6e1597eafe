#!/usr/bin/env bash
# Regenerates the small sample models committed under samples/models, which
# the GUI opens with no build step: inception_block and nasbench_cells (4
# cells), batch 1, seed 1. Models with over 2 MB of weights are refused, so
# big weights never land in the source tree. Usage: update_committed.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -G Ninja -DRAMMER_BUILD_GUI=OFF >/dev/null
fi
cmake --build "$build" --target rammer-samples
"$build/bin/rammer-samples" samples/models --only inception_block,nasbench_cells \
  --nasbench-cells 4 --batch 1 --seed 1 --max-weight-bytes 2000000
