"""Tables that set a lease's measurements beside numbers computed from them
on the CPU (a cost model's predictions, fitted efficiencies), for
doc_tables.py. The measured side is read from the lease folder
(lease_rows.load_lease); the computed side from docs/gpu_runs/derived/*.jsonl,
whose rows say which commit computed them, with which command and model,
and where they were taken from (`provenance`): a prediction belongs to the
code of its commit, so it is kept as it was made, not remade by today's
build.
"""
import argparse
import json
import statistics

import dynamic_table
import lease_rows
from row_tables import fixed_width

DERIVED_FIELDS = ("lease", "commit", "command", "source")


def load_derived(path):
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            row = json.loads(line)
            p = row.get("provenance") or {}
            missing = [k for k in DERIVED_FIELDS if not p.get(k)]
            if missing:
                raise lease_rows.ProvenanceError(f"{path}:{n}: the computed row lacks provenance {', '.join(missing)}")
            rows.append(row)
    return rows


def derived_line(rows, path):
    p = rows[0]["provenance"]
    model = f" ({p['model']})" if p.get("model") else ""
    return f"Computed: `{path}`, at commit {p['commit']}{model}: `{p['command']}`; {p['source']}."


def lease_line(lease):
    return f"Measured: {lease.describe()}."


def measured(lease, key):
    """The run's median latency, or None when it did not pass its check."""
    run = lease.run(key)
    if run is None or lease.run_check(key)[0] != "PASS":
        return None
    return run["latency_us"]


def pct(x):
    return f"{x:+.0%}"


def error_summary(errors, label):
    a = [abs(e) for e in errors]
    return (f"{len(a)} {label}: median |error| {statistics.median(a):.1%}, largest {max(a):.1%}, "
            f"median signed {statistics.median(errors):+.1%}.")


def rtasks(trace):
    return len(trace["tasks"]["op"])


def lease_and_computed(prog, argv):
    """LEASE_DIR --predicted FILE: the lease, the computed rows and their file."""
    ap = argparse.ArgumentParser(prog=prog)
    ap.add_argument("lease")
    ap.add_argument("--predicted", required=True)
    a = ap.parse_args(argv)
    return lease_rows.load_lease(a.lease), load_derived(a.predicted), a.predicted


def lease_predictions(argv):
    """lease LEASE_DIR --predicted FILE: every run of a lease with its
    registers, spills and traced rTasks, beside the prediction of the same
    plan (third lease, issue #28)."""
    lease, computed, source = lease_and_computed("lease", argv)
    predicted = {r["key"]: r["predicted_us"] for r in computed}
    body, errors = [], []
    for key in lease.keys():
        model, policy = key.rsplit(".", 1)
        run, lat = lease.run(key), measured(lease, key)
        pred = predicted.get(key)
        err = "-"
        if lat and pred is not None:
            errors.append((pred - lat["median"]) / lat["median"])
            err = pct(errors[-1])
        body.append([model, policy, f"{lat['median']:.1f}" if lat else "FAIL",
                     f"{lat['p10']:.0f}-{lat['p90']:.0f}" if lat else "-", str(run["max_registers"]),
                     str(run["spill_store_bytes"]), str(rtasks(lease.trace(key))),
                     f"{pred:.1f}" if pred is not None else "-", err])
    header = ["model", "policy", "measured_us", "p10-p90", "regs", "spill_B", "rTasks", "predicted_us", "error"]
    out = ["```"] + fixed_width(header, body, left=2) + ["", error_summary(errors, "plans predicted"), "```", ""]
    return "\n".join(out + [lease_line(lease), derived_line(computed, source)])


def fit(argv):
    """fit FILE [--digits N]: a fit of the rKernel families' efficiencies."""
    ap = argparse.ArgumentParser(prog="fit")
    ap.add_argument("file")
    ap.add_argument("--digits", type=int, default=3)
    a = ap.parse_args(argv)
    rows = load_derived(a.file)
    count = "shapes" if "shapes" in rows[0] else "ops"
    f = f"{{:.{a.digits}f}}"
    body = [[r["family"], str(r[count]), f.format(r["efficiency"]), f.format(r["p10"]), f.format(r["p90"])]
            for r in rows]
    out = ["```"] + fixed_width(["family", count, "efficiency", "p10", "p90"], body) + ["```", ""]
    return "\n".join(out + [derived_line(rows, a.file)])


def misranked(pairs):
    """Pairs of runs of one model measured more than 10% apart whose
    predictions order them the other way round: [(key, key)]."""
    out = []
    for i, (ka, ma, pa) in enumerate(pairs):
        for kb, mb, pb in pairs[i + 1:]:
            if ka.split(".")[0] != kb.split(".")[0] or max(ma, mb) < 1.1 * min(ma, mb):
                continue
            if (ma < mb) != (pa < pb):
                out.append((ka, kb))
    return out


def calibrated(argv):
    """calibrated LEASE_DIR --predicted FILE: the held-out runs against a
    calibrated and the analytic model (issue #28)."""
    lease, computed, source = lease_and_computed("calibrated", argv)
    out = ["| plan | measured us | calibrated us | error | analytic us | error |", "|---|---:|---:|---:|---:|---:|"]
    cal, ana, pairs = [], [], []
    for r in computed:
        lat = measured(lease, r["key"])["median"]
        cal.append((r["calibrated_us"] - lat) / lat)
        ana.append((r["analytic_us"] - lat) / lat)
        pairs.append((r["key"], lat, r["calibrated_us"]))
        out.append(f"| {r['key']} | {lat:.1f} | {r['calibrated_us']:.1f} | {pct(cal[-1])} | {r['analytic_us']:.1f} | "
                   f"{pct(ana[-1])} |")
    wrong = misranked(pairs)
    out += ["", f"{error_summary(cal, 'held-out runs, calibrated')} Analytic: median |error| "
            f"{statistics.median(abs(e) for e in ana):.1%}. Pairs of one model measured more than 10% apart and "
            f"predicted the other way round: {len(wrong)}" + (f" ({', '.join(f'{x} / {y}' for x, y in wrong)})."
                                                              if wrong else "."), ""]
    return "\n".join(out + [lease_line(lease), derived_line(computed, source)])


