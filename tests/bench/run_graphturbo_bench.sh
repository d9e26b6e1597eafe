#!/usr/bin/env bash
# GraphTurbo benchmark: its scheduling time, groups and instances, and the
# predicted DRAM traffic and latency of sequential (RammerBase), wavefront
# (Rammer), IOS and GraphTurbo plans on ResNeXt-29, Inception-V3, NASNet and
# LSTM-TC. Prints the table for docs/PERFORMANCE.md. Predictions are the
# analytic cost model's, not measurements.
#   BUILD_DIR   build folder (default: <repo>/build; configured if needed)
#   JOBS        ninja jobs (default 1)
#   SKIP_BUILD  1: use what BUILD_DIR already has
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-$root/build}

. "$root/tests/bench/bench_build.sh"
bench_prepare run_graphturbo_bench.sh rammer-bench-graphturbo sample_models
"$build/bin/rammer-bench-graphturbo" --samples "$build/samples" "$@"
