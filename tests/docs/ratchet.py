"""A ratchet over core/kernels/*.cpp: per file, how often something the
house is removing occurs (string-built CUDA, hand-written CPU tiles). A file
may only lose occurrences; one that gains any, or a new file that has any,
fails, and so does a table that was not lowered after a file lost some."""
import sys
from pathlib import Path


def check(root: Path, count, table: dict, what: str, advice: str, exempt: tuple = ()) -> None:
    """Exits 1 naming each file over or under its entry in `table`; `count`
    maps a file's text to its occurrences of `what`. The `exempt` files are
    the ones whose job it is."""
    failures, lowered = [], []
    for f in sorted((root / "core/kernels").glob("*.cpp")):
        rel = str(f.relative_to(root))
        if rel in exempt:
            continue
        n = count(f.read_text())
        allowed = table.get(rel, 0)
        if n > allowed:
            failures.append(f"{rel}: {n} {what} (at most {allowed}); {advice}")
        elif n < allowed:
            lowered.append(f"{rel}: {n} (the table says {allowed}): lower the ratchet")
    for rel in table:
        if not (root / rel).exists():
            lowered.append(f"{rel} is gone: drop it from the ratchet")
    if failures or lowered:
        print("\n".join(failures + lowered))
        sys.exit(1)
    print(f"{sum(table.values())} {what} left in {len(table)} files; none added")
