#!/usr/bin/env python3
"""lease_rows.py refuses GPU data without its provenance or check (issue #43
item 1), naming the file, the line and the field; reads both output-check
formats of run.json; gives a lease's rows the folder's provenance; and what
provenance.py writes on a lease machine is complete enough to be read.
Temporary files only; runs in well under a second."""
import json
import lzma
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lease_rows  # noqa: E402
from provenance import machine_provenance  # noqa: E402

PROVENANCE = {"lease": "2026-12-01-h100", "commit": "0" * 40, "device": "NVIDIA H100 80GB HBM3",
              "driver": "580.159.04", "cuda": "13.0", "torch": "unknown", "command": "tests/bench/gpu/x.sh 1",
              "note": "torch not recorded"}
ROW = {"model": "alexnet", "system": "rammer", "latency_us": {"median": 1.0}, "provenance": PROVENANCE,
       "check": "PASS", "check_rule": "relative L2 error <= 1e-4 against the CPU reference executor"}


class Files(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def rows_file(self, *rows):
        path = os.path.join(self.dir, "rows.jsonl")
        with open(path, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)
        return path

    def lease(self, provenance=PROVENANCE, files=None, runs=None):
        folder = os.path.join(self.dir, "2026-12-01-h100")
        os.makedirs(os.path.join(folder, "runs"))
        if provenance is not None:
            with open(os.path.join(folder, "provenance.json"), "w") as f:
                json.dump(provenance, f)
        for name, rows in (files or {}).items():
            with open(os.path.join(folder, name), "w") as f:
                f.writelines(json.dumps(r) + "\n" for r in rows)
        for key, run in (runs or {}).items():
            with lzma.open(os.path.join(folder, "runs", key + ".run.json.xz"), "wt") as f:
                json.dump(run, f)
        return folder

    def refused(self, call, *words):
        with self.assertRaises(lease_rows.ProvenanceError) as e:
            call()
        for w in words:
            self.assertIn(w, str(e.exception))
        return str(e.exception)


class RawRows(Files):
    def test_a_complete_row_loads(self):
        self.assertEqual(lease_rows.load_rows(self.rows_file(ROW, ROW))[1]["check"], "PASS")

    def test_a_row_without_provenance_is_refused_naming_file_and_line(self):
        bare = {k: v for k, v in ROW.items() if k != "provenance"}
        path = self.rows_file(ROW, bare)
        message = self.refused(lambda: lease_rows.load_rows(path), f"{path}:2", "provenance lacks", "commit", "device")
        self.assertIn(", ".join(lease_rows.PROVENANCE_FIELDS), message)

    def test_a_missing_or_empty_field_is_named(self):
        for field, value in (("commit", None), ("driver", ""), ("torch", "  ")):
            p = dict(PROVENANCE)
            p.pop(field) if value is None else p.update({field: value})
            path = self.rows_file(dict(ROW, provenance=p))
            message = self.refused(lambda: lease_rows.load_rows(path), f"{path}:1", field)
            self.assertNotIn("device", message)

    def test_unknown_is_a_value(self):
        p = dict(PROVENANCE, commit="unknown")
        self.assertEqual(lease_rows.load_rows(self.rows_file(dict(ROW, provenance=p)))[0]["provenance"]["commit"],
                         "unknown")

    def test_check_and_rule_are_required(self):
        path = self.rows_file({k: v for k, v in ROW.items() if k != "check"})
        self.refused(lambda: lease_rows.load_rows(path), "no check")
        path = self.rows_file(dict(ROW, check="NOT RUN"))
        self.refused(lambda: lease_rows.load_rows(path), "'NOT RUN' is not one of")
        path = self.rows_file(dict(ROW, check_rule=""))
        self.refused(lambda: lease_rows.load_rows(path), "no check_rule")
        path = self.rows_file(dict(ROW, check="none", check_rule="CUPTI counters: nothing is compared"))
        self.assertEqual(lease_rows.load_rows(path)[0]["check"], "none")


class LeaseFolders(Files):
    def test_a_folder_without_provenance_json_is_refused(self):
        folder = self.lease(provenance=None)
        self.refused(lambda: lease_rows.load_lease(folder), "provenance.json", "missing", "commit")

    def test_an_incomplete_provenance_json_is_refused_naming_the_field(self):
        folder = self.lease(provenance={k: v for k, v in PROVENANCE.items() if k != "cuda"})
        message = self.refused(lambda: lease_rows.load_lease(folder), "provenance.json", "cuda")
        self.assertNotIn("driver", message)

    def test_rows_take_the_folders_provenance_and_its_per_file_command(self):
        p = dict(PROVENANCE, files={"batch.jsonl": {"command": "tests/bench/gpu/batch.sh 270"}})
        own = dict(PROVENANCE, command="by hand")
        bare = {k: v for k, v in ROW.items() if k != "provenance"}
        lease = lease_rows.load_lease(self.lease(p, files={"batch.jsonl": [bare, dict(bare, provenance=own)],
                                                           "pytorch.jsonl": [bare]}))
        batch = lease.rows("batch.jsonl")
        self.assertEqual(batch[0]["provenance"]["command"], "tests/bench/gpu/batch.sh 270")
        self.assertEqual(batch[0]["provenance"]["device"], PROVENANCE["device"])
        self.assertEqual(batch[1]["provenance"]["command"], "by hand")
        self.assertEqual(lease.rows("pytorch.jsonl")[0]["provenance"]["command"], PROVENANCE["command"])
        self.assertEqual(lease.rows("sanitizers.jsonl"), [])

    def test_a_lease_row_without_its_check_is_refused(self):
        bare = {k: v for k, v in ROW.items() if k not in ("provenance", "check_rule")}
        lease = lease_rows.load_lease(self.lease(files={"pytorch.jsonl": [bare]}))
        self.refused(lambda: lease.rows("pytorch.jsonl"), "pytorch.jsonl:1", "check_rule")

    def test_a_rows_own_incomplete_provenance_is_refused(self):
        row = dict(ROW, provenance={"lease": "x"})
        lease = lease_rows.load_lease(self.lease(files={"pytorch.jsonl": [row]}))
        self.refused(lambda: lease.rows("pytorch.jsonl"), "pytorch.jsonl:1", "commit")

    def test_run_check_reads_both_formats_and_refuses_none(self):
        runs = {"a.wavefront": {"output_check": {"pass": True, "rule": "|diff| <= 1e-05 x max(1, max|ref|)"}},
                "a.sequential": {"output_check": {"max_rel_error": 2e-3, "tolerance": 1e-3, "pass": False}},
                "a.greedy": {"latency_us": {}}}
        lease = lease_rows.load_lease(self.lease(runs=runs))
        self.assertEqual(lease.keys(), ["a.greedy", "a.sequential", "a.wavefront"])
        result, rule = lease.run_check("a.wavefront")
        self.assertEqual(result, "PASS")
        self.assertIn("|diff| <= 1e-05 x max(1, max|ref|)", rule)
        result, rule = lease.run_check("a.sequential")
        self.assertEqual(result, "FAIL")
        self.assertIn("<= 1e-3 over each output", rule)
        self.refused(lambda: lease.run_check("a.greedy"), "a.greedy.run.json.xz", "output_check")
        self.assertIsNone(lease.run("a.dynamic"))
        self.assertIsNone(lease.trace("a.wavefront"))
        self.assertIsNone(lease.metrics("a.wavefront"))

    def test_the_table_scripts_exit_with_the_message(self):
        folder = self.lease(provenance=None)
        for script in ("e2e_table.py", "dynamic_table.py", "rkernel_table.py"):
            p = subprocess.run([sys.executable, os.path.join(HERE, script), folder], capture_output=True, text=True)
            self.assertNotEqual(p.returncode, 0, script)
            self.assertIn("provenance.json: missing", p.stderr, script)


class Writer(unittest.TestCase):
    def test_what_provenance_py_writes_is_complete(self):
        p = machine_provenance(lease="2026-12-01-h100", command="tests/bench/gpu/record_lease.sh --seconds 1",
                               torch="none")
        self.assertEqual(lease_rows.missing_fields(p), [])
        self.assertEqual(p["torch"], "none")


if __name__ == "__main__":
    unittest.main()
