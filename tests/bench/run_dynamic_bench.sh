#!/usr/bin/env bash
# Static plan or in-kernel dynamic scheduling (issue #31 item 6): the
# predicted latency of the wavefront (Rammer) and dynamic plans of every
# sample model, with what each pays for its ordering: the wavefront's
# barriers and vEU-time waiting at them, the dynamic plan's ready-queue
# dispatches and their vEU-time. Prints the table for docs/PERFORMANCE.md.
# Predictions are the analytic cost model's on the H100 preset, not
# measurements; the generated code of a dynamic plan is not built yet, so
# the host target's times are not in the table.
#   BUILD_DIR   build folder (default: <repo>/build; configured if needed)
#   JOBS        ninja jobs (default 1)
#   SKIP_BUILD  1: use what BUILD_DIR already has
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-$root/build}

. "$root/tests/bench/bench_build.sh"
bench_prepare run_dynamic_bench.sh rammer sample_models
models=("$root"/samples/models/*.onnx "$build"/samples/*.onnx)
/usr/bin/python3 - "$build/bin/rammer" "${models[@]}" <<'PY'
import json, os, subprocess, sys
rammer, models = sys.argv[1], sys.argv[2:]
print("| model | wavefront us | barriers | barrier wait vEU-us | dynamic us | dispatches | dispatch vEU-us | SM eff. wavefront / dynamic | dynamic / wavefront |")
print("|---|---|---|---|---|---|---|---|---|")
for m in models:
    if not os.path.isfile(m):
        continue
    r = {}
    for policy in ("wavefront", "dynamic"):
        p = subprocess.run([rammer, "-q", "schedule", m, "--policy", policy, "--json"], capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"{m} ({policy}): {p.stderr.strip()}")
        r[policy] = json.loads(p.stdout)
    w, d = r["wavefront"], r["dynamic"]
    name = os.path.basename(m)[:-5] + (" (committed)" if "/samples/models/" in m else "")
    print(f"| {name} | {w['predicted_latency_us']:,.1f} | {w['barriers']:,} | {w['barrier_wait_veu_us']:,.0f} | "
          f"{d['predicted_latency_us']:,.1f} | {d['dispatches']:,.0f} | {d['dispatch_veu_us']:,.0f} | "
          f"{100 * w['sm_efficiency']:.1f}% / {100 * d['sm_efficiency']:.1f}% | "
          f"{d['predicted_latency_us'] / w['predicted_latency_us']:.2f}x |")
PY
