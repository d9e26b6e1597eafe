#!/usr/bin/env bash
# IOS benchmark: IOS's scheduling time, DP states and predicted latency
# against sequential (RammerBase) and wavefront (Rammer) on Inception-V3,
# NASNet, SqueezeNet, RandWire and LSTM-TC (r=3, s=8), each variant (parallel, merge, both)
# variants. Prints the table for docs/PERFORMANCE.md. Predictions are the
# analytic cost model's, not measurements.
#   BUILD_DIR   build folder (default: <repo>/build; configured if needed)
#   JOBS        ninja jobs (default 1)
#   SKIP_BUILD  1: use what BUILD_DIR already has
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-$root/build}

. "$root/tests/bench/bench_build.sh"
bench_prepare run_ios_bench.sh rammer-bench-ios sample_models
"$build/bin/rammer-bench-ios" --samples "$build/samples" "$@"
