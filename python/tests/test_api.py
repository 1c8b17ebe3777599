"""gpuwhy's Python API against the real binary, on a synthetic trace the binary writes."""

import html
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import support  # noqa: F401  (puts the checkout's package on sys.path)
import gpuwhy
from gpuwhy import _binary


class ApiTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        os.environ["GPUWHY_BIN"] = support.binary()
        cls.tmp = tempfile.TemporaryDirectory(prefix="gpuwhy-py-")
        cls.trace = os.path.join(cls.tmp.name, "input.json")
        done = support.gpuwhy("synth", "--scenario", "input-bound", "--steps", "8", "-o",
                              cls.trace)
        assert done.returncode == 0, done.stderr

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_paths_that_look_like_flags_stay_paths(self):
        # A file named "-onotes.txt" is analysed (and refused), not taken for `-o notes.txt`.
        cwd = os.getcwd()
        with tempfile.TemporaryDirectory() as tmp:
            notes = os.path.join(tmp, "notes.txt")
            with open(notes, "w") as f:
                f.write("mine\n")
            os.chdir(tmp)
            try:
                with self.assertRaises(gpuwhy.GpuwhyError) as caught:
                    gpuwhy.analyze(["-onotes.txt", self.trace])
                with self.assertRaises(gpuwhy.GpuwhyError):
                    gpuwhy.report_html(["-onotes.txt"])
            finally:
                os.chdir(cwd)
            with open(notes) as f:
                self.assertEqual(f.read(), "mine\n")
        self.assertIn("-onotes.txt", caught.exception.message)

    def test_analyze_returns_the_json_report(self):
        report = gpuwhy.analyze(self.trace, top=3)
        self.assertIsInstance(report, dict)
        self.assertEqual(report["schema_version"], 1)
        self.assertEqual(len(report["ranks"]), 1)
        self.assertEqual(report["ranks"][0]["path"], self.trace)
        self.assertGreater(report.metric("step.dataloader_pct"), 30)

    def test_diagnose_returns_finding_dataclasses(self):
        findings = gpuwhy.diagnose(self.trace)
        self.assertTrue(findings)
        first = findings[0]
        self.assertIsInstance(first, gpuwhy.Finding)
        self.assertEqual(first.id, "input.dataloader_wait")
        self.assertEqual(first.bottleneck_class, "input")
        self.assertGreater(first.recoverable_ms_per_step, 10)
        self.assertTrue(first.fixes and isinstance(first.fixes[0], gpuwhy.Fix))
        self.assertTrue(any(e.id == "step.dataloader_pct" for e in first.evidence))

    def test_options_become_flags(self):
        # A threshold above the DataLoader's share silences the rule: --set reached the binary.
        findings = gpuwhy.diagnose(
            self.trace, set={"input.dataloader_wait.min_step_pct": 99,
                             "input.dataloader_wait.high_pct": 99.5})
        self.assertNotIn("input.dataloader_wait", [f.id for f in findings])
        self.assertEqual(_binary.flags({"fail_on": "high", "strict": True, "top": 5,
                                        "set": {"a.b": 1}, "skip": None, "x": False}),
                         ["--fail-on", "high", "--strict", "--top", "5", "--set", "a.b=1"])

    def test_fail_on_raises_with_the_report(self):
        with self.assertRaises(gpuwhy.GpuwhyError) as caught:
            gpuwhy.analyze(self.trace, fail_on="medium")
        self.assertEqual(caught.exception.exit_code, 1)
        self.assertIsNotNone(caught.exception.report)

    def test_unusable_input_raises_one_line_and_exit_2(self):
        bad = os.path.join(self.tmp.name, "notes.txt")
        Path(bad).write_text("hello\n")
        with self.assertRaises(gpuwhy.GpuwhyError) as caught:
            gpuwhy.analyze(bad)
        self.assertEqual(caught.exception.exit_code, 2)
        self.assertIn(bad, caught.exception.message)
        self.assertNotIn("\n", caught.exception.message)

    def test_diff_and_html(self):
        d = gpuwhy.diff(self.trace, self.trace)
        self.assertIsInstance(d, dict)
        self.assertIn("verdict", str(d.keys()) + str(d))
        page = gpuwhy.report_html(self.trace)
        self.assertIn("<html", page.lower())
        self.assertIn("input.dataloader_wait", page)
        # In a notebook the page sits in its own frame: its styles neither leak into the
        # notebook nor overflow the cell, and it is the same page.
        cell = gpuwhy.analyze(self.trace)._repr_html_()
        self.assertTrue(cell.startswith('<iframe class="gpuwhy-report"'), cell[:200])
        self.assertIn("width:100%", cell)
        self.assertNotIn("<style", cell)
        self.assertNotIn("<html", cell.lower())
        srcdoc = cell[cell.index('srcdoc="') + 8:cell.rindex('"></iframe>')]
        self.assertNotIn('"', srcdoc)
        self.assertEqual(html.unescape(srcdoc), page)

    def test_missing_binary_says_how_to_get_it(self):
        saved = dict(os.environ)
        try:
            os.environ["GPUWHY_BIN"] = "/nonexistent/gpuwhy"
            with self.assertRaises(gpuwhy.GpuwhyError) as caught:
                gpuwhy.analyze(self.trace)
            self.assertEqual(caught.exception.exit_code, 127)
            del os.environ["GPUWHY_BIN"]
            os.environ["PATH"] = self.tmp.name
            with self.assertRaises(gpuwhy.GpuwhyError) as caught:
                gpuwhy.find_binary()
            self.assertIn("GPUWHY_BIN", caught.exception.message)
            self.assertIn("PATH", caught.exception.message)
        finally:
            os.environ.clear()
            os.environ.update(saved)

    def test_found_on_path(self):
        saved = dict(os.environ)
        built = support.binary()
        try:
            del os.environ["GPUWHY_BIN"]
            os.environ["PATH"] = os.path.dirname(built)
            self.assertEqual(os.path.realpath(gpuwhy.find_binary()), os.path.realpath(built))
        finally:
            os.environ.clear()
            os.environ.update(saved)


if __name__ == "__main__":
    unittest.main()
