#!/usr/bin/env bash
# Transformer benchmark (issue #16 item 5): the BERT-base-, GPT-2-small-,
# ViT-B/16- and Swin-T-style samples (batch 1), generated into a scratch
# folder (114-346 MB each, so the build does not write them): import and
# reference-run time, then scheduling time of every policy and the analytic
# model's predicted latency on H100, RammerBase (sequential) against Rammer
# (wavefront) and the others. Targets: every policy schedules BERT-base in
# under 2 s on 2 cores; the reference runs it in under 3 s.
#   BUILD_DIR   build folder (default: <repo>/build; configured if needed)
#   JOBS        ninja jobs (default 1)
#   SKIP_BUILD  1: use what BUILD_DIR already has
#   REPEAT      schedule and simulate each plan this many times (default 3)
#   MODELS      comma-separated (default bert_base,gpt2_small,vit_b16,swin_t)
#   FUSED       1: also schedule with attention fused (--fuse-attention)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-$root/build}
models=${MODELS:-bert_base,gpt2_small,vit_b16,swin_t}

. "$root/tests/bench/bench_build.sh"
bench_prepare run_transformer_bench.sh rammer-samples rammer-bench-import-run rammer-bench-schedule
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$build/bin/rammer-samples" --only "$models" --batch 1 --seed 1 "$scratch"
echo
files=()
for m in ${models//,/ }; do files+=("$scratch/$m.onnx"); done
"$build/bin/rammer-bench-import-run" --repeat 3 --runs 3 "${files[@]}"
echo
"$build/bin/rammer-bench-schedule" --samples "$scratch" --only "$models" --repeat "${REPEAT:-3}" --device h100
if [ "${FUSED:-0}" = 1 ]; then
  echo
  echo "with attention fused (--fuse-attention):"
  "$build/bin/rammer-bench-schedule" --samples "$scratch" --only "$models" --repeat "${REPEAT:-3}" --device h100 \
    --fuse-attention
fi
