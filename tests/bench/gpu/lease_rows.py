"""The committed GPU measurements, read only with their provenance (issue #43
item 1): what a number was measured on, by which commit and command, and
whether its output check passed under which rule.

Two kinds of data (format: tests/data/gpu_traces/README.md, "Provenance"):

- raw rows, docs/gpu_runs/*.jsonl: `load_rows(path)`. Every row carries
  `provenance` (a dict with every PROVENANCE_FIELDS key; a value may be
  "unknown", never missing or empty), `check` ("PASS", "FAIL", "ERROR", or
  "none" for a row that checks nothing, e.g. CUPTI counters) and
  `check_rule` (the sentence the check applied, or why nothing is checked).
- lease folders, tests/data/gpu_traces/DATE-CARD: `load_lease(folder)`.
  `provenance.json` holds the same fields for everything in the folder, and
  under `files` what differs per file (mostly the command). A row of the
  folder's row files (pytorch.jsonl, batch.jsonl, ...) carries `check` and
  `check_rule` and may carry its own `provenance`; a run's check is its
  run.json's `output_check`.

Anything without them raises ProvenanceError (a ValueError) naming the
file, the line and the missing fields: the table scripts print it and exit
non-zero rather than show a number nobody can trace.
"""
import collections
import fnmatch
import json
import lzma
import os

PROVENANCE_FIELDS = ("lease", "commit", "device", "driver", "cuda", "torch", "command")
CHECKS = ("PASS", "FAIL", "ERROR", "none")
# The oldest lease's `rammer run` (before 5682b09) judged the outputs by this
# one number; its run.json kept the tolerance and the verdict, not the rule.
OLD_RUN_RULE = ("max |diff| / max |ref| <= {tolerance} over each output against the CPU reference executor "
                "(rammer run's check)")
NEW_RUN_RULE = "{rule} for every output element against the CPU reference executor (rammer run's check)"
TRACES_KEPT = 2  # a decompressed trace can take hundreds of MB as Python lists


def short_float(x):
    """1e-3 rather than 0.001, as the rules are written; exact (1.5e-4)."""
    if not x or 1e-2 <= abs(x) < 1e4:
        return f"{x:g}"
    mantissa, exponent = f"{x:e}".split("e")
    return f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}"


class ProvenanceError(ValueError):
    """Data without its provenance or its check."""


def missing_fields(provenance):
    """The PROVENANCE_FIELDS that `provenance` lacks or leaves empty."""
    if not isinstance(provenance, dict):
        return list(PROVENANCE_FIELDS)
    return [k for k in PROVENANCE_FIELDS if not isinstance(provenance.get(k), str) or not provenance[k].strip()]


def _require_check(row, where):
    check, rule = row.get("check"), row.get("check_rule")
    if "check" not in row:
        raise ProvenanceError(f"{where}: no check (one of {', '.join(CHECKS)})")
    if check not in CHECKS:
        raise ProvenanceError(f"{where}: check {check!r} is not one of {', '.join(CHECKS)}")
    if not isinstance(rule, str) or not rule.strip():
        raise ProvenanceError(f"{where}: no check_rule (the rule the check applied, or why nothing is checked)")


def _require_provenance(provenance, where):
    missing = missing_fields(provenance)
    if missing:
        raise ProvenanceError(f"{where}: provenance lacks {', '.join(missing)}")


def _read_jsonl(path):
    """(line number, row) of every non-blank line."""
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as e:
                raise ProvenanceError(f"{path}:{n}: not a JSON row ({e})") from None
            if not isinstance(row, dict):
                raise ProvenanceError(f"{path}:{n}: not a JSON object")
            yield n, row


def provenance_text(p):
    """'commit abc1234, NVIDIA H100 80GB HBM3, driver D, CUDA C, PyTorch T':
    what a table's reader needs to know of its numbers' origin."""
    commit = p["commit"]
    if len(commit) == 40 and all(c in "0123456789abcdef" for c in commit):
        commit = commit[:7]
    return f"commit {commit}, {p['device']}, driver {p['driver']}, CUDA {p['cuda']}, PyTorch {p['torch']}"


def load_rows(path):
    """The rows of a docs/gpu_runs/*.jsonl file, each with its own
    `provenance`, `check` and `check_rule`; ProvenanceError otherwise."""
    rows = []
    for n, row in _read_jsonl(path):
        where = f"{path}:{n}"
        _require_provenance(row.get("provenance"), where)
        _require_check(row, where)
        rows.append(row)
    return rows


