"""Issue 38: `gpuwhy run --profile` may cost a job its trace, never its run. Real PyTorch jobs
(Debian's python3-torch) under run --profile with a read-only, a full and a vanished trace
folder run to their normal exit code; `--` ends gpuwhy's options (`python3 -c`, `python3 -u`,
`torchrun`); an optimizer that replaces the first gets its trace; `python -I`, a job without
torch and a Python 2 child get a true explanation and no noise; the hook's folder on
PYTHONPATH is one no other user can re-create.

The read-only and full folders are a read-only bind mount and a 4 KiB tmpfs in a private
mount namespace (unshare -rm, no privileges needed where user namespaces are allowed); where
that is refused, the read-only case falls back to chmod (not as root) and the full case skips,
saying why."""

import glob
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

import support

REASON = support.torch_missing()

# 16 optimizer steps: SGD warms up for 3, then Adam trains (the leader changes), with
# --vanish the trace folder is removed at step 4, before the recorded window (steps 8-10).
JOB = textwrap.dedent("""\
    import os, shutil, sys, time
    import torch

    model = torch.nn.Linear(16, 4)
    warmup = torch.optim.SGD(model.parameters(), lr=0.01)
    train = torch.optim.Adam(model.parameters(), lr=0.001)
    for i in range(16):
        opt = warmup if i < 3 else train
        loss = model(torch.randn(8, 16)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        time.sleep(0.01)
        if "--vanish" in sys.argv and i == 4:
            shutil.rmtree(os.environ["GPUWHY_PROFILE_DIR"])
    print("job done", flush=True)
    sys.exit(int(os.environ.get("JOB_EXIT", "0")))
    """)

# Debian 12's torch 1.13 under Python 3.11 needs these to start a worker (test_torchrun.py).
TORCHRUN_FIX = ["--redirects", "2", "--tee", "2"]


