#!/usr/bin/env bash
# Static plan or in-kernel dynamic scheduling (issue #31 item 6): the
# predicted latency of the wavefront (Rammer) and dynamic plans of every
# sample model, with what each pays for its ordering: the wavefront's
# barriers and vEU-time waiting at them, the dynamic plan's ready-queue
# dispatches and their vEU-time. Prints the table for docs/PERFORMANCE.md.
# Predictions are the analytic cost model's on the H100 preset, not
# measurements. With HOST=1 (the default) a second table: the generated
# program of both plans run on this machine's CPU (the host target, one
# worker per core, the mean of REPEAT runs after one warm-up), the outputs
# checked against the reference.
#   BUILD_DIR   build folder (default: <repo>/build; configured if needed)
#   HOST        0: the predictions only
#   REPEAT      timed host runs per plan (default 3)
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
[ "${HOST:-1}" = 1 ] || exit 0
echo
/usr/bin/python3 - "$build/bin/rammer" "${REPEAT:-3}" "${models[@]}" <<'PY'
import json, os, subprocess, sys, tempfile
rammer, repeat, models = sys.argv[1], sys.argv[2], sys.argv[3:]
work = tempfile.mkdtemp(prefix="rammer_dynamic_bench_")
print("| model | wavefront ms | dynamic ms | dynamic / wavefront | vEUs that ran rTasks: wavefront / dynamic |")
print("|---|---|---|---|---|")
done = set()
for m in models:
    name = os.path.basename(m)[:-5]
    if not os.path.isfile(m) or name in done:  # a committed model and its build copy: once
        continue
    done.add(name)
    r = {}
    for policy in ("wavefront", "dynamic"):
        trace = os.path.join(work, policy + ".json")
        p = subprocess.run([rammer, "-q", "run", m, "--random", "--batch", "1", "--backend", "host", "--policy", policy,
                            "--repeat", repeat, "--outputs", work, "--trace", trace, "--json"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"{m} ({policy}): {p.stderr.strip()}")
        r[policy] = json.loads(p.stdout)["host"]
        t = json.load(open(trace))
        events = t["traceEvents"] if isinstance(t, dict) else t
        r[policy]["lanes"] = len({(e["pid"], e["tid"]) for e in events if e.get("ph") == "X" and e.get("cat") == "rtask"})
    w, d = r["wavefront"], r["dynamic"]
    print(f"| {name} | {w['run_ms']:,.1f} | {d['run_ms']:,.1f} | {d['run_ms'] / w['run_ms']:.2f}x | {w['lanes']} / {d['lanes']} |")
PY
