"""What a lease checked beside the latencies, for doc_tables.py: the output
check of every run, the CUPTI metrics (`rammer run --metrics`, the range
profiler) and the compute-sanitizer rows.
"""
import argparse
import fnmatch
import glob
import json
import os

import e2e_table
import lease_rows
import rkernel_table
from derived_tables import lease_line
from row_tables import fixed_width


def metrics(argv):
    """metrics LEASE_DIR: one row per plan that has a metrics file: the SM
    efficiency (smsp__cycles_active.avg.pct_of_peak_sustained_elapsed) and
    warp activity (sm__warps_active.avg.pct_of_peak_sustained_active),
    weighted by each program's kernel time. A plan whose counter replays did
    not finish left an empty file: a line under the table names it."""
    ap = argparse.ArgumentParser(prog="metrics")
    ap.add_argument("lease")
    a = ap.parse_args(argv)
    lease = lease_rows.load_lease(a.lease)
    body, unfinished = [], []
    for path in sorted(glob.glob(os.path.join(lease.folder, "runs", "*.metrics.json.xz"))):
        key = os.path.basename(path)[:-len(".metrics.json.xz")]
        model, policy = key.rsplit(".", 1)
        try:
            m = lease.metrics(key)
        except ValueError:  # an empty or cut-off file: the replays did not finish
            m = None
        if not m or not m.get("metrics", {}).get("available"):
            unfinished.append(key)
            continue
        total = m["metrics"]["total"]
        body.append([model, policy, str(len(m["metrics"]["programs"])), f"{m['latency_us']['runs']}",
                     f"{total['sm_efficiency_pct']['value']:.1f}", f"{total['warp_activity_pct']['value']:.1f}"])
    header = ["model", "policy", "programs", "runs", "SM efficiency %", "warp activity %"]
    out = ["```"] + fixed_width(header, body, left=2) + ["```", ""]
    if unfinished:
        out.append("No metrics (the counter replays did not finish): " + ", ".join(unfinished) + ".")
    return "\n".join(out + [lease_line(lease)])


def runs(argv):
    """runs LEASE_DIR: how many of the lease's runs passed their output
    check, under which rule, and the largest error among them."""
    ap = argparse.ArgumentParser(prog="runs")
    ap.add_argument("lease")
    a = ap.parse_args(argv)
    lease = lease_rows.load_lease(a.lease)
    checks = {key: lease.run_check(key) for key in lease.keys()}
    passed = [k for k, (result, _) in checks.items() if result == "PASS"]
    failed = sorted(set(checks) - set(passed))
    largest = ""
    if passed:
        worst = max(passed, key=lambda k: lease.run(k)["output_check"]["max_rel_error"])
        largest = f"; largest max |out - ref| / max |ref|: {lease.run(worst)['output_check']['max_rel_error']:.1e} ({worst})"
    return "\n".join([
        f"{len(passed)} of {len(checks)} runs passed their output check" +
        (f" (not: {', '.join(failed)})" if failed else "") + largest + ".",
        "Rule: " + "; ".join(sorted({rule for _, rule in checks.values()})) + ".", lease_line(lease)])


def sanitizers(argv):
    """sanitizers LEASE_DIR: every compute-sanitizer row of the lease
    (sanitizers.jsonl): tool, model, policy, result and its summary line."""
    ap = argparse.ArgumentParser(prog="sanitizers")
    ap.add_argument("lease")
    a = ap.parse_args(argv)
    lease = lease_rows.load_lease(a.lease)
    rows = lease.rows("sanitizers.jsonl")
    body = [[r["system"].replace("compute-sanitizer ", ""), r["model"], r.get("policy") or "-", r["check"],
             r.get("summary", "").replace("=========", "").strip()] for r in rows]
    rules = sorted({r["check_rule"] for r in rows})
    out = ["```"] + fixed_width(["tool", "model", "policy", "check", "summary"], body, left=5) + ["```", ""]
    return "\n".join(out + (["Rules: " + "; ".join(rules) + "."] if rules else []) + [lease_line(lease)])


def goals(argv):
    """goals LEASE_DIR [--device FILE]: the earlier issues' GPU goals that a
    lease's rows decide, each with its verdict: Rammer (wavefront) at least
    as fast as RammerBase (sequential; and as RammerBase launched as one
    CUDA graph, where graph.jsonl has it) on each paper model at batch 1
    (issue #27), and resnext29's grouped 3x3 convolutions (the `conv2`
    nodes) at >= 30% of the FP32 peak in the RammerBase trace (issue #27
    item 8). The prediction error's goals need `rammer calibrate`, not rows."""
    ap = argparse.ArgumentParser(prog="goals")
    ap.add_argument("lease")
    ap.add_argument("--device", default=os.path.join(rkernel_table.ROOT, "resources", "devices", "h100.json"))
    ap.add_argument("--models", default="alexnet resnext29_cifar nasnet_cifar deepspeech2 lstm_tc seq2seq")
    a = ap.parse_args(argv)
    lease = lease_rows.load_lease(a.lease)
    models = a.models.split()
    lat, _ = e2e_table.latencies(lease, models)
    out = []
    for base, label in (("sequential", "RammerBase"), ("rammerbase-graph", "RammerBase as a CUDA graph")):
        pairs = [(m, lat[(m, 1, base)]["median"] / lat[(m, 1, "wavefront")]["median"]) for m in models
                 if (m, 1, base) in lat and (m, 1, "wavefront") in lat]
        if not pairs:
            out.append(f"- Rammer >= {label} at batch 1: not measured in this lease.")
            continue
        slower = [f"{m} ({r:.2f}x)" for m, r in pairs if r < 1]
        verdict = "met" if not slower and len(pairs) == len(models) else "not met"
        out.append(f"- Rammer >= {label} at batch 1 ({len(pairs)} of {len(models)} models measured): {verdict}" +
                   (f"; slower on {', '.join(slower)}" if slower else "") + ".")
    with open(a.device) as f:
        peak = json.load(f)["peak_fp32_tflops"] * 1e3
    nodes = [r for r in lease.rows("pytorch_nodes.jsonl")
             if r["model"] == "resnext29_cifar" and fnmatch.fnmatchcase(r["node"], "*.conv2.conv")]
    if lease.run("resnext29_cifar.sequential") is None or not nodes:
        out.append("- resnext29's grouped 3x3 convolutions >= 30% of the FP32 peak: not measured in this lease.")
    else:
        times = rkernel_table.sequential_times(lease, "resnext29_cifar")
        shares = [100 * r["flops"] / times[r["node"]][0] / 1e3 / peak for r in nodes if r["node"] in times]
        out.append(f"- resnext29's grouped 3x3 convolutions >= 30% of the FP32 peak ({len(shares)} nodes, "
                   f"{min(shares):.1f}% to {max(shares):.1f}%): {'met' if min(shares) >= 30 else 'not met'}.")
    return "\n".join(out + ["", lease_line(lease)])
