#!/usr/bin/env python3
"""Every accepted input renders (issue 37, item 4).

Over every file of DATA (verdicts/ and reference/ excepted) and its truncations at a dozen
offsets (the first 1, 7 and 64 bytes and k/13 of the size for k = 1..12; a .gz file is cut in its
compressed bytes, as a transfer cut short leaves it), runs what a user runs:

  gpuwhy analyze --format text|json|md|html FILE
  gpuwhy info --format text|json FILE
  gpuwhy doctor --from FILE --format text|json      (files under logs/ only)

and checks README's exit-code policy: every exit is 0, 1 or 2, never a signal, never a timeout;
every JSON output parses, and the JSON of analyze and doctor (`gpuwhy analyze --format json`'s
report) validates against docs/report-schema.json when python3-jsonschema is installed (a note
says so when it is not). A truncated copy keeps the file's name, so what a name says about its
format still holds.

The untruncated files run the whole matrix. Truncations run a deterministic subset of
(file, offset, command) chosen by a hash (about 1 in --sample-every; the same subset on every
run, so a failure reproduces) to keep ctest inside its budget on the 2-core CI machine; --full
runs every one. Exits 77 (CTest's skip code) when DATA is absent, 1 on any violation (each
printed with the command that reproduces it)."""
import argparse
import concurrent.futures
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

FORMATS = ("text", "json", "md", "html")
TIMEOUT_S = 300


def inputs(root):
    for d, dirs, files in os.walk(root):
        dirs.sort()
        rel = os.path.relpath(d, root)
        if rel.split(os.sep)[0] in ("verdicts", "reference"):
            dirs.clear()
            continue
        for f in sorted(files):
            yield os.path.join(d, f)


def commands(rel):
    """(name, argv without the file, whether its stdout is a JSON report) for one input."""
    out = [(f"analyze-{f}", ["analyze", "--format", f], f == "json") for f in FORMATS]
    out += [("info-text", ["info"], False), ("info-json", ["info", "--format", "json"], False)]
    if rel.split(os.sep)[0] == "logs":
        out += [(f"doctor-{f}", ["doctor", "--format", f, "--from"], f == "json")
                for f in ("text", "json")]
    return out


def offsets(size):
    cuts = {1, 7, 64} | {size * k // 13 for k in range(1, 13)}
    return sorted(c for c in cuts if 0 < c < size)


def chosen(rel, cut, name, every):
    """A stable pseudo-random choice of about 1 in |every| (file, offset, command) triples."""
    digest = hashlib.sha256(f"{rel}\0{cut}\0{name}".encode()).digest()
    return int.from_bytes(digest[:4], "little") % every == 0


def load_validator(schema_path):
    try:
        import jsonschema
    except ImportError:
        print("note: python3-jsonschema is absent: JSON outputs are parsed, not validated")
        return None
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema)


def run_one(gpuwhy, argv, path):
    start = time.monotonic()
    try:
        proc = subprocess.run([gpuwhy] + argv + [path], capture_output=True, timeout=TIMEOUT_S,
                              stdin=subprocess.DEVNULL)
        rc, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired:
        rc, out, err = "timeout", b"", b""
    return rc, out, err, time.monotonic() - start


def check(job, gpuwhy, validator):
    label, argv, path, is_report = job
    rc, out, err, seconds = run_one(gpuwhy, argv, path)
    repro = " ".join(["gpuwhy"] + argv + [label])
    bad = []
    if rc == "timeout":
        bad.append(f"{repro}: no exit within {TIMEOUT_S} s")
    elif rc not in (0, 1, 2):
        what = f"signal {-rc}" if rc < 0 else f"exit {rc}"
        tail = err.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        bad.append(f"{repro}: {what} (policy: 0, 1 or 2) {tail[0][:200]}")
    elif "json" in argv:
        if out.strip():
            try:
                doc = json.loads(out)
            except ValueError as e:
                bad.append(f"{repro}: exit {rc}, stdout is not JSON: {e}")
                doc = None
            if doc is not None and is_report and validator is not None:
                errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
                for e in errors[:3]:
                    where = "/".join(str(p) for p in e.path)
                    bad.append(f"{repro}: schema: at /{where}: {e.message[:200]}")
        elif rc == 0:
            bad.append(f"{repro}: exit 0 with no JSON on stdout")
    return bad, seconds, label, argv


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpuwhy", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--schema", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--full", action="store_true", help="every truncation and command")
    ap.add_argument("--sample-every", type=int, default=8,
                    help="without --full, run about 1 in N truncated (file, offset, command)")
    ap.add_argument("--only", default="", help="only files whose relative path contains this")
    args = ap.parse_args()
    if not os.path.isdir(args.data):
        print(f"skipped: {args.data} is absent (../shared/data is not beside the checkout)")
        return 77
    validator = load_validator(args.schema)
    tmp = tempfile.mkdtemp(prefix="render_property.")
    jobs = []
    try:
        for path in inputs(args.data):
            rel = os.path.relpath(path, args.data)
            if args.only not in rel:
                continue
            cmds = commands(rel)
            jobs += [(rel, argv, path, rep) for name, argv, rep in cmds]
            with open(path, "rb") as f:
                data = f.read()
            for cut in offsets(len(data)):
                picked = [(n, a, r) for n, a, r in cmds
                          if args.full or chosen(rel, cut, n, args.sample_every)]
                if not picked:
                    continue
                folder = os.path.join(tmp, f"{len(jobs)}-{cut}")
                os.makedirs(folder)
                copy = os.path.join(folder, os.path.basename(path))
                with open(copy, "wb") as f:
                    f.write(data[:cut])
                label = f"{rel}[:{cut}]"
                jobs += [(label, argv, copy, rep) for name, argv, rep in picked]
        violations, slowest, total = [], [], 0.0
        start = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            for bad, seconds, label, argv in pool.map(
                    lambda j: check(j, args.gpuwhy, validator), jobs):
                violations += bad
                total += seconds
                slowest.append((seconds, label, " ".join(argv)))
        wall = time.monotonic() - start
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for v in violations:
        print(v)
    slowest.sort(reverse=True)
    for seconds, label, argv in slowest[:5]:
        print(f"slowest: {seconds:.1f} s gpuwhy {argv} {label}")
    print(f"{len(violations)} violations in {len(jobs)} runs ({'full' if args.full else 'sampled'}"
          f"; {total:.0f} s of runs, {wall:.0f} s wall on {args.jobs} workers)")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
