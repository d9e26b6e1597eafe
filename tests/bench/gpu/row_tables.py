"""Tables of the raw rows in docs/gpu_runs/*.jsonl (the H200 leases, which
kept no traces), for doc_tables.py. Every row carries its provenance
(lease_rows.load_rows refuses one that does not); a table ends with the
provenance of the rows it shows and the rule their check applied.
"""
import argparse
import collections

import lease_rows


def spread(latency, digits):
    """'median (p10-p90)' of a row's latency_us."""
    f = f"{{:.{digits}f}}"
    return f"{f.format(latency['median'])} ({f.format(latency['p10'])}-{f.format(latency['p90'])})"


def provenance_lines(rows, source):
    """What the rows were measured on and with, one line per distinct provenance."""
    seen = collections.OrderedDict()
    for r in rows:
        seen.setdefault(lease_rows.provenance_text(r["provenance"]), []).append(r["provenance"]["command"])
    out = []
    for text, commands in seen.items():
        out.append(f"Rows: `{source}` ({text}): " + "; ".join(f"`{c}`" for c in dict.fromkeys(commands)) + ".")
    rules = sorted({r["check_rule"] for r in rows if r["check"] == "PASS"})
    if rules:
        out.append("Every number shown passed its check: " + "; ".join(rules) + ".")
    return out


def fixed_width(header, body, left=1):
    """Columns padded to their widest cell, the first `left` (names) left-aligned, the numbers right-aligned."""
    widths = [max(len(row[i]) for row in [header] + body) for i in range(len(header))]
    fmt = lambda row: "  ".join(c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))
    return [fmt(header).rstrip()] + [fmt(r).rstrip() for r in body]


def select(rows, what):
    """The rows of a column, in file order: `what` is SYSTEM[@STEP], or
    several of them joined by `|` (the first that has rows)."""
    for alternative in what.split("|"):
        system, _, step = alternative.partition("@")
        found = [r for r in rows if r["system"] == system and (not step or r.get("step") == step)]
        if found:
            return found
    return []


def cell(candidates, digits):
    """The first row that passed its check; else what went wrong."""
    for r in candidates:
        if r["check"] == "PASS" and "latency_us" in r:
            return spread(r["latency_us"], digits), r
    if any(r["check"] == "ERROR" for r in candidates):
        return "error", None
    if any(r["check"] == "FAIL" for r in candidates):
        return "FAIL", None
    return "-", None


def grid(argv):
    """grid FILE --columns "LABEL=SYSTEM[@STEP][|SYSTEM[@STEP]] ..."
    [--ratios "LABEL=A/B ..."] [--models "a b"] [--digits N]: models down,
    systems across, each cell the median latency (p10-p90) of the first row
    of that system that passed its check; `error` where the only rows failed
    to run, `-` where none ran. A ratio column divides column A's median by
    column B's (labels with `_` show it as a space)."""
    ap = argparse.ArgumentParser(prog="grid")
    ap.add_argument("file")
    ap.add_argument("--columns", required=True)
    ap.add_argument("--ratios", default="")
    ap.add_argument("--models")
    ap.add_argument("--digits", type=int, default=0)
    a = ap.parse_args(argv)
    rows = lease_rows.load_rows(a.file)
    columns = [spec.rpartition("=")[::2] for spec in a.columns.split()]
    ratios = [(label, what.split("/")) for label, what in (spec.rpartition("=")[::2] for spec in a.ratios.split())]
    models = a.models.split() if a.models else list(dict.fromkeys(r["model"] for r in rows))
    body, shown = [], []
    for m in models:
        mine = [r for r in rows if r["model"] == m]
        line, medians = [m], {}
        for label, what in columns:
            text, row = cell(select(mine, what), a.digits)
            line.append(text)
            if row:
                shown.append(row)
                medians[label] = row["latency_us"]["median"]
        for _, (x, y) in ratios:
            line.append(f"{medians[x] / medians[y]:.2f}" if x in medians and y in medians else "-")
        body.append(line)
    header = ["median us (p10-p90)"] + [c[0].replace("_", " ") for c in columns] + [r[0] for r in ratios]
    out = ["```"] + fixed_width(header, body) + ["```", ""]
    errors = [r for r in shown if "rel_l2" in r]
    if errors:
        out.append(f"Relative L2 error of the numbers shown: {min(r['rel_l2'] for r in errors):.1e} to "
                   f"{max(r['rel_l2'] for r in errors):.1e}.")
    return "\n".join(out + provenance_lines(shown, a.file))


def listing(argv):
    """rows FILE --steps "s1 s2" [--digits N]: one line per row of those
    steps that timed something: model, system, policy, latency, error."""
    ap = argparse.ArgumentParser(prog="rows")
    ap.add_argument("file")
    ap.add_argument("--steps", required=True)
    ap.add_argument("--digits", type=int, default=1)
    a = ap.parse_args(argv)
    steps = a.steps.split()
    rows = [r for r in lease_rows.load_rows(a.file) if r.get("step") in steps and "latency_us" in r]
    body = [[r["model"], r["system"], r.get("policy") or "-", spread(r["latency_us"], a.digits) if r["check"] == "PASS"
             else r["check"], f"{r['rel_l2']:.1e}" if "rel_l2" in r else "-"] for r in rows]
    out = ["```"] + fixed_width(["model", "system", "policy", "median us (p10-p90)", "rel L2"], body, left=3) + [
        "```", ""]
    return "\n".join(out + provenance_lines([r for r in rows if r["check"] == "PASS"], a.file))