def calibrated_dynamic(argv):
    """calibrated-dynamic LEASE_DIR --predicted FILE: each model's dynamic
    and wavefront runs against the calibrated model (issue #31 item 5)."""
    lease, computed, source = lease_and_computed("calibrated-dynamic", argv)
    out = ["| model | measured dynamic / wavefront | calibrated: wavefront us (error) | dynamic us (error) | "
           "dynamic / wavefront | analytic: dynamic / wavefront |", "|---|---:|---:|---:|---:|---:|"]
    dyn_errors, apart, right = [], 0, 0
    for r in computed:
        w = measured(lease, r["model"] + ".wavefront")["median"]
        d = measured(lease, r["model"] + ".dynamic")["median"]
        cw, cd = r["wavefront_calibrated_us"], r["dynamic_calibrated_us"]
        dyn_errors.append((cd - d) / d)
        if max(w, d) > 1.1 * min(w, d):
            apart += 1
            right += (d < w) == (cd < cw)
        out.append(f"| {r['model']} | {d / w:.2f}x | {cw:,.1f} ({pct((cw - w) / w)}) | {cd:,.1f} ({pct(dyn_errors[-1])}) "
                   f"| {cd / cw:.2f}x | {r['analytic_dynamic_over_wavefront']:.2f}x |")
    out += ["", f"{error_summary(dyn_errors, 'dynamic runs, calibrated')} Of the {apart} models whose two runs "
            f"measured more than 10% apart, {right} are ranked right.", ""]
    return "\n".join(out + [lease_line(lease), derived_line(computed, source)])


def same_kernels(a, b):
    """'yes' when every operator (by name) ran the same rKernel in both
    traces, else how many of them did not."""
    kernels = [{t["ops"][i]: t["kernels"][i] for i in t["kernels"]} for t in (a, b)]
    names = set(kernels[0]) | set(kernels[1])
    differ = sum(kernels[0].get(n) != kernels[1].get(n) for n in names)
    return "yes" if not differ else f"no ({differ} of {len(names)} ops)"


def before_after(argv):
    """before-after --measured "LABEL=LEASE_DIR:POLICY ..." [--ratio "A/B"]
    [--predicted FILE --columns "LABEL=FIELD[:NOTEFIELD] ..."] [--traces] --models "a b":
    one model per row, measured latencies of several leases (or policies)
    and computed columns side by side. --traces adds, from the first two
    measured runs' traces, whether every operator ran the same rKernel in
    both (else how many did not) and each run's median gap between a vEU's
    rTasks of different operators (barrier hand-offs and waits)."""
    ap = argparse.ArgumentParser(prog="before-after")
    ap.add_argument("--measured", required=True)
    ap.add_argument("--predicted")
    ap.add_argument("--columns", default="")
    ap.add_argument("--ratio")
    ap.add_argument("--traces", action="store_true")
    ap.add_argument("--models", required=True)
    a = ap.parse_args(argv)
    leases, cols = {}, []
    for spec in a.measured.split():
        label, _, where = spec.partition("=")
        folder, _, policy = where.rpartition(":")
        leases.setdefault(folder, lease_rows.load_lease(folder))
        cols.append((label, "measured", (leases[folder], policy)))
    computed = load_derived(a.predicted) if a.predicted else []
    by_model = {r["model"]: r for r in computed}
    for spec in a.columns.split():
        label, _, field = spec.partition("=")
        cols.append((label, "computed", tuple(field.split(":"))))
    ratio_label, _, ratio = (a.ratio or "").rpartition("=")
    runs = [what for _, kind, what in cols if kind == "measured"][:2]
    header = ["model"] + [c[0].replace("_", " ") for c in cols] + (
        [(ratio_label or ratio).replace("_", " ")] if ratio else []) + (
        ["same rKernels", "gap between ops, us"] if a.traces else [])
    out = ["| " + " | ".join(header) + " |", "|---" + "|---:" * (len(header) - 1) + "|"]
    for m in a.models.split():
        cells, values = [m], {}
        for label, kind, what in cols:
            if kind == "measured":
                lat = measured(what[0], f"{m}.{what[1]}")
                values[label] = lat["median"] if lat else None
                cells.append(f"{lat['median']:,.1f}" if lat else "-")
            else:
                r = by_model.get(m, {})
                v = r.get(what[0])
                note = r.get(what[1]) if len(what) > 1 else None
                text = "-" if v is None else f"{v:,}" if isinstance(v, int) else f"{v:,.1f}"
                cells.append(text + (f" ({note})" if note and v is not None else ""))
        if ratio:
            x, y = ratio.split("/")
            ok = values.get(x) and values.get(y)
            cells.append(f"{values[x] / values[y]:.2f}x" if ok else "-")
        if a.traces:
            traces = [lease.trace(f"{m}.{policy}") for lease, policy in runs]
            cells += ["-", "-"] if None in traces else [same_kernels(*traces), " / ".join(
                f"{statistics.median(dynamic_table.gaps(t)[1]) / 1e3:.1f}" for t in traces)]
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    out += [lease_line(lease) for lease in leases.values()]
    if computed:
        out.append(derived_line(computed, a.predicted))
    return "\n".join(out)
