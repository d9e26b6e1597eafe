#!/usr/bin/env python3
"""PyTorch baselines for the GPU comparison (../shared/GPU.md).

Runs an ONNX sample as the PyTorch program a user would write for it: each
ONNX node becomes the matching torch call (Conv -> F.conv2d, LSTM ->
nn.LSTM, so cuDNN), weights on the GPU, float32 with TF32 off so that every
system computes in the same precision. Modes: eager, compile
(torch.compile default), reduce-overhead (torch.compile with CUDA graphs)
and max-autotune (torch.compile(mode="max-autotune"): Inductor benchmarks
kernel configurations while it compiles, and uses CUDA graphs). Each mode's
outputs are checked against the expected outputs (the project's CPU
reference) by relative L2 error before it is timed with CUDA events. Prints
one JSON line per mode: `latency_us` (the steady state: median, p10, p90,
... of --repeat runs after --warmup), `first_run_s` (from making the
callable through its first call) and, for the compile modes, `compile_s`
(the first call, which compiles and runs once; reduce-overhead records its
CUDA graph in the warm-up calls after it), `rel_l2`, and `check` ("PASS",
"FAIL", or "ERROR" with `error` where the mode broke) with `check_rule`.

Every row carries `provenance` (tests/data/gpu_traces/README.md,
"Provenance"): --provenance FILE's (tests/bench/gpu/provenance.py's JSON
of the lease machine), else asked of this machine; its `command` is this
program's command line, after FILE's command where FILE names one.

  torch_baseline.py MODEL.onnx --inputs DIR --expected DIR [--repeat N]
                    [--modes eager,compile,reduce-overhead,max-autotune] [--device cuda]
                    [--provenance FILE]
  torch_baseline.py MODEL.onnx --write-inputs DIR [--seed S]
  torch_baseline.py MODEL.onnx --compare DIR --expected DIR
                    (prints the relative L2 error of DIR's outputs)
  torch_baseline.py MODEL.onnx --inputs DIR --per-node [--repeat N]
                    (times every Conv, Gemm, MatMul and LSTM node alone on
                    the values of one eager run: one JSON line per node with
                    its FLOPs and the bytes it must move, for the per-rKernel
                    comparison with the sequential plan's measured trace;
                    `check` "none": a node's output is not compared)
"""
import argparse
import glob
import json
import os
import shlex
import sys
import time

import numpy as np
import onnx
from onnx import numpy_helper
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lease_rows import short_float  # noqa: E402
from provenance import machine_provenance  # noqa: E402


