#!/usr/bin/env python3
"""Per-rKernel table of one lease (issue #27 item 8): every Conv, Gemm,
MatMul and LSTM node of the paper models, our rKernel against the same op in
PyTorch (cuDNN/cuBLAS), on the same card in the same lease.

rkernel_table.py LEASE_DIR [--device resources/devices/h100.json] [--models "a b"] [--all]
                 [--before EARLIER_LEASE_DIR]

Ours: the node's kernel time in the RammerBase (sequential) run's measured
trace: each operator is its own launch there, and its time is that launch's
span from its first rTask's start to its last rTask's end (%globaltimer), the
launch gap excluded. An LSTM node is lowered to per-step operators: its time
is the sum of their launches' spans. PyTorch: `pytorch_nodes.jsonl`
(torch_baseline.py --per-node), CUDA events around the one call, median of
50. Those events also hold the host's dispatch of the call, so a PyTorch time
under ~40 us is an upper bound (marked "<=").

Columns: FLOPs and bytes (each input read once, each output written once),
our time and rKernel, achieved GFLOP/s and GB/s and their share of the
device preset's FP32 peak and HBM bandwidth, PyTorch's time, and
ours / PyTorch; with --before, the same node's time in an earlier lease's
sequential trace (the kernels of that lease's commit). Without --all, the nasnet rows are summed per op type (it has
hundreds of small nodes).

Both leases are read through lease_rows.load_lease: a folder without a
complete provenance.json, or a pytorch_nodes.jsonl row without `check`,
`check_rule` and provenance, is refused (exit 1, the message names the file,
the line and the missing field).
"""
import argparse
import collections
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fit_efficiency import columns  # noqa: E402  (the trace's delta-coded columns, summed back)
from lease_rows import ProvenanceError, load_lease  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DISPATCH_BOUND_US = 40.0


def sequential_times(lease, model):
    """op name -> (kernel span us, rKernel) from MODEL.sequential's trace."""
    t = lease.trace(model + ".sequential")
    if t is None:
        raise FileNotFoundError(os.path.join(lease.folder, "runs", model + ".sequential.trace.json.xz"))
    lease.run_check(model + ".sequential")  # refuses a run without its output check
    cols = columns(t)
    ops, programs = cols["op"], cols["program"]
    op_of_program = {}
    for o, p in zip(ops, programs):
        op_of_program.setdefault(p, set()).add(o)
    out = {}
    for p in t["programs"]:
        members = op_of_program.get(p["program"], set())
        if len(members) != 1:
            continue  # not one operator alone
        o = str(next(iter(members)))
        out[t["ops"][o]] = (p["dur_ns"] / 1e3, t["kernels"][o])
    return out


def ours(times, node, op):
    if node in times:
        return times[node]
    if op == "LSTM":  # per-step operators NODE/lL/tT/...
        parts = [(us, k) for name, (us, k) in times.items() if name.startswith(node + "/")]
        if parts:
            kernels = sorted({k for _, k in parts})
            return sum(us for us, _ in parts), "+".join(kernels)
    return None


