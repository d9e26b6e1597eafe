#!/usr/bin/env python3
"""No plan the policies produce spills (issue #45 item 5).

For one model, `rammer schedule --compile` under each policy: the plan is
compiled with NVRTC (sm_90, no GPU needed) and fitted to its registers
(core/pipeline/register_fit.h); every program it reports must spill
nothing, in its own frame and in its rKernel functions, and keep its vEUs
co-resident. Exit 77 (skipped) without NVRTC.
"""
import argparse
import json
import subprocess
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rammer", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--policies", default="sequential,wavefront,greedy,ios,graphturbo,dynamic")
    a = ap.parse_args()
    failures = []
    for policy in a.policies.split(","):
        start = time.monotonic()
        p = subprocess.run([a.rammer, "-q", "schedule", a.model, "--policy", policy, "--compile", "--json"],
                           capture_output=True, text=True)
        if p.returncode != 0 and "needs NVRTC" in p.stderr:
            print("skipped: " + p.stderr.strip())
            sys.exit(77)
        if p.returncode != 0:
            failures.append(f"{policy}: exit {p.returncode}: {p.stderr.strip()[:400]}")
            continue
        j = json.loads(p.stdout)
        fit = j.get("register_fit")
        if fit is None:
            failures.append(f"{policy}: --compile did not fit the registers (register_fit is null)")
            continue
        programs = j["compiled"]["programs"]
        for cp in programs:
            prog = j["programs"][cp["program"]]
            if cp["spill_bytes"] != 0:
                where = ", ".join(f"{f['function']} {f['spill_bytes']} B" for f in cp["spilling_functions"])
                failures.append(f"{policy}: program {cp['program']} ({cp['kernel']}, {cp['registers']} registers) "
                                f"spills {cp['spill_bytes']} B ({where or 'in the kernel'})")
            if cp["persistent"] and cp["co_resident"] < cp["grid_blocks"]:
                failures.append(f"{policy}: program {cp['program']} launches {cp['grid_blocks']} of its "
                                f"{prog['veus']} vEUs, the compiled kernel keeps {cp['co_resident']} resident")
        if fit["spill_bytes"] != 0 and not any(f.startswith(policy + ":") for f in failures):
            failures.append(f"{policy}: register_fit says {fit['spill_bytes']} B still spill")
        print(f"{policy}: {len(programs)} program(s), at most {max(c['registers'] for c in programs)} registers, "
              f"{fit['replans']} re-plan(s), {fit['cuts']} cut(s), {fit['raised']} rKernel(s) raised, "
              f"predicted {j['predicted_latency_us']:.1f} us, {time.monotonic() - start:.1f} s")
    if failures:
        print("FAIL: " + a.model)
        for f in failures:
            print("  " + f)
        sys.exit(1)
    print("ok: nothing spills")


if __name__ == "__main__":
    main()
