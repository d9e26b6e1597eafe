#!/usr/bin/env python3
"""End-to-end table of one lease (issue #27 item 8): per paper model and
batch, RammerBase (sequential), Rammer (wavefront), the other policies at
batch 1, and PyTorch eager, all medians of CUDA-event latencies on the same
card in the same lease, outputs checked against the CPU reference first.

e2e_table.py LEASE_DIR [--models "a b"]

Batch 1: runs/MODEL.POLICY.run.json.xz and pytorch.jsonl; batch 4 and 16:
batch.jsonl. Prints the table, then the goals: Rammer >= RammerBase, Rammer
faster than eager on alexnet and resnext29, and the geometric mean of
eager / Rammer over the models.
"""
import argparse
import json
import lzma
import math
import os

POLICIES = ["sequential", "wavefront", "greedy", "ios", "graphturbo"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lease")
    ap.add_argument("--models", default="alexnet resnext29_cifar nasnet_cifar deepspeech2 lstm_tc seq2seq")
    a = ap.parse_args()
    models = a.models.split()
    lat = {}  # (model, batch, system) -> median us
    for m in models:
        for p in POLICIES:
            path = os.path.join(a.lease, "runs", "%s.%s.run.json.xz" % (m, p))
            if os.path.exists(path):
                with lzma.open(path) as f:
                    lat[(m, 1, p)] = json.load(f)["latency_us"]["median"]
    for name, batch_of in (("pytorch.jsonl", lambda r: 1), ("batch.jsonl", lambda r: r["batch"])):
        path = os.path.join(a.lease, name)
        if not os.path.exists(path):
            continue
        for line in open(path):
            r = json.loads(line)
            if "latency_us" not in r or r.get("check", "PASS") != "PASS":
                continue
            system = {"rammerbase": "sequential", "rammer": "wavefront"}.get(r["system"], r["system"])
            lat[(r["model"], batch_of(r), system)] = r["latency_us"]["median"]
    cols = POLICIES + ["pytorch-eager"]
    print("%-16s %5s " % ("model", "batch") + " ".join("%12s" % c for c in cols) + " %10s %10s" % (
        "R/RB", "eager/R"))
    ratios = []
    for b in (1, 4, 16):
        for m in models:
            if (m, b, "wavefront") not in lat:
                continue
            cells = " ".join("%12s" % ("%.1f" % lat[(m, b, c)] if (m, b, c) in lat else "-") for c in cols)
            r, rb, e = lat.get((m, b, "wavefront")), lat.get((m, b, "sequential")), lat.get((m, b, "pytorch-eager"))
            print("%-16s %5d %s %10s %10s" % (m, b, cells, "%.2f" % (rb / r) if rb else "-",
                                              "%.2f" % (e / r) if e else "-"))
            if b == 1 and e:
                ratios.append(e / r)
    if ratios:
        print("batch 1: geometric mean of eager / Rammer over %d models: %.2f" % (
            len(ratios), math.exp(sum(math.log(x) for x in ratios) / len(ratios))))


if __name__ == "__main__":
    main()
