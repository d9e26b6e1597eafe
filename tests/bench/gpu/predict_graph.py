#!/usr/bin/env python3
"""A prediction of RammerBase launched as one CUDA graph (issue #43 item 3)
from a lease that ran it as a stream of launches, until a lease measures it:
per paper model, the sequential run's median less what a graph would save
at each of its launches, at a low and a high saving per launch. Prints
docs/gpu_runs/derived rows (derived_tables.py reads them).

predict_graph.py LEASE_DIR --saved-us LOW,HIGH --basis TEXT --commit C > docs/gpu_runs/derived/LEASE.graph.jsonl

A graph replays the launches without the host issuing each one; what it
saves at a launch is between the host's issue cost and the whole measured
gap between one kernel's last rTask and the next one's first, less a
graph's own kernel-to-kernel gap: --basis says which figures were used.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lease_rows  # noqa: E402

MODELS = "alexnet resnext29_cifar nasnet_cifar deepspeech2 lstm_tc seq2seq"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lease")
    ap.add_argument("--saved-us", required=True, help="LOW,HIGH microseconds saved per launch")
    ap.add_argument("--basis", required=True)
    ap.add_argument("--commit", required=True)
    ap.add_argument("--models", default=MODELS)
    a = ap.parse_args()
    low, high = (float(x) for x in a.saved_us.split(","))
    lease = lease_rows.load_lease(a.lease)
    provenance = {"lease": lease.name, "commit": a.commit,
                  "command": f"python3 tests/bench/gpu/predict_graph.py {a.lease} --saved-us {a.saved_us} "
                             f"--basis ... --commit {a.commit}",
                  "model": f"the sequential run's median less its launches x {low:g} to {high:g} us ({a.basis})",
                  "source": "computed from the lease's sequential runs by this command"}
    for m in a.models.split():
        key = m + ".sequential"
        run = lease.run(key)
        if run is None or lease.run_check(key)[0] != "PASS":
            continue
        median, launches = run["latency_us"]["median"], run["programs"]
        print(json.dumps({"model": m, "launches": launches, "stream_us": median,
                          "graph_high_us": round(median - launches * low, 1),
                          "graph_low_us": round(max(median - launches * high, 0.0), 1),
                          "provenance": provenance}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
