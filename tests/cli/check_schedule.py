#!/usr/bin/python3
"""End-to-end checks of `rammer schedule` (one ctest per --case).

Device facts (SMs, launch overhead) are read here from the preset JSON in
resources/devices, not from the program; the checks are relations any
correct plan and prediction must satisfy.
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys

POLICIES = ["sequential", "wavefront", "greedy", "ios", "graphturbo"]
# And the one that places rTasks at run time (a ready queue, issue #31).
ALL_POLICIES = POLICIES + ["dynamic"]
KEYS = ["predicted_latency_us", "sm_efficiency", "veus", "programs", "kernels", "dram_bytes", "critical_path"]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(args, expect_rc=0):
    p = subprocess.run(args, capture_output=True, text=True, timeout=600)
    if expect_rc is not None and p.returncode != expect_rc:
        fail(f"{' '.join(args)}\n  exit {p.returncode}, expected {expect_rc}\n  stdout: {p.stdout[:2000]}\n"
             f"  stderr: {p.stderr[:2000]}")
    return p


def fresh_dir(path):
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def schedule_json(a, model, policy, *extra):
    p = run([a.rammer, "-q", "schedule", model, "--policy", policy, "--json"] + list(extra))
    try:
        return json.loads(p.stdout)
    except json.JSONDecodeError as e:
        fail(f"schedule --json printed invalid JSON ({e}): {p.stdout[:500]}")


def check_plan_json(j, policy, dev):
    where = f"{j.get('model')} --policy {policy}"
    for k in KEYS:
        if k not in j:
            fail(f"{where}: key {k!r} missing from {sorted(j)}")
    if j["policy"] != policy or j["device"] != "h100":
        fail(f"{where}: policy/device {j['policy']}/{j['device']}")
    lat, eff = j["predicted_latency_us"], j["sm_efficiency"]
    launch, sms = dev["launch_overhead_us"], dev["sms"]
    progs, kernels = j["programs"], j["kernels"]
    if not progs:
        fail(f"{where}: no programs")
    # Every program pays one launch before its rTasks start.
    if not (math.isfinite(lat) and lat >= len(progs) * launch):
        fail(f"{where}: predicted latency {lat} < {len(progs)} launches x {launch} us")
    if not 0 < eff <= 1:
        fail(f"{where}: SM efficiency {eff} not in (0, 1]")
    # Programs run back to back; each has veus_per_sm vEUs on every SM.
    t = 0.0
    for p in progs:
        if abs(p["start_us"] - t) > 1e-6 or p["end_us"] < p["start_us"] + launch - 1e-9:
            fail(f"{where}: program {p['index']} runs [{p['start_us']}, {p['end_us']}] after {t}")
        if not 1 <= p["veus_per_sm"] <= dev["max_blocks_per_sm"] or p["veus"] != p["veus_per_sm"] * sms:
            fail(f"{where}: program {p['index']}: {p['veus']} vEUs at {p['veus_per_sm']}/SM on {sms} SMs")
        if not p["cut_reason"]:
            fail(f"{where}: program {p['index']} has no cut reason")
        t = p["end_us"]
    if abs(t - lat) > 1e-6:
        fail(f"{where}: last program ends at {t}, predicted latency {lat}")
    # The critical path ends with the last rTask, and its four parts add up.
    cp = j["critical_path"]
    parts = cp["compute_us"] + cp["handoff_us"] + cp["queueing_us"] + cp["launch_us"]
    if not (0 < cp["length_us"] <= lat + 1e-6 and abs(parts - cp["length_us"]) < 1e-6 * max(1, lat)):
        fail(f"{where}: critical path {cp} against latency {lat}")
    if not 1 <= cp["operators"] <= cp["rtasks"] or cp["handoffs"] >= cp["rtasks"] or cp["queued"] > cp["rtasks"]:
        fail(f"{where}: critical path counts {cp}")
    # The hand-off quantiles lie among the hand-offs: none above their sum, the median not above the p99.
    med, p99, top = cp["handoff_median_us"], cp["handoff_p99_us"], cp["handoff_max_us"]
    if not 0 <= med <= p99 <= top <= cp["handoff_us"] + 1e-9 or (cp["handoffs"] == 0 and top != 0):
        fail(f"{where}: hand-off median {med} / p99 {p99} against {cp['handoffs']} hand-offs of {cp['handoff_us']} us")
    if j["veus"] != max(p["veus"] for p in progs) or j["veus_per_sm"] != max(p["veus_per_sm"] for p in progs):
        fail(f"{where}: veus {j['veus']} / {j['veus_per_sm']} are not the programs' maxima")
    # rTasks: the programs run exactly the kernels' rTasks.
    real = [k for k in kernels if not k["view"]]
    n = sum(k["rtasks"] for k in real)
    if n != j["rtasks"] or n != sum(p["rtasks"] for p in progs):
        fail(f"{where}: rTasks: kernels {n}, total {j['rtasks']}, programs {sum(p['rtasks'] for p in progs)}")
    for k in real:
        if not k["kernel"] or k["rtasks"] < 1 or not 1 <= k["threads"] <= 1024 or not 0 <= k["program"] < len(progs):
            fail(f"{where}: bad kernel entry {k}")
        if k["rule"] not in ("fastest", "most efficient", "pinned"):
            fail(f"{where}: unexpected rule {k['rule']!r} for {k['op']}")
    for k in kernels:
        if k["view"] and k["kernel"] is not None:
            fail(f"{where}: view {k['op']} has an rKernel")
    # DRAM traffic: the chosen rKernels' bytes less their L2 re-reads (views
    # move none). Policies may choose different rKernels, so no relation
    # across them.
    dram = j["dram_bytes"]
    if isinstance(dram, bool) or not isinstance(dram, (int, float)) or not dram > 0:
        fail(f"{where}: dram_bytes {dram!r} is not a positive number")
    for k in real:
        if not 0 <= k["l2_bytes"] <= k["bytes"]:
            fail(f"{where}: {k['op']}: l2_bytes {k['l2_bytes']} outside [0, bytes {k['bytes']}]")
    want = sum(k["bytes"] - k["l2_bytes"] for k in real)
    if not math.isclose(dram, want, rel_tol=1e-9):
        fail(f"{where}: dram_bytes {dram} != the kernels' bytes less their L2 re-reads {want}")
    if policy == "sequential":
        # RammerBase: one program per operator, in order, no barriers.
        if len(progs) != len(real) or [k["program"] for k in real] != list(range(len(real))):
            fail(f"{where}: {len(progs)} programs for {len(real)} operators")
        if j["barriers"] != 0:
            fail(f"{where}: {j['barriers']} barriers in a sequential plan")


def case_json(a):
    dev = json.load(open(a.device_json))
    for policy in POLICIES:
        check_plan_json(schedule_json(a, a.model, policy), policy, dev)
    # `simulate` is the same command.
    p = run([a.rammer, "-q", "simulate", a.model, "--json"])
    j = json.loads(p.stdout)
    if j["policy"] != "wavefront" or "predicted_latency_us" not in j:
        fail(f"simulate: {sorted(j)}")


def case_trace(a):
    dev = json.load(open(a.device_json))
    sms = dev["sms"]
    work = fresh_dir(a.work)
    for policy in POLICIES:
        out = os.path.join(work, policy + ".json")
        j = schedule_json(a, a.model, policy, "--trace", out)
        if j.get("trace") != out:
            fail(f"{policy}: JSON does not name the trace file")
        with open(out) as f:
            doc = json.load(f)
        events = doc["traceEvents"]
        names = {}
        for e in events:
            if e["ph"] == "M" and e["name"] == "thread_name":
                if e["tid"] in names:
                    fail(f"{policy}: tid {e['tid']} named twice")
                names[e["tid"]] = e["args"]["name"]
        # One tid per vEU: tid v + 1 is "vEU v (SM v % SMs)"; tid 0 the programs.
        want = {v + 1: f"vEU {v} (SM {v % sms})" for v in range(j["veus"])}
        want[0] = "rPrograms"
        if names != want:
            extra = sorted(set(names) ^ set(want))[:5]
            fail(f"{policy}: thread names differ from one per vEU (e.g. tids {extra})")
        if not any(e["ph"] == "M" and e["name"] == "process_name" for e in events):
            fail(f"{policy}: no process_name")
        tasks = [e for e in events if e["ph"] == "X" and e.get("cat") == "rtask"]
        barriers = [e for e in events if e["ph"] == "X" and e.get("cat") == "barrier"]
        programs = [e for e in events if e["ph"] == "X" and e.get("cat") == "program"]
        if len(tasks) != j["rtasks"] or len(barriers) != j["barriers"] or len(programs) != len(j["programs"]):
            fail(f"{policy}: {len(tasks)} rTask / {len(barriers)} barrier / {len(programs)} program events for "
                 f"{j['rtasks']} / {j['barriers']} / {len(j['programs'])}")
        kernel_of = {k["op"]: k["kernel"] for k in j["kernels"]}
        lanes = {}
        for e in tasks + barriers:
            if e["tid"] not in want or e["tid"] == 0:
                fail(f"{policy}: event on tid {e['tid']}, not a vEU lane")
            if e["ts"] < 0 or e["dur"] < 0:
                fail(f"{policy}: negative time in {e}")
            lanes.setdefault(e["tid"], []).append((e["ts"], e["dur"]))
        for e in tasks:
            args = e["args"]
            if args["op"] != e["name"] or kernel_of.get(args["op"]) != args["kernel"] or args["rtask"] < 0:
                fail(f"{policy}: rTask event {e} does not match the plan's rKernels")
            i = args["op_index"]
            if not 0 <= i < len(j["kernels"]) or j["kernels"][i]["op"] != args["op"]:
                fail(f"{policy}: rTask event {e}: op_index {i} is not the plan's op {args['op']!r}")
        # A vEU runs one thing at a time (times are printed to the ns).
        for tid, spans in lanes.items():
            spans.sort()
            for (t0, d0), (t1, _) in zip(spans, spans[1:]):
                if t0 + d0 > t1 + 2e-3:
                    fail(f"{policy}: overlapping events on tid {tid} at {t0} and {t1}")
        end = max(e["ts"] + e["dur"] for e in tasks)
        # The last rTask ends the last program.
        if abs(end - j["predicted_latency_us"]) > 2e-3:
            fail(f"{policy}: last rTask ends at {end}, predicted latency {j['predicted_latency_us']}")


def expect_error(a, args, text, rc=1):
    p = run([a.rammer, "-q"] + args, expect_rc=rc)
    if text not in p.stderr:
        fail(f"{' '.join(args)}: stderr lacks {text!r}:\n{p.stderr}")


def write_edits(path, edits):
    with open(path, "w") as f:
        json.dump({"version": 1, "edits": edits}, f)
    return path


def case_edits(a):
    work = fresh_dir(a.work)
    # An edit the policies apply: a pinned rKernel (the other candidate of 'stem').
    pin = write_edits(os.path.join(work, "pin.json"),
                      [{"op": "pin_kernel", "node": "stem", "kernel": "conv_igemm_32x32"}])
    for policy in POLICIES:
        j = schedule_json(a, a.model, policy, "--schedule", pin)
        stem = [k for k in j["kernels"] if k["op"] == "stem"]
        if len(stem) != 1 or stem[0]["kernel"] != "conv_igemm_32x32" or stem[0]["rule"] != "pinned":
            fail(f"{policy}: the pinned rKernel was not applied: {stem}")
    # Edits that would break the plan are refused, naming the problem.
    far = write_edits(os.path.join(work, "far.json"), [{"op": "move", "node": "stem", "rtask": 0, "veu": 100000}])
    early = write_edits(os.path.join(work, "early.json"),
                        [{"op": "move", "node": "pool1", "rtask": 0, "veu": 0, "order": 0},
                         {"op": "move", "node": "stem", "rtask": 0, "veu": 0, "order": 1}])
    ghost = write_edits(os.path.join(work, "ghost.json"), [{"op": "move", "node": "nosuch", "veu": 1}])
    alien = write_edits(os.path.join(work, "alien.json"),
                        [{"op": "pin_kernel", "node": "stem", "kernel": "gemm_9x9"}])
    for policy in POLICIES:
        expect_error(a, ["schedule", a.model, "--policy", policy, "--schedule", far],
                     "pin of stem[0] to vEU 100000: its program has only")
        expect_error(a, ["schedule", a.model, "--policy", policy, "--schedule", ghost], "unknown node 'nosuch'")
        expect_error(a, ["schedule", a.model, "--policy", policy, "--schedule", alien],
                     "pinned rKernel 'gemm_9x9' is not a candidate for 'stem'")
    # pool1[0] pinned ahead of its producer stem[0] on the same vEU.
    for policy in ["wavefront", "greedy"]:
        expect_error(a, ["schedule", a.model, "--policy", policy, "--schedule", early],
                     "would run before their producers on the same vEU")


def case_errors(a):
    work = fresh_dir(a.work)
    expect_error(a, ["schedule", a.model, "--policy", "fastest"], "unknown policy 'fastest'; policies: sequential")
    expect_error(a, ["schedule", a.model, "--device", "tpu9"], "unknown device 'tpu9'")
    expect_error(a, ["schedule", os.path.join(work, "missing.onnx")], "not found")
    expect_error(a, ["schedule", a.model, "--trace", os.path.join(work, "no", "dir", "t.json")],
                 "cannot write the trace file")
    expect_error(a, ["schedule", a.model, "--schedule", os.path.join(work, "none.json")], "not found")
    expect_error(a, ["schedule"], "MODEL", rc=2)


def write_db(path, device, entries=()):
    with open(path, "w") as f:
        json.dump({"format": "rammer-profile-db", "version": 1, "device": device, "gpu": "test",
                   "entries": list(entries)}, f)
    return path


def case_profile_db(a):
    work = fresh_dir(a.work)
    analytic = schedule_json(a, a.model, "wavefront")
    # An empty database: every rKernel falls back to the analytic model, so
    # the prediction is the analytic one, under the combined model's name.
    empty = write_db(os.path.join(work, "empty.json"), "h100")
    j = schedule_json(a, a.model, "wavefront", "--profile-db", empty)
    if not j["cost_model"].startswith("profile database (h100, 0 rKernels)"):
        fail(f"cost_model does not name the database: {j['cost_model']!r}")
    if abs(j["predicted_latency_us"] - analytic["predicted_latency_us"]) > 1e-9:
        fail(f"an empty database changed the prediction: {j['predicted_latency_us']} vs {analytic['predicted_latency_us']}")
    other = write_db(os.path.join(work, "a100.json"), "a100")
    expect_error(a, ["schedule", a.model, "--profile-db", other], "holds measurements for device 'a100', not 'h100'")
    bad = os.path.join(work, "bad.json")
    with open(bad, "w") as f:
        f.write("{\"format\": \"something else\"}")
    expect_error(a, ["schedule", a.model, "--profile-db", bad], "bad.json")
    expect_error(a, ["schedule", a.model, "--profile-db", os.path.join(work, "none.json")],
                 "profile database not found")


def case_text(a):
    p = run([a.rammer, "-q", "schedule", a.model, "--policy", "sequential", "--decisions", "--max-rows", "0"])
    for text in ["programs", "rKernels", "vEUs/SM", "predicted ", "SM efficiency", "a prediction, not a measurement",
                 "decisions", "RammerBase: one program per operator", "fastest", "B of DRAM traffic",
                 "critical ", "queueing"]:
        if text not in p.stdout:
            fail(f"text output lacks {text!r}:\n{p.stdout}")
    if "more (--max-rows 0 lists all)" in p.stdout:
        fail("--max-rows 0 still cut a table")
    p = run([a.rammer, "-q", "schedule", a.model, "--max-rows", "2"])
    if "more (--max-rows 0 lists all)" not in p.stdout:
        fail(f"--max-rows 2 did not cut the rKernel table:\n{p.stdout}")


def case_redundant(a):
    # seq2seq's greedy plan waits again for rTasks it already knows through
    # other barriers (an rProgram tracks only the waits it emitted itself).
    plain = schedule_json(a, a.model, "greedy")
    if "redundant_barriers" in plain:
        fail("redundant_barriers present without --redundant-barriers")
    j = schedule_json(a, a.model, "greedy", "--redundant-barriers")
    found = j["redundant_barriers"]
    if not found:
        fail("no redundant barrier found in seq2seq's greedy plan")
    if len(found) > j["barriers"]:
        fail(f"{len(found)} redundant of {j['barriers']} barriers")
    seen = set()
    for r in found:
        where = (r["program"], r["veu"], r["order"])
        if where in seen:
            fail(f"barrier {where} listed twice")
        seen.add(where)
        if not (0 <= r["program"] < len(j["programs"]) and 0 <= r["veu"] < j["programs"][r["program"]]["veus"]
                and r["order"] >= 0 and r["guards"]):
            fail(f"bad entry {r}")
    p = run([a.rammer, "-q", "schedule", a.model, "--policy", "greedy", "--redundant-barriers", "--max-rows", "2"])
    line = f"redundant  {len(found)} of {j['barriers']} barriers"
    if line not in p.stdout or "more (--max-rows 0 lists all)" not in p.stdout:
        fail(f"text output lacks {line!r} or the cut list:\n{p.stdout[-2000:]}")


def case_ios(a):
    # Inception's three 1x1 convolutions on the block input: merged by
    # --ios-variant merge into one Conv and a Split, explained per stage.
    dev = json.load(open(a.device_json))
    for variant in ["parallel", "merge", "both"]:
        check_plan_json(schedule_json(a, a.model, "ios", "--ios-variant", variant), "ios", dev)
    p = run([a.rammer, "-q", "schedule", a.model, "--policy", "ios", "--ios-variant", "merge", "--decisions",
             "--max-rows", "0"])
    for text in ["ios (merge, r=3, s=8, programs: one): ", "(1 merged); DP ",
                 ": merge branch1x1.conv + branch5x5_1.conv + branch3x3dbl_1.conv (one Conv and a Split): ",
                 "branch1x1.conv+branch5x5_1.conv+branch3x3dbl_1.conv.split", "the best other last stage gives"]:
        if text not in p.stdout:
            fail(f"--decisions lacks {text!r}:\n{p.stdout[-3000:]}")
    sequential = schedule_json(a, a.model, "sequential")["predicted_latency_us"]
    for variant in ["parallel", "merge", "both"]:
        ios = schedule_json(a, a.model, "ios", "--ios-variant", variant)["predicted_latency_us"]
        if ios > sequential:
            fail(f"IOS ({variant}) predicted {ios} us, above the sequential policy's {sequential} us")
    expect_error(a, ["schedule", a.model, "--policy", "ios", "--ios-variant", "sideways"],
                 "unknown IOS variant 'sideways'; variants: parallel, merge, both")
    expect_error(a, ["schedule", a.model, "--policy", "ios", "--ios-programs", "two"],
                 "unknown IOS program layout 'two'")


def case_graphturbo(a):
    # The block's convolutions and their ReLUs become fused groups; the plan
    # moves no more DRAM bytes than the sequential one, and says why each
    # group stopped growing.
    dev = json.load(open(a.device_json))
    orders = {}
    for order in ["auto", "bfs", "dfs"]:
        j = schedule_json(a, a.model, "graphturbo", "--gt-order", order)
        check_plan_json(j, "graphturbo", dev)
        groups = [k for k in j["kernels"] if k["type"] == "FusedGroup"]
        if not groups or any(k["family"] != "fused_group" for k in groups):
            fail(f"--gt-order {order}: no fused groups in {[k['type'] for k in j['kernels']]}")
        orders[order] = j["predicted_latency_us"]
    sequential = schedule_json(a, a.model, "sequential")["dram_bytes"]
    grouped = schedule_json(a, a.model, "graphturbo")["dram_bytes"]
    if grouped > sequential:
        fail(f"GraphTurbo's DRAM traffic {grouped} above the sequential plan's {sequential}")
    p = run([a.rammer, "-q", "schedule", a.model, "--policy", "graphturbo", "--decisions", "--max-rows", "0"])
    for text in ["graphturbo (budget 56 KB per instance, order ", "(auto: bfs ", "group '", "; stopped: ",
                 "stays alone: fused groups do not implement Concat"]:
        if text not in p.stdout:
            fail(f"--decisions lacks {text!r}:\n{p.stdout[-3000:]}")
    p = run([a.rammer, "-q", "schedule", a.model, "--policy", "graphturbo", "--gt-budget", "1", "--decisions"])
    if "graphturbo (budget 1 KB per instance" not in p.stdout:
        fail(f"--gt-budget 1 not applied:\n{p.stdout[-2000:]}")
    expect_error(a, ["schedule", a.model, "--policy", "graphturbo", "--gt-order", "sideways"],
                 "--gt-order: sideways not in {auto,bfs,dfs}", rc=2)


def case_attention(a):
    # A transformer: by default (auto) both plans are predicted and the
    # faster kept; on and off force one; the text names the choice.
    dev = json.load(open(a.device_json))
    for policy in ["sequential", "wavefront"]:
        auto = schedule_json(a, a.model, policy)
        on = schedule_json(a, a.model, policy, "--fuse-attention")
        off = schedule_json(a, a.model, policy, "--fuse-attention=off")
        for j in (auto, on, off):
            check_plan_json(j, policy, dev)
        d = auto["attention"]
        if d is None or on["attention"] is not None or off["attention"] is not None:
            fail(f"{policy}: attention decision auto/on/off = {d}/{on['attention']}/{off['attention']}")
        fused = lambda j: any(k["type"] == "Attention" for k in j["kernels"])
        if not fused(on) or fused(off):
            fail(f"{policy}: --fuse-attention did not force the attention rOperators")
        for key, j in (("fused_us", on), ("unfused_us", off)):
            if not math.isclose(d[key], j["predicted_latency_us"], rel_tol=1e-9):
                fail(f"{policy}: auto's {key} {d[key]} is not the forced plan's {j['predicted_latency_us']}")
        if d["fused"] != (d["fused_us"] < d["unfused_us"]) or fused(auto) != d["fused"]:
            fail(f"{policy}: auto kept the slower plan: {d}")
        if not math.isclose(auto["predicted_latency_us"], min(d["fused_us"], d["unfused_us"]), rel_tol=1e-9):
            fail(f"{policy}: auto's plan predicts {auto['predicted_latency_us']}, not the faster of {d}")
    p = run([a.rammer, "-q", "schedule", a.model])
    if "attention  fused: predicted" not in p.stdout and "attention  left unfused: predicted" not in p.stdout:
        fail(f"the text output does not say what auto chose:\n{p.stdout[:1500]}")
    expect_error(a, ["schedule", a.model, "--fuse-attention=sometimes"],
                 "--fuse-attention: sometimes not in {auto,on,off}", rc=2)


def case_compare(a):
    # rammer compare: one row per policy, each the plan `rammer schedule`
    # makes with that policy; speedups are over sequential.
    p = run([a.rammer, "-q", "compare", a.model, "--json"])
    j = json.loads(p.stdout)
    rows = {r["policy"]: r for r in j["policies"]}
    if sorted(rows) != sorted(ALL_POLICIES):
        fail(f"compare rows {sorted(rows)}, expected {sorted(ALL_POLICIES)}")
    seq = rows["sequential"]["predicted_latency_us"]
    if (j["device"], j["device_name"]) != ("h100", schedule_json(a, a.model, "wavefront")["device_name"]):
        fail(f"compare names the device {j['device']} / {j['device_name']!r}")
    for policy, r in rows.items():
        if not r["ok"] or r["error"] is not None:
            fail(f"{policy}: {r['error']}")
        s = schedule_json(a, a.model, policy)
        for key, skey in [("predicted_latency_us", "predicted_latency_us"), ("barriers", "barriers"),
                          ("veus", "veus"), ("dram_bytes", "dram_bytes"), ("sm_efficiency", "sm_efficiency")]:
            if not math.isclose(r[key], s[skey], rel_tol=1e-9, abs_tol=1e-12):
                fail(f"{policy}: compare's {key} {r[key]} differs from schedule's {s[skey]}")
        if r["programs"] != len(s["programs"]):
            fail(f"{policy}: compare says {r['programs']} programs, schedule {len(s['programs'])}")
        if not math.isclose(r["speedup_vs_sequential"], seq / r["predicted_latency_us"], rel_tol=1e-12):
            fail(f"{policy}: speedup {r['speedup_vs_sequential']} is not sequential's latency over its own")
    text = run([a.rammer, "-q", "compare", a.model, "--policies", "sequential,wavefront"]).stdout
    for word in ["latency us", "speedup", "vEU util", "sequential", "wavefront", "1.00x"]:
        if word not in text:
            fail(f"compare's table lacks {word!r}:\n{text}")
    if "greedy" in text:
        fail(f"--policies sequential,wavefront still planned greedy:\n{text}")
    # The policies' own options reach their plans, as in `rammer schedule`.
    p = run([a.rammer, "-q", "compare", a.model, "--policies", "ios", "--ios-programs", "stage", "--json"])
    ios = json.loads(p.stdout)["policies"][0]
    staged = schedule_json(a, a.model, "ios", "--ios-programs", "stage")
    if ios["programs"] != len(staged["programs"]) or ios["programs"] == rows["ios"]["programs"]:
        fail(f"compare --ios-programs stage: {ios['programs']} programs, schedule {len(staged['programs'])}, "
             f"the default {rows['ios']['programs']}")
    expect_error(a, ["compare", a.model, "--policies", "wavefront,sideways"], "sideways not in", rc=2)
    expect_error(a, ["compare", os.path.join(a.work, "missing.onnx")], "not found", rc=1)


def case_compile(a):
    """--compile: NVRTC's registers per program and rKernel, no spills, every
    program's vEUs co-resident with the compiled counts (exit 77 without NVRTC)."""
    for policy in ["sequential", "wavefront"]:
        p = run([a.rammer, "-q", "schedule", a.model, "--policy", policy, "--json", "--compile"], expect_rc=None)
        if p.returncode != 0 and "needs NVRTC" in p.stderr:
            print("skipped: " + p.stderr.strip())
            sys.exit(77)
        if p.returncode != 0:
            fail(f"--compile --policy {policy}: exit {p.returncode}\n{p.stderr}")
        j = json.loads(p.stdout)
        c = j.get("compiled")
        if not c or c["arch"] != "sm_90" or not c["nvrtc"]:
            fail(f"--policy {policy}: compiled is {c!r}")
        if len(c["programs"]) != len(j["programs"]):
            fail(f"--policy {policy}: {len(c['programs'])} compiled programs for {len(j['programs'])}")
        for cp in c["programs"]:
            prog = j["programs"][cp["program"]]
            if not 1 <= cp["registers"] <= 255:
                fail(f"program {cp['program']}: {cp['registers']} registers")
            if cp["spill_bytes"] != 0 or cp["function_spill_bytes"] != 0:
                fail(f"program {cp['program']} ({cp['kernel']}) spills {cp['spill_bytes']} B "
                     f"({cp['function_spill_bytes']} B in rKernel functions)")
            if cp["persistent"] and (not 1 <= cp["grid_blocks"] <= prog["veus"] or cp["co_resident"] < cp["grid_blocks"]):
                fail(f"program {cp['program']}: {cp['grid_blocks']} of its {prog['veus']} vEUs launched but the "
                     f"compiled kernel holds {cp['blocks_per_sm']}/SM, {cp['co_resident']} in all")
        for k in j["kernels"]:
            if not k["view"] and not 1 <= k.get("registers", 0) <= 255:
                fail(f"{k['op']}: registers {k.get('registers')!r}")
    text = run([a.rammer, "-q", "schedule", a.model, "--compile"]).stdout
    if "compiled   NVRTC" not in text or "registers" not in text:
        fail("--compile text lacks the compiled section:\n" + text)


