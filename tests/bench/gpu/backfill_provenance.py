#!/usr/bin/env python3
"""Gives the GPU data committed before issue #43 its provenance and checks
(issue #43 item 1): every row of docs/gpu_runs/*.jsonl gains `provenance`,
`check` and `check_rule`; every lease folder of tests/data/gpu_traces gains
provenance.json, and its row files `check` and `check_rule`. No measured
value changes (the script compares each row with what it was); re-running
it rewrites the same bytes.

backfill_provenance.py [--root DIR] [--dry-run]

Where the values come from (a value nobody recorded is "unknown", and the
`note` says what is known instead):
- device, driver, CUDA (nvcc's release), PyTorch and the commit git showed
  on the GPU machine (`tree_commit`): the lease folder's machine.txt;
- the commit the binaries were built at and the commands: the lease's
  section of docs/PERFORMANCE.md ("First GPU run" ... "Fifth GPU lease"),
  log.txt, and the lease scripts' own text (owed_2026-11-26.sh,
  lease_2026-11-27*.sh);
- for the H200 leases (no machine.txt) device, driver, CUDA and PyTorch from
  PERFORMANCE.md (the PyTorch rows' own `torch` field agrees); their build
  commit was not recorded, and `git log` shows why (see the notes);
- a row's check: its own `check` where it has one (run_gpu_checks.sh and
  torch_baseline.py wrote PASS/FAIL/ERROR), else the same run's run.json
  `output_check.pass` in the lease folder, else its max_rel_error under the
  rule `rammer run` applied; rows with an `error` are ERROR; CUPTI and
  per-node timing rows check nothing ("none").
"""
import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lease_rows  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
ADDED = ("provenance", "check", "check_rule", "recorded_check")
PAPER = ("alexnet", "resnext29_cifar", "nasnet_cifar", "deepspeech2", "lstm_tc", "seq2seq")
SCRIPT = "tests/bench/gpu/backfill_provenance.py"

# --- the rules ------------------------------------------------------------
L2_RULE = "relative L2 error <= 1e-4 of every output against the CPU reference executor's outputs on the same inputs"
TORCH_RULE = L2_RULE + " (torch_baseline.py)"
# run_gpu_checks.sh before 5682b09: torch_baseline.py --compare, and rammer
# run's exit status, which then judged max |diff| / max |ref| <= 1e-3.
RAMMER_L2_RULE = (L2_RULE + " (torch_baseline.py --compare), and rammer run exited 0 (its own check then: "
                  "max |diff| / max |ref| <= 1e-3 over each output)")
# core/pipeline/output_check.cpp's rule at fae5329 and 32ad26f.
RUN_RULE_TEXT = "|diff| <= 1e-05 x max(1, max|ref|) + 1e-04 x |ref|"
# A row that kept only max_rel_error = max|diff| / max|ref| (over the outputs
# compared): at <= 1e-5 every element is within the atol term of the rule.
RAMMER_MAX_REL_RULE = lease_rows.NEW_RUN_RULE.format(rule=RUN_RULE_TEXT)[:-1] + (
    "; the row kept only max |diff| / max |ref|, whose <= 1e-5 implies it)")
METRICS_RULE = "CUPTI counters of the plan's kernels (rammer run --metrics): nothing is compared"
NODES_RULE = ("one node timed alone on the values of an eager run (torch_baseline.py --per-node): its output is not "
              "compared; the whole model's eager output is checked in pytorch.jsonl")


def sanitizer_rule(tool):
    found = "hazard" if tool == "racecheck" else "error"
    return (f"compute-sanitizer --tool {tool} --error-exitcode 9 around rammer run --backend cuda: PASS when it "
            f"exits 0 (no {found} reported and the run finished), FAIL otherwise")


def sanitizer_not_run_rule(tool):
    """The fifth lease's lstm_tc racecheck, stopped at its time limit: no
    report, so nothing was judged; the row said NOT RUN."""
    return (f"compute-sanitizer --tool {tool} around rammer run --backend cuda passes when it exits 0; this run was "
            f"stopped at its time limit before a report (recorded as NOT RUN)")


