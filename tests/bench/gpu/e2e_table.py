#!/usr/bin/env python3
"""End-to-end table of one lease (issue #27 item 8): per paper model and
batch, RammerBase (sequential), Rammer (wavefront), the other policies at
batch 1, and PyTorch eager, all medians of CUDA-event latencies on the same
card in the same lease, outputs checked against the CPU reference first.

e2e_table.py LEASE_DIR [--models "a b"]

Batch 1: runs/MODEL.POLICY.run.json.xz and pytorch.jsonl; batch 4 and 16:
batch.jsonl. Prints the table, then the goals: Rammer >= RammerBase, Rammer
faster than eager on alexnet and resnext29, and the geometric mean of
eager / Rammer over the models. A row counts only when its check passed.

The lease is read through lease_rows.load_lease: a folder without a complete
provenance.json, a run without its output check or a row without `check`,
`check_rule` and provenance is refused (exit 1, the message names the file,
the line and the missing field).
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lease_rows import ProvenanceError, load_lease  # noqa: E402
from row_tables import fixed_width  # noqa: E402

POLICIES = ["sequential", "wavefront", "greedy", "ios", "graphturbo", "dynamic"]
# Baselines a user would pick, where the lease ran them: RammerBase's
# launches replayed as one CUDA graph (graph.jsonl) and torch.compile
# (pytorch.jsonl; compile_s / first_run_s is the compile time).
BASELINES = ["rammerbase-graph", "pytorch-compile", "pytorch-reduce-overhead", "pytorch-max-autotune"]
ROW_SYSTEMS = {"rammerbase": "sequential", "rammer": "wavefront"}
LABELS = {"rammerbase-graph": "RB graph", "pytorch-compile": "compile", "pytorch-reduce-overhead": "reduce-overhead",
          "pytorch-max-autotune": "max-autotune"}


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def latencies(lease, models):
    """(model, batch, system) -> latency_us of every run and row that passed
    its check; compile seconds of the torch.compile rows."""
    lat, compile_s = {}, {}
    for m in models:
        for p in POLICIES:
            key = "%s.%s" % (m, p)
            if lease.run(key) is not None and lease.run_check(key)[0] == "PASS":
                lat[(m, 1, p)] = lease.run(key)["latency_us"]
    for name in ("pytorch.jsonl", "batch.jsonl", "graph.jsonl"):
        for r in lease.rows(name):
            if "latency_us" not in r or r["check"] != "PASS" or r["model"] not in models:
                continue
            system = ROW_SYSTEMS.get(r["system"], r["system"])
            lat[(r["model"], r.get("batch", 1), system)] = r["latency_us"]
            if "compile_s" in r or "first_run_s" in r:
                compile_s[(r["model"], r.get("batch", 1), system)] = r.get("compile_s", r.get("first_run_s"))
    return lat, compile_s


def render(argv):
    """The table, then per batch the geometric mean of eager / Rammer (with
    eager's p10 and p90 in its place: eager's spread within the lease), where
    eager beat Rammer and where Rammer lost to RammerBase, then provenance.
    Every ratio pairs runs of this one lease."""
    ap = argparse.ArgumentParser(prog="e2e")
    ap.add_argument("lease")
    ap.add_argument("--models", default="alexnet resnext29_cifar nasnet_cifar deepspeech2 lstm_tc seq2seq")
    a = ap.parse_args(argv)
    models = a.models.split()
    lease = load_lease(a.lease)
    lat, compile_s = latencies(lease, models)
    present = {k[2] for k in lat}
    cols = [c for c in POLICIES + BASELINES if c in present]
    eager = "pytorch-eager" in present
    header = ["model", "batch"] + [LABELS.get(c, c) for c in cols] + (["eager", "eager p10-p90"] if eager else []) + ["R/RB"] + (
        ["eager/R"] if eager else [])
    body, notes = [], []
    for b in (1, 4, 16):
        ratios, lo, hi, eager_wins, base_wins = [], [], [], [], []
        for m in models:
            if (m, b, "wavefront") not in lat:
                continue
            r, rb, e = (lat.get((m, b, s)) for s in ("wavefront", "sequential", "pytorch-eager"))
            line = [m, str(b)] + ["%.1f" % lat[(m, b, c)]["median"] if (m, b, c) in lat else "-" for c in cols]
            if eager:
                line += ["%.1f" % e["median"], "%.0f-%.0f" % (e["p10"], e["p90"])] if e else ["-", "-"]
            line.append("%.2f" % (rb["median"] / r["median"]) if rb else "-")
            if rb and rb["median"] < r["median"]:
                base_wins.append("%s (%.2f)" % (m, rb["median"] / r["median"]))
            if eager:
                line.append("%.2f" % (e["median"] / r["median"]) if e else "-")
            if e:
                ratios.append(e["median"] / r["median"])
                lo.append(e["p10"] / r["median"])
                hi.append(e["p90"] / r["median"])
                if e["median"] < r["median"]:
                    eager_wins.append("%s (%.2f)" % (m, e["median"] / r["median"]))
            body.append(line)
        if ratios:
            notes.append("batch %d: geometric mean of eager / Rammer over %d models %.2f (%.2f to %.2f with eager's "
                         "p10 and p90 in its place); eager faster on %s" % (
                             b, len(ratios), geomean(ratios), geomean(lo), geomean(hi),
                             ", ".join(eager_wins) if eager_wins else "none"))
        if base_wins:
            notes.append("batch %d: RammerBase faster than Rammer on %s" % (b, ", ".join(base_wins)))
    for (m, b, c), sec in sorted(compile_s.items()):
        if c in BASELINES:
            notes.append("%s %s at batch %d: first call (compile) %.1f s" % (m, LABELS[c], b, sec))
    out = ["```"] + fixed_width(header, body, left=1) + [""] + notes + ["```", "", "Measured: %s." % lease.describe()]
    return "\n".join(out)


def main():
    print(render(sys.argv[1:]))


if __name__ == "__main__":
    try:
        main()
    except ProvenanceError as e:
        sys.exit(f"e2e_table.py: {e}")
