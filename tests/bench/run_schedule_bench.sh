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

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  if [ ! -f "$build/build.ninja" ]; then
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRAMMER_BUILD_GUI=OFF
  fi
  ninja -C "$build" -j"${JOBS:-1}" rammer-bench-schedule sample_models
fi
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$build/CMakeCache.txt")
if [ "$build_type" != "Release" ]; then
  echo "run_schedule_bench.sh: warning: $build is a '$build_type' build; timings are meant for Release" >&2
fi

echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$build/bin/rammer-bench-schedule" --samples "$build/samples" --repeat "${REPEAT:-3}" --device h100
echo
"$build/bin/rammer-bench-schedule" --samples "$build/samples" --repeat 1 --device v100 \
  --policies sequential,wavefront --only alexnet,resnext29_cifar,nasnet_cifar,deepspeech2,lstm_tc,seq2seq \
  | sed -n '/^RammerBase/,$p'