# --- what each lease was ----------------------------------------------------
def machine(folder):
    """device, driver, cuda, nvcc, cuda_driver, torch, tree_commit from machine.txt."""
    text = open(os.path.join(folder, "machine.txt")).read()
    lines = text.splitlines()
    header = next(i for i, l in enumerate(lines) if l.startswith("name, driver_version"))
    name, driver = [x.strip() for x in lines[header + 1].split(",")[:2]]
    return {
        "device": name,
        "driver": driver,
        "cuda": re.search(r"release (\d+\.\d+)", text).group(1),
        "nvcc": re.search(r"release \S+ V(\S+)", text).group(1),
        "cuda_driver": re.search(r"CUDA Version: (\S+)", text).group(1),
        "torch": re.search(r"^torch (\S+)", text, re.M).group(1),
        "tree_commit": re.search(r"^commit ([0-9a-f]{40})", text, re.M).group(1),
    }


H200 = {"device": "NVIDIA H200", "driver": "580.159.04", "cuda": "13.0", "torch": "2.11.0+cu130"}
H200_SOURCE = ("backfilled by " + SCRIPT + ": device, driver, CUDA and PyTorch from docs/PERFORMANCE.md ('{section}'; "
               "nvidia-smi's name string was not kept), the PyTorch rows' torch field agrees; commands from "
               "PERFORMANCE.md{more}")
FIFTH_KEYS = ("alexnet.dynamic alexnet.wavefront resnext29_cifar.dynamic resnext29_cifar.wavefront "
              "inception_block.dynamic inception_block.wavefront nasbench_cells.dynamic nasbench_cells.wavefront "
              "seq2seq.dynamic seq2seq.wavefront")
CALL1_26 = "tests/bench/gpu/record_lease.sh --seconds 420 --metrics-seconds 100 --jobs 6"
METRICS2_26 = ("call 2: record_lease.sh's metrics phase for the plans call 1 did not reach (its options were not "
               "recorded)")
TORCH2_26 = ("tests/bench/gpu/run_gpu_checks.sh --steps 'run compile' --policies '' (its other options were not "
             "recorded)")
T1_27 = ("tests/bench/gpu/lease_2026-11-27.sh 545 (its step t1: tests/bench/gpu/record_lease.sh --seconds 200 "
         "--tiers 1 --jobs 4 --repeat 50)")
T23_27 = ("tests/bench/gpu/lease_2026-11-27.sh 545 (its step t23: tests/bench/gpu/record_lease.sh --seconds S --tiers "
          "\"2 3\" --jobs 4 --repeat 50 --metrics-seconds 50)")
TRACES_27B = ("tests/bench/gpu/lease_2026-11-27-fifth.sh 520 (its step traces: tests/bench/gpu/record_lease.sh "
              f"--seconds S --metrics-seconds 70 --metrics-keys \"{FIFTH_KEYS}\" --tiers \"5 1 2 3\" --jobs 4 "
              "--repeat 50)")
METRICS2_27B = ("call 2 on the same machine: tests/bench/gpu/record_lease.sh --tiers none --metrics-seconds 170 "
                "--metrics-keys KEYS (the keys were not recorded; log.txt lists the plans measured)")
LSTM_SAN_27B = ("compute-sanitizer racecheck and synccheck on lstm_tc's wavefront plan, 75 s each (the command line "
                "was not recorded)")
SAN2_27B = "call 2 on the same machine: " + LSTM_SAN_27B


def runs_files(runs, metrics):
    """provenance.json's `files` entries of the runs folder."""
    return {"runs/*.run.json.xz": {"command": runs}, "runs/*.trace.json.xz": {"command": runs},
            "runs/*.metrics.json.xz": {"command": metrics}}


