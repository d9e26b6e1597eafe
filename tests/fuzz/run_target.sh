#!/usr/bin/env bash
# run_target.sh BIN_DIR TARGET SECONDS CORPUS FINDINGS [HANG_SECONDS]: one libFuzzer run of
# fuzz_TARGET from BIN_DIR, seeded from the conformance cases, the samples,
# tests/fuzz/seeds and the device presets, with the target's dictionary;
# new inputs go to CORPUS, a crashing one to FINDINGS/TARGET-*. Used by
# scripts/fuzz (campaigns) and by the ctest smoke (fuzz.smoke.*).
# FUZZ_SEED, when set, fixes libFuzzer's random seed: the CI smoke replays
# the same mutations each run, so a red smoke is a change's doing.
# FUZZ_SMOKE=1 (the CI smoke): the pipeline target starts from the samples
# and transformer exports only; the import and tensor smokes replay the
# conformance cases.
# Exit: libFuzzer's (0 when nothing was found); 77 when the target is not
# built (ctest: skipped).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$1 target=$2 seconds=$3 corpus=$4 findings=$5 hang=${6:-20}
fuzzer=$bin/fuzz_$target
if [[ ! -x $fuzzer ]]; then
  echo "$fuzzer is not built (it needs clang-15 and libFuzzer): skipped"
  exit 77
fi
conformance=$root/../shared/onnx-conformance
case $target in
  import) seeds=("$root/samples/models" "$root/tests/data/transformers" "$conformance") dict=onnx.dict ;;
  pipeline)
    seeds=("$root/samples/models" "$root/tests/data/transformers")
    [[ ${FUZZ_SMOKE:-} == 1 ]] || seeds+=("$conformance")
    dict=onnx.dict ;;
  tensor) seeds=("$root/tests/data/transformers" "$conformance") dict=onnx.dict ;;
  schedule_edits) seeds=("$root/tests/fuzz/seeds/schedule_edits") dict=json.dict ;;
  device) seeds=("$root/resources/devices") dict=json.dict ;;
  *) echo "unknown fuzz target $target" >&2; exit 2 ;;
esac
mkdir -p "$corpus" "$findings"
existing=()
for s in "${seeds[@]}"; do [[ -d $s ]] && existing+=("$s"); done
# -timeout: one input over HANG_SECONDS is a hang (20; the CI smoke's
# unoptimized build gets 60); -rss_limit_mb: memory out of proportion to a
# small input is a finding too.
seed=()
[[ -n ${FUZZ_SEED:-} ]] && seed=(-seed="$FUZZ_SEED")
exec "$fuzzer" "${seed[@]}" -max_total_time="$seconds" -timeout="$hang" -rss_limit_mb=2048 -max_len=4000000 \
  -dict="$root/tests/fuzz/$dict" -artifact_prefix="$findings/$target-" -print_final_stats=1 "$corpus" "${existing[@]}"
