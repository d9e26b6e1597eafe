#!/usr/bin/python3
"""Compiles the sources under the given folders with clang (front end only,
-fsyntax-only) using the exact flags CMake gave GCC (compile_commands.json),
so the code keeps building with both compilers (issue #18 item 1: libFuzzer
needs clang). Exit 77 (ctest: skipped) when the clang is not installed."""
import argparse
import concurrent.futures
import json
import os
import shlex
import shutil
import subprocess
import sys


def clang_command(entry, clang):
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    out = [clang, "-fsyntax-only"]
    skip = False
    for a in args[1:]:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if a in ("-c", "-MD", "-MMD") or a.startswith("-o"):
            continue
        out.append(a)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True, help="a CMake build folder with compile_commands.json")
    ap.add_argument("--source", required=True, help="the repository root")
    ap.add_argument("--clang", default="clang++-15")
    ap.add_argument("--dirs", default="core", help="comma-separated folders of the repository to compile")
    a = ap.parse_args()
    clang = shutil.which(a.clang)
    if not clang:
        print(f"{a.clang} is not installed (scripts/setup installs clang-15): nothing checked")
        sys.exit(77)
    with open(os.path.join(a.build, "compile_commands.json")) as f:
        entries = json.load(f)
    roots = [os.path.join(os.path.realpath(a.source), d) + os.sep for d in a.dirs.split(",")]
    chosen = [e for e in entries
              if e["file"].endswith(".cpp") and any(os.path.realpath(e["file"]).startswith(r) for r in roots)]
    if not chosen:
        sys.exit(f"FAIL: no sources under {a.dirs} in {a.build}/compile_commands.json")

    def check(entry):
        p = subprocess.run(clang_command(entry, clang), cwd=entry["directory"], capture_output=True, text=True)
        return entry["file"], p.returncode, p.stderr

    failed = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for file, rc, err in pool.map(check, chosen):
            if rc != 0:
                failed.append(file)
                print(f"--- {os.path.relpath(file, a.source)}\n{err}")
    print(f"{len(chosen) - len(failed)} of {len(chosen)} sources under {a.dirs} compile with {a.clang}")
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
