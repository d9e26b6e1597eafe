#!/usr/bin/env bash
# lease_next.sh end to end without a GPU (issue #43 item 4): the runtime
# tests' stand-in driver as libcuda.so.1 (its kernels do nothing, so every
# run's output check fails, which the rows must then say), NVRTC from the
# CUDA toolkit, Debian's CPU torch (whose CUDA steps fail, which their rows
# must say), small models only. Checks that every step ran and packed its
# folder, that the lease folder and every row load through lease_rows.py
# with their provenance, that the graph rows ran with --launch graph, and
# that after_lease.sh --unpack-only makes one lease folder of it all.
# Usage: tests/bench/gpu/lease_dry_run.sh [BUILD]   (BUILD: default build/)
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
fake=$build/lib/librammer_fake_cuda.so
[[ -f $fake && -x $build/bin/rammer ]] || { echo "build rammer and rammer_fake_cuda first ($build)" >&2; exit 2; }
tmp=$(mktemp -d)
[[ -n ${KEEP:-} ]] || trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lib" "$tmp/bin"
ln -s "$fake" "$tmp/lib/libcuda.so.1"
# The lease scripts run `python3`: the one with onnx and torch (Debian's).
ln -s "${RAMMER_SYSTEM_PYTHON:-/usr/bin/python3}" "$tmp/bin/python3"
export PATH=$tmp/bin:$build/bin:$PATH LD_LIBRARY_PATH=$tmp/lib:${LD_LIBRARY_PATH:-}
export RAMMER_FAKE_CUDA_SMS=132 RAMMER_FAKE_CUDA_NOOP_KERNELS=1 LEASE_MODELS=sample_cnn OUT=$tmp/out
"$root/tests/bench/gpu/lease_next.sh" 700 --lease 2026-01-01-dry > "$tmp/log.txt" 2>&1 || { cat "$tmp/log.txt"; exit 1; }

status=0
python3 - "$tmp/out" "$tmp/unpacked" "$root" <<'PY' || status=$?
import glob, json, os, subprocess, sys, tarfile
out, unpacked, root = sys.argv[1:]
sys.path.insert(0, os.path.join(root, "tests", "bench", "gpu"))
import lease_rows
failures = []
os.makedirs(unpacked)
parts = sorted(glob.glob(os.path.join(out, "t", "lease.tgz.*")))
if not parts:
    sys.exit("the traces step packed nothing")
with open(os.path.join(unpacked, "lease.tgz"), "wb") as f:
    for p in parts:
        f.write(open(p, "rb").read())
tarfile.open(os.path.join(unpacked, "lease.tgz")).extractall(unpacked)
lease = lease_rows.load_lease(os.path.join(unpacked, "lease"))
keys = lease.keys()
if "sample_cnn.dynamic" not in keys or "sample_cnn.wavefront" not in keys:
    failures.append(f"traces: expected sample_cnn's dynamic and wavefront runs, got {keys}")
for k in keys:
    if lease.run_check(k)[0] != "FAIL":
        failures.append(f"traces: {k} passed its check, but the stand-in's kernels do nothing")
for step, files in [("shards", []), ("cells", []), ("nodes", ["pytorch.jsonl"]), ("graph", ["graph.jsonl"]),
                    ("compile", ["pytorch.jsonl"])]:
    path = os.path.join(out, step + ".tgz")
    if not os.path.exists(path):
        failures.append(f"{step}: no {step}.tgz")
        continue
    tarfile.open(path).extractall(unpacked)
    folder = lease_rows.load_lease(os.path.join(unpacked, step))
    for name in files:
        rows = folder.rows(name)
        if not rows:
            failures.append(f"{step}: {name} has no rows")
        for r in rows:
            if r["check"] == "PASS":
                failures.append(f"{step}: {r['model']} {r['system']} passed without a GPU")
    if step == "cells" and folder.keys() != ["sample_cnn.wavefront", "sample_cnn.wavefrontReload"]:
        failures.append(f"cells: runs {sorted(folder.keys())}, expected sample_cnn's wavefront and wavefrontReload")
    if step == "cells":
        failures += [f"cells: {k} passed its check, but the stand-in's kernels do nothing"
                     for k in folder.keys() if folder.run_check(k)[0] != "FAIL"]
    if step == "shards" and len(folder.keys()) != 9:
        failures.append(f"shards: {len(folder.keys())} runs, expected 9 (3 vEU counts x 3 shard counts)")
    if step == "graph":
        launched = {r.get("launch") for r in folder.rows("graph.jsonl")}
        if launched != {"graph"}:
            failures.append(f"graph: the runs launched as {launched}, not as a graph")
# The hand-off step: its table has a row per policy, each saying the check failed.
path = os.path.join(out, "handoff.tgz")
if not os.path.exists(path):
    failures.append("handoff: no handoff.tgz")
else:
    tarfile.open(path).extractall(unpacked)
    table = open(os.path.join(unpacked, "handoff", "handoff.md")).read().splitlines()
    rows = [line for line in table if line.startswith("| cuda |")]
    if len(rows) != 2 or any("FAIL" not in r for r in rows):
        failures.append(f"handoff: expected a failed-check row for wavefront and dynamic, got {rows}")
# after_lease.sh makes one lease folder of it all.
r = subprocess.run([os.path.join(root, "tests", "bench", "gpu", "after_lease.sh"), out, "2026-01-01-dry", "--into",
                    os.path.join(unpacked, "traces"), "--unpack-only"], capture_output=True, text=True)
if r.returncode != 0:
    failures.append(f"after_lease.sh: exit {r.returncode}: {(r.stderr or r.stdout).strip()[-300:]}")
else:
    merged = lease_rows.load_lease(os.path.join(unpacked, "traces", "2026-01-01-dry"))
    if merged.keys() != keys:
        failures.append(f"after_lease.sh: runs {merged.keys()}, the traces step recorded {keys}")
    systems = {r["system"] for r in merged.rows("pytorch.jsonl")}
    if not {"pytorch-eager", "pytorch-max-autotune"} <= systems:
        failures.append(f"after_lease.sh: pytorch.jsonl holds {sorted(systems)}: not the nodes and compile steps' rows")
    if {r["system"] for r in merged.rows("graph.jsonl")} != {"rammerbase-graph", "rammer-graph"}:
        failures.append("after_lease.sh: graph.jsonl lacks RammerBase's or Rammer's graph row")
    if any(r["provenance"]["lease"] != "2026-01-01-dry" for r in merged.rows("graph.jsonl")):
        failures.append("after_lease.sh: a row still names another lease")
    if len(lease_rows.load_lease(os.path.join(merged.folder, "shards")).keys()) != 9:
        failures.append("after_lease.sh: shards/ lacks the claim-shard runs")
    if len(lease_rows.load_lease(os.path.join(merged.folder, "cells")).keys()) != 2:
        failures.append("after_lease.sh: cells/ lacks the persistent-cell runs")
for f in failures:
    print("FAIL:", f)
print(f"dry run: {len(keys)} traced runs, every step packed, every row with its provenance" if not failures else
      f"dry run: {len(failures)} problems")
sys.exit(1 if failures else 0)
PY
tail -n 3 "$tmp/log.txt"
exit $status
