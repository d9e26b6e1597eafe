#!/usr/bin/env python3
"""The provenance of what a lease measures (issue #43 item 1), as JSON: the
fields lease_rows.PROVENANCE_FIELDS names, asked of this machine.

  provenance.py [--lease NAME|auto] [--command CMD] [--rammer BIN] [--torch VERSION|none]
  provenance.py --write-commit FILE     (here, before a lease: see below)

- device, driver: nvidia-smi's name and driver version of GPU 0 ("unknown"
  without nvidia-smi); `gpus`: how many it lists;
- cuda: nvcc's release where nvcc is found, else the driver's CUDA version
  (nvidia-smi's header); `nvcc` and `cuda_driver` keep both;
- torch: torch.__version__ of this Python, or "none" where it has no torch;
- commit: `git rev-parse HEAD` of the tree (`tree_dirty` when tracked files
  differ from it), else the bundle's commit.txt. The GPU machine gets the
  tree without .git, and ../shared/tools/gpu-bundle writes no commit, so
  write it beside the bundle when you make it:
      ../shared/tools/gpu-bundle .gpu build/bin/rammer
      python3 tests/bench/gpu/provenance.py --write-commit .gpu/commit.txt
  (found there as BIN/../commit.txt, BIN being rammer's folder, or as
  .gpu/commit.txt in the tree); "unknown" when neither is there;
- lease: NAME, or with `auto` DATE-CARD (today's UTC date and the card's
  model, e.g. 2026-11-28-h100: rename the folder and this field when a
  second lease of the day needs 2026-11-28b-h100);
- command: CMD, what the caller ran ("unknown" without it);
- date: when this was asked (UTC); commit_source: where the commit came from.
"""
import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
UNKNOWN = "unknown"


def _output(argv, cwd=None):
    """stdout of argv, or None when it cannot run or fails."""
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=30, cwd=cwd)
    except (OSError, subprocess.SubprocessError):
        return None
    return p.stdout if p.returncode == 0 else None


def gpu():
    """device, driver, cuda_driver and gpus from nvidia-smi."""
    out = {"device": UNKNOWN, "driver": UNKNOWN, "cuda_driver": UNKNOWN, "gpus": 0}
    listed = _output(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"])
    lines = [l for l in (listed or "").splitlines() if l.strip()]
    if lines:
        name, _, driver = lines[0].rpartition(",")
        out.update(device=name.strip() or UNKNOWN, driver=driver.strip() or UNKNOWN, gpus=len(lines))
    header = re.search(r"CUDA Version:\s*([\d.]+)", _output(["nvidia-smi"]) or "")
    if header:
        out["cuda_driver"] = header.group(1)
    return out


def nvcc():
    """(release, full version) of nvcc, from PATH or /usr/local/cuda."""
    default = "/usr/local/cuda/bin/nvcc"
    binary = shutil.which("nvcc") or (default if os.path.exists(default) else None)
    text = _output([binary, "--version"]) if binary else None
    m = re.search(r"release ([\d.]+), V([\d.]+)", text or "")
    return (m.group(1), m.group(2)) if m else (UNKNOWN, UNKNOWN)


def torch_version():
    try:
        import torch
    except Exception:  # no torch, or one that does not load: either way none ran
        return "none"
    return torch.__version__


def commit(root, rammer=None):
    """(commit, source, dirty or None)."""
    head = _output(["git", "-C", root, "rev-parse", "HEAD"])
    if head and head.strip():
        changed = _output(["git", "-C", root, "status", "--porcelain", "--untracked-files=no"])
        return head.strip(), "git", bool(changed and changed.strip())
    candidates = [os.path.join(root, ".gpu", "commit.txt")]
    binary = rammer or shutil.which("rammer")
    if binary:
        candidates.insert(0, os.path.join(os.path.dirname(os.path.abspath(binary)), "..", "commit.txt"))
    for path in candidates:
        if os.path.exists(path):
            words = open(path).read().split()
            if words:
                return words[0], os.path.normpath(path), "dirty" in words[1:]
    return UNKNOWN, "none (no .git, no commit.txt)", None


def lease_name(lease, device):
    if lease != "auto":
        return lease
    card = re.search(r"\b([A-Z]+\d+[A-Z]*)\b", device.replace("NVIDIA", ""))
    day = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    return f"{day}-{card.group(1).lower()}" if card else UNKNOWN


def machine_provenance(lease=UNKNOWN, command=UNKNOWN, rammer=None, torch=None, root=ROOT):
    """The provenance dict (see the module's docstring). torch: a version
    already known to the caller, else this Python's is asked."""
    g = gpu()
    release, full = nvcc()
    sha, source, dirty = commit(root, rammer)
    p = {
        "lease": lease_name(lease or UNKNOWN, g["device"]),
        "commit": sha,
        "device": g["device"],
        "driver": g["driver"],
        "cuda": release if release != UNKNOWN else g["cuda_driver"],
        "torch": torch or torch_version(),
        "command": command or UNKNOWN,
        "nvcc": full,
        "cuda_driver": g["cuda_driver"],
        "gpus": g["gpus"],
        "commit_source": source,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    if dirty is not None:
        p["tree_dirty"] = dirty
    return p


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lease", default=UNKNOWN)
    ap.add_argument("--command", default=UNKNOWN)
    ap.add_argument("--rammer")
    ap.add_argument("--torch", help="a version known already (skips importing torch)")
    ap.add_argument("--root", default=ROOT)
    ap.add_argument("--write-commit", metavar="FILE", help="write the tree's commit (and 'dirty') to FILE and exit")
    a = ap.parse_args()
    if a.write_commit:
        sha, source, dirty = commit(a.root)
        if source != "git":
            sys.exit(f"provenance.py: {a.root} is not a git checkout; no commit to write")
        with open(a.write_commit, "w") as f:
            f.write(sha + (" dirty" if dirty else "") + "\n")
        print(f"{a.write_commit}: {sha}{' (tracked files differ from it)' if dirty else ''}")
        return 0
    print(json.dumps(machine_provenance(a.lease, a.command, a.rammer, a.torch, a.root), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
