#!/usr/bin/python3
"""Writes the graphs of the scale benchmark (issue #18 item 4) into OUT:
chain_N.onnx, N element-wise nodes one after another (Relu, Sigmoid, Tanh,
Abs, Neg in turn) on a [1, 64] input, and fanout_N.onnx, one [1, 64] input
multiplied by N different scalars (so no pass may merge them) and
concatenated into [N, 64]. Small files that describe many nodes: what a
user would try to see whether the tool stays linear."""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

UNARY = ["Relu", "Sigmoid", "Tanh", "Abs", "Neg"]


def chain(n):
    nodes = []
    prev = "x"
    for i in range(n):
        out = "y" if i == n - 1 else f"v{i}"
        nodes.append(helper.make_node(UNARY[i % len(UNARY)], [prev], [out], name=f"n{i}"))
        prev = out
    return helper.make_graph(nodes, f"chain_{n}", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
                             [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])])


def fanout(n):
    scales = [numpy_helper.from_array(np.array(1.0 + i / n, dtype=np.float32), f"s{i}") for i in range(n)]
    nodes = [helper.make_node("Mul", ["x", f"s{i}"], [f"b{i}"], name=f"mul{i}") for i in range(n)]
    nodes.append(helper.make_node("Concat", [f"b{i}" for i in range(n)], ["y"], name="concat", axis=0))
    return helper.make_graph(nodes, f"fanout_{n}", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
                             [helper.make_tensor_value_info("y", TensorProto.FLOAT, [n, 64])], scales)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    ap.add_argument("--chains", default="1000,10000,100000")
    ap.add_argument("--fanouts", default="10000")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for kind, sizes, make in [("chain", a.chains, chain), ("fanout", a.fanouts, fanout)]:
        for n in [int(s) for s in sizes.split(",") if s]:
            path = os.path.join(a.out, f"{kind}_{n}.onnx")
            if not os.path.exists(path):
                model = helper.make_model(make(n), opset_imports=[helper.make_opsetid("", 13)])
                onnx.save(model, path)
            print(path)


if __name__ == "__main__":
    main()
