#!/usr/bin/env python3
"""The table of one recorded lease (tests/data/gpu_traces/DATE-CARD), with
each plan's analytic prediction beside its measurement.

lease_table.py LEASE_DIR --rammer build/bin/rammer --samples DIR [--device h100]

Per run: the measured median latency (CUDA events, the uninstrumented build),
the registers and spills of its kernels, the rTasks its trace holds, and
`rammer schedule --json`'s predicted latency of the same plan, remade here;
the plan must match the trace (rTasks per op, op names, programs) or the row
says so. Error = (predicted - measured) / measured. --samples holds the
rammer-samples models (the bundled samples and transformer exports are
found in the tree).

The lease is read through lease_rows.load_lease: a folder without a complete
provenance.json, or a run without its output check, is refused (exit 1, the
message names the file and the missing field).
"""
import argparse
import collections
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lease_rows import ProvenanceError, load_lease  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
POLICIES = ["sequential", "wavefront", "greedy", "ios", "graphturbo"]


def model_path(model, samples):
    for p in (os.path.join(ROOT, "samples", "models", model + ".onnx"),
              os.path.join(ROOT, "tests", "data", "transformers", model, "model.onnx"),
              os.path.join(samples, model + ".onnx")):
        if os.path.exists(p):
            return p
    return None


def trace_counts(trace):
    """rTasks per op index, summing the delta-coded op column."""
    counts, op = collections.Counter(), 0
    for d in trace["tasks"]["op"]:
        op += d
        counts[op] += 1
    return counts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lease")
    ap.add_argument("--rammer", required=True)
    ap.add_argument("--samples", default="")
    ap.add_argument("--device", default="h100")
    a = ap.parse_args()
    lease = load_lease(a.lease)
    rows, errors = [], []
    for key in lease.keys():
        model, policy = key.rsplit(".", 1)
        lease.run_check(key)  # refuses a run without its output check
        run, trace = lease.run(key), lease.trace(key)
        measured = run["latency_us"]["median"]
        path = model_path(model, a.samples)
        predicted, note = None, ""
        if path is None:
            note = "model not found"
        else:
            p = subprocess.run([a.rammer, "-q", "schedule", path, "--policy", policy, "--device", a.device, "--json"],
                               capture_output=True, text=True)
            if p.returncode != 0:
                note = "schedule failed: " + p.stderr.strip().splitlines()[-1][:80]
            else:
                plan = json.loads(p.stdout)
                want = {i: k["rtasks"] for i, k in enumerate(plan["kernels"]) if k["kernel"]}
                same = (dict(trace_counts(trace)) == want and len(trace["programs"]) == len(plan["programs"])
                        and all(plan["kernels"][int(i)]["op"] == n for i, n in trace["ops"].items()))
                if same:
                    predicted = plan["predicted_latency_us"]
                    errors.append((predicted - measured) / measured)
                else:
                    note = "plan differs from the trace's"
        rows.append((model, policy, measured, run["latency_us"]["p10"], run["latency_us"]["p90"], run["max_registers"],
                     run["spill_store_bytes"], len(trace["tasks"]["op"]), predicted, note))

    print(f"{'model':16} {'policy':11} {'measured_us':>12} {'p10-p90':>19} {'regs':>5} {'spill_B':>8} "
          f"{'rTasks':>7} {'predicted_us':>12} {'error':>7}")
    for m, p, us, p10, p90, regs, spill, n, pred, note in rows:
        err = f"{(pred - us) / us:+7.0%}" if pred is not None else note
        pred_s = f"{pred:12.1f}" if pred is not None else f"{'-':>12}"
        print(f"{m:16} {p:11} {us:12.1f} {f'{p10:.0f}-{p90:.0f}':>19} {regs:5} {spill:8} {n:7} {pred_s} {err:>7}")
    if errors:
        absolute = [abs(e) for e in errors]
        print(f"\n{len(errors)} plans predicted: median |error| {statistics.median(absolute):.0%}, "
              f"worst {max(absolute):.0%}, median signed {statistics.median(errors):+.0%}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ProvenanceError as e:
        sys.exit(f"lease_table.py: {e}")
