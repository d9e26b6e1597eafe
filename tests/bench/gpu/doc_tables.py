#!/usr/bin/env python3
"""The tables of docs/PERFORMANCE.md that are built from GPU lease rows,
generated from the rows so that the doc cannot drift from the data
(issue #43 item 2).

doc_tables.py --check [DOC]   regenerate every block and fail on any difference,
                              and on a table in a lease section that is neither
                              generated nor marked as not built from lease rows
doc_tables.py --write [DOC]   rewrite the blocks in place

A generated block in the doc:

    <!-- table: GENERATOR ARG... -->
    ...what the generator printed...
    <!-- /table -->

GENERATOR names a function of GENERATORS below; ARG... are its command-line
arguments (paths relative to the repository root). A table in a lease
section that holds no lease numbers (a CPU prediction, a host-target run)
says so on the line before it:

    <!-- not from lease rows: WHY -->

A lease section is a `## ` section whose title names a GPU run, a GPU lease
or a prediction error against a lease (LEASE_SECTION below), with its
subsections.
"""
import argparse
import difflib
import os
import re
import shlex
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))

import derived_tables  # noqa: E402
import dynamic_table  # noqa: E402
import e2e_table  # noqa: E402
import lease_checks  # noqa: E402
import rkernel_table  # noqa: E402
import row_tables  # noqa: E402

GENERATORS = {
    "grid": row_tables.grid,
    "rows": row_tables.listing,
    "e2e": e2e_table.render,
    "rkernels": rkernel_table.render,
    "dynamic": dynamic_table.render,
    "lease": derived_tables.lease_predictions,
    "fit": derived_tables.fit,
    "calibrated": derived_tables.calibrated,
    "calibrated-dynamic": derived_tables.calibrated_dynamic,
    "before-after": derived_tables.before_after,
    "runs": lease_checks.runs,
    "goals": lease_checks.goals,
    "metrics": lease_checks.metrics,
    "sanitizers": lease_checks.sanitizers,
}

BEGIN = re.compile(r"^<!-- table: (.+?) -->$")
END = "<!-- /table -->"
EXEMPT = re.compile(r"^<!-- not from lease rows: .+ -->$")
LEASE_SECTION = re.compile(r"^## .*(GPU run|GPU lease|Prediction error)")


class DocError(Exception):
    pass


def generate(spec):
    """The text of one block: GENERATOR ARG... run from the repository root."""
    words = shlex.split(spec)
    if not words or words[0] not in GENERATORS:
        raise DocError(f"unknown generator in '<!-- table: {spec} -->' (known: {', '.join(sorted(GENERATORS))})")
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        text = GENERATORS[words[0]](words[1:])
    except SystemExit as e:  # argparse refused the arguments (it printed why)
        raise DocError(f"'<!-- table: {spec} -->': bad arguments (exit {e.code})") from None
    except (OSError, KeyError, ValueError) as e:  # rows missing or without provenance: name the block
        raise DocError(f"'<!-- table: {spec} -->': {type(e).__name__}: {e}") from None
    finally:
        os.chdir(cwd)
    return text.rstrip("\n").split("\n")


def blocks(lines):
    """(begin, end, spec) of every generated block: lines[begin] is the
    opening marker, lines[end] the closing one."""
    out, open_at = [], None
    for i, line in enumerate(lines):
        m = BEGIN.match(line)
        if m:
            if open_at is not None:
                raise DocError(f"line {i + 1}: a block opens inside the block of line {open_at[0] + 1}")
            open_at = (i, m.group(1))
        elif line == END:
            if open_at is None:
                raise DocError(f"line {i + 1}: '{END}' without an opening marker")
            out.append((open_at[0], i, open_at[1]))
            open_at = None
    if open_at is not None:
        raise DocError(f"line {open_at[0] + 1}: the block is never closed with '{END}'")
    return out


def tables_outside_blocks(lines, spans):
    """Line numbers (1-based) of tables in lease sections that are neither
    inside a generated block nor marked as not built from lease rows."""
    inside = set()
    for b, e, _ in spans:
        inside.update(range(b, e + 1))
    found, lease, i = [], False, 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("## "):
            lease = bool(LEASE_SECTION.match(line))
        start = i
        if line.startswith("```"):  # a fenced block: a table when it holds rows of numbers
            i += 1
            body = []
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            numeric = sum(1 for b in body if len(re.findall(r"\d+\.\d+|\d{2,}", b)) >= 2)
            is_table = numeric >= 2
        elif line.startswith("|"):
            while i + 1 < len(lines) and lines[i + 1].startswith("|"):
                i += 1
            is_table = True
        else:
            is_table = False
        if is_table and lease and start not in inside:
            before = lines[start - 1] if start > 0 else ""
            if not EXEMPT.match(before):
                found.append(start + 1)
        i += 1
    return found


def process(doc, write):
    with open(doc) as f:
        lines = f.read().split("\n")
    spans = blocks(lines)
    problems, out, last = [], [], 0
    for b, e, spec in spans:
        want = generate(spec)
        have = lines[b + 1:e]
        if have != want:
            diff = "\n".join(difflib.unified_diff(have, want, "doc", "rows", lineterm="", n=0))
            problems.append(f"{doc}:{b + 1}: the block '{spec}' differs from what its rows give:\n{diff}")
        out += lines[last:b + 1] + want
        last = e
    out += lines[last:]
    if write:
        with open(doc, "w") as f:
            f.write("\n".join(out))
        problems = []
    for n in tables_outside_blocks(out, blocks(out)):
        problems.append(f"{doc}:{n}: a table in a lease section that no generator writes: generate it "
                        "(<!-- table: ... -->) or mark it <!-- not from lease rows: WHY -->")
    return problems, len(spans)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--write", action="store_true")
    ap.add_argument("doc", nargs="?", default=os.path.join(ROOT, "docs", "PERFORMANCE.md"))
    a = ap.parse_args()
    try:
        problems, n = process(a.doc, a.write)
    except (DocError, OSError, ValueError) as e:
        print(f"doc_tables: {e}", file=sys.stderr)
        return 2
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"doc_tables: {len(problems)} problem(s) in {a.doc}; `{os.path.relpath(__file__, ROOT)} --write` "
              "regenerates the blocks from the rows", file=sys.stderr)
        return 1
    print(f"doc_tables: {n} generated tables of {os.path.relpath(a.doc, ROOT)} match their rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