def lease_folders(root):
    """provenance.json of each lease folder."""
    g = os.path.join(root, "tests", "data", "gpu_traces")
    from_machine = ("backfilled by " + SCRIPT + ": device, driver, CUDA, nvcc, PyTorch and tree_commit from "
                    "machine.txt; commit and commands from docs/PERFORMANCE.md ('{}') and {}")
    out = {}
    out["2026-11-26-h100"] = dict(
        lease="2026-11-26-h100", commit="cf60ab315c0064b4e0f87a9f1d041716d10a4ef0",
        **machine(os.path.join(g, "2026-11-26-h100")),
        command=f"call 1: {CALL1_26}; {METRICS2_26}, then {TORCH2_26}",
        files=dict(runs_files("call 1: " + CALL1_26,
                              f"alexnet, resnext29_cifar and nasnet_cifar wavefront: call 1: {CALL1_26}; the others: "
                              + METRICS2_26),
                   **{"pytorch.jsonl": {"command": "call 2: " + TORCH2_26}}),
        note=("machine.txt's commit (a1b50f6) is what git showed on the GPU machine; the binaries were built at "
              "cf60ab3 (docs/PERFORMANCE.md, 'Third GPU lease'), which adds the recorder that wrote this folder "
              "(005e9af, "
              "cf60ab3) to a1b50f6"),
        source=from_machine.format("Third GPU lease", "log.txt"))
    out["2026-11-27-h100"] = dict(
        lease="2026-11-27-h100", commit="fae5329d6a717a7d9d26be936b39cfc83199f48c",
        **machine(os.path.join(g, "2026-11-27-h100")),
        command="call 1: tests/bench/gpu/lease_2026-11-27.sh 545; call 2: tests/bench/gpu/lease_2026-11-27b.sh 270",
        files=dict(runs_files(f"the six paper models' sequential and wavefront runs: {T1_27}; the others: {T23_27}",
                              T23_27), **{
            "pytorch.jsonl": {"command": "tests/bench/gpu/lease_2026-11-27.sh 545 (its step torch: torch_baseline.py "
                                         "MODEL.onnx --inputs DIR --expected DIR --modes eager --repeat 200)"},
            "pytorch_nodes.jsonl": {"command": "tests/bench/gpu/lease_2026-11-27.sh 545 (its step torch: "
                                               "torch_baseline.py MODEL.onnx --inputs DIR --per-node --repeat 50 "
                                               "--warmup 5)"},
            "batch.jsonl": {"command": "tests/bench/gpu/lease_2026-11-27b.sh 270"},
            "sanitizers.jsonl": {"command": "tests/bench/gpu/lease_2026-11-27.sh 545 (its step sanitizers: "
                                            "tests/bench/gpu/run_gpu_checks.sh --build .gpu --budget S --steps "
                                            "sanitize --policies \"sequential wavefront greedy\")"}}),
        source=from_machine.format("Fourth GPU lease", "the lease scripts"))
    out["2026-11-27b-h100"] = dict(
        lease="2026-11-27b-h100", commit="32ad26f32c258f9f307f9025dd1f2b279c5faa27",
        **machine(os.path.join(g, "2026-11-27b-h100")),
        command=f"call 1: tests/bench/gpu/lease_2026-11-27-fifth.sh 520; {METRICS2_27B}, then {LSTM_SAN_27B}",
        files=dict(runs_files(TRACES_27B, f"alexnet and resnext29_cifar: {TRACES_27B}; the others: {METRICS2_27B}"), **{
            "sanitizers.jsonl": {"command": "tests/bench/gpu/lease_2026-11-27-fifth.sh 520 (its step sanitizers: "
                                            "tests/bench/gpu/run_gpu_checks.sh --budget S --steps sanitize "
                                            "--sanitizers \"racecheck synccheck memcheck\" --policies \"dynamic "
                                            "wavefront greedy "
                                            "sequential\"); the lstm_tc rows (call 2) carry their own"}}),
        source=from_machine.format("Fifth GPU lease", "log.txt"))
    return out


def h200_provenance(lease, command):
    if lease == "2026-11-26-h200":
        note = ("build commit not recorded: the binaries were built from a tree that was not committed as such; the "
                "scripts that ran (run_gpu_checks.sh, torch_baseline.py) were first committed with these rows and "
                "the fixes the lease found in d039182, on top of 1615b8e")
        source = H200_SOURCE.format(section="First GPU run", more="")
    else:
        note = ("build commit not recorded: rammer run --watchdog and run_gpu_checks.sh's --sanitizers, --eager and "
                "--rammer-args were committed with these rows in 893ddb5 (on top of 6e2dae7); --watchdog came during "
                "the lease (PERFORMANCE.md: the sequential plan's racecheck failed in call 1 and passed with it in "
                "call 2), so call 2 ran a later build than call 1; the steps are owed_2026-11-26.sh's, committed next "
                "in ec535e2")
        source = H200_SOURCE.format(section="Second GPU lease", more=" and tests/bench/gpu/owed_2026-11-26.sh")
    return dict(lease=lease, commit="unknown", **H200, command=command, note=note, source=source)


