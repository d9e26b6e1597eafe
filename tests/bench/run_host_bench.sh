#!/usr/bin/env bash
# Host-target benchmark: the reference executor, the CPU emulator and the
# generated program on the CPU (host target) on a resnet-style, an
# inception-style and an LSTM sample, H100 preset, wavefront plans. The host
# compile is timed from an empty cache (kernels; the runtime and harness
# once per cache, shown apart); run times are medians (the host's: the
# program's own mean over the runs). One process per model and backend, so
# each peak RSS is that backend's. Prints the table for docs/PERFORMANCE.md.
#   BUILD_DIR   build folder (default: <repo>/build)
#   MODELS      comma-separated sample names (default below)
#   THREADS     emulator and host worker threads (default: one per core)
#   REPEAT      runs per measurement (default 3)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-$root/build}
models=${MODELS:-resnext29_cifar,inception_block,lstm_tc}
ninja -C "$build" rammer-bench-host sample_models >/dev/null
cache=$(mktemp -d /tmp/rammer-bench-host.XXXXXX)
trap 'rm -rf "$cache"' EXIT

echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'), $(free -g | awk '/Mem:/{print $2}') GiB; $(c++ --version | head -1)"
echo
echo "| model | rTasks | reference run | emulator run | host compile (kernels + runtime once) | host run | host / emulator | peak RSS ref / emu / host | host rel. L2 |"
echo "|---|---|---|---|---|---|---|---|---|"
for m in ${models//,/ }; do
  f=$build/samples/$m.onnx
  [ -f "$f" ] || f=$root/samples/models/$m.onnx
  line() { "$build/bin/rammer-bench-host" "$f" --backend "$1" --cache "$cache" --repeat "${REPEAT:-3}" --threads "${THREADS:-0}"; }
  ref=$(line reference); emu=$(line emulator); host=$(line host)
  python3 - "$ref" "$emu" "$host" <<'PY'
import json, sys
r, e, h = (json.loads(a) for a in sys.argv[1:])
print(f"| {h['model']} | {h['rtasks']:,} | {r['run_ms']:.0f} ms | {e['run_ms']:.0f} ms | "
      f"{h['compile_s']:.1f} s + {h['runtime_compile_s']:.1f} s | {h['run_ms']:.0f} ms | "
      f"{h['run_ms'] / e['run_ms']:.1f}x | {r['peak_rss_mib']:.0f} / {e['peak_rss_mib']:.0f} / {h['peak_rss_mib']:.0f} MiB | "
      f"{h['rel_l2']:.1e} |")
PY
done
