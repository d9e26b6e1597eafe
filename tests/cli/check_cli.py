#!/usr/bin/python3
"""End-to-end checks of the `rammer` executable (one ctest per --case).

Expected values are worked out here from the ONNX files with the onnx
package, independently of the C++ importer.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(args, expect_rc=0):
    p = subprocess.run(args, capture_output=True, text=True, timeout=600)
    if expect_rc is not None and p.returncode != expect_rc:
        fail(f"{' '.join(args)}\n  exit {p.returncode}, expected {expect_rc}\n  stdout: {p.stdout}\n  stderr: {p.stderr}")
    return p


def load_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t.name, numpy_helper.to_array(t)


def fresh_dir(path):
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def conv_flops(model):
    """Multiply-adds of every Conv as 2 FLOPs (the project's convention)."""
    total = 0
    inits = {i.name: i for i in model.graph.initializer}
    outs = {o.name: o for o in model.graph.output}
    for n in model.graph.node:
        w = inits[n.input[1]]
        out = outs[n.output[0]].type.tensor_type.shape.dim
        out_elems = np.prod([d.dim_value for d in out])
        total += 2 * out_elems * np.prod(w.dims[1:])
    return total


def case_info_json(a):
    model = onnx.load(a.model)
    p = run([a.rammer, "info", a.model, "--json"])
    j = json.loads(p.stdout)
    for key in ["model", "opset", "inputs", "outputs", "nodes", "ops", "parameters", "parameter_bytes", "flops"]:
        if key not in j:
            fail(f"key {key!r} missing from {sorted(j)}")
    inits = {i.name for i in model.graph.initializer}
    real_inputs = [i for i in model.graph.input if i.name not in inits]

    def dims(v):
        return [d.dim_value for d in v.type.tensor_type.shape.dim]

    want_inputs = [{"name": i.name, "dtype": "float32", "shape": dims(i)} for i in real_inputs]
    want_outputs = [{"name": o.name, "dtype": "float32", "shape": dims(o)} for o in model.graph.output]
    checks = {
        "opset": model.opset_import[0].version,
        "inputs": want_inputs,
        "outputs": want_outputs,
        "nodes": len(model.graph.node),
        "ops": {"Conv": len(model.graph.node)},
        "parameters": int(sum(np.prod(i.dims) for i in model.graph.initializer)),
        "parameter_bytes": int(sum(4 * np.prod(i.dims) for i in model.graph.initializer)),
    }
    for key, want in checks.items():
        if j[key] != want:
            fail(f"{key}: got {j[key]!r}, expected {want!r}")
    flops = conv_flops(model)
    # The bias add may or may not be counted: at most one FLOP per output element on top.
    out_elems = np.prod(want_outputs[0]["shape"])
    if not flops <= j["flops"] <= flops + out_elems:
        fail(f"flops: got {j['flops']}, expected {flops} (+ up to {out_elems} for the bias)")

    text = run([a.rammer, "info", a.model]).stdout
    for needle in ["Conv", "FLOP", "parameters", want_inputs[0]["name"]]:
        if needle not in text:
            fail(f"text output lacks {needle!r}:\n{text}")


def case_run_inputs(a):
    model = onnx.load(a.model)
    data = os.path.join(os.path.dirname(a.model), "test_data_set_0")
    out = fresh_dir(os.path.join(a.work, "run_inputs"))
    p = run([a.rammer, "run", a.model, "--backend", "reference", "--inputs", data, "--outputs", out, "--json"])
    j = json.loads(p.stdout)
    if j["backend"] != "reference" or len(j["outputs"]) != len(model.graph.output):
        fail(f"unexpected summary {j}")
    for k, o in enumerate(model.graph.output):
        name, got = load_pb(os.path.join(out, f"output_{k}.pb"))
        _, want = load_pb(os.path.join(data, f"output_{k}.pb"))
        if name != o.name:
            fail(f"output_{k}.pb is named {name!r}, expected {o.name!r}")
        if got.shape != want.shape or not np.allclose(got, want, rtol=1e-4, atol=1e-5):
            fail(f"output {k} differs: max abs diff {np.max(np.abs(got - want)) if got.shape == want.shape else got.shape}")
        if list(got.shape) != j["outputs"][k]["shape"]:
            fail(f"summary shape {j['outputs'][k]['shape']} != file shape {got.shape}")
    if "running" not in p.stderr:
        fail(f"no progress on stderr: {p.stderr!r}")
    q = run([a.rammer, "run", a.model, "--inputs", data, "--outputs", out, "--quiet"])
    if q.stderr:
        fail(f"--quiet still printed to stderr: {q.stderr!r}")


def case_random_seed(a):
    outs = []
    for k, seed in enumerate(["1", "1", "2"]):
        d = fresh_dir(os.path.join(a.work, f"random_{k}"))
        run([a.rammer, "run", a.model, "--backend", "reference", "--random", "--seed", seed, "--outputs", d])
        outs.append(load_pb(os.path.join(d, "output_0.pb"))[1])
    if not np.array_equal(outs[0], outs[1]):
        fail("--random --seed 1 gave different outputs on two runs")
    if np.array_equal(outs[0], outs[2]):
        fail("--seed 1 and --seed 2 gave the same outputs")


def case_symbolic_batch(a):
    # Relu on [N, 4]: random inputs need --batch to become concrete.
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "sym", [x], [y])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    path = os.path.join(fresh_dir(os.path.join(a.work, "symbolic")), "relu.onnx")
    onnx.save(m, path)
    out = os.path.join(a.work, "symbolic", "out")
    p = run([a.rammer, "run", path, "--random", "--outputs", out], expect_rc=1)
    if "rammer: error:" not in p.stderr or "--batch" not in p.stderr:
        fail(f"missing --batch hint: {p.stderr!r}")
    info = json.loads(run([a.rammer, "info", path, "--json"]).stdout)
    if info["inputs"][0]["shape"] != ["N", 4]:
        fail(f"symbolic dim not reported by name: {info['inputs'][0]}")
    run([a.rammer, "run", path, "--random", "--batch", "3", "--outputs", out])
    _, y = load_pb(os.path.join(out, "output_0.pb"))
    if y.shape != (3, 4) or y.min() < 0 or y.max() <= 0:
        fail(f"relu output wrong: shape {y.shape}, min {y.min()}, max {y.max()}")
    # Given inputs bind the symbolic dim too.
    inp = fresh_dir(os.path.join(a.work, "symbolic", "in"))
    xv = np.array([[-1, 2, -3, 4]] * 5, dtype=np.float32)
    with open(os.path.join(inp, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(xv, "x").SerializeToString())
    run([a.rammer, "run", path, "--inputs", inp, "--outputs", out])
    _, y = load_pb(os.path.join(out, "output_0.pb"))
    if not np.array_equal(y, np.maximum(xv, 0)):
        fail(f"relu of given inputs wrong: {y}")


def expect_error(a, args, needle, rc=1):
    p = run([a.rammer] + args, expect_rc=rc)
    if "rammer: error:" not in p.stderr or needle not in p.stderr:
        fail(f"{args}: stderr lacks 'rammer: error:' / {needle!r}: {p.stderr!r}")


def case_errors(a):
    work = fresh_dir(os.path.join(a.work, "errors"))
    out = os.path.join(work, "out")
    missing = os.path.join(work, "no_such_model.onnx")
    expect_error(a, ["info", missing], "not found")
    expect_error(a, ["run", missing, "--random", "--outputs", out], "not found")
    junk = os.path.join(work, "junk.onnx")
    with open(junk, "wb") as f:
        f.write(b"this is not a protobuf \x00\xff\x13 at all" * 10)
    expect_error(a, ["info", junk], "junk.onnx")
    expect_error(a, ["run", a.model, "--backend", "nosuch", "--random", "--outputs", out],
                 "backend 'nosuch' is not available")  # --backend cuda: check_run_cuda.py
    expect_error(a, ["run", a.model, "--inputs", os.path.join(work, "nowhere"), "--outputs", out], "not found")
    # Usage errors exit with 2.
    expect_error(a, ["info"], "MODEL", rc=2)
    expect_error(a, ["run", a.model, "--outputs", out], "", rc=2)  # neither --inputs nor --random
    expect_error(a, ["run", a.model, "--random", "--inputs", work, "--outputs", out], "", rc=2)
    expect_error(a, ["frobnicate"], "", rc=2)


def case_max_memory(a):
    """A model of a few hundred bytes whose Expand makes a [100000, 100000]
    float32 tensor (40 GB): every CPU backend refuses it before allocating,
    naming the tensor, and --max-memory sets the budget (issue #18)."""
    import resource
    work = fresh_dir(os.path.join(a.work, "max_memory"))
    out = os.path.join(work, "out")
    bomb = os.path.join(work, "bomb.onnx")
    g = helper.make_graph(
        [helper.make_node("Expand", ["x", "shape"], ["blow_up"], name="blow_up"),
         helper.make_node("ReduceSum", ["blow_up"], ["y"], name="sum", keepdims=0)],
        "bomb", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])],
        [numpy_helper.from_array(np.array([100000, 100000], dtype=np.int64), "shape")])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), bomb)
    if os.path.getsize(bomb) > 1000:
        fail(f"the bomb model is {os.path.getsize(bomb)} bytes, meant to be tiny")
    tensor = "'blow_up' float32[100000, 100000] 40.0 GB"
    for backend, who in [("reference", "the reference executor"), ("emulator", "the emulator"),
                         ("host", "the generated code on the CPU")]:
        # The emulator and the host are refused before planning, on the
        # reference's peak: a lower bound of what a plan would hold.
        # The reference adds its own working memory: an int64 source index per
        # element of the Expand (ops::OpDef::scratch).
        need = ("about 120 GB for the model's tensors and 80.0 GB of working memory" if backend == "reference"
                else "at least 40.0 GB for the model's tensors")
        expect_error(a, ["run", bomb, "--backend", backend, "--random", "--outputs", out, "--max-memory", "2G"],
                     f"{who} would need {need}, over the memory budget of 2.00 GB")
        expect_error(a, ["run", bomb, "--backend", backend, "--random", "--outputs", out, "--max-memory", "2G"], tensor)
    # The default budget is half this machine's memory.
    with open("/proc/meminfo") as f:
        total_kb = int(f.readline().split()[1])
    if total_kb * 1024 / 2 < 40e9:
        expect_error(a, ["run", bomb, "--random", "--outputs", out], "half this machine's memory; --max-memory sets it")
    # Nothing of that size was allocated on the way.
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if peak_kb > 1_000_000:
        fail(f"a refused run still reached {peak_kb} KB of resident memory")
    # The budget applies to random inputs before they are made, and a bad
    # size is a usage error.
    wide = os.path.join(work, "wide_input.onnx")
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "wide",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [30000, 30000])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [30000, 30000])])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), wide)
    expect_error(a, ["run", wide, "--random", "--outputs", out, "--max-memory", "1G"],
                 "the random inputs would need about 3.60 GB for the model's tensors, over the memory budget of 1.00 GB; "
                 "largest tensors: 'x' float32[30000, 30000] 3.60 GB")
    expect_error(a, ["run", a.model, "--random", "--outputs", out, "--max-memory", "lots"],
                 "'lots' is not a size such as 512M, 8G or 1.5GB", rc=2)
    run([a.rammer, "run", a.model, "--random", "--outputs", out, "--max-memory", "1.5GB"])