# owed_2026-11-26.sh's steps (the second H200 lease): call, then run_gpu_checks.sh's options.
OWED_STEPS = {
    "tests": (1, "--steps tests"),
    "sanitize": (1, "--steps sanitize --sanitizers \"racecheck synccheck\""),
    "tx": (1, "--steps run --models \"encoder decoder vit_tiny swin_tiny\" --policies \"sequential wavefront "
              "graphturbo\" --eager no --repeat 50"),
    "tx_attn": (1, "--steps run --models \"encoder decoder vit_tiny swin_tiny\" --policies \"wavefront\" --eager no "
                   "--repeat 50 --rammer-args --fuse-attention=on"),
    "owed": (1, "--steps \"run metrics\" --models \"alexnet lstm_tc\" --policies \"ios graphturbo\""),
    "metrics": (1, "--steps \"run metrics\" --models \"nasnet_cifar seq2seq deepspeech2\" --policies \"wavefront\""),
    "compile": (1, "--steps \"run compile\" --models \"resnext29_cifar\" --policies \"wavefront\" --eager no"),
    "race2": (2, "--steps sanitize --sanitizers racecheck --policies sequential"),
    "sync2": (2, "--steps sanitize --sanitizers synccheck"),
    "tx2": (2, "--steps run --models \"swin_tiny vit_tiny\" --policies \"wavefront\" --eager no --repeat 50 "
               "--rammer-args --fuse-attention=on"),
    "metrics2": (2, "--steps \"run metrics\" --models \"lstm_tc seq2seq nasnet_cifar\" --policies \"\" --eager no "
                    "--repeat 50"),
    "ds2": (2, "--steps run --models \"deepspeech2\" --policies \"wavefront\""),
    "compile2": (2, "--steps \"run compile\" --models \"deepspeech2\" --policies \"\" --eager no"),
}


def owed_command(step):
    call, options = OWED_STEPS[step]
    args = "455 1" if call == 1 else "300 2"
    return (f"tests/bench/gpu/owed_2026-11-26.sh {args} (its step {step}: tests/bench/gpu/run_gpu_checks.sh "
            f"--build .gpu --budget S {options})")


# --- each row's check --------------------------------------------------------
def row_check(row, run_check=None):
    """(check, check_rule) of a row from its own fields; run_check is the
    same run's (result, rule) from the lease folder, where there is one."""
    system = row.get("system", "")
    recorded = row.get("recorded_check", row.get("check"))
    if system.startswith("compute-sanitizer"):
        tool = system.split()[-1]
        if recorded == "NOT RUN":
            return "ERROR", sanitizer_not_run_rule(tool)
        assert recorded in ("PASS", "FAIL"), row
        return recorded, sanitizer_rule(tool)
    if system.endswith(" metrics"):
        return ("ERROR" if "error" in row else "none"), METRICS_RULE
    if "node" in row and "flops" in row:  # torch_baseline.py --per-node
        return "none", NODES_RULE
    if system.startswith("pytorch-"):
        rule = TORCH_RULE
    elif "rel_l2" in row or (recorded and "max_rel_error" not in row):
        rule = RAMMER_L2_RULE  # run_gpu_checks.sh's rammer rows (H200 leases)
    elif run_check is not None:
        rule = run_check[1]
    else:
        rule = RAMMER_MAX_REL_RULE
    if "error" in row:
        return "ERROR", rule
    if recorded:
        assert recorded != "PASS" or row.get("rel_l2", 0) <= 1e-4, row
        return recorded, rule
    if run_check is not None:
        assert (run_check[0] == "PASS") == (row["max_rel_error"] <= 1e-5), row
        return run_check[0], rule
    if row.get("max_rel_error", 1.0) <= 1e-5:
        return "PASS", rule
    raise SystemExit(f"cannot derive the check of {row}")


def stamped(row, provenance, run_check=None, own_provenance=True):
    """The row with provenance, check and check_rule after its own fields
    (in this order, so that a second backfill writes the same bytes)."""
    check, rule = row_check(row, run_check)
    recorded = row.get("recorded_check", row.get("check"))
    assert recorded in (None, check, "NOT RUN"), row  # a check the row had stays what it was
    out = {k: v for k, v in row.items() if k not in ADDED}
    if own_provenance:
        out["provenance"] = provenance
    out["check"] = check
    out["check_rule"] = rule
    if recorded not in (None, check):
        out["recorded_check"] = recorded
    return out


