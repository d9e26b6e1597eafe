#!/usr/bin/env python3
"""No hand-written CPU tiles in the rKernel generators (issue #44 item 2): a
kernel's math has one hand-written form, its CUDA (run on the CPU as
generated code by the host target), and the emulator takes an rTask's
numbers from the reference operator over the elements the rTask declares it
writes (RKernel::written, core/exec/reference_tiles.h). A tile is an
assignment of a lambda to a `cpu` member (`k.cpu = [`, `spec.cpu = [`,
...). 46 tiles at commit 7e1f85d (2026-11-28); the last went on 2026-11-29
(the fused group, the tiled GEMM and its split-K, the implicit-GEMM
convolution), so the table is empty and a generator that gains one fails."""
import re
import sys
from pathlib import Path

from ratchet import check

root = Path(sys.argv[1])
TILE = re.compile(r"\bcpu\s*=\s*\[")
RATCHET: dict = {}

check(root, lambda text: len(TILE.findall(text)), RATCHET, "hand-written CPU tiles",
      "declare what each rTask writes (RKernel::written) and let the emulator take the numbers from the reference "
      "operator")
