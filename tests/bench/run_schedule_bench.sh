#!/usr/bin/env bash
# Scheduling benchmark: scheduling time of every policy on the eight sample
# models, simulator throughput, and the analytic model's predicted latency
# and SM efficiency on H100; then RammerBase (sequential) / Rammer
# (wavefront) on the V100 preset, the paper's GPU. Prints the tables for
# docs/PERFORMANCE.md. The predictions are the analytic cost model's, not
# measurements.
#   BUILD_DIR   build folder (default: <repo>/build; configured if needed)
#   JOBS        ninja jobs (default 1)
#   SKIP_BUILD  1: use what BUILD_DIR already has (e.g. built under a lock)
#   REPEAT      schedule and simulate each plan this many times (default 3)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-$root/build}

. "$root/tests/bench/bench_build.sh"
bench_prepare run_schedule_bench.sh rammer-bench-schedule sample_models
"$build/bin/rammer-bench-schedule" --samples "$build/samples" --repeat "${REPEAT:-3}" --device h100
echo
"$build/bin/rammer-bench-schedule" --samples "$build/samples" --repeat 1 --device v100 \
  --policies sequential,wavefront --only alexnet,resnext29_cifar,nasnet_cifar,deepspeech2,lstm_tc,seq2seq \
  | sed -n '/^RammerBase/,$p'
