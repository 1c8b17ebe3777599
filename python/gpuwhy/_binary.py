"""Finds the gpuwhy binary and runs it; every failure is one GpuwhyError."""

import os
import shutil
import subprocess
from pathlib import Path

# README "Exit codes": 0 usable, 1 a finding reached --fail-on (or diff's gate), 2 unusable
# input, usage error or unwritable output. 127 is what a shell says of a missing program.
EXIT_OK = 0
EXIT_FINDING = 1
EXIT_UNUSABLE = 2
EXIT_NOT_FOUND = 127

ENV_BIN = "GPUWHY_BIN"

HOW_TO_GET_IT = (
    "set GPUWHY_BIN=/path/to/gpuwhy, put gpuwhy on PATH, or build it from a checkout "
    "(scripts/setup.sh, or: cmake --preset release && cmake --build build/release)"
)


class GpuwhyError(Exception):
    """gpuwhy failed: .message is its one-line message, .exit_code its exit code.

    .report holds the report when there was one (a finding reached fail_on=)."""

    def __init__(self, message, exit_code, stderr="", report=None):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.stderr = stderr
        self.report = report

    def __str__(self):
        return f"{self.message} (exit {self.exit_code})"


def _bundled():
    # A wheel that bundles the binary puts it in gpuwhy/bin/.
    return Path(__file__).resolve().parent / "bin" / "gpuwhy"


def find_binary():
    """The gpuwhy executable: $GPUWHY_BIN, then gpuwhy/bin/ beside the package, then PATH."""
    explicit = os.environ.get(ENV_BIN)
    if explicit:
        path = Path(explicit)
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
        raise GpuwhyError(f"{ENV_BIN}={explicit}: not an executable file", EXIT_NOT_FOUND)
    bundled = _bundled()
    if bundled.is_file() and os.access(bundled, os.X_OK):
        return str(bundled)
    on_path = shutil.which("gpuwhy")
    if on_path:
        return on_path
    raise GpuwhyError(f"gpuwhy binary not found: {HOW_TO_GET_IT}", EXIT_NOT_FOUND)


def main():
    """The `gpuwhy` command of a wheel that bundles the binary: runs gpuwhy/bin/gpuwhy (or
    $GPUWHY_BIN) with this command's arguments. Never PATH: that would find this command."""
    import sys

    explicit = os.environ.get(ENV_BIN)
    binary = Path(explicit) if explicit else _bundled()
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        sys.stderr.write(f"gpuwhy: {binary}: no gpuwhy binary in this install: "
                         f"{HOW_TO_GET_IT}\n")
        return EXIT_NOT_FOUND
    os.execv(str(binary), [str(binary), *sys.argv[1:]])
    return EXIT_NOT_FOUND  # not reached


def _one_line(stderr, exit_code):
    # gpuwhy's errors are "gpuwhy: PATH: byte N: message" lines; the first is the cause.
    for line in stderr.splitlines():
        line = line.strip()
        if line.startswith("gpuwhy: ") and not line.startswith("gpuwhy: warning:"):
            return line[len("gpuwhy: "):]
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return lines[0] if lines else f"gpuwhy exited {exit_code}"


def run(args, allowed=(EXIT_OK,)):
    """Runs gpuwhy ARGS; returns (exit_code, stdout, stderr). Raises unless the code is allowed."""
    binary = find_binary()
    try:
        done = subprocess.run([binary, *map(str, args)], capture_output=True, text=True)
    except OSError as e:
        raise GpuwhyError(f"{binary}: cannot run: {e.strerror}", EXIT_NOT_FOUND) from None
    if done.returncode not in allowed:
        raise GpuwhyError(_one_line(done.stderr, done.returncode), done.returncode, done.stderr)
    return done.returncode, done.stdout, done.stderr


def flags(options):
    """Keyword options as command-line flags: top=5 -> --top 5, fail_on="high" -> --fail-on
    high, strict=True -> --strict, set={"input.dataloader_wait.min_step_pct": 3} -> --set
    input.dataloader_wait.min_step_pct=3, a list repeats the flag."""
    out = []
    for key, value in options.items():
        if value is None or value is False:
            continue
        flag = "--" + key.replace("_", "-")
        if value is True:
            out.append(flag)
        elif isinstance(value, dict):
            for k, v in value.items():
                out += [flag, f"{k}={v}"]
        elif isinstance(value, (list, tuple)):
            for v in value:
                out += [flag, str(v)]
        else:
            out += [flag, str(value)]
    return out


def paths_of(paths):
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    return [os.fspath(p) for p in paths]
