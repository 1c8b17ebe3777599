"""The torchrun hook under the real torchrun (torch.distributed.run): two ranks training with
DistributedDataParallel over gloo, each profiled by gpuwhy.profile, reduced at exit by
gpuwhy.epilogue.at_exit, rank 0 merging; then the same traces reduced again by a second
launch, `torchrun ... -m gpuwhy.epilogue rank`, as docs/at-scale.md shows."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

import support

REASON = support.torch_missing()

# Debian 12's torch 1.13 under Python 3.11 cannot parse torchrun's default "--redirects 0
# --tee 0" (Std.from_str iterates an IntFlag, which no longer yields 0 there), and fails before
# starting a worker. Any single-bit value parses: redirect stderr to torchrun's log folder and
# tee it back. Harmless on torch versions without the bug.
TORCHRUN = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node",
            "2", "--redirects", "2", "--tee", "2"]


def torchrun(args, cwd):
    return subprocess.run(TORCHRUN + list(map(str, args)), cwd=cwd, env=support.child_env(),
                          capture_output=True, text=True, timeout=300)


@unittest.skipIf(REASON, REASON)
class TorchrunTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="gpuwhy-torchrun-")
        cls.cwd = cls.tmp.name
        cls.train = torchrun([support.LOOP, "--iterations", "12", "--ddp", "--capture",
                              "profile", "--dir", "traces", "--epilogue", "at_exit"], cls.cwd)
        cls.second = torchrun(["-m", "gpuwhy.epilogue", "rank", "--traces", "traces", "--out",
                               "second", "--timeout", "120", "--poll", "0.5"], cls.cwd)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def status(self, out):
        with open(os.path.join(self.cwd, out, "merge.json")) as f:
            return json.load(f)

    def check_merge(self, done, out):
        self.assertEqual(done.returncode, 0, done.stderr[-3000:])
        status = self.status(out)
        self.assertEqual(status["exit_code"], 0, status)
        self.assertEqual(status["summaries"], 2, status)
        self.assertEqual(status["missing"], [], status)
        self.assertEqual(status["failed"], {}, status)
        for rank in (0, 1):
            self.assertTrue(os.path.isfile(os.path.join(self.cwd, out, f"rank{rank}.summary.json")))
        with open(os.path.join(self.cwd, status["report"])) as f:
            report = json.load(f)
        job = report["cross_rank"]
        self.assertEqual([r["rank"] for r in job["ranks"]], [0, 1], job.keys())
        # Both ranks wait on the DataLoader (loop.py: workers 0, 20 ms of loading per step).
        self.assertEqual([r["top_finding"] for r in job["ranks"]],
                         ["input.dataloader_wait"] * 2)
        self.assertIn("2 ranks merged", done.stderr)
        return job

    def test_at_exit_reduces_every_rank_and_rank_zero_merges(self):
        self.check_merge(self.train, "at_exit")
        traces = sorted(os.listdir(os.path.join(self.cwd, "traces")))
        self.assertTrue(any(t.startswith("rank0.") and t.endswith(".pt.trace.json")
                            for t in traces), traces)
        self.assertTrue(any(t.startswith("rank1.") and t.endswith(".pt.trace.json")
                            for t in traces), traces)

    def test_a_second_launch_reduces_the_same_traces_to_the_same_job(self):
        first = self.check_merge(self.train, "at_exit")
        second = self.check_merge(self.second, "second")
        key = ["rank", "steps", "step_median_ms", "host_pct", "top_finding"]
        self.assertEqual([[r[k] for k in key] for r in first["ranks"]],
                         [[r[k] for k in key] for r in second["ranks"]])


if __name__ == "__main__":
    unittest.main()