def attrs(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def pads_pair(pads, rank):
    """ONNX pads [b1..bn, e1..en] -> symmetric torch padding, or None."""
    begin, end = list(pads[:rank]), list(pads[rank:])
    return begin if begin == end else None


class Unsupported(Exception):
    pass


class OnnxInTorch:
    """The graph as torch calls; constants (initializers and Constant nodes)
    become GPU tensors or Python lists once, at construction."""

    def __init__(self, model, device):
        self.device = device
        g = model.graph
        self.consts = {t.name: torch.from_numpy(numpy_helper.to_array(t).copy()).to(device) for t in g.initializer}
        for n in g.node:
            if n.op_type == "Constant":
                self.consts[n.output[0]] = torch.from_numpy(numpy_helper.to_array(attrs(n)["value"]).copy()).to(device)
        self.inputs = [i.name for i in g.input if i.name not in self.consts]
        self.outputs = [o.name for o in g.output]
        self.nodes = [n for n in g.node if n.op_type != "Constant"]
        self.modules = torch.nn.ModuleDict()
        self.plans = [self.prepare(i, n) for i, n in enumerate(self.nodes)]

    def const_list(self, name):
        return [int(v) for v in self.consts[name].cpu().flatten().tolist()]

    def prepare(self, index, n):
        """Returns a function (values dict) -> list of outputs for node n."""
        a = attrs(n)
        op = n.op_type
        ins = list(n.input)

        def arg(i):
            return (lambda v: v[ins[i]]) if i < len(ins) and ins[i] else (lambda v: None)

        if op == "Conv":
            if a.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
                raise Unsupported("Conv auto_pad")
            rank = len(self.consts[ins[1]].shape) - 2 if ins[1] in self.consts else 2
            pad = pads_pair(a.get("pads", [0] * 2 * rank), rank)
            extra = None
            if pad is None:
                p = a["pads"]
                extra = [x for i in reversed(range(rank)) for x in (p[i], p[i + rank])]
                pad = [0] * rank
            conv = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[rank]
            stride, dil, groups = a.get("strides", [1] * rank), a.get("dilations", [1] * rank), a.get("group", 1)
            x, w, b = arg(0), arg(1), arg(2)

            def run(v):
                xi = x(v) if extra is None else F.pad(x(v), extra)
                return [conv(xi, w(v), b(v), stride, pad, dil, groups)]
            return run
        if op == "BatchNormalization":
            eps = a.get("epsilon", 1e-5)
            x, s, b, m, var = (arg(i) for i in range(5))
            return lambda v: [F.batch_norm(x(v), m(v), var(v), s(v), b(v), False, 0.0, eps)]
        if op == "Relu":
            x = arg(0)
            return lambda v: [torch.relu(x(v))]
        if op == "Add":
            x, y = arg(0), arg(1)
            return lambda v: [x(v) + y(v)]
        if op == "MatMul":
            x, y = arg(0), arg(1)
            return lambda v: [torch.matmul(x(v), y(v))]
        if op == "Gemm":
            alpha, beta = a.get("alpha", 1.0), a.get("beta", 1.0)
            ta, tb = a.get("transA", 0), a.get("transB", 0)
            x, y, c = arg(0), arg(1), arg(2)

            def run(v):
                A = x(v).t() if ta else x(v)
                B = y(v).t() if tb else y(v)
                C = c(v)
                out = alpha * (A @ B) if alpha != 1.0 else A @ B
                return [out if C is None else out + (beta * C if beta != 1.0 else C)]
            return run
        if op == "Flatten":
            axis = a.get("axis", 1)
            x = arg(0)
            return lambda v: [x(v).reshape(int(np.prod(x(v).shape[:axis])), -1)]
        if op == "GlobalAveragePool":
            x = arg(0)
            return lambda v: [x(v).mean(dim=tuple(range(2, x(v).dim())), keepdim=True)]
        if op in ("AveragePool", "MaxPool"):
            k = a["kernel_shape"]
            rank = len(k)
            stride = a.get("strides", [1] * rank)
            if a.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
                raise Unsupported(op + " auto_pad")
            pads = a.get("pads", [0] * 2 * rank)
            pad = pads_pair(pads, rank)
            # Asymmetric pads: pad explicitly, then pool with none.
            extra = None if pad is not None else [x for i in reversed(range(rank)) for x in (pads[i], pads[i + rank])]
            pad = pad if pad is not None else [0] * rank
            ceil = bool(a.get("ceil_mode", 0))
            x = arg(0)
            if op == "MaxPool":
                if a.get("dilations", [1] * rank) != [1] * rank:
                    raise Unsupported("MaxPool dilations")
                pool = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}[rank]
                if extra is None:
                    return lambda v: [pool(x(v), k, stride, pad, 1, ceil)]
                return lambda v: [pool(F.pad(x(v), extra, "constant", float("-inf")), k, stride, 0, 1, ceil)]
            pool = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}[rank]
            include = bool(a.get("count_include_pad", 0))
            if extra is None:
                return lambda v: [pool(x(v), k, stride, pad, ceil, include)]

            def run(v):
                t = F.pad(x(v), extra)
                total = pool(t, k, stride, 0, ceil, True)
                if include:
                    return [total]
                valid = pool(F.pad(torch.ones_like(x(v)[:1, :1]), extra), k, stride, 0, ceil, True)
                return [total / valid]
            return run
        if op == "Concat":
            axis = a["axis"]
            getters = [arg(i) for i in range(len(ins))]
            return lambda v: [torch.cat([g(v) for g in getters], dim=axis)]
        if op == "Pad":
            mode = a.get("mode", b"constant")
            mode = mode.decode() if isinstance(mode, bytes) else mode
            pads = self.const_list(ins[1])
            value = float(self.consts[ins[2]].item()) if len(ins) > 2 and ins[2] else 0.0
            rank = len(pads) // 2
            torch_pads = [p for i in reversed(range(rank)) for p in (pads[i], pads[i + rank])]
            x = arg(0)
            if mode == "constant":
                return lambda v: [F.pad(x(v), torch_pads, "constant", value)]
            return lambda v: [F.pad(x(v), torch_pads, mode)]
        if op == "Slice":
            starts, ends = self.const_list(ins[1]), self.const_list(ins[2])
            axes = self.const_list(ins[3]) if len(ins) > 3 and ins[3] else list(range(len(starts)))
            steps = self.const_list(ins[4]) if len(ins) > 4 and ins[4] else [1] * len(starts)
            if any(s <= 0 for s in steps):
                raise Unsupported("Slice with non-positive steps")
            x = arg(0)

            def run(v):
                t = x(v)
                index = [slice(None)] * t.dim()
                for s, e, ax, st in zip(starts, ends, axes, steps):
                    index[ax] = slice(s, min(e, t.shape[ax]), st)
                return [t[tuple(index)]]
            return run
        if op == "Reshape":
            shape = self.const_list(ins[1])
            x = arg(0)

            def run(v):
                t = x(v)
                s = [t.shape[i] if d == 0 and not a.get("allowzero", 0) else d for i, d in enumerate(shape)]
                return [t.reshape(s)]
            return run
        if op == "Squeeze":
            axes = self.const_list(ins[1]) if len(ins) > 1 and ins[1] else a.get("axes")
            x = arg(0)
            if axes is None:
                return lambda v: [x(v).squeeze()]
            return lambda v: [x(v).squeeze(tuple(axes)) if len(axes) > 1 else x(v).squeeze(axes[0])]
        if op == "Unsqueeze":
            axes = sorted(self.const_list(ins[1]) if len(ins) > 1 else a["axes"])
            x = arg(0)

            def run(v):
                t = x(v)
                for ax in axes:
                    t = t.unsqueeze(ax)
                return [t]
            return run
        if op == "Transpose":
            perm = a.get("perm")
            x = arg(0)
            return lambda v: [x(v).permute(perm) if perm else x(v).permute(*reversed(range(x(v).dim())))]
        if op == "LSTM":
            return self.prepare_lstm(index, n, a, ins)
        raise Unsupported(op)

    def prepare_lstm(self, index, n, a, ins):
        for key in ("activations", "clip", "input_forget", "layout"):
            if a.get(key):
                raise Unsupported("LSTM attribute " + key)
        if len(ins) > 4 and ins[4]:
            raise Unsupported("LSTM sequence_lens")
        if len(ins) > 7 and ins[7]:
            raise Unsupported("LSTM peepholes")
        direction = a.get("direction", b"forward")
        direction = direction.decode() if isinstance(direction, bytes) else direction
        if direction == "reverse":
            raise Unsupported("LSTM direction reverse")
        hidden = a["hidden_size"]
        W, R = self.consts[ins[1]], self.consts[ins[2]]
        B = self.consts[ins[3]] if len(ins) > 3 and ins[3] else None
        dirs = W.shape[0]
        lstm = torch.nn.LSTM(W.shape[2], hidden, bidirectional=dirs == 2).to(self.device)
        # ONNX stacks the gates i, o, f, c; PyTorch i, f, g(=c), o.
        order = [0, 2, 3, 1]

        def regate(t):
            return torch.cat([t.reshape(4, hidden, *t.shape[1:])[g] for g in order])
        with torch.no_grad():
            for d in range(dirs):
                suffix = "_l0" + ("_reverse" if d == 1 else "")
                getattr(lstm, "weight_ih" + suffix).copy_(regate(W[d]))
                getattr(lstm, "weight_hh" + suffix).copy_(regate(R[d]))
                bias = B[d] if B is not None else torch.zeros(8 * hidden, device=self.device)
                getattr(lstm, "bias_ih" + suffix).copy_(regate(bias[:4 * hidden]))
                getattr(lstm, "bias_hh" + suffix).copy_(regate(bias[4 * hidden:]))
        lstm.flatten_parameters()
        self.modules[str(index)] = lstm
        x = (lambda v: v[ins[0]])
        h0 = (lambda v: v[ins[5]]) if len(ins) > 5 and ins[5] else None
        c0 = (lambda v: v[ins[6]]) if len(ins) > 6 and ins[6] else None

        def run(v):
            X = x(v)
            state = None
            if h0 is not None or c0 is not None:
                zeros = X.new_zeros(dirs, X.shape[1], hidden)
                state = (h0(v) if h0 else zeros, c0(v) if c0 else zeros)
            Y, (h, c) = lstm(X, state)
            Y = Y.reshape(Y.shape[0], Y.shape[1], dirs, hidden).permute(0, 2, 1, 3)
            return [Y, h, c]
        return run

    def values(self, *args):
        """Every tensor of one run, by name."""
        values = dict(self.consts)
        values.update(zip(self.inputs, args))
        for n, plan in zip(self.nodes, self.plans):
            for name, t in zip(n.output, plan(values)):
                if name:
                    values[name] = t
        return values

    def __call__(self, *args):
        values = self.values(*args)
        return tuple(values[o] for o in self.outputs)


