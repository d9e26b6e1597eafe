#!/usr/bin/env python3
"""Per rKernel family, how far a recorded lease's rTasks ran from the
analytic model's roofline (issue #27 item 9): the efficiencies of
resources/devices/DEVICE.json's "kernel_efficiency".

fit_efficiency.py LEASE_DIR --rammer build/bin/rammer --samples DIR --device resources/devices/h100.json

For every RammerBase (sequential) run of the lease (one operator per launch,
nothing co-scheduled), each operator's median measured rTask time is set
against the time the plan's prediction gives the same rTask with every
efficiency at 1 (--device without its kernel_efficiency). A
family's efficiency is the median over its distinct shapes (rKernel and
predicted time; an RNN repeats one shape hundreds of times) of predicted /
measured; the rows say how many shapes and how widely they spread. Only
rTasks of at least 2 us count (shorter ones are launch noise). A family
whose code changed since the lease is fitted against other code: leave it
out of the table.

The lease is read through lease_rows.load_lease: a folder without a complete
provenance.json is refused (exit 1, the message names the missing field).
"""
import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lease_rows import ProvenanceError, load_lease  # noqa: E402
from lease_table import model_path  # noqa: E402


def columns(trace):
    """The delta-coded task columns, summed back."""
    t = trace["tasks"]
    out = {}
    for k in ("op", "rtask", "program", "veu", "order", "sm", "start_ns", "dur_ns"):
        if k in t["delta"]:
            acc, vals = 0, []
            for d in t[k]:
                acc += d
                vals.append(acc)
            out[k] = vals
        else:
            out[k] = t[k]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lease")
    ap.add_argument("--rammer", required=True)
    ap.add_argument("--samples", default="")
    ap.add_argument("--device", required=True, help="the device JSON (its kernel_efficiency is ignored)")
    ap.add_argument("--min-us", type=float, default=2.0)
    a = ap.parse_args()
    lease = load_lease(a.lease)
    device = json.load(open(a.device))
    device.pop("kernel_efficiency", None)
    flat = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    json.dump(device, flat)
    flat.close()
    a.device = flat.name
    # (family, rKernel, predicted us) -> [predicted / measured per op]: an RNN
    # repeats one shape hundreds of times, so each shape counts once.
    shapes = collections.defaultdict(list)
    for key in lease.keys():
        model, policy = key.rsplit(".", 1)
        trace = lease.trace(key) if policy == "sequential" else None
        path = model_path(model, a.samples)
        if trace is None or not path:
            continue
        lease.run_check(key)  # refuses a run without its output check
        measured = columns(trace)
        with tempfile.TemporaryDirectory() as tmp:
            pred_file = os.path.join(tmp, "p.json")
            p = subprocess.run([a.rammer, "-q", "schedule", path, "--policy", "sequential", "--device", a.device,
                                "--json", "--trace", pred_file], capture_output=True, text=True)
            if p.returncode != 0:
                continue
            plan = json.loads(p.stdout)
            pred = json.load(open(pred_file))
        family = {i: k.get("family") for i, k in enumerate(plan["kernels"])}
        name = {i: k.get("name", "") for i, k in enumerate(plan["kernels"])}
        by_op = collections.defaultdict(list)
        for op, d in zip(measured["op"], measured["dur_ns"]):
            by_op[op].append(d / 1000.0)
        pred_op = collections.defaultdict(list)
        for e in pred["traceEvents"]:
            if e.get("ph") == "X" and e.get("cat") == "rtask":
                pred_op[e["args"]["op_index"]].append(e["dur"])
        for op, ds in by_op.items():
            m = statistics.median(ds)
            if m < a.min_us or op not in pred_op or not family.get(op):
                continue
            p_us = statistics.median(pred_op[op])
            shapes[(family[op], name[op], round(p_us, 3))].append(p_us / m)
    ratios = collections.defaultdict(list)  # family -> [one ratio per shape]
    for (fam, _, _), r in shapes.items():
        ratios[fam].append(statistics.median(r))
    print(f"{'family':22} {'shapes':>6} {'efficiency':>10} {'p10':>8} {'p90':>8}")
    table = {}
    for fam, r in sorted(ratios.items()):
        r.sort()
        eff = statistics.median(r)
        table[fam] = round(eff, 4)
        print(f"{fam:22} {len(r):6} {eff:10.4f} {r[len(r) // 10]:8.4f} {r[(9 * len(r)) // 10]:8.4f}")
    print(json.dumps(table, indent=1))


if __name__ == "__main__":
    try:
        main()
    except ProvenanceError as e:
        sys.exit(f"fit_efficiency.py: {e}")
