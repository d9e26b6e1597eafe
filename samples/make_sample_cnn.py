#!/usr/bin/python3
"""Writes samples/models/sample_cnn.onnx: a small seeded CNN (conv, batch
norm, relu, pooling, a residual add, a classifier) that the GUI opens with no
build step. Run with Debian's python3 (python3-onnx, python3-numpy)."""
import os
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

rng = np.random.default_rng(7)
inits, nodes = [], []


def weight(name, shape, scale=0.1):
    inits.append(numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name))
    return name


def conv_bn_relu(x, name, cin, cout, k=3, stride=1, group=1):
    w = weight(name + ".w", (cout, cin // group, k, k))
    b = weight(name + ".b", (cout,))
    nodes.append(helper.make_node("Conv", [x, w, b], [name + ".conv"], name=name,
                                  pads=[k // 2] * 4, strides=[stride, stride], group=group))
    bn = [weight(name + ".bn." + p, (cout,)) for p in ("scale", "bias", "mean")]
    inits.append(numpy_helper.from_array(rng.uniform(0.5, 1.5, cout).astype(np.float32), name + ".bn.var"))
    nodes.append(helper.make_node("BatchNormalization", [name + ".conv", *bn, name + ".bn.var"],
                                  [name + ".bn"], name=name + ".bn"))
    nodes.append(helper.make_node("Relu", [name + ".bn"], [name + ".relu"], name=name + ".relu"))
    return name + ".relu"


x = conv_bn_relu("input", "stem", 3, 16)
nodes.append(helper.make_node("MaxPool", [x], ["pool1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]))
a = conv_bn_relu("pool1", "block.a", 16, 16)
b = conv_bn_relu(a, "block.b", 16, 16, group=16)
nodes.append(helper.make_node("Add", ["pool1", b], ["block.sum"], name="block.add"))
c = conv_bn_relu("block.sum", "down", 16, 32, stride=2)
nodes.append(helper.make_node("GlobalAveragePool", [c], ["gap"], name="gap"))
nodes.append(helper.make_node("Flatten", ["gap"], ["flat"], name="flatten"))
fc_w, fc_b = weight("fc.w", (10, 32)), weight("fc.b", (10,))
nodes.append(helper.make_node("Gemm", ["flat", fc_w, fc_b], ["logits"], name="fc", transB=1))
nodes.append(helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=1))

graph = helper.make_graph(
    nodes, "sample_cnn",
    [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", 3, 32, 32])],
    [helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["batch", 10])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="rammer-samples")
onnx.checker.check_model(model)
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models", "sample_cnn.onnx")
onnx.save(model, out)
print(out)