def case_measured(a):
    """--measured TRACE: the committed H100 traces of this model (every
    policy) beside the prediction. The measured figures must be the file's
    (read here with Python's lzma), each operator's mean rTask time the
    trace's, the error the two latencies'; a file that is no trace is
    refused with a message naming it."""
    import lzma
    import statistics
    model = os.path.splitext(os.path.basename(a.model))[0]
    runs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "gpu_traces", "2026-11-26-h100",
                        "runs")
    for policy in POLICIES:
        path = os.path.join(runs, f"{model}.{policy}.trace.json.xz")
        trace = json.loads(lzma.open(path).read())
        t = trace["tasks"]
        cols = {}
        for k in ("op", "dur_ns"):
            vals, acc = [], 0
            for v in t[k]:
                acc = acc + v if k in t["delta"] else v
                vals.append(acc)
            cols[k] = vals
        per_op = {}
        for op, d in zip(cols["op"], cols["dur_ns"]):
            per_op.setdefault(trace["ops"][str(op)], []).append(d / 1000.0)
        j = schedule_json(a, a.model, policy, "--measured", path)
        m = j.get("measured")
        if not m:
            fail(f"--policy {policy}: no measured section")
        if not math.isclose(m["total_us"], trace["other"]["total_us"], rel_tol=1e-9):
            fail(f"{policy}: measured total {m['total_us']} against the file's {trace['other']['total_us']}")
        want = (j["predicted_latency_us"] - m["total_us"]) / m["total_us"]
        if not math.isclose(m["error"], want, rel_tol=1e-3, abs_tol=1e-3):
            fail(f"{policy}: error {m['error']} against {want}")
        # The measured run's critical path ends with its last rTask.
        if not math.isclose(m["critical_path"]["length_us"], m["total_us"], rel_tol=1e-3):
            fail(f"{policy}: measured critical path {m['critical_path']} against {m['total_us']} us")
        if not m["ops"] or len(m["ops"]) + m["only_measured"] != len(per_op):
            fail(f"{policy}: {len(m['ops'])} ops compared, {m['only_measured']} only measured, trace has {len(per_op)}")
        for e in m["ops"]:
            ds = per_op[e["op"]]
            if e["measured_rtasks"] != len(ds) or not math.isclose(e["measured_us"], statistics.mean(ds), rel_tol=1e-9):
                fail(f"{policy} {e['op']}: {e['measured_us']} us x{e['measured_rtasks']} against the trace's "
                     f"{statistics.mean(ds)} x{len(ds)}")
            if e["measured_us"] > 0 and not math.isclose(e["ratio"], e["predicted_us"] / e["measured_us"], rel_tol=1e-9):
                fail(f"{policy} {e['op']}: ratio {e['ratio']}")
    text = run([a.rammer, "-q", "schedule", a.model, "--measured",
                os.path.join(runs, f"{model}.wavefront.trace.json.xz")]).stdout
    if "furthest from the measurement" not in text:
        fail("--measured text lacks the comparison:\n" + text)
    bad = os.path.join(a.work, "not_a_trace.json")
    with open(bad, "w") as f:
        f.write('{"traceEvents": []}')
    p = run([a.rammer, "-q", "schedule", a.model, "--measured", bad], expect_rc=None)
    if p.returncode == 0 or "not a measured trace" not in p.stderr or bad not in p.stderr:
        fail(f"a Chrome trace as --measured: exit {p.returncode}, stderr {p.stderr!r}")


