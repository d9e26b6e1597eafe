#!/usr/bin/env python3
"""CUDA statements assembled from strings in the rKernel generators, held as
a ratchet while issue #44 item 1 moves every family's body into a
core/kernels/cuda/*.cuh template (the generator then writes only an
instantiation). A string literal counts when it holds a CUDA statement or
block end (";\\n", "{\\n"), a barrier, a call of the library's rammer_*
functions or a store to an output (out0[...]); every raw string literal
(R"...(...)...", the formatted bodies) counts too. A file may only lose such
literals: one that gains any, or a new generator that has any, fails, so
the tensor-core and reduced-precision families (#46) are written as
templates from the start. Lower the numbers as families move; the rule is
done when the table is empty."""
import re
import sys
from pathlib import Path

from ratchet import check

root = Path(sys.argv[1])
RAW = re.compile(r'\bR"[^(\s]*\(')
STATEMENT = re.compile(r'"(?:[^"\\]|\\.)*(?:;\\n|\{\\n|__syncthreads|rammer_\w+\(|\bout\d\[)(?:[^"\\]|\\.)*"')
# The counts at commit 8e1e95f (2026-11-28), global pooling then moved to
# global_pool.cuh; only ever lowered.
RATCHET = {
    "core/kernels/arg_kernels.cpp": 6,
    "core/kernels/attention_kernels.cpp": 8,
    "core/kernels/broadcast_reads.cpp": 4,
    "core/kernels/cell_kernels.cpp": 11,
    "core/kernels/conv_kernels.cpp": 6,
    "core/kernels/copy_kernels.cpp": 8,
    "core/kernels/elementwise_kernels.cpp": 1,
    "core/kernels/epilogue.cpp": 5,
    "core/kernels/fused_group_kernels.cpp": 42,
    "core/kernels/gather_kernels.cpp": 13,
    "core/kernels/gemm_kernels.cpp": 6,
    "core/kernels/kernel_library.cpp": 1,
    "core/kernels/kernel_source.cpp": 10,
    "core/kernels/mask_kernels.cpp": 2,
    "core/kernels/norm_kernels.cpp": 2,
    "core/kernels/pool_kernels.cpp": 17,
    "core/kernels/reduce_kernels.cpp": 21,
    "core/kernels/scan_kernels.cpp": 7,
    "core/kernels/scatter_kernels.cpp": 8,
    "core/kernels/softmax_kernels.cpp": 2,
    "core/kernels/tile_gemm.cpp": 3,
    "core/kernels/word_elementwise_kernels.cpp": 5,
}

check(root, lambda text: len(STATEMENT.findall(text)) + len(RAW.findall(text)), RATCHET,
      "string literals with CUDA statements",
      "write the body in a core/kernels/cuda/*.cuh template and emit its instantiation")
