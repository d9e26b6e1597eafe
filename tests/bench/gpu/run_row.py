#!/usr/bin/env python3
"""One `rammer run --backend cuda --json` result as a lease row (issue #43
items 1 and 3): what a lease script appends to a row file such as
graph.jsonl, with the run's output check as the row's check and the
lease's provenance.

  run_row.py RUN.json --model M --system S --provenance FILE [--step NAME] >> ROWS.jsonl

A run that printed no JSON (a refused plan, a crash, a timeout) becomes an
ERROR row naming --error-file's last line, so a table shows what happened
instead of a gap.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lease_rows import NEW_RUN_RULE  # noqa: E402  (the rule lease_rows gives a run.json's check)


def row(run, model, system, provenance):
    out = {"model": model, "system": system, "provenance": provenance}
    check = run.get("output_check") or {}
    out.update(policy=run.get("policy"), launch=run.get("launch", "stream"), device=run.get("device"),
               programs=run.get("programs"), latency_us=run.get("latency_us"),
               max_registers=run.get("max_registers"), source_fnv1a64=run.get("source_fnv1a64"),
               max_rel_error=check.get("max_rel_error"))
    out["check"] = "PASS" if check.get("pass") is True else "FAIL"
    out["check_rule"] = NEW_RUN_RULE.format(rule=check.get("rule", "rammer run's output check"))
    return {k: v for k, v in out.items() if v is not None}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run")
    ap.add_argument("--model", required=True)
    ap.add_argument("--system", required=True)
    ap.add_argument("--provenance", required=True)
    ap.add_argument("--step")
    ap.add_argument("--error-file")
    a = ap.parse_args()
    with open(a.provenance) as f:
        provenance = json.load(f)
    if a.step:
        provenance["command"] += f" (its step {a.step})"
    try:
        with open(a.run) as f:
            run = json.load(f)
    except (OSError, ValueError):
        why = "no JSON from rammer run"
        if a.error_file:
            try:
                lines = [l.strip() for l in open(a.error_file) if l.strip()]
                why = lines[-1][:240] if lines else why
            except OSError:
                pass
        r = {"model": a.model, "system": a.system, "provenance": provenance, "check": "ERROR", "error": why,
             "check_rule": "the run did not finish with a result (the error says why)"}
        print(json.dumps(r))
        return 0
    print(json.dumps(row(run, a.model, a.system, provenance)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
