"""Shared by the package's tests: the real built binary (GPUWHY_BIN, set by ctest), the
package from this checkout, and the reason torch tests skip."""

import json
import os
import subprocess
import sys
from pathlib import Path

PYTHON_DIR = Path(__file__).resolve().parents[1]
TESTS_DIR = Path(__file__).resolve().parent
LOOP = TESTS_DIR / "loop.py"

if str(PYTHON_DIR) not in sys.path:
    sys.path.insert(0, str(PYTHON_DIR))


def binary():
    path = os.environ.get("GPUWHY_BIN", "")
    if not path or not os.access(path, os.X_OK):
        raise RuntimeError("GPUWHY_BIN must name the built gpuwhy (ctest sets it)")
    return path


def torch_missing():
    """None when torch imports here, else why not (the tests then skip with it)."""
    try:
        import torch  # noqa: F401
    except Exception as e:  # noqa: BLE001  (a broken install is a reason too)
        return (f"torch is not importable by {sys.executable} ({type(e).__name__}: {e}); "
                "Debian: apt-get install python3-torch (scripts/setup.sh installs it)")
    return None


def child_env(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in [str(PYTHON_DIR), env.get("PYTHONPATH", "")] if p)
    env["GLOG_minloglevel"] = "2"  # torch 1.13's allocator warning on stderr
    env.update({k: str(v) for k, v in extra.items()})
    return env


def run_loop(*args, env=None, cwd=None, timeout=120):
    return subprocess.run([sys.executable, str(LOOP), *map(str, args)], env=env or child_env(),
                          cwd=cwd, capture_output=True, text=True, timeout=timeout)


def gpuwhy(*args, env=None, timeout=120):
    return subprocess.run([binary(), *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=timeout)


def step_names(trace_path):
    with open(trace_path) as f:
        data = json.load(f)
    events = data["traceEvents"] if isinstance(data, dict) else data
    return sorted({e["name"] for e in events if e.get("name", "").startswith("ProfilerStep#")})
