#!/usr/bin/env python3
"""The house rules that keep the top floor untangled (issue 13), checked on
the sources: the files that were too big stay small, the main window finds
no child by lookup and swaps no page in, core never includes Qt, and the
studio and the CLI chain no stages themselves (they call core/pipeline)."""
import re
import sys
from pathlib import Path

root = Path(sys.argv[1])
failures = []


def lines(path):
    return len((root / path).read_text().splitlines())


for path, limit in [("viz/widgets/timeline_view.cpp", 500), ("app/studio/main_window.cpp", 400)]:
    n = lines(path)
    if n >= limit:
        failures.append(f"{path} has {n} lines; keep it under {limit}")

window = (root / "app/studio/main_window.cpp").read_text()
for word in ["findChild", "PlaceholderPage", "setWidget("]:
    if word in window:
        failures.append(f"app/studio/main_window.cpp uses {word}")

for f in sorted((root / "core").rglob("*")):
    if f.suffix in (".h", ".cpp") and re.search(r"#include\s*<Q", f.read_text()):
        failures.append(f"{f.relative_to(root)} includes a Qt header")

# The GUI shows the policy's fastest / most efficient verdicts as the plan
# records them (PlannedOp::fastestOption), not verdicts of its own.
for folder in ["app", "viz"]:
    for f in sorted((root / folder).rglob("*.cpp")):
        if re.search(r"(->|\.)(fastest|mostEfficient)\(", f.read_text()):
            failures.append(f"{f.relative_to(root)} decides the fastest / most efficient rKernel itself; read the plan's")

# core/pipeline/pipeline.cpp reads like the stage list (issue #29 item 5):
# the attention choice, the schedule edits' loading and the memory check
# live in files of their own.
pipeline = (root / "core/pipeline/pipeline.cpp").read_text()
for call, home in [("parseScheduleEdits(", "schedule_edits_loading.cpp"), ("estimateReferenceRun(", "memory_check.cpp"),
                   ("opHistogram(", "attention_choice.cpp"), ("figuresOf(*fused", "attention_choice.cpp")]:
    if call in pipeline:
        failures.append(f"core/pipeline/pipeline.cpp calls {call} itself; that belongs in core/pipeline/{home}")
if len(pipeline.splitlines()) >= 400:
    failures.append("core/pipeline/pipeline.cpp has grown past 400 lines; move a concern into a file of its own")

# A core header opens with what it holds and why (issue #29 item 6).
for f in sorted((root / "core").rglob("*.h")):
    head = [line for line in f.read_text().splitlines()[:2] if line != "#pragma once"]
    if not head or not head[0].startswith("//"):
        failures.append(f"{f.relative_to(root)} does not open with a comment saying what it holds")

# The stages are chained in core/pipeline only.
stage_calls = ["standardPipeline()", "makePolicy(", "checkPlan(", "Simulator(", "emulatePlan(", "executeOnHost(",
               "executeOnGpu("]
for folder in ["app", "viz"]:
    for f in sorted((root / folder).rglob("*.cpp")):
        text = f.read_text()
        for call in stage_calls:
            if call in text:
                failures.append(f"{f.relative_to(root)} calls {call} itself; go through core/pipeline")

# Code is generated, compiled, checked against the reference executor and
# written as a project by the pipeline's Generate, Compile and Export stages
# (issue #29 item 1, issue #44 item 4): the CLI, the studio, the Code view
# and the profiler call those, and `rammer run --backend reference` calls
# the pipeline's runReferenceModel. The profiler builds through
# runtime::buildCuda, the one generate -> NVRTC -> registers path the GPU
# run uses too.
codegen_calls = ["generateProgram(", "runReference(", "writeProject(", "writeProgramData(", "compileProgram(",
                 "compileOffline(", "applyCompiledResources(", "buildHostProgram(", "compileGenerated(",
                 "compileCached("]