def same_measurement(old, new):
    """Nothing but the added fields differs."""
    strip = lambda r: {k: v for k, v in r.items() if k not in ADDED}
    return strip(old) == strip(new)


# --- the files -----------------------------------------------------------------
def read(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def dump_rows(rows):
    return "".join(json.dumps(r) + "\n" for r in rows)


def docs_rows(name, rows, folders, leases):
    """The rows of docs/gpu_runs/NAME.jsonl, stamped."""
    out = []
    for row in rows:
        if name in ("2026-11-26-h200", "2026-11-26b-h200"):
            command = ("tests/bench/gpu/run_gpu_checks.sh --build .gpu --budget 420" if name == "2026-11-26-h200"
                       else owed_command(row["step"]))
            out.append(stamped(row, h200_provenance(name, command)))
            continue
        lease = leases[name]
        base = {k: v for k, v in folders[name].items() if k not in ("files", "note")}
        base["source"] = f"tests/data/gpu_traces/{name}/provenance.json (backfilled by {SCRIPT})"
        run_check = None
        if row["batch"] == 1 and row.get("policy"):
            key = f"{row['model']}.{row['policy']}"
            run = lease.run(key)
            assert run["latency_us"] == row["latency_us"], key  # the row is that run
            run_check = lease.run_check(key)
            command = TRACES_27B if name == "2026-11-27b-h100" else (
                T1_27 if row["model"] in PAPER and row["policy"] in ("sequential", "wavefront") else T23_27)
        elif row["batch"] == 1:
            command = folders[name]["files"]["pytorch.jsonl"]["command"]  # only the fourth lease has these
        else:
            command = folders[name]["files"]["batch.jsonl"]["command"]
        out.append(stamped(row, dict(base, command=command), run_check))
    return out


def lease_row_files(folder, provenance):
    """{file name: stamped rows} of a lease folder's row files. The rows take
    the folder's provenance (provenance.json), but for the fifth lease's
    second call, whose rows carry their own."""
    out = {}
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".jsonl") or name == "index.jsonl":  # index.jsonl: the recorder's task log
            continue
        rows = []
        for row in read(os.path.join(folder, name)):
            own = provenance["lease"] == "2026-11-27b-h100" and name == "sanitizers.jsonl" and row["model"] == "lstm_tc"
            p = {k: v for k, v in provenance.items() if k != "files"}
            rows.append(stamped(row, dict(p, command=SAN2_27B), own_provenance=own))
        out[name] = rows
    return out


def write(path, text, dry):
    old = open(path).read() if os.path.exists(path) else None
    if old == text:
        return "unchanged"
    if not dry:
        with open(path, "w") as f:
            f.write(text)
    return "would write" if dry else "wrote"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=ROOT)
    ap.add_argument("--dry-run", action="store_true")
    a = ap.parse_args()
    folders = lease_folders(a.root)
    g = os.path.join(a.root, "tests", "data", "gpu_traces")
    for name, p in folders.items():
        folder = os.path.join(g, name)
        print(write(os.path.join(folder, "provenance.json"), json.dumps(p, indent=1) + "\n", a.dry_run),
              os.path.relpath(os.path.join(folder, "provenance.json"), a.root))
        for file, rows in lease_row_files(folder, p).items():
            path = os.path.join(folder, file)
            assert all(same_measurement(o, n) for o, n in zip(read(path), rows)), path
            print(write(path, dump_rows(rows), a.dry_run), os.path.relpath(path, a.root))
    # The lease folders as written (or, in a dry run, as they were).
    leases = {name: lease_rows.Lease(os.path.join(g, name), p) for name, p in folders.items()}
    runs = os.path.join(a.root, "docs", "gpu_runs")
    for file in sorted(os.listdir(runs)):
        if not file.endswith(".jsonl"):
            continue
        path = os.path.join(runs, file)
        old = read(path)
        rows = docs_rows(file[:-len(".jsonl")], old, folders, leases)
        assert len(rows) == len(old) and all(same_measurement(o, n) for o, n in zip(old, rows)), path
        print(write(path, dump_rows(rows), a.dry_run), os.path.relpath(path, a.root))
    return 0


if __name__ == "__main__":
    sys.exit(main())
