#!/usr/bin/python3
"""Exports the real-model references: ONNX model + seeded input + PyTorch's
output in the ONNX backend-test layout

    OUT/<name>/model.onnx
    OUT/<name>/test_data_set_0/input_0.pb, output_0.pb

A model whose files all exist is skipped, so rebuilds do not redo the work.
Run with Debian's /usr/bin/python3 (torch 1.13, torchvision 0.14, onnx 1.12).
"""
import argparse
import os
import shutil
import sys

try:
    import numpy as np
    import onnx
    from onnx import numpy_helper
    import torch
    import torchvision
except ImportError as e:  # a missing toolchain must fail loudly, not skip
    sys.exit(f"export_models.py: cannot import {e.name!r} ({e}); the real-model tests need "
             "torch, torchvision, onnx and numpy for /usr/bin/python3 - run scripts/setup")

OPSET = 13


class LstmHead(torch.nn.Module):
    """2-layer LSTM over a sequence, Linear head on the last step."""

    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(input_size=32, hidden_size=64, num_layers=2)
        self.head = torch.nn.Linear(64, 10)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.head(y[-1])


class Encoder(torch.nn.Module):
    """A BERT-style encoder, small: 2 post-norm layers, d_model 64, 4 heads.
    Sequence-first: PyTorch's batch-first fast path under no_grad is a fused
    op ONNX export does not know."""

    def __init__(self):
        super().__init__()
        layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128)
        self.encoder = torch.nn.TransformerEncoder(layer, num_layers=2)

    def forward(self, x):
        return self.encoder(x)


class Decoder(torch.nn.Module):
    """A GPT-style decoder, small: 2 pre-norm layers under a causal mask that
    the export builds with Trilu from the sequence length."""

    def __init__(self):
        super().__init__()
        layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, norm_first=True)
        self.decoder = torch.nn.TransformerEncoder(layer, num_layers=2)

    def forward(self, x):
        t = x.shape[0]
        causal = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
        return self.decoder(x, mask=causal)


def vit_tiny():
    """torchvision's VisionTransformer, tiny: 32x32 images, 8x8 patches, 2
    layers of width 32, 2 heads (class token, position embedding, exact GELU)."""
    from torchvision.models.vision_transformer import VisionTransformer
    m = VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64,
                          num_classes=10)
    # torchvision starts the head at zero: every output would be 0 whatever
    # came before it, and the check could not fail.
    torch.nn.init.normal_(m.heads.head.weight, std=0.2)
    torch.nn.init.normal_(m.heads.head.bias, std=0.2)
    return m, (1, 3, 32, 32)


def swin_tiny():
    """torchvision's SwinTransformer, tiny: 32x32 images, 4x4 patches, width
    16, two stages of two blocks (one shifted each), 4x4 windows. Its export
    builds the shifted windows' mask with ScatterND, Range, Mod and Where."""
    from torchvision.models.swin_transformer import SwinTransformer
    return SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[2, 4], window_size=[4, 4],
                           num_classes=10), (1, 3, 32, 32)


def vision(ctor):
    return lambda: (ctor(weights=None), (1, 3, 224, 224))


MODELS = {
    "resnet18": vision(torchvision.models.resnet18),
    "squeezenet1_1": vision(torchvision.models.squeezenet1_1),
    "mobilenet_v2": vision(torchvision.models.mobilenet_v2),
    "lstm": lambda: (LstmHead(), (20, 1, 32)),  # seq 20, batch 1, features 32
    "encoder": lambda: (Encoder(), (16, 1, 64)),  # 16 tokens, batch 1, width 64
    "decoder": lambda: (Decoder(), (16, 1, 64)),
    # The same encoder at opset 14, where the export decomposes each
    # LayerNorm into ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div/Mul/Add.
    "encoder_opset14": lambda: (Encoder(), (16, 1, 64)),
    "vit_tiny": vit_tiny,
    "swin_tiny": swin_tiny,
}
# Opset 17 writes LayerNormalization as one node (earlier ones decompose it).
OPSET_OF = {"encoder": 17, "decoder": 17, "encoder_opset14": 14, "vit_tiny": 17, "swin_tiny": 17}


def files(d):
    return [os.path.join(d, "model.onnx"),
            os.path.join(d, "test_data_set_0", "input_0.pb"),
            os.path.join(d, "test_data_set_0", "output_0.pb")]


def export(name, out_dir):
    final = os.path.join(out_dir, name)
    if all(os.path.isfile(f) for f in files(final)):
        print(f"{name}: present, skipped")
        return
    # Build in a scratch folder and rename at the end: an interrupted export
    # never looks complete.
    tmp = final + ".partial"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(os.path.join(tmp, "test_data_set_0"))

    torch.manual_seed(0)
    model, shape = MODELS[name]()
    model.eval()
    x = torch.randn(*shape)
    with torch.no_grad():
        y = model(x)
    # Traced with autograd on: under no_grad PyTorch's attention takes a fused
    # fast path (aten::_native_multi_head_attention) that ONNX export lacks.
    torch.onnx.export(model, (x,), os.path.join(tmp, "model.onnx"), opset_version=OPSET_OF.get(name, OPSET),
                      do_constant_folding=True, input_names=["input"], output_names=["output"])
    onnx.checker.check_model(os.path.join(tmp, "model.onnx"))
    for kind, t in (("input", x), ("output", y)):
        proto = numpy_helper.from_array(t.numpy().astype(np.float32), kind)
        with open(os.path.join(tmp, "test_data_set_0", f"{kind}_0.pb"), "wb") as f:
            f.write(proto.SerializeToString())
    shutil.rmtree(final, ignore_errors=True)
    os.rename(tmp, final)
    print(f"{name}: exported to {final} (input {tuple(shape)}, output {tuple(y.shape)})")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="cache folder (one subfolder per model)")
    ap.add_argument("--models", default=",".join(MODELS), help="comma-separated subset of " + ", ".join(MODELS))
    a = ap.parse_args()
    torch.set_num_threads(max(1, min(4, os.cpu_count() or 1)))
    for name in a.models.split(","):
        if name not in MODELS:
            sys.exit(f"export_models.py: unknown model {name!r}; known: {', '.join(MODELS)}")
        export(name, a.out)


if __name__ == "__main__":
    main()
