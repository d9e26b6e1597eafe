#!/usr/bin/env bash
# After a lease, here (no GPU): what lease_next.sh brought back, made into a
# committed lease folder, then the refits and tables from its rows (issue
# #43 item 4):
#   1. tests/data/gpu_traces/NAME/: record_lease.sh's folder (t/lease.tgz.NN),
#      with the rows of the other steps appended to its row files
#      (pytorch.jsonl, pytorch_nodes.jsonl, graph.jsonl, sanitizers.jsonl;
#      each row keeps its own provenance), the claim-shard runs as the
#      lease folder NAME/shards/ and the persistent-cell A/B as NAME/cells/
#   2. every row and folder loads with its provenance (check_gpu_provenance.py)
#   3. the rKernel families' efficiencies refitted (fit_efficiency.py) and
#      the cost model calibrated on the lease (rammer calibrate -o
#      build/NAME.calibration.json; copy it to resources/calibrations/ when
#      it is the better fit)
#   4. the tables and the goals the rows decide (doc_tables.py's
#      generators, which PERFORMANCE.md's blocks for the lease then name)
# Usage: tests/bench/gpu/after_lease.sh OUT NAME [--build DIR] [--into DIR] [--unpack-only]
#   OUT: the folder the device tool brought back; --build: default build/;
#   --into: where the lease folder goes (default tests/data/gpu_traces);
#   --unpack-only: step 1 alone (lease_dry_run.sh checks it).
set -euo pipefail
usage="usage: after_lease.sh OUT NAME [--build DIR] [--into DIR] [--unpack-only]"
[[ $# -ge 2 ]] || { echo "$usage" >&2; exit 2; }
out=$1 name=$2
shift 2
root=$(cd "$(dirname "$0")/../../.." && pwd)
build=$root/build
into=$root/tests/data/gpu_traces
unpack_only=no
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --into) into=$2; shift 2 ;;
    --unpack-only) unpack_only=yes; shift ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
g=$root/tests/bench/gpu
dest=$into/$name
[[ -e $dest ]] && { echo "$dest exists: move it away first" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ls "$out"/t/lease.tgz.* > /dev/null 2>&1 || { echo "$out/t/lease.tgz.* missing: the traces step did not run" >&2; exit 2; }
cat "$out"/t/lease.tgz.* | tar xz -C "$tmp"
mkdir -p "$into"
mv "$tmp/lease" "$dest"
for step in handoff nodes graph compile race shards cells; do
  [[ -f $out/$step.tgz ]] || { echo "$step: not brought back"; continue; }
  tar xzf "$out/$step.tgz" -C "$tmp"
  if [[ $step == handoff ]]; then  # the microbenchmark's table, traces and JSON as they are
    mv "$tmp/handoff" "$dest/handoff"
    continue
  fi
  if [[ $step == shards || $step == cells ]]; then  # lease folders of their own runs
    mv "$tmp/$step" "$dest/$step"
    rm -f "$dest/$step"/*.edits.json "$dest/$step"/gpu.lock
    continue
  fi
  for f in "$tmp/$step"/*.jsonl; do
    [[ -f $f ]] && cat "$f" >> "$dest/$(basename "$f")"
  done
done
# The recorder's provenance names the lease by date and card; the folder is NAME.
python3 - "$dest" "$name" <<'PY'
import glob, json, os, sys
dest, name = sys.argv[1], sys.argv[2]
for path in [os.path.join(dest, "provenance.json"), os.path.join(dest, "shards", "provenance.json"),
             os.path.join(dest, "cells", "provenance.json")]:
    if os.path.exists(path):
        p = json.load(open(path))
        p["lease"] = name
        json.dump(p, open(path, "w"), indent=1)
for path in glob.glob(os.path.join(dest, "*.jsonl")):
    if path.endswith("index.jsonl"):
        continue
    rows = [json.loads(l) for l in open(path) if l.strip()]
    for r in rows:
        if "provenance" in r:
            r["provenance"]["lease"] = name
    open(path, "w").write("".join(json.dumps(r) + "\n" for r in rows))
PY
echo "== $dest: $(ls "$dest"/runs | grep -c '\.run\.json') runs"
[[ $unpack_only == yes ]] && exit 0
python3 "$root/tests/docs/check_gpu_provenance.py" "$root" ||
  echo "== fix the provenance above (a note for each unknown) before committing $dest"

echo "== efficiencies"
python3 "$g/fit_efficiency.py" "$dest" --rammer "$build/bin/rammer" --samples "$build/samples" \
  --device "$root/resources/devices/h100.json" || true
echo "== calibration"
"$build/bin/rammer" calibrate "$dest" --models "$root/samples/models,$root/tests/data/transformers,$build/samples" \
  --fit sequential,wavefront,dynamic -o "$build/$name.calibration.json" | tail -n 20 || true

echo "== tables"
cd "$root"
python3 - "$dest" <<'PY'
import os, sys
sys.path.insert(0, "tests/bench/gpu")
import doc_tables
lease = os.path.relpath(sys.argv[1])
for spec in [f"runs {lease}", f"goals {lease}", f"e2e {lease}", f"dynamic {lease}", f"metrics {lease}",
             f"sanitizers {lease}", f"rkernels {lease}",
             f"dynamic {lease}/shards --baseline dynamicV4K1 --policy dynamicV4K132",
             f"dynamic {lease}/cells --baseline wavefrontReload --policy wavefront"]:
    print(f"<!-- table: {spec} -->")
    try:
        print("\n".join(doc_tables.generate(spec)))
    except Exception as e:  # a step the lease did not reach
        print(f"(not available: {e})")
    print("<!-- /table -->\n")
PY
