#!/usr/bin/env python3
"""Every committed GPU measurement says where it comes from (issue #43 item
1): each row of docs/gpu_runs/*.jsonl and each lease folder of
tests/data/gpu_traces loads through tests/bench/gpu/lease_rows.py (provenance
with every field, a check and its rule), every run of a lease has its output
check, every row file of a lease loads, a row's or folder's `lease` is its
file's or folder's name, and a value left "unknown" comes with a `note` of
what is known instead. Reads provenance.json, the row files and the small
run.json files; no trace is decompressed. The numbers computed from a
lease on the CPU (docs/gpu_runs/derived/*.jsonl: predictions, fits) say
which commit computed them, with which command, from which lease."""
import glob
import os
import sys

root = sys.argv[1]
sys.path.insert(0, os.path.join(root, "tests", "bench", "gpu"))
import derived_tables  # noqa: E402
import lease_rows  # noqa: E402

failures = []


def check_honest(provenance, where):
    unknown = [k for k in lease_rows.PROVENANCE_FIELDS if provenance.get(k) == "unknown"]
    if unknown and not str(provenance.get("note", "")).strip():
        failures.append(f"{where}: {', '.join(unknown)} unknown without a note of what is known")


row_files = sorted(glob.glob(os.path.join(root, "docs", "gpu_runs", "*.jsonl")))
folders = sorted(d for d in glob.glob(os.path.join(root, "tests", "data", "gpu_traces", "*")) if os.path.isdir(d))
if not row_files or not folders:
    failures.append(f"found {len(row_files)} row files and {len(folders)} lease folders; expected both")
rows = runs = 0
for path in row_files:
    try:
        loaded = lease_rows.load_rows(path)
    except lease_rows.ProvenanceError as e:
        failures.append(str(e))
        continue
    stem = os.path.basename(path)[:-len(".jsonl")]
    for n, row in enumerate(loaded, 1):
        if row["provenance"]["lease"] != stem:
            failures.append(f"{path}: row {n} says lease {row['provenance']['lease']!r}, not {stem!r}")
        check_honest(row["provenance"], f"{path}: row {n}")
    rows += len(loaded)
# A lease's claim-shard runs sit in a lease folder of their own inside it.
for folder in list(folders):
    if os.path.isdir(os.path.join(folder, "shards")):
        folders.append(os.path.join(folder, "shards"))
for folder in folders:
    try:
        lease = lease_rows.load_lease(folder)
        expected = os.path.basename(os.path.dirname(folder)) if lease.name == "shards" else lease.name
        if lease.provenance["lease"] != expected:
            failures.append(f"{folder}/provenance.json: lease {lease.provenance['lease']!r}, not {expected!r}")
        check_honest(lease.provenance, f"{folder}/provenance.json")
        for key in lease.keys():
            lease.run_check(key)
            runs += 1
        for path in sorted(glob.glob(os.path.join(folder, "*.jsonl"))):
            name = os.path.basename(path)
            if name == "index.jsonl":  # record_lease.sh's task log, not measurements
                continue
            for n, row in enumerate(lease.rows(name), 1):
                check_honest(row["provenance"], f"{path}: row {n}")
                rows += 1
    except lease_rows.ProvenanceError as e:
        failures.append(str(e))

lease_names = {os.path.basename(f) for f in folders} | {os.path.basename(p)[:-len(".jsonl")] for p in row_files}
for path in sorted(glob.glob(os.path.join(root, "docs", "gpu_runs", "derived", "*.jsonl"))):
    try:
        for n, row in enumerate(derived_tables.load_derived(path), 1):
            if row["provenance"]["lease"] not in lease_names:
                failures.append(f"{path}: row {n} is computed from lease {row['provenance']['lease']!r}, "
                                "which is not committed")
            rows += 1
    except lease_rows.ProvenanceError as e:
        failures.append(str(e))

for f in failures:
    print("FAIL:", f)
print(f"{rows} rows, {len(folders)} lease folders, {runs} runs: "
      + ("every one with its provenance and check" if not failures else f"{len(failures)} problems"))
sys.exit(1 if failures else 0)