def read_pbs(folder, prefix):
    files = sorted(glob.glob(os.path.join(folder, prefix + "_*.pb")),
                   key=lambda p: int(p.rsplit("_", 1)[1].split(".")[0]))
    out = []
    for f in files:
        t = onnx.TensorProto()
        with open(f, "rb") as fh:
            t.ParseFromString(fh.read())
        out.append(numpy_helper.to_array(t))
    return out


def write_inputs(model, folder, seed):
    """Seeded inputs, floats uniform in [-1, 1] (never zeros: they hide bugs)."""
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(seed)
    inits = {t.name for t in model.graph.initializer}
    k = 0
    for i in model.graph.input:
        if i.name in inits:
            continue
        shape = [d.dim_value if d.dim_value > 0 else 1 for d in i.type.tensor_type.shape.dim]
        if i.type.tensor_type.elem_type != onnx.TensorProto.FLOAT:
            raise Unsupported("input %s is not float32" % i.name)
        arr = rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)
        with open(os.path.join(folder, "input_%d.pb" % k), "wb") as fh:
            fh.write(numpy_helper.from_array(arr, i.name).SerializeToString())
        k += 1


def rel_l2(out, ref):
    out = np.asarray(out, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    if out.shape != ref.shape:
        return float("inf")
    if not np.all(np.isfinite(out)):
        return float("nan")
    return float(np.linalg.norm(out - ref) / max(np.linalg.norm(ref), 1e-30))


def time_events(fn, args, repeat, warmup):
    for _ in range(warmup):
        fn(*args)
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    times = []
    for _ in range(repeat):
        if not torch.cuda.is_available():  # a dry run on the CPU: wall time
            began = time.perf_counter()
            fn(*args)
            times.append((time.perf_counter() - began) * 1e6)
            continue
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn(*args)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000.0)
    times.sort()
    q = lambda f: times[min(len(times) - 1, int(f * len(times)))]
    return {"median": q(0.5), "p10": q(0.1), "p90": q(0.9), "min": times[0], "max": times[-1], "runs": repeat}


