#!/usr/bin/python3
"""Runs `rammer run --backend reference` on one exported real model and
compares every output with PyTorch's by relative L2 error; with
--emulator-policies, also runs the CPU emulator with each policy and
requires it to match the reference backend (rtol 1e-4), and with
--host-policies the generated code on the CPU (`--backend host`) likewise;
with --cuda-export, the exported CUDA project must build with nvcc (when
installed) and, on a machine with a GPU, pass its own check; with
--expect-ops, the optimized graph must hold the given op counts.

With --sample NAME instead of --dir, the model is the sample generator's
(rammer-samples --only NAME, random weights) with seeded random inputs:
there are no PyTorch outputs, so every backend is held to the reference
executor; the model and the export's data are deleted afterwards."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

try:
    import numpy as np
    import onnx
    from onnx import numpy_helper
except ImportError as e:
    sys.exit(f"check_real_model.py: cannot import {e.name!r}; run scripts/setup")


def load(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


NVCC = "/usr/local/cuda/bin/nvcc"


def check_attention_fused(a, model):
    """--fuse-attention=on must leave at least one flash-attention rOperator in the plan."""
    p = subprocess.run([a.rammer, "-q", "schedule", model, "--fuse-attention=on", "--json"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"FAIL: rammer schedule --fuse-attention=on exited with {p.returncode}: {p.stderr.strip()}")
    fused = sum(1 for k in json.loads(p.stdout)["kernels"] if k.get("family") == "attention")
    print(f"plan with --fuse-attention=on: {fused} attention rOperator(s)")
    if fused == 0:
        sys.exit("FAIL: --fuse-attention=on fused no attention")


def check_cuda_export(a, model):
    out = os.path.join(a.work, "cuda_project")
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.run([a.rammer, "-q", "export", model, "--policy", "wavefront", "--emit", "cuda", "-o", out] +
                       [f"--fuse-attention={a.attention}"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"FAIL: rammer export --emit cuda exited with {p.returncode}: {p.stderr.strip()}")
    if not os.path.exists(NVCC):
        print("nvcc not installed: the CUDA project's build is not checked")
        return
    env = dict(os.environ, PATH=os.path.dirname(NVCC) + os.pathsep + os.environ.get("PATH", ""))
    b = subprocess.run("nvcc -O2 -arch=sm_90 -o prog *.cu", shell=True, cwd=out, capture_output=True, text=True,
                       timeout=900, env=env)
    if b.returncode != 0:
        sys.exit("FAIL: the exported CUDA project does not build:\n" + b.stdout[-4000:] + b.stderr[-4000:])
    r = subprocess.run([os.path.join(out, "prog"), "--runs", "3"], capture_output=True, text=True, timeout=600)
    if r.returncode == 0 and "PASS" in r.stdout:
        print("CUDA project: built and passed its check on the GPU")
    elif r.returncode == 3 and "error:" in r.stderr:
        print("CUDA project: built; no usable GPU here (" + r.stderr.strip() + ")")
    else:
        sys.exit(f"FAIL: the CUDA project's prog exited {r.returncode}:\n{r.stdout}\n{r.stderr}")


def write_sample(a):
    """The generated sample as a backend-test folder with seeded random inputs and no outputs."""
    folder = os.path.join(a.work, "model")
    data = os.path.join(folder, "test_data_set_0")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(data)
    p = subprocess.run([a.samples_bin, "--only", a.sample, folder], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"FAIL: rammer-samples --only {a.sample} exited with {p.returncode}: {p.stderr.strip()}")
    os.replace(os.path.join(folder, a.sample + ".onnx"), os.path.join(folder, "model.onnx"))
    info = subprocess.run([a.rammer, "-q", "info", os.path.join(folder, "model.onnx"), "--json"],
                          capture_output=True, text=True)
    if info.returncode != 0:
        sys.exit(f"FAIL: rammer info exited with {info.returncode}: {info.stderr.strip()}")
    rng = np.random.default_rng(1)
    for k, i in enumerate(json.loads(info.stdout)["inputs"]):
        if i["dtype"] != "float32":
            sys.exit(f"FAIL: input {i['name']} is {i['dtype']}; only float32 sample inputs are generated")
        x = rng.standard_normal(i["shape"]).astype(np.float32)
        with open(os.path.join(data, f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(x, i["name"]).SerializeToString())
    return folder


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rammer", required=True)
    ap.add_argument("--dir", help="exported model folder (model.onnx, test_data_set_0/)")
    ap.add_argument("--sample", help="a generated sample instead of --dir (needs --samples-bin)")
    ap.add_argument("--samples-bin", help="the rammer-samples executable")
    ap.add_argument("--work", required=True)
    ap.add_argument("--max-rel-l2", type=float, default=1e-4)
    ap.add_argument("--optimize", action="store_true",
                    help="also run with --optimize and require it to match the plain run (rtol 1e-4)")
    ap.add_argument("--emulator-policies", default="",
                    help="comma-separated policies to run --backend emulator with; each must match the "
                         "reference backend (rtol 1e-4, atol 1e-5 of the largest value)")
    ap.add_argument("--host-policies", default="",
                    help="comma-separated policies to run --backend host (the generated code on the CPU) with")
    ap.add_argument("--cuda-export", action="store_true",
                    help="export the wavefront plan as a CUDA project and build it with nvcc when installed")
    ap.add_argument("--attention", choices=["auto", "on", "off"], default="off",
                    help="--fuse-attention for the emulator, host and CUDA-export runs: off (default), on (the "
                         "flash-attention rKernels) or auto (the plan predicted faster)")
    ap.add_argument("--targets-in-long-run-only", action="store_true",
                    help="run --host-policies and --cuda-export only when RAMMER_HOST_ALL=1 (the long run)")
    ap.add_argument("--expect-ops", default="",
                    help="comma-separated OP=COUNT the optimized graph must hold, e.g. LayerNormalization=4,ReduceMean=0")
    a = ap.parse_args()
    if bool(a.dir) == bool(a.sample) or (a.sample and not a.samples_bin):
        sys.exit("give --dir, or --sample with --samples-bin")
    os.makedirs(a.work, exist_ok=True)
    if a.targets_in_long_run_only and os.environ.get("RAMMER_HOST_ALL") != "1":
        if a.host_policies or a.cuda_export:
            print("the host run and the CUDA export run in the long run only (RAMMER_HOST_ALL=1): skipped", flush=True)
        a.host_policies, a.cuda_export = "", False
    if a.sample:
        a.dir = write_sample(a)

    model = os.path.join(a.dir, "model.onnx")
    data = os.path.join(a.dir, "test_data_set_0")
    if not os.path.isfile(model):
        sys.exit(f"FAIL: {model} is missing: the real_models.export fixture did not produce it")
    def run(out, extra, backend="reference"):
        shutil.rmtree(out, ignore_errors=True)
        cmd = [a.rammer, "run", model, "--backend", backend, "--inputs", data, "--outputs", out] + extra
        print(" ".join(cmd), flush=True)
        start = time.monotonic()
        p = subprocess.run(cmd)
        if p.returncode != 0:
            sys.exit(f"FAIL: rammer run {' '.join(extra)} exited with {p.returncode}")
        print(f"[ time ] rammer run --backend {backend} {' '.join(extra)}: {time.monotonic() - start:.1f} s", flush=True)

    if a.expect_ops:
        info = subprocess.run([a.rammer, "-q", "info", model, "--optimize", "--json"], capture_output=True, text=True)
        if info.returncode != 0:
            sys.exit(f"FAIL: rammer info --optimize exited with {info.returncode}: {info.stderr.strip()}")
        ops = json.loads(info.stdout)["ops"]
        for item in a.expect_ops.split(","):
            op, want = item.split("=")
            got = ops.get(op, 0)
            print(f"optimized graph: {op} x{got} (expected {want})")
            if got != int(want):
                sys.exit(f"FAIL: the optimized graph has {got} {op} nodes, expected {want}")

    out = os.path.join(a.work, "outputs")
    run(out, [])
    if a.optimize:
        opt = os.path.join(a.work, "outputs_optimized")
        run(opt, ["--optimize"])
        k = 0
        while os.path.isfile(os.path.join(out, f"output_{k}.pb")):
            plain = load(os.path.join(out, f"output_{k}.pb")).astype(np.float64)
            optimized = load(os.path.join(opt, f"output_{k}.pb")).astype(np.float64)
            if plain.shape != optimized.shape:
                sys.exit(f"FAIL: --optimize changed output {k}'s shape {plain.shape} -> {optimized.shape}")
            bad = np.abs(optimized - plain) > 1e-6 + 1e-4 * np.abs(plain)
            print(f"output {k}: --optimize vs plain max abs diff {np.max(np.abs(optimized - plain)):.3e}")
            if bad.any() or np.isnan(optimized).any() != np.isnan(plain).any():
                sys.exit(f"FAIL: --optimize changed output {k} beyond rtol 1e-4 at {int(bad.sum())} elements")
            k += 1

    runs = [("emulator", p) for p in filter(None, a.emulator_policies.split(","))]
    runs += [("host", p) for p in filter(None, a.host_policies.split(","))]
    for backend, policy in runs:
        emu = os.path.join(a.work, f"outputs_{backend}_{policy}")
        run(emu, ["--policy", policy, f"--fuse-attention={a.attention}"], backend=backend)
        k = 0
        while os.path.isfile(os.path.join(out, f"output_{k}.pb")):
            ref = load(os.path.join(out, f"output_{k}.pb")).astype(np.float64)
            got = load(os.path.join(emu, f"output_{k}.pb")).astype(np.float64)
            if got.shape != ref.shape:
                sys.exit(f"FAIL: the {backend} backend ({policy}) gave output {k} shape {got.shape}, the reference {ref.shape}")
            bad = ~(np.abs(got - ref) <= 1e-5 * np.max(np.abs(ref)) + 1e-4 * np.abs(ref))  # NaN is bad
            print(f"output {k}: {backend} ({policy}) vs reference max abs diff {np.nanmax(np.abs(got - ref)):.3e}")
            if bad.any():
                sys.exit(f"FAIL: the {backend} backend ({policy}) differs from the reference in output {k} "
                         f"at {int(bad.sum())} of {ref.size} elements")
            k += 1

    if a.attention == "on":
        check_attention_fused(a, model)
    if a.cuda_export:
        start = time.monotonic()
        check_cuda_export(a, model)
        print(f"[ time ] CUDA export and nvcc build: {time.monotonic() - start:.1f} s", flush=True)

    if a.sample:
        # Hundreds of MB each: not left behind.
        shutil.rmtree(a.dir, ignore_errors=True)
        shutil.rmtree(os.path.join(a.work, "cuda_project", "data"), ignore_errors=True)
        print("ok (every backend matched the reference executor; a generated sample has no PyTorch outputs)")
        return

    k = 0
    worst = 0.0
    while os.path.isfile(os.path.join(data, f"output_{k}.pb")):
        want = load(os.path.join(data, f"output_{k}.pb")).astype(np.float64)
        got_file = os.path.join(out, f"output_{k}.pb")
        if not os.path.isfile(got_file):
            sys.exit(f"FAIL: rammer wrote no {got_file}")
        got = load(got_file).astype(np.float64)
        if got.shape != want.shape:
            sys.exit(f"FAIL: output {k} has shape {got.shape}, PyTorch's has {want.shape}")
        if not np.linalg.norm(want) > 0:
            sys.exit(f"FAIL: PyTorch's output {k} is all zeros: comparing with it proves nothing")
        rel = np.linalg.norm(got - want) / max(np.linalg.norm(want), 1e-30)
        print(f"output {k}: shape {got.shape}, relative L2 error {rel:.3e}, max abs diff {np.max(np.abs(got - want)):.3e}")
        worst = max(worst, rel)
        k += 1
    if k == 0:
        sys.exit(f"FAIL: no output_0.pb in {data}")
    if not worst <= a.max_rel_l2:  # also catches NaN
        sys.exit(f"FAIL: relative L2 error {worst:.3e} > {a.max_rel_l2:g}")
    print("ok")


if __name__ == "__main__":
    main()
