#!/usr/bin/env python3
"""Parameterized tests name their cases by their parameters (issue #30
item 8): every INSTANTIATE_TEST_SUITE_P passes a name generator, so ctest
lists "Samples/HostSample.Run/sample_cnn_wavefront" rather than ".../3", and
every struct a test is parameterized on has a PrintTo, so a failure prints
its fields rather than "72-byte object <90-FC ...>"."""
import re
import sys
from pathlib import Path

root = Path(sys.argv[1])
failures = []


def arguments(text, start):
    """The top-level arguments of the call whose '(' is at `start`."""
    depth, args, current, i = 0, [], "", start
    while i < len(text):
        c = text[i]
        if c in "\"'":  # skip a literal
            end = i + 1
            while text[end] != c:
                end += 2 if text[end] == "\\" else 1
            current += text[i:end + 1]
            i = end + 1
            continue
        if c in "([{":
            depth += 1
            if depth == 1:
                i += 1
                continue
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                args.append(current.strip())
                return args
        elif c == "," and depth == 1:
            args.append(current.strip())
            current = ""
            i += 1
            continue
        current += c
        i += 1
    return args


for f in sorted((root / "tests").rglob("*.cpp")):
    text = f.read_text()
    rel = f.relative_to(root)
    for m in re.finditer(r"INSTANTIATE_TEST_SUITE_P\(", text):
        args = arguments(text, m.end() - 1)
        if len(args) < 4:
            failures.append(f"{rel}: {args[1] if len(args) > 1 else '?'} has no name generator "
                            "(pass rammer::testing::ParamName() or a lambda naming the case)")
    for m in re.finditer(r"TestWithParam<(\w+)>", text):
        name = m.group(1)
        if not re.search(r"\bstruct " + name + r"\b", text):
            continue  # a string, a tuple alias: gtest prints those
        if not re.search(r"PrintTo\(const " + name + r"&", text):
            failures.append(f"{rel}: struct {name} is a test parameter without a PrintTo")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("every parameterized test names its cases")