class Lease:
    """One tests/data/gpu_traces folder. Decompressed files are cached (runs
    and metrics all, traces the last few): treat what is returned as
    read-only, it is shared between calls."""

    def __init__(self, folder, provenance):
        self.folder = folder
        self.name = os.path.basename(os.path.normpath(folder))
        self.provenance = provenance
        self._files = {}
        self._traces = collections.OrderedDict()
        self._rows = {}

    def describe(self):
        """The folder and its provenance, for the line under a table."""
        return f"`{self.folder}` ({provenance_text(self.provenance)})"

    def _path(self, key, kind):
        return os.path.join(self.folder, "runs", f"{key}.{kind}.json.xz")

    def _load(self, key, kind):
        path = self._path(key, kind)
        if not os.path.exists(path):
            return None
        with lzma.open(path) as f:
            return json.loads(f.read())

    def keys(self):
        """The MODEL.POLICY keys that have a run.json, sorted."""
        runs = os.path.join(self.folder, "runs")
        if not os.path.isdir(runs):
            return []
        return sorted(f[:-len(".run.json.xz")] for f in os.listdir(runs) if f.endswith(".run.json.xz"))

    def _cached(self, key, kind):
        if (key, kind) not in self._files:
            self._files[(key, kind)] = self._load(key, kind)
        return self._files[(key, kind)]

    def run(self, key):
        """runs/KEY.run.json.xz (`rammer run --json`), or None."""
        return self._cached(key, "run")

    def metrics(self, key):
        """runs/KEY.metrics.json.xz (`rammer run --metrics --json`), or None.
        An empty file (the counter replays did not finish) raises ValueError."""
        return self._cached(key, "metrics")

    def trace(self, key):
        """runs/KEY.trace.json.xz (the measured trace, columns), or None."""
        if key in self._traces:
            self._traces.move_to_end(key)
            return self._traces[key]
        trace = self._load(key, "trace")
        self._traces[key] = trace
        while len(self._traces) > TRACES_KEPT:
            self._traces.popitem(last=False)
        return trace

    def file_provenance(self, filename):
        """The folder's provenance with what provenance.json's `files` says
        of FILENAME (a name or a glob such as runs/*.run.json.xz; its
        command, mostly) in place."""
        p = {k: v for k, v in self.provenance.items() if k != "files"}
        files = self.provenance.get("files", {})
        name = filename if filename in files else next((k for k in files if fnmatch.fnmatchcase(filename, k)), None)
        p.update(files.get(name, {}))
        return p

    def rows(self, filename):
        """The rows of FOLDER/FILENAME, each with a `provenance` (its own, or
        the folder's for that file), `check` and `check_rule`; [] when the
        file does not exist. (index.jsonl, record_lease.sh's task log, is
        not a row file: it has no checks, and is refused.)"""
        if filename not in self._rows:
            path = os.path.join(self.folder, filename)
            rows = []
            if os.path.exists(path):
                folder_provenance = self.file_provenance(filename)
                for n, row in _read_jsonl(path):
                    where = f"{path}:{n}"
                    row = dict(row)
                    row.setdefault("provenance", folder_provenance)
                    _require_provenance(row["provenance"], where)
                    _require_check(row, where)
                    rows.append(row)
            self._rows[filename] = rows
        return self._rows[filename]

    def run_check(self, key):
        """(result, rule) of the run's output check: ("PASS" or "FAIL", the
        sentence of the rule). run.json's `output_check` is {pass, rule, ...}
        from 5682b09 on, {max_rel_error, tolerance, pass} before."""
        run = self.run(key)
        where = self._path(key, "run")
        if run is None:
            raise ProvenanceError(f"{where}: no such run")
        check = run.get("output_check")
        if not isinstance(check, dict) or not isinstance(check.get("pass"), bool):
            raise ProvenanceError(f"{where}: no output_check (pass and its rule)")
        if isinstance(check.get("rule"), str) and check["rule"].strip():
            rule = NEW_RUN_RULE.format(rule=check["rule"])
        elif isinstance(check.get("tolerance"), (int, float)) and "max_rel_error" in check:
            rule = OLD_RUN_RULE.format(tolerance=short_float(check["tolerance"]))
        else:
            raise ProvenanceError(f"{where}: output_check has no rule (neither rule nor tolerance)")
        return ("PASS" if check["pass"] else "FAIL"), rule


def load_lease(folder):
    """The lease folder, refused (ProvenanceError) without a complete
    provenance.json."""
    path = os.path.join(folder, "provenance.json")
    if not os.path.isdir(folder):
        raise ProvenanceError(f"{folder}: not a lease folder")
    if not os.path.exists(path):
        raise ProvenanceError(f"{path}: missing; a lease folder states {', '.join(PROVENANCE_FIELDS)} there")
    try:
        with open(path) as f:
            provenance = json.load(f)
    except ValueError as e:
        raise ProvenanceError(f"{path}: not JSON ({e})") from None
    _require_provenance(provenance, path)
    files = provenance.get("files", {})
    if not isinstance(files, dict) or not all(isinstance(v, dict) for v in files.values()):
        raise ProvenanceError(f"{path}: `files` must map file names to objects of provenance fields")
    for name, fields in files.items():
        empty = [k for k in PROVENANCE_FIELDS
                 if k in fields and (not isinstance(fields[k], str) or not fields[k].strip())]
        if empty:
            raise ProvenanceError(f"{path}: files[{name!r}] leaves {', '.join(empty)} empty")
    return Lease(folder, provenance)
