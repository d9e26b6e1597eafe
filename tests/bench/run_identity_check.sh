#!/usr/bin/env bash
# What issue #44 asks to stay unchanged while rKernel bodies move into
# templates, compared between two builds: every model's `rammer schedule
# --json` (minus schedule_seconds) under every policy, the compiled
# registers, stack and spills of those plans (`schedule --compile`, NVRTC,
# no GPU) and of the sequential plans of the ONNX conformance models, and
# the outputs of the generated code on the host target (one worker thread:
# with more, float atomics make runs differ from run to run). A model that
# neither build can plan (some conformance models) compares as empty on
# both sides. Prints one line per difference and a summary; exits 1 when
# anything differs.
#   BASE_BUILD   the build folder to compare with (required; its bin/rammer)
#   BUILD_DIR    this build folder (default: <repo>/build)
#   MODELS       ONNX files for schedules and registers (default: the
#                committed samples and build/samples' lstm_tc, squeezenet)
#   HOST_MODELS  ONNX files run on the host (default: sample_cnn, nasbench_cells)
#   POLICIES     comma-separated (default: every policy)
#   HOST_POLICIES  comma-separated, for the host runs (default: wavefront,sequential)
#   CONFORMANCE  the conformance suite folder, "" to skip (default: ../shared/onnx-conformance)
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-$root/build}
base=${BASE_BUILD:?set BASE_BUILD to the build folder to compare with}
models=${MODELS:-"$(ls "$root"/samples/models/*.onnx) $build/samples/lstm_tc.onnx $build/samples/squeezenet.onnx"}
host_models=${HOST_MODELS:-"$root/samples/models/sample_cnn.onnx $root/samples/models/nasbench_cells.onnx"}
policies=${POLICIES:-$("$build/bin/rammer" schedule --help | sed -n 's/^ \{20,\}\([a-z]*\)\( (or [a-z]*)\)\?: .*/\1/p' | paste -sd,)}
conformance=${CONFORMANCE-$root/../shared/onnx-conformance}
out=$(mktemp -d /tmp/rammer-identity.XXXXXX)
trap 'rm -rf "$out"' EXIT

compared=0 differ=0
same() {  # $1 label; $2, $3 files
  compared=$((compared + 1))
  if ! cmp -s "$2" "$3"; then
    differ=$((differ + 1))
    echo "differs: $1"
  fi
}
schedule_json() { "$1" schedule "$2" --policy "$3" --json 2>/dev/null |
  python3 -c 'import json,sys; d=json.load(sys.stdin); d.pop("schedule_seconds",None); print(json.dumps(d,sort_keys=True))' 2>/dev/null; }
registers() { "$1" schedule "$2" --policy "$3" --compile --json 2>/dev/null |
  python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["compiled"]["programs"]))' 2>/dev/null; }

for m in $models; do
  [ -f "$m" ] || { echo "no model $m (build the samples)" >&2; continue; }
  for p in ${policies//,/ }; do
    for side in base new; do
      bin=$base/bin/rammer; [ $side = new ] && bin=$build/bin/rammer
      schedule_json "$bin" "$m" "$p" > "$out/$side.sched"
      registers "$bin" "$m" "$p" > "$out/$side.regs"
    done
    same "$(basename "$m") $p schedule" "$out/base.sched" "$out/new.sched"
    same "$(basename "$m") $p registers" "$out/base.regs" "$out/new.regs"
  done
done
if [ -n "$conformance" ] && [ -d "$conformance" ]; then
  for d in "$conformance"/*/*/; do
    registers "$base/bin/rammer" "$d/model.onnx" sequential > "$out/base.regs"
    registers "$build/bin/rammer" "$d/model.onnx" sequential > "$out/new.regs"
    same "$(basename "$d") sequential registers" "$out/base.regs" "$out/new.regs"
  done
fi
for m in $host_models; do
  host_policies=${HOST_POLICIES:-wavefront,sequential}
  for p in ${host_policies//,/ }; do
    for side in base new; do
      bin=$base/bin/rammer; [ $side = new ] && bin=$build/bin/rammer
      mkdir -p "$out/$side.host"
      "$bin" run "$m" --backend host --policy "$p" --threads 1 --batch 1 --random --seed 3 --outputs "$out/$side.host" \
        >/dev/null 2>&1 || echo "host run failed: $side $(basename "$m") $p" >&2
    done
    for f in "$out"/base.host/*.pb; do same "$(basename "$m") $p host $(basename "$f")" "$f" "$out/new.host/$(basename "$f")"; done
    rm -rf "$out"/base.host "$out"/new.host
  done
done
echo "$compared compared, $differ differ"
[ "$differ" -eq 0 ]
