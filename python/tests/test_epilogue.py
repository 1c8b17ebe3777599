"""gpuwhy.epilogue and its file rules (gpuwhy._jobfiles): shards, names, the torchrun hook.

The 64-node run of the same driver is tests/at_scale_check.py (ctest at_scale_64_nodes)."""

import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

import support
from gpuwhy import _jobfiles as files
from gpuwhy import epilogue


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


class JobFilesTest(unittest.TestCase):
    def test_rank_from_path_follows_gpuwhy(self):
        # The cases of src/ingest/importer_test.cc ParseRankFromFileNameTest.
        cases = {"rank-3.json": 3, "/x/trace_rank_12.pt.trace.json.gz": 12, "RANK7.json": 7,
                 "host.Worker0.1700000.pt.trace.json": 0, "worker_15.json": 15,
                 "traces/rank_4/host.123.pt.trace.json": 4, "traces/rank_4/rank_1.json": 1,
                 "trace.json": None, "frank3.json": None, "rank.json": None,
                 "rank-x3.json": None, "workers.json": None}
        for path, rank in cases.items():
            self.assertEqual(files.rank_from_path(path), rank, path)

    def test_blocks_cover_every_trace_once_in_contiguous_ranks(self):
        items = [f"rank{r}.json" for r in range(1000)]
        blocks = [files.block(items, i, 125) for i in range(125)]
        self.assertEqual(sum(blocks, []), items)
        self.assertEqual(blocks[3], [f"rank{r}.json" for r in range(24, 32)])
        # More shards than traces: some shards are empty, none takes a trace twice.
        self.assertEqual(sum((files.block(list(range(5)), i, 8) for i in range(8)), []),
                         list(range(5)))
        with self.assertRaises(ValueError):
            files.block(items, 125, 125)

    def test_find_traces_orders_by_rank_and_skips_our_files(self):
        with tempfile.TemporaryDirectory() as tmp:
            for name in ["rank10.h_1.pt.trace.json", "rank2.h_1.pt.trace.json", "x.json",
                         "rank2.h_1.summary.json", "job.json.truth.json", ".rank3.json.tmp",
                         "notes.txt", "rank4.failed.json"]:
                open(os.path.join(tmp, name), "w").close()
            found = [os.path.basename(p) for p in files.find_traces([tmp])]
        self.assertEqual(found, ["rank2.h_1.pt.trace.json", "rank10.h_1.pt.trace.json",
                                 "x.json"])

    def test_names_host_filter_and_newest_window(self):
        self.assertEqual(files.stem("/t/rank12.n1_77.pt.trace.json"), "rank12")
        a, b = files.stem("/n1/trace.json"), files.stem("/n2/trace.json")
        self.assertTrue(a.startswith("trace.") and b.startswith("trace.") and a != b)
        paths = ["rank1.gpu-a_10.pt.trace.json", "rank2.gpu-ab_11.pt.trace.json"]
        self.assertEqual(files.on_host(paths, "gpu-a"), paths[:1])
        with tempfile.TemporaryDirectory() as tmp:
            old, new = os.path.join(tmp, "rank1.h_1.pt.trace.json"), os.path.join(
                tmp, "rank1.h_1.1.pt.trace.json")
            for path, mtime in ((old, 1000), (new, 2000)):
                open(path, "w").close()
                os.utime(path, (mtime, mtime))
            self.assertEqual(files.newest_per_rank([old, new]), ([new], [old]))

    def test_node_from_env(self):
        self.assertEqual(epilogue.node_from_env({"JOB_COMPLETION_INDEX": "7",
                                                 "GPUWHY_NODES": "125"}), (7, 125))
        self.assertEqual(epilogue.node_from_env({"SLURM_ARRAY_TASK_ID": "12",
                                                 "SLURM_ARRAY_TASK_MIN": "10",
                                                 "SLURM_ARRAY_TASK_COUNT": "4"}), (2, 4))
        self.assertEqual(epilogue.node_from_env({"SLURM_NODEID": "3", "SLURM_NNODES": "125"}),
                         (3, 125))
        self.assertEqual(epilogue.node_from_env({}), (0, 1))

    def test_wait_stops_at_its_timeout(self):
        now = [0.0]
        with tempfile.TemporaryDirectory() as tmp:
            inventory, complete = epilogue.wait_for(
                tmp, expect_ranks=4, timeout=30, poll=2, clock=lambda: now[0],
                sleep=lambda s: now.__setitem__(0, now[0] + s))
        self.assertFalse(complete)
        self.assertEqual(inventory.missing(4), [0, 1, 2, 3])
        self.assertEqual(now[0], 30)

    def test_a_stated_world_size_never_sizes_the_work(self):
        # A summary may state any world size (issue 37): listing what is missing is bounded
        # by the listed ranks and those present, not by the number.
        import time

        from gpuwhy import _jobfiles

        with tempfile.TemporaryDirectory() as tmp:
            _jobfiles.write_json_atomically(os.path.join(tmp, "rank1.summary.json"), {})
            inventory = _jobfiles.Inventory(tmp)
            start = time.monotonic()
            missing = inventory.missing(10 ** 12)
            count = inventory.missing_count(10 ** 12)
            self.assertLess(time.monotonic() - start, 1.0)
        self.assertEqual(len(missing), _jobfiles.MISSING_LISTED)
        self.assertEqual(missing[:3], [0, 2, 3])
        self.assertEqual(count, 10 ** 12 - 1)
        self.assertEqual(inventory.missing(3), [0, 2])
        self.assertEqual(inventory.missing_count(3), 2)

    def test_ranges(self):
        self.assertEqual(epilogue._ranges([0, 1, 2, 5, 7, 8]), "0-2, 5, 7-8")


