#!/usr/bin/python3
"""Independent check of the generated sample models with the ONNX package
itself: the full checker (with strict shape inference), ONNX's inferred
output shapes against the declared ones, and parameter counts (numpy) against
the published numbers. Run with Debian's python3 (python3-onnx)."""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import shape_inference

# Trainable parameters (BN running statistics excluded) the papers publish.
PUBLISHED = {"resnext29_cifar": 68.1e6, "nasnet_cifar": 3.3e6, "alexnet": 61.1e6,
             "inception_v3": 23834568, "squeezenet": 1235496, "randwire": 5.6e6}
LSTMS = {"deepspeech2": 7, "lstm_tc": 10, "seq2seq": 12}


def dims(value_info):
    return [d.dim_value if d.HasField("dim_value") else d.dim_param
            for d in value_info.type.tensor_type.shape.dim]


def check(path):
    name = os.path.basename(path)[:-5]
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    inferred = shape_inference.infer_shapes(model, strict_mode=True)
    known = {vi.name: dims(vi) for vi in inferred.graph.value_info}
    for out in inferred.graph.output:
        if out.name in known and known[out.name] != dims(out):
            raise AssertionError(f"{name}: output {out.name} declared {dims(out)}, ONNX infers {known[out.name]}")
    trainable = sum(int(np.prod(t.dims)) for t in model.graph.initializer
                    if not t.name.endswith((".mean", ".var")) and t.data_type == onnx.TensorProto.FLOAT)
    if name in PUBLISHED and abs(trainable - PUBLISHED[name]) > 0.05 * PUBLISHED[name]:
        raise AssertionError(f"{name}: {trainable} trainable parameters, published {PUBLISHED[name]:.0f}")
    ops = [n.op_type for n in model.graph.node]
    if name in LSTMS and ops.count("LSTM") != LSTMS[name]:
        raise AssertionError(f"{name}: {ops.count('LSTM')} LSTM nodes, want {LSTMS[name]}")
    print(f"{name}: ok, {len(ops)} nodes, {trainable} trainable parameters")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("names", nargs="+")
    args = parser.parse_args()
    for name in args.names:
        check(os.path.join(args.dir, name + ".onnx"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