def case_help(a):
    for args in [["--help"], ["info", "--help"], ["run", "--help"]]:
        p = run([a.rammer] + args)
        if "Usage" not in p.stdout and "usage" not in p.stdout.lower():
            fail(f"{args}: no usage text: {p.stdout!r}")
    p = run([a.rammer, "run", "--help"])
    for opt in ["--backend", "--inputs", "--random", "--seed", "--outputs", "--json", "--batch"]:
        if opt not in p.stdout:
            fail(f"run --help lacks {opt}")
    p = run([a.rammer, "--version"])
    if not p.stdout.startswith("rammer "):
        fail(f"--version printed {p.stdout!r}")


def case_studio(a):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    p = subprocess.run([a.studio, "--quit-after-load", a.model], capture_output=True, text=True, timeout=120, env=env)
    if p.returncode != 0 or "loaded" not in p.stdout:
        fail(f"studio did not load {a.model}: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
    junk = os.path.join(fresh_dir(os.path.join(a.work, "studio")), "junk.onnx")
    with open(junk, "wb") as f:
        f.write(b"not a model")
    p = subprocess.run([a.studio, "--quit-after-load", junk], capture_output=True, text=True, timeout=120, env=env)
    if p.returncode != 1 or "error" not in p.stderr:
        fail(f"studio accepted a junk file: exit {p.returncode}\n{p.stderr}")


def case_screenshot(a):
    # Each view of the model rendered headless: a PNG of the asked size
    # (main) with real content, not one flat colour; bad requests refused.
    from PIL import Image
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    out = fresh_dir(os.path.join(a.work, "screenshot"))

    def studio(args, rc):
        p = subprocess.run([a.studio] + args, capture_output=True, text=True, timeout=600, env=env)
        if p.returncode != rc:
            fail(f"rammer-studio {' '.join(args)}: exit {p.returncode}, expected {rc}\n{p.stdout}\n{p.stderr}")
        return p

    for view in ["main", "graph", "timeline", "teach", "compare"]:
        png = os.path.join(out, view + ".png")
        p = studio(["--screenshot", png, "--view", view, "--size", "1200x800", a.model], 0)
        if f"the {view} view" not in p.stdout:
            fail(f"--view {view}: stdout does not say what was written: {p.stdout}")
        img = Image.open(png).convert("RGB")
        if view == "main" and img.size != (1200, 800):
            fail(f"--view main --size 1200x800 wrote a {img.size} image")
        counted = img.getcolors(maxcolors=1 << 16)  # None: more colours than that, certainly not blank
        colours = len(counted) if counted else 1 << 16
        dominant = max(n for n, _ in counted) / (img.size[0] * img.size[1]) if counted else 0.0
        print(f"{view}: {img.size[0]}x{img.size[1]}, {colours} colours, the commonest covers {dominant:.0%}")
        if colours < 32 or dominant > 0.97:
            fail(f"--view {view}: the image looks blank ({colours} colours, {dominant:.0%} one colour)")

    bad = [(["--screenshot", os.path.join(out, "x.png"), "--view", "sideways", a.model], 2, "--view 'sideways' is not one of"),
           (["--screenshot", os.path.join(out, "x.png"), "--size", "big", a.model], 2, "--size must be WxH"),
           (["--screenshot", os.path.join(out, "x.png")], 2, "--screenshot needs a MODEL"),
           (["--screenshot", os.path.join(out, "no", "such", "dir", "x.png"), a.model], 1, "cannot write the screenshot"),
           (["--screenshot", os.path.join(out, "x.png"), os.path.join(out, "missing.onnx")], 1, "not found")]
    for args, rc, text in bad:
        p = studio(args, rc)
        if text not in p.stderr:
            fail(f"rammer-studio {' '.join(args)}: stderr lacks {text!r}:\n{p.stderr}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", required=True)
    ap.add_argument("--rammer")
    ap.add_argument("--studio")
    ap.add_argument("--model", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    globals()["case_" + a.case](a)
    print("ok")


if __name__ == "__main__":
    main()