def render(argv):
    """The table as text, then per op type the spread of ours / PyTorch
    (rows whose PyTorch time is a dispatch bound left out) and of the share
    of the FP32 peak, then the provenance of both leases."""
    ap = argparse.ArgumentParser(prog="rkernels")
    ap.add_argument("lease")
    ap.add_argument("--device", default=os.path.join(ROOT, "resources", "devices", "h100.json"))
    ap.add_argument("--models", default="alexnet resnext29_cifar nasnet_cifar deepspeech2 lstm_tc seq2seq")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--before")
    a = ap.parse_args(argv)
    with open(a.device) as f:
        dev = json.load(f)
    peak_gflops = dev["peak_fp32_tflops"] * 1e3
    bw_gbs = dev["memory_bandwidth_gbs"]
    lease, before = load_lease(a.lease), load_lease(a.before) if a.before else None
    rows = lease.rows("pytorch_nodes.jsonl")
    if not rows:
        raise ProvenanceError(f"{os.path.join(a.lease, 'pytorch_nodes.jsonl')}: no such file (torch_baseline.py "
                              "--per-node writes it)")
    out = ["```", "%-16s %-34s %-6s %9s %9s %10s %-32s %8s %6s %7s %6s %10s %6s" % (
        "model", "node", "op", "MFLOP", "MB", "ours_us", "rKernel", "GFLOP/s", "%peak", "GB/s", "%HBM",
        "torch_us", "x") + (" %10s" % "before_us" if a.before else "")]
    by_op = collections.OrderedDict()  # op -> [(ours / torch, %peak)] of the rows not dispatch-bound
    for model in a.models.split():
        times = sequential_times(lease, model)
        earlier = sequential_times(before, model) if before else {}
        mine = [r for r in rows if r["model"] == model and r["check"] in ("PASS", "none")]
        grouped = collections.OrderedDict()
        for r in mine:
            got = ours(times, r["node"], r["op"])
            key = r["node"] if a.all or model != "nasnet_cifar" else "(%s nodes)" % r["op"]
            g = grouped.setdefault(key, {"op": r["op"], "flops": 0, "bytes": 0, "ours": 0.0, "torch": 0.0,
                                         "kernels": set(), "missing": 0, "n": 0, "bound": False, "before": 0.0})
            g["n"] += 1
            g["flops"] += r["flops"]
            g["bytes"] += r["bytes"]
            t = r["latency_us"]["median"]
            g["torch"] += t
            g["bound"] = g["bound"] or t < DISPATCH_BOUND_US
            if got is None:
                g["missing"] += 1
                continue
            g["ours"] += got[0]
            then = ours(earlier, r["node"], r["op"]) if a.before else None
            g["before"] = g["before"] + then[0] if then and g["before"] is not None else None
            g["kernels"].add(got[1])
        for key, g in grouped.items():
            if g["missing"]:
                out.append("%-16s %-34s %-6s (no single-operator launch in the sequential trace for %d node(s))" % (
                    model, key[:34], g["op"], g["missing"]))
                continue
            us = g["ours"]
            kern = "+".join(sorted({k for ks in g["kernels"] for k in ks.split("+")}))
            if len(kern) > 32:
                kern = kern[:30] + ".."
            gflops, gbs = g["flops"] / us / 1e3, g["bytes"] / us / 1e3
            if not g["bound"]:
                by_op.setdefault(g["op"], []).append((us / g["torch"], 100 * gflops / peak_gflops))
            out.append("%-16s %-34s %-6s %9.1f %9.2f %10.1f %-32s %8.0f %5.1f%% %7.0f %5.1f%% %10s %6.2f" % (
                model, key[:34], g["op"], g["flops"] / 1e6, g["bytes"] / 1e6, us, kern, gflops,
                100 * gflops / peak_gflops, gbs, 100 * gbs / bw_gbs,
                ("<=" if g["bound"] else "") + "%.1f" % g["torch"], us / g["torch"]) +
                (" %10s" % ("%.1f" % g["before"] if g["before"] else "-") if a.before else ""))
    out += ["```", ""]
    for op, v in by_op.items():
        x, peak = [r for r, _ in v], [p for _, p in v]
        out.append(f"{op}: ours / PyTorch {min(x):.2f}x to {max(x):.2f}x over {len(v)} rows (ours faster on "
                   f"{sum(r < 1 for r in x)}), {min(peak):.1f}% to {max(peak):.1f}% of the FP32 peak.")
    out.append("(Rows whose PyTorch time is a dispatch bound, `<=`, are left out of these spreads.)")
    out.append("")
    out += [f"Measured: {l.describe()}." for l in [lease] + ([before] if before else [])]
    return "\n".join(out)


def main():
    print(render(sys.argv[1:]))


if __name__ == "__main__":
    try:
        main()
    except ProvenanceError as e:
        sys.exit(f"rkernel_table.py: {e}")