def case_epilogues(a):
    # --fuse-epilogues: auto (the default) fuses under sequential, wavefront
    # and greedy and not under IOS and GraphTurbo; on and off force it.
    dev = json.load(open(a.device_json))
    fused = lambda j: [k["op"] for k in j["kernels"] if k["type"] in ("FusedConv", "FusedGemm", "FusedMatMul")]
    # The unfused operators (wavefront plans them as they are).
    plain = {k["op"]: k["type"] for k in schedule_json(a, a.model, "wavefront", "--fuse-epilogues=off")["kernels"]}
    for policy in POLICIES:
        auto = schedule_json(a, a.model, policy)
        on = schedule_json(a, a.model, policy, "--fuse-epilogues")
        off = schedule_json(a, a.model, policy, "--fuse-epilogues=off")
        for j in (auto, on, off):
            check_plan_json(j, policy, dev)
        if not fused(on) or fused(off):
            fail(f"{policy}: --fuse-epilogues on/off fused {fused(on)} / {fused(off)}")
        want = on if policy in ("sequential", "wavefront", "greedy") else off
        if fused(auto) != fused(want) or not math.isclose(auto["predicted_latency_us"], want["predicted_latency_us"],
                                                          rel_tol=1e-9):
            fail(f"{policy}: auto is not the {'fused' if want is on else 'unfused'} plan: {fused(auto)}")
        # A fused operator keeps its Conv / Gemm / MatMul's name.
        if any(plain.get(op) not in ("Conv", "Gemm", "MatMul") for op in fused(on)):
            fail(f"{policy}: fused operators {fused(on)} are not named as their GEMMs: {plain}")
    expect_error(a, ["schedule", a.model, "--fuse-epilogues=sometimes"],
                 "--fuse-epilogues: sometimes not in {auto,on,off}", rc=2)


