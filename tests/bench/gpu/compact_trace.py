#!/usr/bin/env python3
"""A measured Chrome trace (`rammer run --trace`) as columns, xz-compressed.

compact_trace.py TRACE.json[.gz] OUT.json.xz

The Chrome trace spends ~200 bytes of JSON per rTask; a lease records
millions. This keeps every rTask's op, rTask id, program, vEU, order, SM,
start and duration, and every program's launch span, in one JSON object
whose task fields are parallel arrays (those named in tasks.delta are
stored as differences from the previous element, so the runs of equal or
increasing values compress to almost nothing). Barrier waits are not kept:
they are the gaps between a vEU's rTasks around a barrier-rTask, which the
reader derives from the plan, as runtime::decodeTiming does. Times are
integer nanoseconds from the trace's origin.
"""
import gzip, json, lzma, sys
src, dst = sys.argv[1], sys.argv[2]
op = gzip.open if src.endswith('.gz') else open
with op(src, 'rt') as f:
    t = json.load(f)
ops, kern = {}, {}  # op index -> name, rKernel
cols = {k: [] for k in ("op", "rtask", "program", "veu", "order", "sm", "start_ns", "dur_ns")}
progs = []
for e in t["traceEvents"]:
    if e.get("ph") != "X": continue
    c = e.get("cat")
    if c == "rtask":
        a = e["args"]
        ops[a["op_index"]] = a["op"]
        kern[a["op_index"]] = a["kernel"]
        cols["op"].append(a["op_index"]); cols["rtask"].append(a["rtask"]); cols["program"].append(a["program"])
        cols["veu"].append(e["tid"] - 1); cols["order"].append(a["order"]); cols["sm"].append(a["sm"])
        cols["start_ns"].append(round(e["ts"] * 1000)); cols["dur_ns"].append(round(e["dur"] * 1000))
    elif c == "program":
        progs.append({"program": e["args"]["program"], "veus": e["args"]["veus"], "veus_per_sm": e["args"]["veus_per_sm"],
                      "start_ns": round(e["ts"] * 1000), "dur_ns": round(e["dur"] * 1000)})
# delta-encode start within the (program, veu) sorted order
def delta(v):
    out, prev = [], 0
    for x in v: out.append(x - prev); prev = x
    return out
cols["start_ns"] = delta(cols["start_ns"]); cols["order"] = delta(cols["order"]); cols["rtask"] = delta(cols["rtask"])
cols["veu"] = delta(cols["veu"]); cols["program"] = delta(cols["program"]); cols["sm"] = delta(cols["sm"]); cols["op"] = delta(cols["op"])
doc = {"format": "rammer-measured-trace", "version": 1, "other": t.get("otherData", {}), "ops": {str(k): v for k, v in sorted(ops.items())},
       "kernels": {str(k): v for k, v in sorted(kern.items())},
       "programs": progs, "tasks": {"delta": ["op", "rtask", "program", "veu", "order", "sm", "start_ns"], **cols}}
with lzma.open(dst, "wt", preset=9) as f:
    f.write("{" + ",\n".join(json.dumps(k) + ":" + json.dumps(v, separators=(",", ":")) for k, v in doc.items()) + "}\n")
