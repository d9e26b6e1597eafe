#!/usr/bin/env python3
"""Dynamic against wavefront in one recorded lease (issue #31 item 5).

dynamic_table.py LEASE_DIR [--baseline wavefront] [--policy dynamic] [--json]

Per model with both runs: the median latency (CUDA events, p10-p90), the
ratio, the vEUs that ran an rTask, the per-rTask dispatch cost and the SM
efficiency. The dispatch cost is read from the measured traces: on one vEU,
the gap from an rTask's end to the start of the next rTask *of the same
operator* never waits on a producer (the operator was already taken, so its
next rTask was ready), so it is the bare cost of going from one rTask to the
next: in a static plan the instruction-table read, in a dynamic one the
gate arrivals of the finished rTask, the claim of the next and two block
barriers. Gaps between different operators also hold waits (barriers, empty
queue) and are summed separately, as the time vEUs sat idle between rTasks.
SM efficiency: CUPTI's (smsp__cycles_active, where the lease measured it)
and the trace's (busy SM time over SMs x span).

The lease is read through lease_rows.load_lease: a folder without a complete
provenance.json, or a run without its output check, is refused (exit 1, the
message names the file and the missing field).
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lease_rows import ProvenanceError, load_lease  # noqa: E402

MODELS = ["alexnet", "resnext29_cifar", "nasnet_cifar", "deepspeech2", "lstm_tc", "seq2seq", "sample_cnn",
          "inception_block", "nasbench_cells", "encoder", "encoder_opset14", "decoder", "vit_tiny", "swin_tiny",
          "bert_tokens", "gpt_tokens"]


def tasks_of(trace):
    """The task columns with the delta-coded ones summed back."""
    t = trace["tasks"]
    cols = {}
    for name, values in t.items():
        if not isinstance(values, list) or name == "delta":
            continue
        if name in t.get("delta", []):
            acc, out = 0, []
            for v in values:
                acc += v
                out.append(acc)
            values = out
        cols[name] = values
    return [dict(zip(cols, row)) for row in zip(*cols.values())]


def gaps(trace):
    """(same-operator gaps, other gaps) in ns between consecutive rTasks of one vEU, and the vEUs used."""
    by_veu = {}
    for task in tasks_of(trace):
        by_veu.setdefault((task["program"], task["veu"]), []).append(task)
    same, other = [], []
    for run in by_veu.values():
        run.sort(key=lambda x: x["start_ns"])
        for a, b in zip(run, run[1:]):
            gap = b["start_ns"] - (a["start_ns"] + a["dur_ns"])
            (same if a["op"] == b["op"] else other).append(gap)
    return same, other, len(by_veu)


def percentile(values, q):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def summary(lease, key):
    lease.run_check(key)  # refuses a run without its output check
    run, trace = lease.run(key), lease.trace(key)
    same, other, veus = gaps(trace)
    row = {
        "median_us": run["latency_us"]["median"],
        "p10_us": run["latency_us"]["p10"],
        "p90_us": run["latency_us"]["p90"],
        "rtasks": len(trace["tasks"]["op"]),
        "veus_used": veus,
        "veus": sum(p["veus"] for p in trace["programs"]),
        "same_op_gaps_ns": same,
        "same_op_gap_ns": statistics.median(same) if same else float("nan"),
        "same_op_gap_p90_ns": percentile(same, 0.9),
        "idle_between_ops_us": sum(other) / 1e3,
        "trace_sm_eff": run.get("measured_sm_efficiency"),
        "cupti_sm_eff": None,
        "cupti_warp_act": None,
    }
    metrics = lease.metrics(key)
    if metrics is not None:
        total = metrics["metrics"]["total"]
        row["cupti_sm_eff"] = total["sm_efficiency_pct"]["value"]
        row["cupti_warp_act"] = total["warp_activity_pct"]["value"]
    return row


def pct(v):
    return "-" if v is None else f"{v:.0f}"


def ns(v):
    """A gap in ns; '-' where a run has no such gap (every operator's rTasks on other vEUs)."""
    return "-" if v != v else f"{v:,.0f}"


def compare(lease, baseline, policy):
    """Per model with both runs: {"model", "baseline", "policy"} summaries."""
    rows = []
    for m in MODELS:
        keys = {p: f"{m}.{p}" for p in (baseline, policy)}
        if not all(lease.run(k) is not None for k in keys.values()):
            continue
        rows.append({"model": m, "baseline": summary(lease, keys[baseline]), "policy": summary(lease, keys[policy])})
    return rows


def parser(prog):
    ap = argparse.ArgumentParser(prog=prog)
    ap.add_argument("lease")
    ap.add_argument("--baseline", default="wavefront")
    ap.add_argument("--policy", default="dynamic", help="the run set against the baseline (a key's last part)")
    return ap


def render(argv):
    """The table, then the same-operator gaps of the compared policy's runs
    pooled (its per-rTask dispatch cost), then the lease's provenance."""
    a = parser("dynamic").parse_args(argv)
    lease = load_lease(a.lease)
    rows = compare(lease, a.baseline, a.policy)
    b, o = a.baseline, a.policy
    out = [f"| model | rTasks | {b} us (p10-p90) | {o} us (p10-p90) | {o} / {b} | vEUs that ran rTasks, "
           f"{b} / {o} (of) | rTask to rTask of one op, ns: {b} / {o} (p90) | idle between ops, vEU-ms: "
           f"{b} / {o} | SM efficiency %, CUPTI: {b} / {o} | trace: {b} / {o} |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    pooled, models = [], []
    for r in rows:
        s, d = r["baseline"], r["policy"]
        if d["same_op_gaps_ns"]:
            pooled += d["same_op_gaps_ns"]
            models.append(r["model"])
        out.append(f"| {r['model']} | {d['rtasks']:,} | {s['median_us']:,.1f} ({s['p10_us']:,.0f}-{s['p90_us']:,.0f}) | "
                   f"{d['median_us']:,.1f} ({d['p10_us']:,.0f}-{d['p90_us']:,.0f}) | "
                   f"{d['median_us'] / s['median_us']:.2f}x | {s['veus_used']} / {d['veus_used']} ({d['veus']}) | "
                   f"{ns(s['same_op_gap_ns'])} / {ns(d['same_op_gap_ns'])} ({ns(d['same_op_gap_p90_ns'])}) | "
                   f"{s['idle_between_ops_us'] / 1e3:,.2f} / {d['idle_between_ops_us'] / 1e3:,.2f} | "
                   f"{pct(s['cupti_sm_eff'])} / {pct(d['cupti_sm_eff'])} | "
                   f"{100 * s['trace_sm_eff']:.0f} / {100 * d['trace_sm_eff']:.0f} |")
    out.append("")
    if pooled:
        out.append(f"{o}: rTask to rTask of one op, pooled over {len(pooled):,} gaps of {len(models)} models "
                   f"({', '.join(models)}): median {statistics.median(pooled) / 1e3:.2f} us, p10 "
                   f"{percentile(pooled, 0.1) / 1e3:.2f}, p90 {percentile(pooled, 0.9) / 1e3:.2f}.")
    out.append(f"Measured: {lease.describe()}.")
    return "\n".join(out)


def main():
    ap = parser("dynamic_table.py")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if not a.json:
        print(render([arg for arg in sys.argv[1:] if arg != "--json"]))
        return
    rows = compare(load_lease(a.lease), a.baseline, a.policy)
    for r in rows:
        for side in ("baseline", "policy"):
            r[side].pop("same_op_gaps_ns")
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    try:
        main()
    except ProvenanceError as e:
        sys.exit(f"dynamic_table.py: {e}")
