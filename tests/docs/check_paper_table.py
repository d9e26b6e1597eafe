#!/usr/bin/env python3
"""README's "paper in the code" table must name real code: every header in a
row exists, and every C++ name in the row's code column is declared in one of
the row's headers (so a rename that forgets the README fails here)."""
import re
import sys
from pathlib import Path

root = Path(sys.argv[1])
readme = (root / "README.md").read_text()
section = readme.split("## The paper in the code", 1)
if len(section) != 2:
    sys.exit("README.md has no '## The paper in the code' section")
table = section[1].split("\n## ", 1)[0]
rows = [r for r in table.splitlines() if r.startswith("| ") and not r.startswith("| paper") and "---" not in r]
required = ["rTask", "rOperator", "rKernel", "vEU", "vDevice", "rProgram", "`Append` / `Wait`", "barrier-rTask",
            "policy", "Algorithm 1 (wavefront)", "RammerBase", "CUDA / HIP target", "host target"]
words = [r.split("|")[1].strip() for r in rows]
failures = [f"no row for {w!r}" for w in required if w not in words]
for row in rows:
    cells = [c.strip() for c in row.strip().strip("|").split("|")]
    if len(cells) != 3:
        failures.append(f"row does not have 3 cells: {row}")
        continue
    word, code, headers = cells
    paths = re.findall(r"`([\w/]+\.h)`", headers)
    if not paths:
        failures.append(f"{word}: names no header")
    texts = []
    for p in paths:
        f = root / p
        if not f.is_file():
            failures.append(f"{word}: {p} does not exist")
        else:
            texts.append(f.read_text())
    for name in re.findall(r"`([A-Za-z_:]+)`", code):
        last = name.split("::")[-1]
        if not any(re.search(r"\b" + re.escape(last) + r"\b", t) for t in texts):
            failures.append(f"{word}: {name} is not in {', '.join(paths)}")
if failures:
    print("\n".join(failures))
    sys.exit(1)
print(f"{len(rows)} rows, every header and name found")
