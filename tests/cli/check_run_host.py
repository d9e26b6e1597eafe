#!/usr/bin/python3
"""`rammer run --backend host` end to end: for every policy and two thread
counts the generated program's outputs equal the reference backend's (rtol
1e-4, atol 1e-5 of the largest reference value), from --random and from
--inputs; schedule edits apply; --json reports the build (a second run is
cached) and --trace writes the program's own timings; --launch graph (one
run's launches captured and replayed) gives the same outputs for a
sequential plan and a plan cut into two programs; bad requests are refused
with a message naming the problem."""
import argparse
import json
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_run_emulator import POLICIES, compare, fail, fresh, run  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rammer", required=True)
    ap.add_argument("--model", required=True, help="a model with one float input [batch, ...]")
    ap.add_argument("--edits", required=True, help="schedule edits for the model")
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    w = lambda *p: os.path.join(a.work, *p)
    # One build cache for this test, started empty: the first build compiles.
    cache = fresh(w("cache"))
    os.environ["RAMMER_HOST_CACHE"] = cache
    base = [a.rammer, "-q", "run", a.model, "--batch", "1"]

    run(base + ["--backend", "reference", "--random", "--seed", "3", "--outputs", fresh(w("ref_random"))])
    for policy in POLICIES:
        for threads in ["1", "3"]:
            out = fresh(w(f"host_{policy}_{threads}"))
            run(base + ["--backend", "host", "--policy", policy, "--threads", threads, "--random", "--seed", "3",
                        "--outputs", out])
            compare(out, w("ref_random"), f"--backend host --policy {policy} --threads {threads}")
    out = fresh(w("host_edits"))
    run(base + ["--backend", "host", "--schedule", a.edits, "--random", "--seed", "3", "--outputs", out])
    compare(out, w("ref_random"), f"--backend host --schedule {a.edits}")

    # Graph launches: a program per operator, and the edits' two programs (barriers).
    for name, extra in [("sequential", ["--policy", "sequential"]), ("edits", ["--schedule", a.edits])]:
        out = fresh(w(f"host_graph_{name}"))
        p = run(base + ["--backend", "host", "--launch", "graph", "--repeat", "3", "--random", "--seed", "3",
                        "--outputs", out, "--json"] + extra)
        compare(out, w("ref_random"), f"--backend host --launch graph {' '.join(extra)}")
        j = json.loads(p.stdout)
        if j.get("launch") != "graph" or j["host"]["programs"] < 2:
            fail(f"--launch graph --json: want launch graph and several programs: {j}")

    # Given inputs, the JSON report, the measured trace; the build is cached by now.
    model = onnx.load(a.model)
    dims = [d.dim_value if d.dim_value > 0 else 1 for d in model.graph.input[0].type.tensor_type.shape.dim]
    x = np.random.default_rng(5).uniform(-1, 1, dims).astype(np.float32)
    inputs = fresh(w("inputs"))
    os.makedirs(inputs)
    with open(os.path.join(inputs, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, model.graph.input[0].name).SerializeToString())
    run(base + ["--backend", "reference", "--inputs", inputs, "--outputs", fresh(w("ref_inputs"))])
    os.makedirs(w("host_inputs"), exist_ok=True)
    trace = w("host_inputs", "trace.json")
    p = run(base + ["--backend", "host", "--inputs", inputs, "--outputs", w("host_inputs"), "--json", "--trace", trace,
                    "--repeat", "2"])
    compare(w("host_inputs"), w("ref_inputs"), "--backend host --inputs")
    j = json.loads(p.stdout)
    h = j.get("host", {})
    if j["backend"] != "host" or not h.get("compile_cached") or h.get("compile_seconds") != 0:
        fail(f"--json: the wavefront build should be cached by now: {j}")
    if "host CPU" not in h.get("ran_on", "") or h.get("runs") != 2 or not h.get("run_ms", 0) > 0:
        fail(f"--json: run figures missing: {h}")
    if not os.path.isfile(h.get("program", "")) or not h["program"].startswith(cache):
        fail(f"--json: the program should be in RAMMER_HOST_CACHE: {h}")
    if j.get("launch") != "stream":
        fail(f"--json: without --launch the host program launches on the stream: {j}")
    if j.get("output_check", {}).get("pass") is not True:
        fail(f"--json: the outputs should pass the Run stage's check: {j}")
    with open(trace) as f:
        events = json.load(f)["traceEvents"]
    if not any(e.get("ph") == "X" and "rtask" in e.get("args", {}) for e in events):
        fail(f"{trace} has no rTask events")
    if not any("host CPU" in str(e.get("args", {}).get("name", "")) for e in events if e.get("ph") == "M"):
        fail(f"{trace} does not say it was measured on the host CPU")
    p = run(base + ["--backend", "host", "--random", "--outputs", fresh(w("text"))])
    if "compile  cached" not in p.stdout or "ran on   the host CPU" not in p.stdout or \
            "check    PASS: max |diff|" not in p.stdout:
        fail("the text report lacks the build and run lines:\n" + p.stdout)

    # Refusals.
    p = run(base + ["--backend", "emulator", "--tsan", "--random", "--outputs", w("bad")], expect_rc=1)
    if "--tsan needs --backend host" not in p.stderr:
        fail(f"--tsan without the host backend: {p.stderr!r}")
    for backend in ["emulator", "reference"]:
        p = run(base + ["--backend", backend, "--launch", "graph", "--random", "--outputs", w("bad")], expect_rc=1)
        if "--launch needs --backend cuda or host" not in p.stderr or backend not in p.stderr:
            fail(f"--launch with the {backend} backend: {p.stderr!r}")
    p = run(base + ["--backend", "host", "--policy", "nosuch", "--random", "--outputs", w("bad")], expect_rc=1)
    if "unknown policy 'nosuch'" not in p.stderr:
        fail(f"unknown policy: {p.stderr!r}")
    os.environ["RAMMER_HOST_CXX"] = "/nonexistent/c++"
    p = run(base + ["--backend", "host", "--policy", "greedy", "--random", "--outputs", w("bad")], expect_rc=1)
    del os.environ["RAMMER_HOST_CXX"]
    if "no C++ compiler for the host target: /nonexistent/c++ not found" not in p.stderr:
        fail(f"a missing compiler is not named: {p.stderr!r}")
    run(base + ["--backend", "host", "--random"], expect_rc=2)  # no --outputs
    print("ok")


if __name__ == "__main__":
    main()
