#!/usr/bin/python3
"""`rammer run --backend cuda` end to end without a GPU.

1. With no CUDA driver installed: exit 1 and a message naming what is
   missing, whatever the options (skipped where a driver is installed).
2. With the runtime tests' stand-in driver (--fake) found as libcuda.so.1
   through LD_LIBRARY_PATH: code generation and NVRTC run for real, the
   kernels do nothing, so the report is printed (the format
   tests/bench/gpu/run_gpu_checks.sh parses) and the output check FAILs;
   with --metrics the per-rProgram table (text and JSON) says every value
   is unavailable, and why (the kernels record no rTask time); --json
   names each program's compiled resources and the source hash, and
   --gpu-lock makes a run wait for a lock another process holds; --launch
   graph on a sequential plan (a kernel per operator) replays each run as
   one CUDA graph and says so ("launch": "graph").
"""
import argparse
import fcntl
import json
import os
import re
import subprocess
import tempfile
import time

from gpu_cli_support import driver_present, fail, run


def check_no_driver(a):
    cases = [
        ([], 1, "cannot run on the GPU: no CUDA driver (libcuda.so.1 not found)"),
        (["--policy", "greedy", "--trace", "measured.json", "--metrics", "--repeat", "3"], 1,
         "no CUDA driver (libcuda.so.1 not found)"),
        (["--repeat", "0"], 2, "--repeat"),
        (["--watchdog", "0"], 2, "--watchdog"),
        (["--watchdog", "60", "--repeat", "2"], 1, "no CUDA driver (libcuda.so.1 not found)"),
    ]
    for extra, rc, message in cases:
        args = [a.rammer, "run", a.model, "--backend", "cuda"] + extra
        p = run(args)
        if p.returncode != rc or message not in p.stderr:
            fail(f"{' '.join(args)}\n  exit {p.returncode} (want {rc})\n  stderr: {p.stderr}\n"
                 f"  want stderr to contain: {message}")


def check_fake_driver(a):
    if not a.fake:
        return
    with tempfile.TemporaryDirectory() as tmp:
        os.symlink(a.fake, os.path.join(tmp, "libcuda.so.1"))
        env = dict(os.environ, LD_LIBRARY_PATH=tmp + ":" + os.environ.get("LD_LIBRARY_PATH", ""),
                   RAMMER_FAKE_CUDA_SMS="132", RAMMER_FAKE_CUDA_NOOP_KERNELS="1")
        trace = os.path.join(tmp, "measured.json")
        args = [a.rammer, "-q", "run", a.model, "--backend", "cuda", "--policy", "wavefront", "--repeat", "3",
                "--trace", trace, "--metrics"]
        p = run(args, env)
        # The stand-in's kernels compute nothing: the check must catch that.
        if p.returncode != 1:
            fail(f"{' '.join(args)}: exit {p.returncode}, want 1 (outputs FAIL)\n{p.stdout}\n{p.stderr}")
        want = ["device    Fake GPU (sm_90), plan for h100",
                "latency   median 250.0 us over 3 runs (min 250.0, p10 250.0, p90 250.0, max 250.0)",
                "check    FAIL: max |diff|",
                "  output 'probs' differs from the reference in 10 of 10 elements",
                # The stand-in's kernels record no rTask time, so the profile
                # behind --metrics fails: every value is unavailable, with why.
                "metrics   unavailable: " + NO_RTASK_TIMES,
                "trace     " + trace]
        for line in want:
            if line not in p.stdout:
                fail(f"stdout lacks {line!r}:\n{p.stdout}\n{p.stderr}")
        check_metrics_table(p.stdout)
        with open(trace) as f:
            events = json.load(f)
        if not isinstance(events, (dict, list)):
            fail(f"{trace} is not a trace")
        p = run(args[:-1] + ["--json"], env)  # with --trace, without --metrics
        j = json.loads(p.stdout)
        if j["latency_us"]["runs"] != 3 or j["output_check"]["pass"] or j["device"] != "Fake GPU":
            fail(f"--json: {p.stdout}")
        if "metrics" in j:
            fail(f"--json without --metrics has a metrics key: {p.stdout}")
        check_resources_json(j, p.stdout)
        check_gpu_lock(args[:-3] + ["--json"], env, tmp)
        p = run(args[:-3] + ["--metrics", "--json"], env)
        check_metrics_json(json.loads(p.stdout)["metrics"], p.stdout)
        check_graph_launch(a, env)


def check_graph_launch(a, env):
    """--launch graph: the launches of a plan of many programs captured once
    and replayed; JSON and text say which launch mode ran."""
    base = [a.rammer, "-q", "run", a.model, "--backend", "cuda", "--policy", "sequential", "--repeat", "3"]
    p = run(base + ["--launch", "graph", "--json"], env)
    j = json.loads(p.stdout)
    if j.get("launch") != "graph" or j["latency_us"]["runs"] != 3 or j["programs"] < 2:
        fail(f"--launch graph --json on a sequential plan: want launch graph, 3 runs, many programs: {p.stdout}\n"
             f"{p.stderr}")
    p = run(base + ["--json"], env)
    if json.loads(p.stdout).get("launch") != "stream":
        fail(f"without --launch the JSON should say stream: {p.stdout}")
    p = run(base + ["--launch", "graph"], env)
    if not re.search(r"^kernels   \d+ launches replayed as one CUDA graph, ", p.stdout, re.M):
        fail(f"--launch graph: the kernels line does not say graph:\n{p.stdout}\n{p.stderr}")
    p = run(base + ["--launch", "graphs"], env)
    if p.returncode != 2 or "--launch" not in p.stderr:
        fail(f"--launch graphs: want a usage error (exit 2), got {p.returncode}:\n{p.stderr}")


