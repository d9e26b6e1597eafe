#!/usr/bin/python3
"""Writes a ~100 MB ONNX model for the import benchmark: a chain of Gemm +
Relu layers with seeded random weights, plus a seeded input and the numpy
output in the backend-test layout (OUT/model.onnx, OUT/test_data_set_0/).
Skips the work when the files exist."""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    ap.add_argument("--width", type=int, default=2048)
    ap.add_argument("--layers", type=int, default=6)  # 6 x 2048^2 floats = 100.7 MB
    a = ap.parse_args()
    model_path = os.path.join(a.out, "model.onnx")
    data = os.path.join(a.out, "test_data_set_0")
    if all(os.path.isfile(os.path.join(data, f)) for f in ("input_0.pb", "output_0.pb")) and os.path.isfile(model_path):
        print(f"{model_path}: present, skipped")
        return
    os.makedirs(data, exist_ok=True)

    rng = np.random.default_rng(0)
    n = a.width
    x = rng.uniform(-1, 1, size=(1, n)).astype(np.float32)
    nodes, inits = [], []
    cur, y = "input", x
    for i in range(a.layers):
        w = (rng.standard_normal((n, n)) / np.sqrt(n)).astype(np.float32)
        b = rng.uniform(-0.1, 0.1, size=(n,)).astype(np.float32)
        inits += [numpy_helper.from_array(w, f"w{i}"), numpy_helper.from_array(b, f"b{i}")]
        out = "output" if i == a.layers - 1 else f"h{i}"
        gemm_out = f"g{i}" if i < a.layers - 1 else out
        nodes.append(helper.make_node("Gemm", [cur, f"w{i}", f"b{i}"], [gemm_out], name=f"gemm{i}"))
        y = y @ w + b
        if i < a.layers - 1:
            nodes.append(helper.make_node("Relu", [gemm_out], [out], name=f"relu{i}"))
            y = np.maximum(y, 0)
        cur = out
    graph = helper.make_graph(nodes, "big_gemm_chain",
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, n])],
                              [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, n])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="make_big_model.py")
    onnx.save(model, model_path)
    for kind, t in (("input", x), ("output", y.astype(np.float32))):
        with open(os.path.join(data, f"{kind}_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(t, kind).SerializeToString())
    print(f"{model_path}: {os.path.getsize(model_path) / 1e6:.1f} MB, {a.layers} Gemm layers of {n}x{n}")


if __name__ == "__main__":
    sys.exit(main())
