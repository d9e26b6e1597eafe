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


class TokenAttention(torch.nn.Module):
    """One attention layer written out (post-norm, GELU FFN) so a tiny model
    can take its mask in the form real exports do: an additive bias (BERT)
    or a bool mask applied with Where (GPT's masked_fill)."""

    def __init__(self, d, heads):
        super().__init__()
        self.heads, self.dh = heads, d // heads
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.out = torch.nn.Linear(d, d)
        self.ff1, self.ff2 = torch.nn.Linear(d, 2 * d), torch.nn.Linear(2 * d, d)
        self.ln1, self.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)

    def forward(self, x, bias=None, allowed=None):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, self.dh).permute(2, 0, 3, 1, 4)
        s = q @ k.transpose(-1, -2) / self.dh ** 0.5
        if bias is not None:
            s = s + bias
        if allowed is not None:
            s = s.masked_fill(~allowed, -1e9)
        a = (torch.softmax(s, dim=-1) @ v).transpose(1, 2).reshape(b, t, d)
        x = self.ln1(x + self.out(a))
        return self.ln2(x + self.ff2(torch.nn.functional.gelu(self.ff1(x))))


class TokenBert(torch.nn.Module):
    """BERT from token ids, tiny: word, position and token-type embeddings
    (Gather by an int64 graph input), the padding mask from the ids (id 0,
    Equal/Not/Cast) as BERT's additive -10000 bias, 2 layers, the tanh
    pooler on the first token."""

    def __init__(self, vocab=40, d=32, seq=16):
        super().__init__()
        self.word, self.pos, self.segment = (torch.nn.Embedding(vocab, d), torch.nn.Embedding(seq, d),
                                          torch.nn.Embedding(2, d))
        self.norm = torch.nn.LayerNorm(d)
        self.layers = torch.nn.ModuleList([TokenAttention(d, 2) for _ in range(2)])
        self.pool = torch.nn.Linear(d, d)

    def forward(self, ids):
        t = ids.shape[1]
        x = self.norm(self.word(ids) + self.pos(torch.arange(t)) + self.segment(torch.zeros_like(ids)))
        bias = (1.0 - (ids != 0)[:, None, None, :].float()) * -10000.0
        for layer in self.layers:
            x = layer(x, bias=bias)
        return torch.tanh(self.pool(x[:, 0]))


class TokenGpt(torch.nn.Module):
    """GPT from token ids, tiny: word and position embeddings, attention
    under the causal mask And the ids' padding mask, applied with Where
    (masked_fill), 2 layers, logits by the tied embedding, and the next
    token (ArgMax, int64) as a second output."""

    def __init__(self, vocab=40, d=32, seq=16):
        super().__init__()
        self.word, self.pos = torch.nn.Embedding(vocab, d), torch.nn.Embedding(seq, d)
        self.layers = torch.nn.ModuleList([TokenAttention(d, 2) for _ in range(2)])

    def forward(self, ids):
        t = ids.shape[1]
        x = self.word(ids) + self.pos(torch.arange(t))
        causal = torch.tril(torch.ones(t, t, dtype=torch.bool))
        allowed = causal & (ids != 0)[:, None, None, :]
        for layer in self.layers:
            x = layer(x, allowed=allowed)
        logits = x @ self.word.weight.t()
        return logits, logits.argmax(dim=-1)


def token_ids(batch, seq, vocab):
    """Seeded ids in [1, vocab) with a padding tail (id 0) in the second row."""
    ids = torch.randint(1, vocab, (batch, seq))
    ids[1, seq - 5:] = 0
    return ids


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
    "bert_tokens": lambda: (TokenBert(), token_ids(2, 16, 40)),
    "gpt_tokens": lambda: (TokenGpt(), token_ids(2, 16, 40)),
}
# Opset 17 writes LayerNormalization as one node (earlier ones decompose it).
OPSET_OF = {"encoder": 17, "decoder": 17, "encoder_opset14": 14, "vit_tiny": 17, "swin_tiny": 17, "bert_tokens": 17,
            "gpt_tokens": 17}


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
    model, example = MODELS[name]()  # an input shape (random floats) or the input itself (token ids)
    model.eval()
    x = example if torch.is_tensor(example) else torch.randn(*example)
    with torch.no_grad():
        y = model(x)
    ys = list(y) if isinstance(y, tuple) else [y]
    # Traced with autograd on: under no_grad PyTorch's attention takes a fused
    # fast path (aten::_native_multi_head_attention) that ONNX export lacks.
    torch.onnx.export(model, (x,), os.path.join(tmp, "model.onnx"), opset_version=OPSET_OF.get(name, OPSET),
                      do_constant_folding=True, input_names=["input"],
                      output_names=["output"] + [f"output_{k}" for k in range(1, len(ys))])
    onnx.checker.check_model(os.path.join(tmp, "model.onnx"))
    # Floats as float32; token ids and ArgMax as the int64 they are.
    arrays = [("input_0", x)] + [(f"output_{k}", t) for k, t in enumerate(ys)]
    for file, t in arrays:
        a = t.numpy()
        proto = numpy_helper.from_array(a.astype(np.float32) if a.dtype.kind == "f" else a, file.split("_")[0])
        with open(os.path.join(tmp, "test_data_set_0", f"{file}.pb"), "wb") as f:
            f.write(proto.SerializeToString())
    shutil.rmtree(final, ignore_errors=True)
    os.rename(tmp, final)
    print(f"{name}: exported to {final} (input {tuple(x.shape)}, outputs {[tuple(t.shape) for t in ys]})")


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