def check_resources_json(j, text):
    """What a recorded trace keeps beside its times: the compiled kernels."""
    if not re.fullmatch(r"[0-9a-f]{16}", j.get("source_fnv1a64", "")):
        fail(f"--json: source_fnv1a64 is not 16 hex digits: {text}")
    res = j.get("resources")
    if not res or [r["program"] for r in res] != list(range(j["programs"])):
        fail(f"--json: want one resources row per program (sample_cnn wavefront: {j['programs']}): {text}")
    for r in res:
        if not r["kernel"] or r["registers"] <= 0 or r["blocks"] <= 0 or r["threads"] <= 0 or r["blocks_per_sm"] < 1:
            fail(f"--json: resources row {r} lacks what ptxas reported")
    if max(r["registers"] for r in res) != j["max_registers"]:
        fail(f"--json: max_registers {j['max_registers']} is not the largest resources row: {text}")
    if j.get("instrumented_latency_us", 0) <= 0:
        fail(f"--json with --trace: no instrumented_latency_us: {text}")


def check_gpu_lock(args, env, tmp):
    """--gpu-lock FILE: a run waits for the lock before it touches the GPU
    (the lease recorder compiles several plans at once, times one at a time)."""
    lock = os.path.join(tmp, "gpu.lock")
    with open(lock, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        proc = subprocess.Popen(args + ["--gpu-lock", lock], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        inode = os.stat(lock).st_ino
        # /proc/locks lists a process blocked on a lock with "->".
        deadline = time.time() + 240
        while not any(l.split()[1:2] == ["->"] and l.split()[6].endswith(f":{inode}")
                      for l in open("/proc/locks")):
            if proc.poll() is not None:
                fail(f"--gpu-lock: the run ended ({proc.returncode}) while another process held the lock:\n"
                     f"{proc.stdout.read()}\n{proc.stderr.read()}")
            if time.time() > deadline:
                proc.kill()
                fail("--gpu-lock: the run never waited on the held lock")
            time.sleep(0.1)
        time.sleep(0.5)
        if proc.poll() is not None:
            fail("--gpu-lock: the run ended while another process held the lock")
    out, err = proc.communicate(timeout=240)
    j = json.loads(out)
    if j["latency_us"]["runs"] != 3:
        fail(f"--gpu-lock: after the lock was released the run did not finish its 3 runs: {out}\n{err}")


NO_RTASK_TIMES = "no rTask recorded a time in the instrumented run"
METRICS = ["sm_efficiency_pct", "warp_activity_pct", "sm_cycles_active"]


def check_metrics_table(out):
    """One row per rProgram (sample_cnn under wavefront: one) and a total row,
    every value '-' because none could be measured."""
    lines = out.splitlines()
    try:
        head = lines.index(next(l for l in lines if l.startswith("metrics   ")))
    except StopIteration:
        fail("no metrics line:\n" + out)
    header = lines[head + 1].split()
    if header != ["program", "kernel", "weight_us", "sm_eff_%", "warp_act_%", "sm_act_cycles"]:
        fail(f"metrics table header {header}:\n{out}")
    rows = [lines[head + 2].split(), lines[head + 3].split()]
    if rows[0] != ["0", "-", "-", "-", "-", "-"]:
        fail(f"program row {rows[0]}:\n{out}")
    if rows[1] != ["total", "(time-weighted)", "-", "-", "-", "-"]:
        fail(f"total row {rows[1]}:\n{out}")


def check_metrics_json(m, text):
    if m["available"] or NO_RTASK_TIMES not in m["reason"]:
        fail(f"--metrics --json: want available false and the reason: {text}")
    if [p["program"] for p in m["programs"]] != [0]:
        fail(f"--metrics --json: want one program row: {text}")
    for row in m["programs"] + [m["total"]]:
        for k in METRICS:
            v = row[k]
            if v["value"] is not None or v["measured"] or v["source"] != "unavailable: " + m["reason"]:
                fail(f"--metrics --json: {k} = {v}, want value null, an unavailable source: {text}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rammer", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--fake", help="the stand-in driver library (tests/core/runtime/fake_driver)")
    a = ap.parse_args()
    check_fake_driver(a)
    if driver_present():
        print("no-driver checks skipped: a CUDA driver is installed")
    else:
        check_no_driver(a)
    # The reference backend still insists on its inputs and outputs (usage errors).
    p = run([a.rammer, "run", a.model, "--random"])
    if p.returncode != 2 or "--outputs" not in p.stderr:
        fail(f"reference without --outputs: exit {p.returncode}\n{p.stderr}")
    print("ok")


if __name__ == "__main__":
    main()