PER_NODE_OPS = ("Conv", "Gemm", "MatMul", "LSTM")


def node_work(n, values):
    """(FLOPs, bytes): multiply-adds count two; each input read once, each output written once."""
    ins = [values[i] for i in n.input if i]
    outs = [values[o] for o in n.output if o]
    moved = sum(t.numel() * t.element_size() for t in ins + outs)
    a = attrs(n)
    y = outs[0]
    if n.op_type == "Conv":
        w = ins[1]
        return 2 * y.numel() * int(np.prod(w.shape[1:])), moved
    if n.op_type == "Gemm":
        k = ins[0].shape[0] if a.get("transA", 0) else ins[0].shape[-1]
        return 2 * y.numel() * int(k), moved
    if n.op_type == "MatMul":
        return 2 * y.numel() * int(ins[0].shape[-1]), moved
    if n.op_type == "LSTM":
        x, w, r = ins[0], ins[1], ins[2]
        steps, batch = x.shape[0], x.shape[1]
        return 2 * steps * batch * w.shape[0] * w.shape[1] * (w.shape[2] + r.shape[2]), moved
    return 0, moved


CHECK_RULE = ("relative L2 error <= {tolerance} of every output against the expected outputs (--expected: the CPU "
              "reference executor's on the same inputs)")
NODE_RULE = ("one node timed alone on the values of an eager run (torch_baseline.py --per-node): its output is not "
             "compared; the whole model's eager output is checked by --modes eager")
# torch.compile's keyword arguments per mode.
COMPILE_MODES = {"compile": {}, "reduce-overhead": {"mode": "reduce-overhead"},
                 "max-autotune": {"mode": "max-autotune"}}


def row_provenance(path):
    """The rows' provenance: FILE's (or this machine's), with this command."""
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    me = os.path.abspath(sys.argv[0])
    own = shlex.join([os.path.relpath(me, here) if me.startswith(here + os.sep) else sys.argv[0]] + sys.argv[1:])
    if path:
        with open(path) as f:
            p = json.load(f)
    else:
        p = machine_provenance(torch=torch.__version__)
    caller = p.get("command")
    p["command"] = f"{caller}, running: {own}" if caller and caller != "unknown" else own
    return p


