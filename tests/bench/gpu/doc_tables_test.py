#!/usr/bin/env python3
"""doc_tables.py's check fails where a doc drifts from its rows (issue #43
item 2): a changed number in a generated block, a table in a lease section
that no generator writes, a broken marker. The committed doc itself is
checked by the ctest docs.performance_tables."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import doc_tables  # noqa: E402

BLOCK = "<!-- table: runs tests/data/gpu_traces/2026-11-27b-h100 -->"


class DocTables(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.docs = 0

    def tearDown(self):
        self.folder.cleanup()

    def doc(self, body):
        self.docs += 1
        path = os.path.join(self.folder.name, f"doc{self.docs}.md")
        with open(path, "w") as f:
            f.write(body)
        return path

    def generated(self):
        return "\n".join(doc_tables.generate(BLOCK[len("<!-- table: "):-len(" -->")]))

    def test_a_block_as_its_rows_give_it_passes(self):
        path = self.doc(f"## Fifth GPU lease\n\n{BLOCK}\n{self.generated()}\n<!-- /table -->\n")
        self.assertEqual(doc_tables.process(path, write=False), ([], 1))

    def test_a_changed_number_fails_and_write_restores_it(self):
        text = self.generated()
        self.assertIn("96 of 96 runs", text)
        path = self.doc(f"## Fifth GPU lease\n\n{BLOCK}\n{text.replace('96 of 96', '95 of 96')}\n<!-- /table -->\n")
        problems, _ = doc_tables.process(path, write=False)
        self.assertEqual(len(problems), 1)
        self.assertIn("differs from what its rows give", problems[0])
        self.assertIn("-95 of 96 runs", problems[0])
        doc_tables.process(path, write=True)
        self.assertEqual(doc_tables.process(path, write=False), ([], 1))

    def test_a_hand_written_table_in_a_lease_section_fails_unless_marked(self):
        table = "| model | us |\n|---|---:|\n| alexnet | 447.2 |\n"
        problems, _ = doc_tables.process(self.doc(f"## Sixth GPU lease\n\n{table}"), write=False)
        self.assertEqual(len(problems), 1)
        self.assertIn(":3: a table in a lease section that no generator writes", problems[0])
        fenced = "```\nalexnet  447.2  585.0\nresnext  2056.5  2053.8\n```\n"
        self.assertEqual(len(doc_tables.process(self.doc(f"## Sixth GPU lease\n\n{fenced}"), write=False)[0]), 1)
        marked = f"## Sixth GPU lease\n\n<!-- not from lease rows: predicted on the CPU -->\n{table}"
        self.assertEqual(doc_tables.process(self.doc(marked), write=False), ([], 0))
        elsewhere = f"## Scheduling on the CPU\n\n{table}"
        self.assertEqual(doc_tables.process(self.doc(elsewhere), write=False), ([], 0))

    def test_broken_markers_and_unknown_generators_are_errors(self):
        with self.assertRaisesRegex(doc_tables.DocError, "never closed"):
            doc_tables.process(self.doc(f"## GPU lease\n{BLOCK}\n"), write=False)
        with self.assertRaisesRegex(doc_tables.DocError, "without an opening marker"):
            doc_tables.process(self.doc("<!-- /table -->\n"), write=False)
        with self.assertRaisesRegex(doc_tables.DocError, "unknown generator in '<!-- table: guess"):
            doc_tables.process(self.doc("<!-- table: guess 1 2 -->\n<!-- /table -->\n"), write=False)
        with self.assertRaisesRegex(doc_tables.DocError, "'<!-- table: runs tests/data/gpu_traces/none -->': "
                                                         "ProvenanceError"):
            doc_tables.process(self.doc("<!-- table: runs tests/data/gpu_traces/none -->\n<!-- /table -->\n"),
                               write=False)


if __name__ == "__main__":
    unittest.main()
