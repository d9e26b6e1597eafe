#!/usr/bin/python3
"""End-to-end checks of `rammer export` (one ctest per --case).

The expected outputs the project checks against must be exactly what
`rammer run --random --seed S` computes for the same model and seed (same
reference executor, same inputs); the manifest must describe every data
file; the project must build with the documented command when the compiler
is installed, and the built program must either pass its own check (on a
machine with a GPU) or say plainly that there is none.
"""
import argparse
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import numpy_helper

NVCC = "/usr/local/cuda/bin/nvcc"
CLANG = "/usr/bin/clang++-15"
ROCM_BITCODE = "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(args, expect_rc=0, cwd=None, timeout=900):
    p = subprocess.run(args, capture_output=True, text=True, timeout=timeout, cwd=cwd)
    if expect_rc is not None and p.returncode != expect_rc:
        fail(f"{' '.join(args)}\n  exit {p.returncode}, expected {expect_rc}\n  stdout: {p.stdout[-4000:]}\n"
             f"  stderr: {p.stderr[-4000:]}")
    return p


def fresh_dir(path):
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def manifest_records(path):
    recs = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            key, _, rest = line.rstrip("\n").partition(" ")
            recs.setdefault(key, []).append(rest)
    return recs


def check_project(a, out, emit):
    ext = {"cuda": "cu", "hip": "hip", "host": "cpp"}[emit]
    files = [f"kernels.{ext}", f"main.{ext}", "manifest.txt", "CMakeLists.txt", "README.txt"]
    if emit == "host":
        files += ["rammer_host.h", "rammer_host_runtime.cpp"]
    for f in files:
        if not os.path.isfile(os.path.join(out, f)):
            fail(f"{f} missing from {out}")
    m = manifest_records(os.path.join(out, "manifest.txt"))
    if m.get("target") != [emit]:
        fail(f"manifest target {m.get('target')}, expected {emit}")
    # Every buffer with a file has numel x 4 bytes; a view points into a
    # storage that is its own (a Concat's input placed in its output may
    # point at a later buffer), within its elements.
    records = [rec.split(" ", 5) for rec in m["buffer"]]
    offsets = {int(i): int(o) for i, o in (r.split() for r in m.get("buffer_offset", []))}
    for rec in records:
        idx, kind, numel, storage, file, name = rec
        root = records[int(storage)]
        if root[3] != storage:
            fail(f"buffer {idx} ({name}) aliases buffer {storage}, which is not a storage")
        if offsets.get(int(idx), 0) + int(numel) > int(root[2]):
            fail(f"buffer {idx} ({name}) ends past its storage {storage}")
        if file != "-":
            size = os.path.getsize(os.path.join(out, file))
            if size != int(numel) * 4:
                fail(f"{file}: {size} bytes for {numel} values")
        elif kind in ("input", "weight", "table") and storage == idx:
            fail(f"{kind} buffer {name} has no data file")
    if len(m.get("launch", [])) == 0:
        fail("no launch records")
    return m