def per_node(net, inputs, name, repeat, warmup, provenance):
    with torch.no_grad():
        values = net.values(*inputs)
        for n, plan in zip(net.nodes, net.plans):
            if n.op_type not in PER_NODE_OPS:
                continue
            flops, moved = node_work(n, values)
            lat = time_events(lambda: plan(values), [], repeat, warmup)
            us = lat["median"]
            print(json.dumps({"model": name, "node": n.name or n.output[0], "op": n.op_type,
                              "shape": list(values[n.output[0]].shape), "flops": flops, "bytes": moved,
                              "latency_us": lat, "gflops": flops / us / 1e3, "gbps": moved / us / 1e3,
                              "provenance": provenance, "check": "none", "check_rule": NODE_RULE}), flush=True)
    return 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("model")
    p.add_argument("--inputs")
    p.add_argument("--expected")
    p.add_argument("--write-inputs")
    p.add_argument("--compare")
    p.add_argument("--per-node", action="store_true")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--repeat", type=int, default=200)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--modes", default="eager,compile,reduce-overhead")
    p.add_argument("--device", default="cuda")
    p.add_argument("--tolerance", type=float, default=1e-4)
    p.add_argument("--provenance", help="provenance.py's JSON of the machine, for every row")
    args = p.parse_args()
    if args.compare:
        got, want = read_pbs(args.compare, "output"), read_pbs(args.expected, "output")
        errs = [rel_l2(g, w) for g, w in zip(got, want)] if len(got) == len(want) else [float("inf")]
        print(json.dumps({"rel_l2": max(errs) if errs else float("nan"),
                          "pass": bool(errs) and all(e <= args.tolerance for e in errs)}))
        return 0
    model = onnx.load(args.model)
    if args.write_inputs:
        write_inputs(model, args.write_inputs, args.seed)
        return 0
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    name = os.path.basename(args.model).rsplit(".", 1)[0]
    provenance = row_provenance(args.provenance)
    rule = CHECK_RULE.format(tolerance=short_float(args.tolerance))
    try:
        net = OnnxInTorch(model, args.device)
        inputs = [torch.from_numpy(x.copy()).to(args.device) for x in read_pbs(args.inputs, "input")]
    except Unsupported as e:
        print(json.dumps({"model": name, "error": "unsupported: %s" % e, "provenance": provenance, "check": "ERROR",
                          "check_rule": rule}))
        return 1
    except (RuntimeError, AssertionError) as e:  # e.g. a torch without CUDA: a row that says so, not a traceback
        why = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:200] if str(e) else "")
        systems = ["per-node"] if args.per_node else ["pytorch-" + m for m in args.modes.split(",")]
        for system in systems:
            print(json.dumps({"model": name, "system": system, "torch": torch.__version__, "error": why,
                              "provenance": provenance, "check": "ERROR", "check_rule": rule}))
        return 1
    if args.per_node:
        return per_node(net, inputs, name, args.repeat, args.warmup, provenance)
    expected = read_pbs(args.expected, "output")
    status = 0
    for mode in args.modes.split(","):
        row = {"model": name, "system": "pytorch-" + mode, "torch": torch.__version__}
        try:
            began = time.time()
            if mode == "eager":
                fn = net
            elif mode in COMPILE_MODES:
                fn = torch.compile(net, **COMPILE_MODES[mode])  # compiles lazily, in the first call
            else:
                raise ValueError("unknown mode " + mode)
            with torch.no_grad():
                first = time.time()
                outs = fn(*inputs)
                if args.device == "cuda":
                    torch.cuda.synchronize()
                row["first_run_s"] = round(time.time() - began, 2)
                if mode in COMPILE_MODES:
                    row["compile_s"] = round(time.time() - first, 2)
                errs = [rel_l2(o.detach().cpu().numpy(), e) for o, e in zip(outs, expected)]
                row["rel_l2"] = max(errs) if errs else float("nan")
                row["check"] = "PASS" if len(errs) == len(expected) and all(e <= args.tolerance for e in errs) else "FAIL"
                if row["check"] != "PASS":
                    status = 1
                if args.device == "cuda":
                    row["latency_us"] = time_events(fn, inputs, args.repeat, args.warmup)
        except Exception as e:  # a mode that breaks is reported, the others still run
            row["error"] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:200] if str(e) else "")
            row["check"] = "ERROR"
            status = 1
        row.update(provenance=provenance, check=row.get("check", "ERROR"), check_rule=rule)
        print(json.dumps(row), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
