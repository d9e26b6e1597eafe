#!/usr/bin/python3
"""`rammer run --backend emulator` end to end, per model: for every policy
and a few thread counts its outputs equal the reference backend's (rtol
1e-4, atol 1e-5 of the largest reference value), from --random and from
--inputs; it writes its Chrome trace with --trace; bad options are refused
clearly."""
import argparse
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import numpy_helper

POLICIES = ["sequential", "wavefront", "greedy", "ios"]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(args, expect_rc=0):
    p = subprocess.run(args, capture_output=True, text=True, timeout=600)
    if p.returncode != expect_rc:
        fail(f"{' '.join(args)}\n  exit {p.returncode}, expected {expect_rc}\n  stdout: {p.stdout}\n  stderr: {p.stderr}")
    return p


def load_outputs(folder):
    outs = []
    while os.path.isfile(os.path.join(folder, f"output_{len(outs)}.pb")):
        t = onnx.TensorProto()
        with open(os.path.join(folder, f"output_{len(outs)}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        outs.append((t.name, numpy_helper.to_array(t)))
    if not outs:
        fail(f"no output_0.pb in {folder}")
    return outs


def compare(got_dir, want_dir, what):
    got, want = load_outputs(got_dir), load_outputs(want_dir)
    if len(got) != len(want):
        fail(f"{what}: {len(got)} outputs, the reference wrote {len(want)}")
    for (gn, g), (wn, w) in zip(got, want):
        if gn != wn or g.shape != w.shape or g.dtype != w.dtype:
            fail(f"{what}: output {gn} {g.dtype}{g.shape} vs reference {wn} {w.dtype}{w.shape}")
        w64, g64 = w.astype(np.float64), g.astype(np.float64)
        atol = 1e-5 * np.max(np.abs(w64))
        bad = ~(np.abs(g64 - w64) <= atol + 1e-4 * np.abs(w64))  # NaN counts as bad
        if bad.any():
            fail(f"{what}: output {gn} differs from the reference at {int(bad.sum())} of {w.size} elements "
                 f"(max abs diff {np.nanmax(np.abs(g64 - w64)):.3e})")


def fresh(path):
    shutil.rmtree(path, ignore_errors=True)
    return path


def check_model(rammer, model_file, work):
    os.makedirs(work, exist_ok=True)
    w = lambda *p: os.path.join(work, *p)
    base = [rammer, "-q", "run", model_file, "--batch", "1"]

    # Seeded random inputs: the same seed gives both backends the same tensors.
    run(base + ["--backend", "reference", "--random", "--seed", "3", "--outputs", fresh(w("ref_random"))])
    for policy in POLICIES:
        for threads in ["1", "3"]:
            out = fresh(w(f"emu_{policy}_{threads}"))
            run(base + ["--backend", "emulator", "--policy", policy, "--threads", threads, "--random", "--seed", "3",
                        "--outputs", out])
            compare(out, w("ref_random"), f"--policy {policy} --threads {threads}")
    # Element-wise nodes in the GEMM / Conv epilogues (FusedConv, ...), every policy.
    for policy in POLICIES + ["graphturbo"]:
        out = fresh(w(f"emu_{policy}_epilogues"))
        run(base + ["--backend", "emulator", "--policy", policy, "--fuse-epilogues", "--random", "--seed", "3",
                    "--outputs", out])
        compare(out, w("ref_random"), f"--policy {policy} --fuse-epilogues")
    sched = json.loads(run([rammer, "-q", "schedule", model_file, "--batch", "1", "--fuse-epilogues", "--json"]).stdout)
    fused = [k for k in sched["kernels"] if k["type"] in ("FusedConv", "FusedGemm", "FusedMatMul")]
    if not fused:
        fail(f"{model_file}: --fuse-epilogues fused no element-wise node into a Conv/Gemm/MatMul epilogue")

    # Given inputs, JSON summary, and the emulated trace.
    model = onnx.load(model_file)
    dims = [d.dim_value if d.dim_value > 0 else 1 for d in model.graph.input[0].type.tensor_type.shape.dim]
    x = np.random.default_rng(5).uniform(-1, 1, dims).astype(np.float32)
    inputs = fresh(w("inputs"))
    os.makedirs(inputs)
    with open(os.path.join(inputs, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, model.graph.input[0].name).SerializeToString())
    run(base + ["--backend", "reference", "--inputs", inputs, "--outputs", fresh(w("ref_inputs"))])
    trace = w("emulated_trace.json")
    p = run(base + ["--backend", "emulator", "--inputs", inputs, "--outputs", fresh(w("emu_inputs")), "--json",
                    "--trace", trace])
    compare(w("emu_inputs"), w("ref_inputs"), "--inputs")
    j = json.loads(p.stdout)
    if j["backend"] != "emulator" or len(j["outputs"]) != len(model.graph.output):
        fail(f"--json printed {j}")
    # The Run stage's one output check, against the reference run of the imported graph.
    check = j.get("output_check", {})
    if check.get("pass") is not True or "max(1, max|ref|)" not in check.get("rule", "") or \
            [o["name"] for o in check.get("outputs", [])] != [o.name for o in model.graph.output]:
        fail(f"--json output_check: {j}")
    p = run(base + ["--backend", "emulator", "--inputs", inputs, "--outputs", fresh(w("emu_unchecked")), "--no-check",
                    "--json"])
    if "output_check" in json.loads(p.stdout):
        fail(f"--no-check still checked: {p.stdout}")
    with open(trace) as f:
        events = json.load(f)["traceEvents"]
    if not any(e.get("ph") == "X" and "rtask" in e.get("args", {}) for e in events):
        fail(f"{trace} has no rTask events")

    # Refusals.
    p = run(base + ["--backend", "emulator", "--policy", "nosuch", "--random", "--outputs", w("bad")], expect_rc=1)
    if "rammer: error:" not in p.stderr or "unknown policy 'nosuch'" not in p.stderr or "greedy" not in p.stderr:
        fail(f"unknown policy: {p.stderr!r}")
    run(base + ["--backend", "emulator", "--threads", "0", "--random", "--outputs", w("bad")], expect_rc=2)
    run(base + ["--backend", "emulator", "--random"], expect_rc=2)  # no --outputs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rammer", required=True)
    ap.add_argument("--model", required=True, nargs="+", help="models with one float input [batch, ...] each")
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    for m in a.model:
        check_model(a.rammer, m, os.path.join(a.work, os.path.splitext(os.path.basename(m))[0]))
    print("ok")


if __name__ == "__main__":
    main()
