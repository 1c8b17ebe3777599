#!/usr/bin/env python3
"""gpuwhy's reading of the real profiler memory timeline against an independent Python replay.

The file (export_memory_timeline's raw JSON, HTA's tests/data/memory_analysis) is loaded with
json, and replayed the way PyTorch's own plot does (torch/profiler/_memory_profiler.py,
_coalesce_timeline): the rows of one timestamp applied together, preexisting rows (time -1)
first. The peak, when it came (after the first timed row), the bytes of each category at the
peak, the row counts by action and the final bytes must equal gpuwhy info --format json's. The
expected values of issue 17 are checked too: peak 3,082,832,104 B = 2940.0 MiB at 98.4 ms,
activations 2472.4 MiB (84.1%).

    tests/memory_timeline_check.py --gpuwhy BUILD/gpuwhy --data ../shared/data
Exit 0 when all match, 1 on a mismatch, 77 (skipped) when the file is absent.
"""
import argparse
import gzip
import json
import pathlib
import subprocess
import sys

# _memory_profiler._CATEGORY_TO_COLORS order; index 7 is None.
CATEGORIES = ["parameter", "optimizer_state", "input", "temporary", "activation", "gradient",
              "autograd_detail", "unknown"]
ACTIONS = {1: "preexisting", 2: "create", 3: "increment_version", 4: "destroy"}


def replay(rows):
    current = [0] * len(CATEGORIES)
    total = peak = 0
    peak_time = None
    peak_by_category = list(current)
    i = 0
    while i < len(rows):
        t = rows[i][0]
        while i < len(rows) and rows[i][0] == t:
            current[rows[i][3]] += rows[i][2]
            total += rows[i][2]
            i += 1
        if total > peak:
            peak, peak_time, peak_by_category = total, t, list(current)
    timed = [r[0] for r in rows if r[0] >= 0]
    first = min(timed)
    actions = {name: 0 for name in ACTIONS.values()}
    for r in rows:
        actions[ACTIONS[r[1]]] += 1
    return {
        "entries": len(rows),
        "by_action": actions,
        "first_time_ns": first,
        "last_time_ns": max(timed),
        "preexisting_bytes": sum(r[2] for r in rows if r[1] == 1),
        "final_bytes": total,
        "peak": {
            "bytes": peak,
            "offset_ns": 0 if peak_time in (None, -1) else peak_time - first,
            "by_category": dict(zip(CATEGORIES, peak_by_category)),
        },
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuwhy", required=True)
    ap.add_argument("--data", required=True)
    args = ap.parse_args()
    path = pathlib.Path(args.data) / "memory" / "hta_memory_timeline.raw.gz"
    if not path.exists():
        print(f"skip: no {path} (shared data absent)")
        return 77
    with gzip.open(path, "rt") as f:
        rows = json.load(f)
    want = replay(rows)
    run = subprocess.run([args.gpuwhy, "info", "--format", "json", str(path)],
                         capture_output=True, text=True, check=False)
    if run.returncode != 0:
        print(f"gpuwhy info failed ({run.returncode}): {run.stderr}")
        return 1
    got = json.loads(run.stdout)["memory_snapshots"][0]
    failures = []
    for key, value in want.items():
        if got.get(key) != value:
            failures.append(f"{key}: gpuwhy {got.get(key)!r}, python {value!r}")
    peak = want["peak"]
    mib = 1024 * 1024
    issue = [
        (peak["bytes"], 3082832104),
        (round(peak["bytes"] / mib, 1), 2940.0),
        (round(peak["offset_ns"] / 1e6, 1), 98.4),
        (round(peak["by_category"]["activation"] / mib, 1), 2472.4),
        (round(100 * peak["by_category"]["activation"] / peak["bytes"], 1), 84.1),
    ]
    for python, expected in issue:
        if python != expected:
            failures.append(f"issue 17 expects {expected}, the file gives {python}")
    for line in failures:
        print("MISMATCH " + line)
    if failures:
        return 1
    print(f"ok: {want['entries']} rows; peak {peak['bytes']} B at {peak['offset_ns']} ns; "
          f"{len(CATEGORIES)} categories equal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