def unshare_works():
    try:
        done = subprocess.run(["unshare", "-rm", "true"], capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def python2():
    for candidate in (shutil.which("python2"), shutil.which("python2.7"),
                      os.path.expanduser("~/.pyenv/versions/2.7.18/bin/python2")):
        if candidate and os.access(candidate, os.X_OK):
            done = subprocess.run([candidate, "-c", "print 1"], capture_output=True)
            if done.returncode == 0:
                return candidate
    return None


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="gpuwhy-harm-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.job = os.path.join(self.tmp, "job.py")
        with open(self.job, "w") as f:
            f.write(JOB)
        self.env = support.child_env()
        self.env.pop("PYTHONPATH")  # the job is unchanged: no gpuwhy package in it

    def run_gpuwhy(self, args, prefix=(), env=None, timeout=240):
        done = subprocess.run([*prefix, support.binary(), "run", *args], env=env or self.env,
                              cwd=self.tmp, capture_output=True, text=True, timeout=timeout)
        return done.returncode, done.stdout, done.stderr

    def traces(self, folder):
        return sorted(glob.glob(os.path.join(folder, "*.pt.trace.json")))


@unittest.skipIf(REASON, REASON or "")
class TraceFolderTest(Base):
    def profile(self, folder, extra=(), prefix=(), exit_code=0):
        env = dict(self.env, JOB_EXIT=str(exit_code))
        return self.run_gpuwhy(["--profile", "--profile-dir", folder, "--", sys.executable,
                                self.job, *extra], prefix=prefix, env=env)

    def assert_job_ran(self, result, exit_code=0):
        code, out, err = result
        self.assertEqual(code, exit_code, err[-3000:])
        self.assertIn("job done", out)
        self.assertNotIn("Traceback", err)

    def test_a_job_that_replaces_its_optimizer_gets_its_trace(self):
        folder = os.path.join(self.tmp, "traces")
        result = self.profile(folder, exit_code=3)
        self.assert_job_ran(result, 3)  # its own exit code, passed through
        traces = self.traces(folder)
        self.assertEqual(len(traces), 1, result[2][-3000:])
        self.assertEqual(len(support.step_names(traces[0])), 3)
        self.assertIn("--profile: 1 trace(s)", result[2])

    def test_a_vanished_folder_is_made_again(self):
        folder = os.path.join(self.tmp, "traces")
        result = self.profile(folder, extra=["--vanish"])
        self.assert_job_ran(result)
        self.assertEqual(len(self.traces(folder)), 1, result[2][-3000:])

    def test_a_read_only_folder_costs_the_trace_not_the_job(self):
        folder = os.path.join(self.tmp, "ro")
        os.makedirs(folder)
        if unshare_works():
            prefix = ["unshare", "-rm", "sh", "-c",
                      'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"',
                      folder]
        elif os.geteuid() != 0:
            os.chmod(folder, stat.S_IRUSR | stat.S_IXUSR)
            self.addCleanup(os.chmod, folder, stat.S_IRWXU)
            prefix = []
        else:
            self.skipTest("root without user namespaces (unshare -rm) cannot make a folder "
                          "read-only for itself")
        result = self.profile(folder, prefix=prefix)
        self.assert_job_ran(result)
        err = result[2]
        self.assertEqual(err.count("gpuwhy: trace not written"), 1, err[-3000:])
        self.assertIn("Read-only file system" if prefix else "Permission denied", err)
        self.assertIn("--profile: no trace was written: trace not written", err)
        self.assertEqual(os.listdir(folder), [])

    def test_a_full_folder_costs_the_trace_not_the_job(self):
        if not unshare_works():
            self.skipTest("a full file system needs a tmpfs of its own (unshare -rm refused)")
        folder = os.path.join(self.tmp, "full")
        os.makedirs(folder)
        prefix = ["unshare", "-rm", "sh", "-c",
                  'mount -t tmpfs -o size=4k tmpfs "$0" && exec "$@"', folder]
        result = self.profile(folder, prefix=prefix)
        self.assert_job_ran(result)
        err = result[2]
        self.assertEqual(err.count("gpuwhy: trace not written"), 1, err[-3000:])
        self.assertIn("No space left on device", err)


@unittest.skipIf(REASON, REASON or "")
class InScriptCaptureTest(Base):
    """gpuwhy.profile() and trace_handler in the script itself, with a trace folder that
    cannot be made (a file is in its way: refused to root as well)."""

    def test_profile_and_trace_handler_cost_the_trace_not_the_job(self):
        blocker = os.path.join(self.tmp, "file")
        open(blocker, "w").close()
        for capture in ("profile", "handler"):
            with self.subTest(capture=capture):
                done = support.run_loop("--capture", capture, "--dir",
                                        os.path.join(blocker, "traces"), "--iterations", "12",
                                        cwd=self.tmp, timeout=240)
                self.assertEqual(done.returncode, 0, done.stderr[-3000:])
                self.assertIn("traces:", done.stdout)
                self.assertNotIn("Traceback", done.stderr)
                self.assertEqual(done.stderr.count("gpuwhy: "), 1, done.stderr[-3000:])
                self.assertIn("Not a directory", done.stderr)


@unittest.skipIf(REASON, REASON or "")
class DoubleDashTest(Base):
    def test_python_dash_c_and_dash_u_start(self):
        folder = os.path.join(self.tmp, "c")
        code, out, err = self.run_gpuwhy(["--profile", "--profile-dir", folder, "--",
                                          sys.executable, "-c", "print('from -c')"])
        self.assertEqual(code, 0, err)
        self.assertIn("from -c", out)
        self.assertIn("the job never imported torch", err)
        folder = os.path.join(self.tmp, "u")
        code, out, err = self.run_gpuwhy(["--profile", "--profile-dir", folder, "--",
                                          sys.executable, "-u", self.job])
        self.assertEqual(code, 0, err[-3000:])
        self.assertIn("job done", out)
        self.assertEqual(len(self.traces(folder)), 1, err[-3000:])

    def test_torchrun_starts(self):
        torchrun = shutil.which("torchrun")
        if torchrun is None:
            self.skipTest("no torchrun on PATH")
        folder = os.path.join(self.tmp, "tr")
        code, out, err = self.run_gpuwhy(
            ["--profile", "--profile-dir", folder, "--", torchrun, "--standalone",
             "--nproc_per_node", "1", *TORCHRUN_FIX, self.job])
        self.assertEqual(code, 0, err[-3000:])
        traces = self.traces(folder)
        self.assertEqual(len(traces), 1, err[-3000:])
        self.assertTrue(os.path.basename(traces[0]).startswith("rank0."), traces)


class ExplanationTest(Base):
    def test_python_isolated_mode_is_named(self):
        code, out, err = self.run_gpuwhy(["--profile", "--", sys.executable, "-I", "-c",
                                          "print('isolated')"])
        self.assertEqual(code, 0, err)
        self.assertIn("isolated", out)
        self.assertIn("no Python process of the job loaded gpuwhy's start-up hook", err)
        self.assertIn("-I", err)
        self.assertNotIn("never imported torch", err)

    def test_python2_children_are_left_in_peace(self):
        py2 = python2()
        if py2 is None:
            self.skipTest("no Python 2 here to start")
        code, out, err = self.run_gpuwhy(["--profile", "--", py2, "-c", "print 'py2 ran'"])
        self.assertEqual(code, 0, err)
        self.assertIn("py2 ran", out)
        self.assertNotIn("sitecustomize", err)
        self.assertIn("the job runs Python 2", err)

    def test_the_hooks_folder_cannot_be_planted_by_another_user(self):
        script = "import os; print(os.environ['PYTHONPATH'].split(os.pathsep)[0])"
        code, out, err = self.run_gpuwhy(["--profile", "--", sys.executable, "-c", script])
        self.assertEqual(code, 0, err)
        hook = out.strip().splitlines()[-1]
        self.assertFalse(os.path.exists(hook), "the run's folder is removed afterwards")
        # Its nearest existing ancestor is ours alone, so nobody else can create it again.
        parent = os.path.dirname(hook)
        while not os.path.exists(parent):
            parent = os.path.dirname(parent)
        st = os.lstat(parent)
        self.assertTrue(stat.S_ISDIR(st.st_mode))
        self.assertEqual(st.st_uid, os.geteuid())
        self.assertEqual(st.st_mode & 0o077, 0, oct(st.st_mode))


def gone(pid):
    """No such process, or a zombie about to be reaped."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] == "Z"
    except OSError:
        return True


class ProcessTreeTest(Base):
    """`run` owns its job's whole process tree: kill -9 of gpuwhy leaves nothing behind."""

    def start(self, job, *flags):
        pid_file = os.path.join(self.tmp, "pids")
        cmd = [support.binary(), "run", "--interval", "50", *flags, "--", *job(pid_file)]
        proc = subprocess.Popen(cmd, env=self.env, cwd=self.tmp, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: proc.poll() is None and proc.kill())
        self.addCleanup(proc.stderr.close)
        for _ in range(2000):
            if os.path.exists(pid_file + ".done"):
                break
            time.sleep(0.01)
        with open(pid_file) as f:
            pids = [int(p) for p in f.read().split()]
        self.assertTrue(pids)
        return proc, pids

    def assert_all_gone(self, pids, within):
        deadline = time.monotonic() + within
        while time.monotonic() < deadline and not all(map(gone, pids)):
            time.sleep(0.02)
        left = [p for p in pids if not gone(p)]
        for p in left:
            os.kill(p, 9)
        self.assertEqual(left, [], "processes left behind")

    def test_kill_nine_takes_a_shells_background_job_along(self):
        def job(pids):
            return ["bash", "-c", f"sleep 600 & echo $$ $! > {pids}; touch {pids}.done; wait"]

        proc, pids = self.start(job)
        proc.kill()
        proc.wait()
        self.assert_all_gone(pids, within=5)

    def test_kill_nine_escalates_past_a_job_that_ignores_sigterm(self):
        def job(pids):
            code = ("import os, signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                    f"open({pids!r}, 'w').write(str(os.getpid())); "
                    f"open({pids!r} + '.done', 'w'); time.sleep(600)")
            return [sys.executable, "-c", code]

        proc, pids = self.start(job, "--kill-after", "1")
        start = time.monotonic()
        proc.kill()
        proc.wait()
        self.assert_all_gone(pids, within=6)
        self.assertGreaterEqual(time.monotonic() - start, 0.9, "SIGTERM came first")

    def test_sigterm_to_gpuwhy_is_escalated_and_reported(self):
        def job(pids):
            return ["bash", "-c", f"trap '' TERM; echo $$ > {pids}; touch {pids}.done; "
                    "while :; do sleep 0.05; done"]

        proc, pids = self.start(job, "--kill-after", "1")
        proc.terminate()
        _, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 128 + 9, err[-2000:])
        self.assert_all_gone(pids, within=2)


if __name__ == "__main__":
    unittest.main()
