#!/usr/bin/python3
"""Checks that generated sample models compute what their PyTorch
counterparts compute: the model's weights are loaded into torchvision's
AlexNet / InceptionA / Inception3 / SqueezeNet 1.1 or torch.nn.LSTM stacks,
both run on the same random input (ours via `rammer run --backend
reference`), and the outputs must agree within a relative L2 error. Run
with Debian's python3 (numpy, onnx, torch, torchvision)."""
import argparse
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
import torch
import torchvision
from onnx import numpy_helper


def weights(model):
    return {t.name: torch.from_numpy(numpy_helper.to_array(t).copy()) for t in model.graph.initializer}


def lstm_params(w, name):
    """ONNX LSTM W/R/B (gates i, o, f, c) -> torch's (gates i, f, g, o)."""
    order = [0, 2, 3, 1]

    def gates(t):
        return torch.cat([c for c in (t.chunk(4, 0)[k] for k in order)])
    W, R, B = w[name + ".W"][0], w[name + ".R"][0], w[name + ".B"][0]
    return gates(W), gates(R), gates(B[: B.shape[0] // 2]), gates(B[B.shape[0] // 2:])


def load_lstm(lstm, w, names):
    for k, name in enumerate(names):
        wi, wh, bi, bh = lstm_params(w, name)
        getattr(lstm, f"weight_ih_l{k}").data.copy_(wi)
        getattr(lstm, f"weight_hh_l{k}").data.copy_(wh)
        getattr(lstm, f"bias_ih_l{k}").data.copy_(bi)
        getattr(lstm, f"bias_hh_l{k}").data.copy_(bh)


def load_bn(bn, w, name):
    bn.weight.data.copy_(w[name + ".scale"])
    bn.bias.data.copy_(w[name + ".bias"])
    bn.running_mean.copy_(w[name + ".mean"])
    bn.running_var.copy_(w[name + ".var"])


def alexnet(w, inputs):
    net = torchvision.models.alexnet()
    convs = [m for m in net.features if isinstance(m, torch.nn.Conv2d)]
    for k, conv in enumerate(convs):
        conv.weight.data.copy_(w[f"features.conv{k + 1}.weight"])
        conv.bias.data.copy_(w[f"features.conv{k + 1}.bias"])
    fcs = [m for m in net.classifier if isinstance(m, torch.nn.Linear)]
    for k, fc in enumerate(fcs):
        fc.weight.data.copy_(w[f"classifier.fc{k + 1}.weight"])
        fc.bias.data.copy_(w[f"classifier.fc{k + 1}.bias"])
    return [net.eval()(inputs[0])]


def inception_block(w, inputs):
    block = torchvision.models.inception.InceptionA(192, pool_features=32)
    for name, unit in block.named_children():
        unit.conv.weight.data.copy_(w[name + ".conv.weight"])
        load_bn(unit.bn, w, name + ".bn")
    return [block.eval()(inputs[0])]


def inception_v3(w, inputs):
    # The inference graph: no auxiliary classifier, inputs taken as given.
    net = torchvision.models.inception_v3(weights=None, aux_logits=False, transform_input=False,
                                          init_weights=False)
    for name, unit in net.named_modules():
        if isinstance(unit, torchvision.models.inception.BasicConv2d):
            unit.conv.weight.data.copy_(w[name + ".conv.weight"])
            load_bn(unit.bn, w, name + ".bn")
    net.fc.weight.data.copy_(w["fc.weight"])
    net.fc.bias.data.copy_(w["fc.bias"])
    return [net.eval()(inputs[0])]


def squeezenet(w, inputs):
    # The sample names its weights as torchvision's state dict does.
    net = torchvision.models.squeezenet1_1()
    net.load_state_dict({k: w[k] for k in net.state_dict()})
    return [net.eval()(inputs[0])]


def lstm_tc(w, inputs):
    lstm = torch.nn.LSTM(256, 256, num_layers=10)
    load_lstm(lstm, w, [f"rnn.lstm{k}" for k in range(10)])
    return [lstm(inputs[0])[0]]


def seq2seq(w, inputs):
    enc = torch.nn.LSTM(128, 128, num_layers=8)
    dec = torch.nn.LSTM(128, 128, num_layers=4)
    load_lstm(enc, w, [f"encoder.lstm{k}" for k in range(8)])
    load_lstm(dec, w, [f"decoder.lstm{k}" for k in range(4)])
    _, (h, c) = enc(inputs[0])
    y, _ = dec(inputs[1], (h[4:], c[4:]))
    return [y @ w["fc.weight"] + w["fc.bias"]]


def deepspeech2(w, inputs):
    conv1 = torch.nn.Conv2d(1, 32, (41, 11), (2, 2), (20, 5), bias=False)
    conv2 = torch.nn.Conv2d(32, 32, (21, 11), (2, 1), (10, 5), bias=False)
    bn1, bn2 = torch.nn.BatchNorm2d(32).eval(), torch.nn.BatchNorm2d(32).eval()
    conv1.weight.data.copy_(w["conv1.conv.weight"])
    conv2.weight.data.copy_(w["conv2.conv.weight"])
    load_bn(bn1, w, "conv1.bn")
    load_bn(bn2, w, "conv2.bn")
    x = torch.relu(bn2(conv2(torch.relu(bn1(conv1(inputs[0]))))))
    n, c, f, t = x.shape
    x = x.permute(3, 0, 1, 2).reshape(t, n, c * f)
    first = torch.nn.LSTM(c * f, 256)
    rest = torch.nn.LSTM(256, 256, num_layers=6)
    load_lstm(first, w, ["rnn.lstm0"])
    load_lstm(rest, w, [f"rnn.lstm{k}" for k in range(1, 7)])
    y, _ = rest(first(x)[0])
    return [y @ w["fc.weight"] + w["fc.bias"]]


MODELS = {"alexnet": alexnet, "inception_block": inception_block, "lstm_tc": lstm_tc, "seq2seq": seq2seq,
          "deepspeech2": deepspeech2, "inception_v3": inception_v3, "squeezenet": squeezenet}


def shape_of(vi):
    return [d.dim_value for d in vi.type.tensor_type.shape.dim]


def check(name, args):
    path = os.path.join(args.dir, name + ".onnx")
    model = onnx.load(path)
    w = weights(model)
    rng = np.random.default_rng(5)
    inputs = [rng.uniform(-1, 1, shape_of(vi)).astype(np.float32) for vi in model.graph.input]
    work = os.path.join(args.work, name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "in"))
    for k, x in enumerate(inputs):
        with open(os.path.join(work, "in", f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(x).SerializeToString())
    cmd = [args.rammer, "run", path, "--backend", "reference", "--inputs", os.path.join(work, "in"),
           "--outputs", os.path.join(work, "out")]
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)}\n{p.stderr}")
    with torch.no_grad():
        want = [t.numpy().astype(np.float64) for t in MODELS[name](w, [torch.from_numpy(x) for x in inputs])]
    for k, ref in enumerate(want):
        t = onnx.TensorProto()
        with open(os.path.join(work, "out", f"output_{k}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        got = numpy_helper.to_array(t).astype(np.float64)
        if got.shape != ref.shape:
            sys.exit(f"FAIL: {name} output {k} has shape {got.shape}, PyTorch's {ref.shape}")
        rel = np.linalg.norm(got - ref) / max(np.linalg.norm(ref), 1e-30)
        print(f"{name} output {k}: shape {got.shape}, relative L2 error {rel:.2e}")
        if not rel <= args.max_rel_l2:
            sys.exit(f"FAIL: {name}: relative L2 error {rel:.3e} > {args.max_rel_l2:g}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rammer", required=True)
    ap.add_argument("--dir", required=True, help="folder with the generated <name>.onnx")
    ap.add_argument("--work", required=True)
    ap.add_argument("--max-rel-l2", type=float, default=1e-4)
    ap.add_argument("names", nargs="*", default=sorted(MODELS))
    args = ap.parse_args()
    torch.manual_seed(0)
    for name in args.names:
        check(name, args)
    print("ok")


if __name__ == "__main__":
    main()
