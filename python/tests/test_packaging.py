"""Issue 41 item 2: `pip install ./python` works with no package index (the in-tree backend,
_backend/gpuwhy_backend.py, needs only the standard library) and writes nothing into the
source tree; a wheel built with GPUWHY_WHEEL_BINARY carries the binary, so that installing it
alone gives `import gpuwhy` and the `gpuwhy` command. Each in a fresh venv, pip told
--no-index (and the build isolated, as pip does by default)."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import support


def tree_listing(top):
    """Every file and folder below TOP with its size and mtime, tests/ left out (the test run
    itself may write there)."""
    out = set()
    for root, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if not (root == str(top) and d == "tests")]
        for name in dirs + files:
            path = os.path.join(root, name)
            st = os.lstat(path)
            out.add((os.path.relpath(path, top), st.st_size, st.st_mtime_ns))
    return out


class OfflinePipTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="gpuwhy-pip-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, True)

    def venv(self, name):
        path = os.path.join(self.tmp, name)
        done = subprocess.run([sys.executable, "-m", "venv", path], capture_output=True,
                              text=True, timeout=300)
        if done.returncode != 0:
            self.skipTest(f"{sys.executable} -m venv failed (Debian: apt-get install "
                          f"python3-venv): {done.stderr.strip()[-300:]}")
        return os.path.join(path, "bin")

    def pip(self, bin_dir, *args, env=None):
        # No index, no cache, no configuration: what an air-gapped machine has.
        env = dict(env or os.environ, PIP_NO_INDEX="1", PIP_CONFIG_FILE=os.devnull,
                   PIP_DISABLE_PIP_VERSION_CHECK="1")
        env.pop("PYTHONPATH", None)
        done = subprocess.run([os.path.join(bin_dir, "pip"), *args, "--no-index",
                               "--no-cache-dir"], capture_output=True, text=True, env=env,
                              timeout=300)
        self.assertEqual(done.returncode, 0, done.stdout[-2000:] + done.stderr[-2000:])

    def bare_env(self):
        # Neither GPUWHY_BIN nor a gpuwhy on PATH: what the wheel brings is all there is.
        env = {k: v for k, v in os.environ.items() if k not in ("GPUWHY_BIN", "PYTHONPATH")}
        env["PATH"] = "/usr/bin:/bin"
        return env

    def test_pip_install_of_the_source_needs_no_index_and_writes_nothing_there(self):
        bin_dir = self.venv("source")
        before = tree_listing(support.PYTHON_DIR)
        self.pip(bin_dir, "install", str(support.PYTHON_DIR))
        self.assertEqual(tree_listing(support.PYTHON_DIR) ^ before, set())
        check = subprocess.run(
            [os.path.join(bin_dir, "python"), "-c", "import gpuwhy; print(gpuwhy.__file__)"],
            capture_output=True, text=True, cwd="/", env=self.bare_env())
        self.assertEqual(check.returncode, 0, check.stderr)
        self.assertIn(os.path.join(self.tmp, "source"), check.stdout)

    def test_a_wheel_with_the_binary_gives_the_module_and_the_command(self):
        build_bin = self.venv("build")
        wheels = os.path.join(self.tmp, "wheels")
        env = dict(os.environ, GPUWHY_WHEEL_BINARY=support.binary())
        self.pip(build_bin, "wheel", "-w", wheels, str(support.PYTHON_DIR), env=env)
        built = os.listdir(wheels)
        self.assertEqual(len(built), 1, built)
        self.assertRegex(built[0], r"^gpuwhy-[0-9.]+-py3-none-linux_\w+\.whl$")
        bin_dir = self.venv("wheel")
        self.pip(bin_dir, "install", os.path.join(wheels, built[0]))
        env = self.bare_env()
        version = subprocess.run([os.path.join(bin_dir, "gpuwhy"), "--version"],
                                 capture_output=True, text=True, env=env)
        self.assertEqual(version.returncode, 0, version.stderr)
        self.assertTrue(version.stdout.startswith("gpuwhy "), version.stdout)
        trace = os.path.join(self.tmp, "t.json")
        script = (f"import subprocess, gpuwhy; b = gpuwhy.find_binary(); "
                  f"subprocess.run([b, 'synth', '--scenario', 'input-bound', '--steps', '8', "
                  f"'-o', {trace!r}], check=True, capture_output=True); "
                  f"print(b); print(gpuwhy.diagnose([{trace!r}])[0].id)")
        check = subprocess.run([os.path.join(bin_dir, "python"), "-c", script],
                               capture_output=True, text=True, cwd="/", env=env)
        self.assertEqual(check.returncode, 0, check.stderr)
        binary, finding = check.stdout.split()[-2:]
        self.assertTrue(binary.startswith(os.path.join(self.tmp, "wheel")), binary)
        self.assertEqual(finding, "input.dataloader_wait")


if __name__ == "__main__":
    unittest.main()
