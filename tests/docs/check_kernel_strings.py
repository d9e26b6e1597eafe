#!/usr/bin/env python3
"""CUDA statements assembled from strings in the rKernel generators: none
since issue #44 item 1 moved every family's body into a
core/kernels/cuda/*.cuh template (a generator writes only an
instantiation); the ratchet that held them while they moved is empty, so
any such literal fails. A string literal counts when it holds a CUDA statement or
block end (";\\n", "{\\n"), a barrier, a call of the library's rammer_*
functions or a store to an output (out0[...]); every raw string literal
(R"...(...)...", the formatted bodies) counts too. A generator that has
any fails, so the tensor-core and reduced-precision families (#46) are
written as templates from the start. core/kernels/instantiation.cpp is the
instantiation writer, the one file allowed to print CUDA text (a template's
call, the local types of an expression or a table reader, tables)."""
import re
import sys
from pathlib import Path

from ratchet import check

root = Path(sys.argv[1])
RAW = re.compile(r'\bR"[^(\s]*\(')
STATEMENT = re.compile(r'"(?:[^"\\]|\\.)*(?:;\\n|\{\\n|__syncthreads|rammer_\w+\(|\bout\d\[)(?:[^"\\]|\\.)*"')
WRITER = "core/kernels/instantiation.cpp"
# The counts at commit 8e1e95f (2026-11-28), global pooling then moved to
# global_pool.cuh, then window pooling, the reductions, Gather,
# GatherElements, ArgMax/ArgMin, Trilu, CumSum, ScatterND and the
# element-wise families to templates and the attention, softmax, layer norm
# and empty instantiations to the writer, then the recurrent cells and the
# word operators' arithmetic, then the fused group, then the GEMM family
# (tiles, split-K, GEMV, implicit-GEMM and depthwise convolution:
# gemm_rtask.cuh, gemv_rtask.cuh, conv_depthwise.cuh), then the copies
# (copy.cuh; 2026-11-29): empty.
RATCHET = {}

check(root, lambda text: len(STATEMENT.findall(text)) + len(RAW.findall(text)), RATCHET,
      "string literals with CUDA statements",
      "write the body in a core/kernels/cuda/*.cuh template and emit its instantiation", exempt=(WRITER,))