def case_cuda(a):
    out = fresh_dir(os.path.join(a.work, "project"))
    seed = "7"
    p = run([a.rammer, "-q", "export", a.model, "--policy", "wavefront", "--emit", "cuda", "-o", out, "--seed", seed])
    if "nvcc -O2 -arch=sm_90 -o prog *.cu" not in p.stdout:
        fail("the summary does not give the build command:\n" + p.stdout)
    m = check_project(a, out, "cuda")

    # The expected outputs are the reference run's, bit for bit.
    ref = fresh_dir(os.path.join(a.work, "reference"))
    run([a.rammer, "-q", "run", a.model, "--random", "--seed", seed, "--batch", "1", "--outputs", ref])
    outs = m["output"]
    for k, rec in enumerate(outs):
        _, file, name = rec.split(" ", 2)
        t = onnx.TensorProto()
        with open(os.path.join(ref, f"output_{k}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        want = numpy_helper.to_array(t).astype(np.float32).ravel()
        got = np.fromfile(os.path.join(out, file), dtype="<f4")
        if not np.array_equal(got, want):
            fail(f"{file} differs from `rammer run --random --seed {seed}` output {k} ({name})")
    # sample_cnn ends in a softmax: an outside sanity check of the values.
    probs = np.fromfile(os.path.join(out, outs[0].split(" ")[1]), dtype="<f4")
    if abs(float(probs.sum()) - 1.0) > 1e-4:
        fail(f"softmax output sums to {probs.sum()}")

    if not os.path.exists(NVCC):
        print("nvcc not installed: build not checked")
        return
    env_path = os.path.dirname(NVCC) + os.pathsep + os.environ.get("PATH", "")
    b = subprocess.run("nvcc -O2 -arch=sm_90 -o prog *.cu", shell=True, cwd=out, capture_output=True, text=True,
                       timeout=900, env=dict(os.environ, PATH=env_path))
    if b.returncode != 0:
        fail("the documented nvcc build failed:\n" + b.stdout[-4000:] + b.stderr[-4000:])
    r = subprocess.run([os.path.join(out, "prog"), "--runs", "5"], capture_output=True, text=True, timeout=600)
    if r.returncode == 0:
        if "PASS" not in r.stdout or "max abs error" not in r.stdout:
            fail("prog exited 0 without reporting its check:\n" + r.stdout)
    elif r.returncode == 3 and "error:" in r.stderr:
        print("no usable GPU here; prog says: " + r.stderr.strip())
    else:
        fail(f"prog exited {r.returncode}:\n{r.stdout}\n{r.stderr}")


def case_hip(a):
    out = fresh_dir(os.path.join(a.work, "project"))
    p = run([a.rammer, "-q", "export", a.model, "--policy", "sequential", "--emit", "hip", "-o", out,
             "--device", "mi250x"])
    if "hipcc" not in p.stdout:
        fail("the summary does not give the hipcc build command:\n" + p.stdout)
    check_project(a, out, "hip")
    if not (os.path.exists(CLANG) and os.path.isdir(ROCM_BITCODE)):
        print("clang-15 or ROCm device libraries not installed: build not checked")
        return
    run([CLANG, "-x", "hip", "--offload-arch=gfx90a", "--rocm-path=/usr", f"--rocm-device-lib-path={ROCM_BITCODE}",
         "-std=c++17", "-O2", "-Wall", "-Werror", "-o", "prog", "kernels.hip", "main.hip", "--hip-link", "-lamdhip64"],
        cwd=out)
    if not os.path.isfile(os.path.join(out, "prog")):
        fail("clang-15 produced no prog")


def check_clears(out):
    """The buffers a launch clears (split-K outputs) lie side by side in the
    arena, and the launch's clear ranges cover exactly them."""
    with open(os.path.join(out, "manifest.txt")) as f:
        lines = [l.split() for l in f if l.strip() and not l.startswith("#")]
    numel = {int(l[1]): int(l[3]) for l in lines if l[0] == "buffer"}
    storage = {int(l[1]): int(l[4]) for l in lines if l[0] == "buffer"}
    launches = [l for l in lines if l[0] == "launch"]
    offset = {int(l[1]): int(l[2]) for l in lines if l[0] == "in_arena"}
    for k, l in enumerate(launches):
        zero = [int(z) for z in l[9:9 + int(l[8])]]
        ranges = [(int(c[2]), int(c[3])) for c in lines if c[0] == "clear" and int(c[1]) == k]
        for z in zero:
            at = offset.get(storage[z] if storage[z] >= 0 else z)
            if at is None or not any(o <= at and at + numel[z] <= o + w for o, w in ranges):
                fail(f"launch {k} clears buffer {z}, which no clear range of the manifest covers")
        if len(ranges) > max(1, len(zero)):
            fail(f"launch {k}: {len(ranges)} clear ranges for {len(zero)} buffers")


def case_host(a):
    """The host project: the same kernels on the CPU. It builds with the
    documented compiler command and with CMake, and both programs pass their
    own check against the reference executor's outputs."""
    out = fresh_dir(os.path.join(a.work, "project"))
    p = run([a.rammer, "-q", "export", a.model, "--policy", "wavefront", "--emit", "host", "-o", out, "--seed", "7"])
    build = next((l.split("&&", 1)[1].strip() for l in p.stdout.splitlines() if l.startswith("build")), "")
    if not build.startswith("c++ ") or "-lboost_context" not in build:
        fail("the summary does not give the host build command:\n" + p.stdout)
    check_project(a, out, "host")
    check_clears(out)
    b = subprocess.run(build, shell=True, cwd=out, capture_output=True, text=True, timeout=900)
    if b.returncode != 0:
        fail("the documented host build failed:\n" + b.stdout[-4000:] + b.stderr[-4000:])
    r = run([os.path.join(out, "prog"), "--runs", "2"])
    if "PASS" not in r.stdout or "max abs error" not in r.stdout or "host CPU" not in r.stdout:
        fail("prog did not report its check on the host CPU:\n" + r.stdout)
    if "stream launch)" not in r.stdout:
        fail("prog's time line does not say it launched on the stream:\n" + r.stdout)
    # --launch graph: the runs replay one captured run; the first and last are checked.
    r = run([os.path.join(out, "prog"), "--runs", "3", "--launch", "graph"])
    if "graph launch)" not in r.stdout or "last run: " not in r.stdout or "FAIL" in r.stdout:
        fail("prog --launch graph did not replay and pass:\n" + r.stdout)
    r = run([os.path.join(out, "prog"), "--launch", "graphs"], expect_rc=3)
    if "--launch takes stream or graph" not in r.stderr:
        fail("prog --launch graphs is not refused in words:\n" + r.stderr)
    # The CMake project builds the same program.
    build_dir = os.path.join(out, "build")
    run(["cmake", "-S", out, "-B", build_dir], timeout=300)
    run(["cmake", "--build", build_dir], timeout=900)
    r = run([os.path.join(out, "prog"), "--runs", "1"])
    if "PASS" not in r.stdout:
        fail("the CMake-built prog did not pass:\n" + r.stdout)


def case_host_ints(a):
    """A model with int64 token ids in and an int64 ArgMax out (words,
    core/ir/words.h): the manifest marks the integer output, the program
    passes its check comparing it exactly, and one id off in the expected
    output fails it."""
    out = fresh_dir(os.path.join(a.work, "project"))
    p = run([a.rammer, "-q", "export", a.model, "--policy", "wavefront", "--emit", "host", "-o", out, "--seed", "7"])
    build = next((l.split("&&", 1)[1].strip() for l in p.stdout.splitlines() if l.startswith("build")), "")
    m = check_project(a, out, "host")
    outputs = [r.split(" ", 2) for r in m.get("output", [])]
    if m.get("int_output") != ["1"] or len(outputs) != 2:
        fail(f"expected two outputs, the second marked int_output: {m.get('output')} {m.get('int_output')}")
    b = subprocess.run(build, shell=True, cwd=out, capture_output=True, text=True, timeout=900)
    if b.returncode != 0:
        fail("the documented host build failed:\n" + b.stdout[-4000:] + b.stderr[-4000:])
    r = run([os.path.join(out, "prog"), "--runs", "1"])
    if r.stdout.count("PASS") < 2:
        fail("prog did not pass both outputs:\n" + r.stdout)
    expected = os.path.join(out, outputs[1][1])
    with open(expected, "rb") as f:
        words = bytearray(f.read())
    first = int.from_bytes(words[0:4], "little", signed=True)
    words[0:4] = (first + 1).to_bytes(4, "little", signed=True)
    with open(expected, "wb") as f:
        f.write(words)
    r = run([os.path.join(out, "prog"), "--runs", "0"], expect_rc=1)
    if "FAIL" not in r.stdout or f"expected {first + 1}" not in r.stdout:
        fail("an integer output one id off did not fail the check:\n" + r.stdout)


def case_errors(a):
    out = os.path.join(a.work, "bad")
    p = run([a.rammer, "export", a.model, "--emit", "opencl", "-o", out], expect_rc=2)
    if "opencl" not in p.stderr:
        fail("--emit opencl was not named in the error:\n" + p.stderr)
    run([a.rammer, "export", a.model], expect_rc=2)  # -o is required
    p = run([a.rammer, "export", os.path.join(a.work, "missing.onnx"), "-o", out], expect_rc=1)
    if "missing.onnx" not in p.stderr:
        fail("a missing model is not named:\n" + p.stderr)
    p = run([a.rammer, "export", a.model, "--policy", "nope", "-o", out], expect_rc=1)
    if "nope" not in p.stderr or "wavefront" not in p.stderr:
        fail("an unknown policy is not refused with the known ones:\n" + p.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", required=True, choices=["cuda", "hip", "host", "host_ints", "errors"])
    ap.add_argument("--rammer", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    globals()["case_" + a.case](a)
    print("PASS")


if __name__ == "__main__":
    main()
