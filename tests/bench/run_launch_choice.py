#!/usr/bin/env python3
"""Rammer against RammerBase, predicted (issue #45 item 5): per model, the
sequential policy's plan (RammerBase: a launch per operator), the wavefront
policy's plan kept persistent (--keep-persistent), and the plan the
Schedule stage chooses (programs predicted slower than their operators as
launches planned as launches: core/pipeline/launch_choice.h), under the
analytic model and the calibrated one (resources/calibrations/h100.json,
fitted on the committed H100 leases). Prints a markdown table; no GPU.

  run_launch_choice.py [--rammer build/bin/rammer] [--models a,b] [--samples build/samples]
"""
import argparse
import os

from schedule_json import COST_MODELS, ROOT, schedule


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rammer", default=os.path.join(ROOT, "build/bin/rammer"))
    ap.add_argument("--samples", default=os.path.join(ROOT, "build/samples"))
    ap.add_argument("--models", default="alexnet,resnext29_cifar,nasnet_cifar,deepspeech2,lstm_tc,seq2seq")
    a = ap.parse_args()
    print("| model | cost model | RammerBase us | wavefront, persistent us | wavefront, chosen us | "
          "programs as launches | chosen / RammerBase |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for m in a.models.split(","):
        model = os.path.join(a.samples, m + ".onnx")
        for kind, extra in COST_MODELS:
            base = schedule(a.rammer, model, "sequential", *extra)["predicted_latency_us"]
            kept = schedule(a.rammer, model, "wavefront", "--keep-persistent", *extra)
            chosen = schedule(a.rammer, model, "wavefront", *extra)
            replaced = len(chosen["launches"]["replaced"]) if chosen["launches"] else 0
            us = chosen["predicted_latency_us"]
            print(f"| {m} | {kind} | {base:,.1f} | {kept['predicted_latency_us']:,.1f} | {us:,.1f} | "
                  f"{replaced} of {len(kept['programs'])} | {us / base:.2f}x |")


if __name__ == "__main__":
    main()
