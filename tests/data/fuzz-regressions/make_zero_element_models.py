#!/usr/bin/python3
"""Writes model-zero-element-*.onnx and their expect.json (issue #30 item 5):
a Tile, Concat, Expand, Reshape, Transpose and Pad whose output holds no
element but has a dim of 2^30 beside its zero dim. The reference executor
once built a per-axis offset table of 2^30 entries for each (8.4 GB, 5-18 s
a run, on every backend: the emulator and the host check against it); each
run must now stay under 100 MB (check_fuzz_regressions.py's "max_mb"), the
compiler of a first host run aside."""
import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

B = 1 << 30
F = TensorProto.FLOAT
here = os.path.dirname(os.path.abspath(__file__))


def i64(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def io(name, shape):
    return helper.make_tensor_value_info(name, F, shape)


def save(op, nodes, x, y, inits=(), opset=13):
    graph = helper.make_graph(nodes, f"zero_element_{op}", [io("x", x)], [io("y", y)], list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="rammer-tests")
    model.ir_version = 8
    stem = os.path.join(here, f"model-zero-element-{op}")
    onnx.save(model, stem + ".onnx")
    # The host target twice: the first run builds the program (the system
    # compiler's memory counts too), the second finds it in the build cache
    # and is the run alone.
    runs = [{"args": ["run", "MODEL", "--random", "--outputs", "OUT"] + extra, "rc": 0, "max_mb": mb,
             "compare_with_reference": bool(extra)}
            for extra, mb in (([], 100), (["--backend", "emulator"], 100), (["--backend", "host"], 1000),
                              (["--backend", "host"], 100))]
    with open(stem + ".expect.json", "w") as f:
        json.dump(runs, f, indent=1)
        f.write("\n")


save("tile", [helper.make_node("Tile", ["x", "r"], ["y"])], [0, 2], [0, B], [i64("r", [1, B // 2])])
save("concat", [helper.make_node("Concat", ["x", "x"], ["y"], axis=0)], [0, B], [0, B])
save("expand", [helper.make_node("Expand", ["x", "s"], ["y"])], [0, 1], [0, B], [i64("s", [0, B])])
save("reshape", [helper.make_node("Reshape", ["x", "t"], ["y"], allowzero=1)], [0, B], [B, 0], [i64("t", [B, 0])],
     opset=14)
save("transpose", [helper.make_node("Transpose", ["x"], ["y"], perm=[1, 0])], [0, B], [B, 0])
save("pad", [helper.make_node("Pad", ["x", "p"], ["y"])], [0, 2], [0, B + 2], [i64("p", [0, B // 2, 0, B // 2])])
