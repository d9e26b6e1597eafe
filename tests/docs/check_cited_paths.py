#!/usr/bin/env python3
"""Every path of the tree that a header, a doc or a source comment cites
exists (issue #29 item 6): files move, and a comment that sends the reader
to a file that is not there is worse than none. A citation may be a file,
a folder, a stem (`core/schedule/validator` for its .h/.cpp pair), a glob
(`core/runtime/host_*`) or a pattern with a placeholder in capitals
(`resources/schedules/MODEL_edits.json`)."""
import re
import subprocess
import sys
from pathlib import Path

root = Path(sys.argv[1])
TOPS = ("core", "app", "viz", "profiler", "tests", "docs", "scripts", "resources", "samples", "cmake", "tools")
CITED = re.compile(r"(?<![\w./-])((?:%s)/[\w./+-]*[\w+-])(\*|\{[\w,]+\})?" % "|".join(TOPS))
PLACEHOLDERS = {"MODEL", "DEVICE", "DATE", "CARD", "NAME", "POLICY"}
# Where a citation names what a run writes, not a file of the tree.
OUTPUTS = ("tests/codegen_work/",)


def tree_files():
    listed = subprocess.run(["git", "-C", str(root), "ls-files"], capture_output=True, text=True)
    if listed.returncode == 0:
        return listed.stdout.split()
    # Not a git checkout (a source archive): the tree's folders as they are.
    names = [str(f.relative_to(root)) for top in TOPS if (root / top).is_dir() for f in (root / top).rglob("*")]
    return [n for n in names if not n.startswith(OUTPUTS)] + ["README.md"]


def cited_files():
    for name in tree_files():
        if name.startswith("tests/docs/") or name.startswith("tests/data/"):
            continue
        if name.endswith((".h", ".cuh", ".md")) or (name.endswith(".cpp") and name.split("/")[0] in TOPS):
            yield name


def exists(path, suffix):
    if (root / path).exists():
        return True
    if suffix == "*":
        return any(root.glob(path + "*"))
    if suffix.startswith("{"):
        return all((root / (path + alt)).exists() for alt in suffix[1:-1].split(","))
    parent = (root / path).parent
    stem = Path(path).name
    return parent.is_dir() and any(f.name.startswith(stem + ".") for f in parent.iterdir())


def placeholder(path):
    return "..." in path or any(w in PLACEHOLDERS for w in re.findall(r"[A-Z]{3,}", path))


failures = []
for name in cited_files():
    text = (root / name).read_text(errors="replace")
    for m in CITED.finditer(text):
        path, suffix = m.group(1).rstrip("."), m.group(2) or ""
        if path.startswith(OUTPUTS) or placeholder(path) or exists(path, suffix):
            continue
        line = text.count("\n", 0, m.start()) + 1
        failures.append(f"{name}:{line}: cites {path}{suffix}, which is not in the tree")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("every cited path exists")