def case_calibration(a):
    """--calibration FILE: the committed H100 fit (rammer calibrate) plans and
    predicts instead of the analytic model; a fit for another device, a file
    that is no calibration and --profile-db beside it are refused; rammer
    calibrate refuses a folder that is no lease."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    fit = os.path.join(root, "resources", "calibrations", "h100.json")
    with open(fit) as f:
        c = json.load(f)
    for policy in ("sequential", "wavefront"):
        analytic = schedule_json(a, a.model, policy)
        calibrated = schedule_json(a, a.model, policy, "--calibration", fit)
        if not calibrated["cost_model"].startswith("calibrated profile (h100, " + c["source"]):
            fail(f"{policy}: cost_model {calibrated['cost_model']!r}")
        # The fit is in effect: every launch costs its launch term, not the preset's
        # (the latencies alone may land near each other by chance: inception_block's
        # sequential plan did, 162.6 against 161.5 us, with the 2026-11-27b fit).
        c_us, a_us = calibrated["predicted_latency_us"], analytic["predicted_latency_us"]
        launches = len(calibrated["programs"])
        want = launches * c["launch_us"]
        if not (c_us > 0 and a_us > 0 and abs(calibrated["launch_overhead_us"] - want) <= 1e-6 * want
                and abs(analytic["launch_overhead_us"] - want) > 0.01 * want):
            fail(f"{policy}: calibrated {c_us} us (launches {calibrated['launch_overhead_us']} us, want "
                 f"{launches} x {c['launch_us']}), analytic {a_us} us (launches {analytic['launch_overhead_us']} us)")
    # A dynamic plan's takes cost the fitted ready-queue dispatch, not the preset's.
    if c.get("dispatch_samples", 0) <= 0:
        fail("the committed H100 fit has no ready-queue dispatch (no dynamic runs fitted)")
    dyn = schedule_json(a, a.model, "dynamic", "--calibration", fit)
    want = dyn["dispatches"] * c["dispatch_us"]
    if not (dyn["dispatches"] > 0 and abs(dyn["dispatch_veu_us"] - want) <= 1e-6 * want):
        fail(f"dynamic: dispatch_veu_us {dyn['dispatch_veu_us']}, want {dyn['dispatches']} x {c['dispatch_us']}")
    other = os.path.join(a.work, "a100.json")
    with open(other, "w") as f:
        json.dump(dict(c, device="a100"), f)
    expect_error(a, ["schedule", a.model, "--calibration", other], "is fitted for device 'a100', not 'h100'")
    broken = os.path.join(a.work, "broken.json")
    with open(broken, "w") as f:
        json.dump(dict(c, barrier_us=-1), f)
    expect_error(a, ["schedule", a.model, "--calibration", broken], "\"barrier_us\" must be a non-negative number")
    expect_error(a, ["schedule", a.model, "--calibration", fit, "--profile-db", fit], "excludes", rc=2)
    expect_error(a, ["calibrate", a.work], "not a lease folder (no runs/ in it")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", required=True)
    ap.add_argument("--rammer", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--device-json", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    globals()["case_" + a.case](a)
    print("ok")


if __name__ == "__main__":
    main()
