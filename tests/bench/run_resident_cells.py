#!/usr/bin/env python3
"""Persistent cells, predicted (issue #45 item 3): per sequence model and
static policy, the plan with recurrent cells that keep their weight slices
in shared memory (pinned to one vEU for every step: core/schedule/
resident_pins.h) against the same policy's plan reloading them every step
(--reload-weights), and which one the Schedule stage keeps
(core/pipeline/resident_choice.h), under the analytic model and the
calibrated one (resources/calibrations/h100.json, fitted on the committed
H100 leases). Prints a markdown table; no GPU.

  run_resident_cells.py [--rammer build/bin/rammer] [--models a,b] [--policies p,q] [--samples build/samples]
"""
import argparse
import os

from schedule_json import COST_MODELS, ROOT, schedule


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rammer", default=os.path.join(ROOT, "build/bin/rammer"))
    ap.add_argument("--samples", default=os.path.join(ROOT, "build/samples"))
    ap.add_argument("--models", default="lstm_tc,seq2seq,deepspeech2")
    ap.add_argument("--policies", default="wavefront,greedy,ios,graphturbo")
    a = ap.parse_args()
    print("| model | policy | cost model | reloading us | resident us | cells resident | kept | kept / reloading |")
    print("|---|---|---|---:|---:|---:|---|---:|")
    for m in a.models.split(","):
        model = os.path.join(a.samples, m + ".onnx")
        for p in a.policies.split(","):
            for kind, extra in COST_MODELS:
                reloading = schedule(a.rammer, model, p, "--reload-weights", *extra)["predicted_latency_us"]
                chosen = schedule(a.rammer, model, p, *extra)
                r = chosen["resident_cells"]
                kept_us = chosen["predicted_latency_us"]
                if r is None:
                    print(f"| {m} | {p} | {kind} | {reloading:,.1f} | - | 0 | reloading | {kept_us / reloading:.2f}x |")
                    continue
                kept = "resident" if r["resident"] else "reloading"
                print(f"| {m} | {p} | {kind} | {reloading:,.1f} | {r['resident_us']:,.1f} | {r['cells']} | {kept} | "
                      f"{kept_us / reloading:.2f}x |")


if __name__ == "__main__":
    main()
