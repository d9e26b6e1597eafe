#!/usr/bin/python3
"""The model reproducers of tests/data/fuzz-regressions (issue #18 item 5):
each MODEL.onnx has MODEL.expect.json, a list of `rammer` invocations
(MODEL and OUT stand for the file and a fresh outputs folder) with the
exit status and a text its stderr or stdout must hold. A run that must
succeed with written outputs can ask for them to be compared with the
reference backend's ("compare_with_reference"), and a run can be held to a
resident-memory ceiling ("max_mb", its own and its children's). Nothing
here may take more than a few seconds or a gigabyte: that is what the
findings were about."""
import argparse
import glob
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading

import numpy as np
import onnx
from onnx import numpy_helper


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def outputs(folder):
    got = []
    for i in range(100):
        path = os.path.join(folder, f"output_{i}.pb")
        if not os.path.exists(path):
            break
        t = onnx.TensorProto()
        with open(path, "rb") as f:
            t.ParseFromString(f.read())
        got.append(numpy_helper.to_array(t))
    return got


def run_measured(args):
    """Runs `args`; returns the finished process and the largest resident
    memory, in MB, of it and the processes it waited for (the compiler and
    the program of a host run). wait4 gives this run's alone, where
    RUSAGE_CHILDREN would be the largest of every run so far."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen(args, stdout=out, stderr=err, text=True)
        killer = threading.Timer(300, child.kill)
        killer.start()
        _, status, usage = os.wait4(child.pid, 0)
        killer.cancel()
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(args, child.returncode, out.read(), err.read()), usage.ru_maxrss / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rammer", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    models = sorted(glob.glob(os.path.join(a.data, "*.onnx")))
    if not models:
        fail(f"no reproducers in {a.data}")
    for model in models:
        expect = os.path.splitext(model)[0] + ".expect.json"
        if not os.path.exists(expect):
            fail(f"{model} has no {os.path.basename(expect)}")
        for k, case in enumerate(json.load(open(expect))):
            out = os.path.join(a.work, f"{os.path.basename(model)}.{k}")
            shutil.rmtree(out, ignore_errors=True)
            args = [a.rammer, "-q"] + [model if x == "MODEL" else out if x == "OUT" else x for x in case["args"]]
            p, peak_mb = run_measured(args)
            what = " ".join(args[1:])
            if "max_mb" in case and peak_mb > case["max_mb"]:
                fail(f"{what}: {peak_mb:.0f} MB of resident memory, want at most {case['max_mb']} MB")
            if p.returncode != case["rc"]:
                fail(f"{what}: exit {p.returncode}, want {case['rc']}\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
            for stream in ("stderr", "stdout"):
                if stream in case and case[stream] not in getattr(p, stream):
                    fail(f"{what}: {stream} lacks {case[stream]!r}:\n{getattr(p, stream)[-2000:]}")
            if case.get("compare_with_reference"):
                ref = out + ".ref"
                r = subprocess.run([a.rammer, "-q", "run", model, "--random", "--outputs", ref], capture_output=True,
                                   text=True, timeout=300)
                if r.returncode != 0:
                    fail(f"reference run of {model}: {r.stderr}")
                want, got = outputs(ref), outputs(out)
                if not want or len(want) != len(got):
                    fail(f"{what}: {len(got)} outputs, the reference wrote {len(want)}")
                for w, g in zip(want, got):
                    if w.shape != g.shape or not np.allclose(g, w, rtol=1e-4, atol=1e-5):
                        fail(f"{what}: outputs differ from the reference's")
            print(f"ok  {what}")
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    if peak_mb > 1024:
        fail(f"a reproducer's run reached {peak_mb:.0f} MB of resident memory")
    print(f"ok  (largest resident memory of a run: {peak_mb:.0f} MB)")


if __name__ == "__main__":
    main()