class TorchrunHookTest(unittest.TestCase):
    """`torchrun -m gpuwhy.epilogue rank`: each process its RANK; rank 0 waits and merges."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="gpuwhy-epilogue-")
        cls.traces = os.path.join(cls.tmp.name, "traces")
        os.makedirs(cls.traces)
        done = support.gpuwhy("synth", "--scenario", "comm-exposed", "--ranks", "4", "--steps",
                              "3", "-o", os.path.join(cls.traces, "job.json"))
        assert done.returncode == 0, done.stderr

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def _ranks(self, out, ranks, world=4, timeout=20):
        procs = [subprocess.Popen(
            [sys.executable, "-m", "gpuwhy.epilogue", "rank", "--traces", self.traces, "--out",
             out, "--timeout", str(timeout), "--poll", "0.1"],
            env=support.child_env(RANK=r, LOCAL_RANK=r % 2, WORLD_SIZE=world), text=True,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE) for r in ranks]
        errs = [p.communicate(timeout=60)[1] for p in procs]
        return [(p.returncode, err) for p, err in zip(procs, errs)]

    def test_rank_zero_merges_every_rank(self):
        out = os.path.join(self.tmp.name, "all")
        results = self._ranks(out, [3, 2, 1, 0])  # rank 0 last: it waits for none
        self.assertEqual([code for code, _ in results], [0, 0, 0, 0], results)
        status = read_json(os.path.join(out, "merge.json"))
        self.assertEqual((status["summaries"], status["missing"], status["complete"]),
                         (4, [], True))
        report = read_json(status["report"])
        self.assertEqual(report["cross_rank"]["rank_count"], 4)

    def test_a_rank_without_trace_is_failed_and_a_dead_rank_missing(self):
        out = os.path.join(self.tmp.name, "holes")
        start = time.monotonic()
        # World 6: ranks 4 and 5 have no trace (they say so); rank 2 never runs.
        results = self._ranks(out, [1, 3, 4, 5, 0], world=6, timeout=5)
        self.assertLess(time.monotonic() - start, 30)
        self.assertEqual(results[-1][0], 2, results[-1][1])
        status = read_json(os.path.join(out, "merge.json"))
        self.assertEqual(status["missing"], [2])
        self.assertEqual(sorted(status["failed"]), ["rank4", "rank5"])
        self.assertIn("no trace of rank 4", status["failed"]["rank4"])
        self.assertIn("missing ranks 2", results[-1][1])

    def test_a_cut_trace_is_reduced_unless_strict(self):
        out = os.path.join(self.tmp.name, "cut")
        cut = os.path.join(self.tmp.name, "cut.rank2.json")
        with open(os.path.join(self.traces, "job.rank2.json"), "rb") as f:
            data = f.read()
        with open(cut, "wb") as f:
            f.write(data[: len(data) * 2 // 3])  # the rank died while writing its last step
        self.assertIn("summary", epilogue.reduce_one(cut, out))
        result = epilogue.reduce_one(cut, out, strict=True)
        self.assertIn("failed", result)
        self.assertFalse(os.path.exists(os.path.join(out, "rank2.summary.json")))
        record = read_json(os.path.join(out, "rank2.failed.json"))
        self.assertEqual((record["trace"], record["exit_code"]), (cut, 2))
        self.assertIn(cut, record["message"])
        self.assertIn("summary", epilogue.reduce_one(cut, out))  # the latest attempt wins
        self.assertFalse(os.path.exists(os.path.join(out, "rank2.failed.json")))

    def test_at_exit_does_not_raise_without_rank(self):
        from io import StringIO
        stream = StringIO()
        self.assertIsNone(epilogue.reduce_rank(self.traces, self.tmp.name, env={}, stream=stream))
        self.assertIn("RANK is not set", stream.getvalue())


if __name__ == "__main__":
    unittest.main()
