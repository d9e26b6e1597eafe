#!/usr/bin/python3
"""`rammer profile` without a GPU.

1. With no CUDA driver: exit 1 and a message naming what is missing
   (skipped where a driver is installed).
2. Bad input is refused before any work, GPU or not: a malformed profile
   database, one for another device, a missing model, bad options.
3. With the runtime tests' stand-in driver (--fake) as libcuda.so.1: the
   GPU is "there" but CUPTI cannot attach to it, which the progress says
   per capability; its kernels record nothing, so no database is written.
"""
import argparse
import json
import os
import shutil
import tempfile

from gpu_cli_support import driver_present, fail, run


def expect(args, rc, needle, env=None, where="stderr"):
    p = run(args, env)
    text = p.stderr if where == "stderr" else p.stdout
    if p.returncode != rc or needle not in text:
        fail(f"{' '.join(args)}\n  exit {p.returncode} (want {rc})\n  stdout: {p.stdout}\n  stderr: {p.stderr}\n"
             f"  want {where} to contain: {needle}")
    return p


def check_no_driver(a, work):
    db = os.path.join(work, "new.json")
    expect([a.rammer, "profile", a.model, "--db", db], 1,
           "rammer: error: cannot profile on the GPU: no CUDA driver (libcuda.so.1 not found)")
    expect([a.rammer, "profile", a.model, "--policy", "sequential", "--repeat", "3", "--json"], 1,
           "no CUDA driver (libcuda.so.1 not found)")
    if os.path.exists(db):
        fail("a database was written without a GPU")


def check_bad_input(a, work):
    bad = os.path.join(work, "bad.json")
    with open(bad, "w") as f:
        f.write('{"format": "rammer-profile-db",\n "version": 1,,\n}')
    expect([a.rammer, "profile", a.model, "--db", bad], 1, bad + ": not valid JSON:")
    expect([a.rammer, "profile", a.model, "--db", bad], 1, "line 2")
    newer = os.path.join(work, "newer.json")
    with open(newer, "w") as f:
        json.dump({"format": "rammer-profile-db", "version": 99, "device": "h100", "entries": []}, f)
    expect([a.rammer, "profile", a.model, "--db", newer], 1,
           "profile database version 99 is newer than this build reads (version 1)")
    a100 = os.path.join(work, "a100.json")
    with open(a100, "w") as f:
        json.dump({"format": "rammer-profile-db", "version": 1, "device": "a100", "gpu": "", "entries": []}, f)
    expect([a.rammer, "profile", a.model, "--db", a100], 1,
           a100 + ": holds measurements for device 'a100', not 'h100' (--device); use another --db")
    expect([a.rammer, "profile", os.path.join(work, "absent.onnx")], 1, "absent.onnx")
    expect([a.rammer, "profile", a.model, "--device", "nosuchgpu"], 1, "nosuchgpu")
    expect([a.rammer, "profile", a.model, "--repeat", "0"], 2, "--repeat")
    expect([a.rammer, "profile", a.model, "--warmup", "-1"], 2, "--warmup")
    with open(a100) as f:
        if json.load(f)["device"] != "a100":
            fail("a refused database was changed")


def check_fake_driver(a, work):
    if not a.fake:
        return
    with tempfile.TemporaryDirectory() as tmp:
        os.symlink(a.fake, os.path.join(tmp, "libcuda.so.1"))
        env = dict(os.environ, LD_LIBRARY_PATH=tmp + ":" + os.environ.get("LD_LIBRARY_PATH", ""),
                   RAMMER_FAKE_CUDA_SMS="132", RAMMER_FAKE_CUDA_NOOP_KERNELS="1")
        db = os.path.join(work, "fake.json")
        p = expect([a.rammer, "profile", a.model, "--repeat", "2", "--db", db], 1,
                   "no rTask recorded a time in the instrumented run", env)
        for words in ["profiler: Fake GPU (compute 9.0, 132 SMs)",
                      "kernel timestamps: unavailable: CUPTI cannot attach to a GPU (cuptiActivityEnable",
                      "hardware counters: unavailable: CUPTI cannot attach to a GPU (cuptiProfilerInitialize"]:
            if words not in p.stderr:
                fail(f"stderr lacks {words!r}:\n{p.stderr}")
        if os.path.exists(db):
            fail("a database was written from a run that recorded nothing")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rammer", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--fake", help="the stand-in driver library (tests/core/runtime/fake_driver)")
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    check_bad_input(a, a.work)
    if driver_present():
        print("no-driver and stand-in checks skipped: a CUDA driver is installed")
    else:
        check_no_driver(a, a.work)
        check_fake_driver(a, a.work)
    print("ok")


if __name__ == "__main__":
    main()