for folder in ["app", "viz", "profiler"]:
    for f in sorted((root / folder).rglob("*")):
        if f.suffix not in (".h", ".cpp"):
            continue
        text = f.read_text()
        rel = str(f.relative_to(root))
        for call in codegen_calls:
            if re.search(r"(?<![\w:])(\w+::)*" + re.escape(call), text):
                failures.append(f"{rel} calls {call} itself; go through the pipeline's Generate, Compile and Export "
                                "stages")

# An op's compute function runs through ops::computeOp only (issue #30 item
# 5), which makes the outputs of an op that has nothing to compute without
# computing them.
for folder in ["core", "app", "viz", "profiler"]:
    for f in sorted((root / folder).rglob("*.cpp")):
        rel = str(f.relative_to(root))
        if rel != "core/ops/op_compute.cpp" and re.search(r"(->|\.)compute\(", f.read_text()):
            failures.append(f"{rel} calls an op's compute function itself; call ops::computeOp")

# Seed folders hold what a person put there: a libFuzzer run writes its new
# inputs under hash names into its first corpus folder, never into these.
for folder in ["resources/devices", "samples/models", "tests/data/transformers", "tests/fuzz/seeds"]:
    for f in sorted((root / folder).rglob("*")):
        if f.is_file() and re.fullmatch(r"[0-9a-f]{40}", f.name):
            failures.append(f"{f.relative_to(root)} looks like a fuzzer's corpus entry; seed folders hold named files")

# The policy is a value of one registry (core/schedule/policy_registry.h,
# issue #44 item 6): outside core/schedule no code compares a policy with a
# name literal or writes the default's name.
policy_names = "sequential|wavefront|greedy|ios|graphturbo|dynamic|rammer|rammerbase"
for folder in ["core", "app", "viz", "profiler"]:
    for f in sorted((root / folder).rglob("*")):
        rel = str(f.relative_to(root))
        if f.suffix not in (".h", ".cpp") or rel.startswith("core/schedule/"):
            continue
        text = f.read_text()
        if re.search(r'[=!]=\s*"(%s)"' % policy_names, text) or re.search(r'"(%s)"\s*[=!]=' % policy_names, text):
            failures.append(f"{rel} compares a policy with a name; ask schedule::findPolicy / policyNamed")
        if re.search(r'policy\w*\s*=\s*"(%s)"' % policy_names, text, re.IGNORECASE) or (
                f.suffix == ".h" and re.search(r'\w+\s*=\s*"(%s)"\s*;' % policy_names, text)):
            failures.append(f"{rel} writes a policy default by name; use schedule::defaultPolicyName()")

# Background work goes through the one job runner (viz/models/pipeline_job.h,
# issue #44 item 5): no widget or page starts a thread of its own. The one
# exception frees big results on a worker (release_later.h), not work.
runner_homes = {"viz/models/pipeline_job.h", "viz/models/pipeline_job.cpp", "viz/models/release_later.h"}
for folder in ["app", "viz"]:
    for f in sorted((root / folder).rglob("*")):
        rel = str(f.relative_to(root))
        if f.suffix not in (".h", ".cpp") or rel in runner_homes:
            continue
        if re.search(r"QtConcurrent|QThreadPool|std::thread\b|std::async\b|QThread\b", f.read_text()):
            failures.append(f"{rel} starts background work itself; start it on a viz::PipelineJob")

# The design document lives in the repository and the README sends readers
# there (issue #44 item 6), not to a file outside the checkout.
if "(docs/DESIGN.md)" not in (root / "README.md").read_text() or not (root / "docs/DESIGN.md").is_file():
    failures.append("README.md does not link docs/DESIGN.md, or the file is missing")
for f in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
    if "shared/DESIGN.md" in f.read_text():
        failures.append(f"{f.relative_to(root)} sends readers to the first design outside the repository; "
                        "cite docs/DESIGN.md")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("house rules hold")
