"""`gpuwhy run --profile -- python3 ...`: the injected start-up hook, with the script unchanged."""

import glob
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

import support

REASON = support.torch_missing()


def run_profile(args, cmd, env=None, cwd=None):
    return subprocess.Popen([support.binary(), "run", *args, "--", *cmd], env=env,
                            cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


class NoTorchTest(unittest.TestCase):
    """Needs no torch: what the hook must leave alone."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="gpuwhy-hook-")
        self.script = os.path.join(self.tmp.name, "plain.py")
        with open(self.script, "w") as f:
            f.write(textwrap.dedent("""\
                import sys
                print("hello from the job", sys.argv[1:])
                print("torch imported:", "torch" in sys.modules)
                print("chained:", getattr(sys, "chained_sitecustomize", None))
                sys.exit(3)
                """))

    def tearDown(self):
        self.tmp.cleanup()

    def test_a_script_that_never_imports_torch_is_unchanged(self):
        cmd = [sys.executable, self.script, "a", "b"]
        plain = subprocess.run(cmd, capture_output=True, text=True)
        p = run_profile(["--profile"], cmd)
        out, err = p.communicate(timeout=120)
        self.assertEqual(p.returncode, plain.returncode)
        self.assertEqual(out, plain.stdout)
        self.assertIn("torch imported: False", out)
        self.assertNotIn("Traceback", err)

    def test_an_existing_sitecustomize_still_runs(self):
        theirs = os.path.join(self.tmp.name, "theirs")
        os.makedirs(theirs)
        with open(os.path.join(theirs, "sitecustomize.py"), "w") as f:
            f.write("import sys\nsys.chained_sitecustomize = 'yes'\n")
        env = dict(os.environ, PYTHONPATH=theirs)
        cmd = [sys.executable, self.script]
        plain = subprocess.run(cmd, capture_output=True, text=True, env=env)
        self.assertIn("chained: yes", plain.stdout)
        p = run_profile(["--profile"], cmd, env=env)
        out, _ = p.communicate(timeout=120)
        self.assertEqual(out, plain.stdout)

    def test_profile_dir_needs_profile(self):
        p = run_profile(["--profile-dir", self.tmp.name], [sys.executable, self.script])
        _, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--profile-dir needs --profile", err)


@unittest.skipIf(REASON, REASON or "")
class RunProfileTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="gpuwhy-runprof-")
        base = support.child_env()
        base.pop("PYTHONPATH")  # the script is unchanged: no gpuwhy package in the job
        loop = [sys.executable, str(support.LOOP)]
        cls.dirs = {k: os.path.join(cls.tmp.name, k) for k in
                    ("w0", "w2", "crash", "ranks", "nohooks")}
        jobs = {
            "w0": (["--profile", "--profile-dir", cls.dirs["w0"]], loop + ["--workers", "0"], {}),
            "w2": (["--profile", "--profile-dir", cls.dirs["w2"]], loop + ["--workers", "2"], {}),
            # Dies in the middle of the recorded window (steps 8-10): what was recorded stays.
            "crash": (["--profile", "--profile-dir", cls.dirs["crash"]],
                      loop + ["--crash-after", "9"], {}),
            # Two ranks as torchrun starts them (two_ranks.py says why not torchrun itself),
            # training one model with DistributedDataParallel over gloo.
            "ranks": (["--profile=2", "--profile-dir", cls.dirs["ranks"]],
                      [sys.executable, str(support.TESTS_DIR / "two_ranks.py"), str(support.LOOP),
                       "--iterations", "12", "--ddp"], {}),
            "nohooks": (["--profile", "--profile-dir", cls.dirs["nohooks"]], loop,
                        {"GPUWHY_PROFILE_NO_STEP_HOOKS": "1"}),
        }
        cls.results = {}
        # The two timed runs first, by themselves: DataLoader workers starved of CPU by the
        # other jobs would not keep up, and the comparison would measure the machine.
        for batch in (("w0", "w2"), ("crash", "ranks", "nohooks")):
            procs = {k: run_profile(jobs[k][0], jobs[k][1], env={**base, **jobs[k][2]},
                                    cwd=cls.tmp.name) for k in batch}
            for k, p in procs.items():
                out, err = p.communicate(timeout=300)
                cls.results[k] = (p.returncode, out, err)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def traces(self, key):
        return sorted(glob.glob(os.path.join(self.dirs[key], "*.pt.trace.json")))

    def test_one_trace_analysed_with_the_recording(self):
        code, out, err = self.results["w0"]
        self.assertEqual(code, 0, err[-3000:])
        traces = self.traces("w0")
        self.assertEqual(len(traces), 1, err[-3000:])
        self.assertEqual(len(support.step_names(traces[0])), 3)
        self.assertIn("input.dataloader_wait", err)  # the trace's finding, in run's report
        self.assertIn("recorded", err)                 # ... merged with the live recording
        self.assertIn("--profile: 1 trace(s)", err)

    def test_the_dataloader_share_falls_with_workers(self):
        import gpuwhy

        os.environ["GPUWHY_BIN"] = support.binary()
        share = {}
        for key in ("w0", "w2"):
            self.assertEqual(self.results[key][0], 0, self.results[key][2][-3000:])
            share[key] = gpuwhy.analyze(self.traces(key)[0]).metric("step.dataloader_pct")
        print(f"run --profile: DataLoader share, workers 0: {share['w0']:.1f}%, "
              f"workers 2: {share['w2']:.1f}%", file=sys.stderr)
        self.assertGreater(share["w0"], 25)
        # Alone it falls tenfold (41% -> 4%); a fifth survives a loaded machine (44% -> 17%).
        self.assertLess(share["w2"], 0.8 * share["w0"])

    def test_a_crash_passes_its_exit_code_and_keeps_the_trace(self):
        code, out, err = self.results["crash"]
        self.assertEqual(code, 1, err[-3000:])  # Python's status for an uncaught exception
        self.assertIn("crash after 9 steps", err)
        traces = self.traces("crash")
        self.assertEqual(len(traces), 1, err[-3000:])
        self.assertGreaterEqual(len(support.step_names(traces[0])), 1)

    def test_two_ranks_write_two_named_traces(self):
        code, out, err = self.results["ranks"]
        self.assertEqual(code, 0, err[-3000:])
        names = [os.path.basename(t) for t in self.traces("ranks")]
        self.assertEqual(len(names), 2, err[-3000:])
        self.assertTrue(names[0].startswith("rank0."), names)
        self.assertTrue(names[1].startswith("rank1."), names)
        for t in self.traces("ranks"):
            self.assertEqual(len(support.step_names(t)), 2, t)
            with open(t) as f:
                text = f.read()
            for op in ("DistributedDataParallel.forward", "gloo:all_reduce"):
                self.assertIn(op, text, t)  # the DDP step itself was recorded on each rank
        self.assertIn("--profile: 2 trace(s)", err)

    def test_without_optimizer_hooks_the_wrapper_steps(self):
        code, out, err = self.results["nohooks"]
        self.assertEqual(code, 0, err[-3000:])
        traces = self.traces("nohooks")
        self.assertEqual(len(traces), 1)
        self.assertEqual(len(support.step_names(traces[0])), 3)


if __name__ == "__main__":
    unittest.main()
