#!/usr/bin/env bash
# Re-exports the tiny transformer models committed under
# tests/data/transformers (each model.onnx with test_data_set_0/input_0.pb and
# PyTorch's output_0.pb, the ONNX backend-test layout) with Debian's PyTorch.
# CI runs the committed files, so a PyTorch upgrade changes them only when
# this is run and the result committed. The whole folder stays under 2 MB.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/tests/data/transformers
models=encoder,decoder,encoder_opset14,vit_tiny,swin_tiny,bert_tokens,gpt_tokens
for m in ${models//,/ }; do rm -rf "${out:?}/$m"; done
/usr/bin/python3 "$root/tests/real_models/export_models.py" --out "$out" --models "$models"
size=$(du -sk "$out" | cut -f1)
if (( size > 2048 )); then
  echo "update_committed.sh: $out is ${size} KB, over the 2 MB the repository takes" >&2
  exit 1
fi
echo "$out: ${size} KB"
