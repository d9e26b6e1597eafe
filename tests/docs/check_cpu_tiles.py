#!/usr/bin/env python3
"""Hand-written CPU tiles in the rKernel generators, held as a ratchet while
issue #44 item 2 removes them: a kernel's math has one hand-written form,
its CUDA (run on the CPU as generated code by the host target), and the
emulator takes an rTask's numbers from the reference operator over the
elements the rTask declares it writes (RKernel::written,
core/exec/reference_tiles.h). A tile is an assignment of a lambda to a
`cpu` member (`k.cpu = [`, `spec.cpu = [`, ...). A file may only lose them;
a new generator may have none. Lower the numbers as families move; the rule
is done when the table is empty."""
import re
import sys
from pathlib import Path

from ratchet import check

root = Path(sys.argv[1])
TILE = re.compile(r"\bcpu\s*=\s*\[")
# 46 tiles at commit 7e1f85d (2026-11-28); then the element-range families,
# the row families on templates (softmax, layer norm, attention, global
# pooling, the row reductions) and the empty operator's rKernel declared
# what they write instead (40 went), then the depthwise convolution and the
# recurrent GEMV cell (2026-11-29). Only ever lowered.
RATCHET = {
    "core/kernels/conv_kernels.cpp": 1,
    "core/kernels/fused_group_kernels.cpp": 1,
    "core/kernels/gemm_kernels.cpp": 2,
}

check(root, lambda text: len(TILE.findall(text)), RATCHET, "hand-written CPU tiles",
      "declare what each rTask writes (RKernel::written) and let the emulator take the numbers from the reference "
      "operator")
