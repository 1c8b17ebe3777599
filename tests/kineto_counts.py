#!/usr/bin/env python3
"""Independent check of gpuwhy's Kineto importer: counts events per kind with Python's own
json module and compares them with `gpuwhy info --format json` on every real trace.

Usage: kineto_counts.py --gpuwhy PATH --data DIR
Exits 77 (CTest's skip code) when DIR is absent, 1 on any mismatch.
"""
import argparse
import gzip
import json
import os
import subprocess
import sys
from decimal import Decimal, InvalidOperation

# Category spellings of both schema generations, mapped to gpuwhy's `info` count ids.
CATEGORY_TO_COUNT = {
    "kernel": "kernels", "Kernel": "kernels", "mtia_ccp_events": "kernels",
    "gpu_memcpy": "memcpy", "Memcpy": "memcpy",
    "gpu_memset": "memset", "Memset": "memset",
    "cuda_runtime": "runtime_calls", "Runtime": "runtime_calls", "mtia_runtime": "runtime_calls",
    "cuda_driver": "driver_calls", "Driver": "driver_calls",
    "cpu_op": "cpu_ops", "Operator": "cpu_ops",
    "python_function": "python_frames", "Python": "python_frames",
    "user_annotation": "user_annotations", "User annotation": "user_annotations",
    "Trace": "other_cpu_slices", "cuda_profiler_range": "other_cpu_slices",
    "gpu_user_annotation": "gpu_annotations",
    "cuda_sync": "cuda_syncs",
}


def load(path):
    with open(path, "rb") as f:
        magic = f.read(2)
    opener = gzip.open if magic == b"\x1f\x8b" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def is_number(value):
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return True
    if isinstance(value, str):
        try:
            Decimal(value)
            return True
        except InvalidOperation:
            return False
    return False


def expected_counts(doc):
    events = doc if isinstance(doc, list) else doc.get("traceEvents", [])
    counts = {name: 0 for name in set(CATEGORY_TO_COUNT.values())}
    counts["memory_events"] = 0
    for event in events:
        if not isinstance(event, dict):
            continue
        ph = event.get("ph")
        if ph == "X":
            kind = CATEGORY_TO_COUNT.get(event.get("cat"))
            # gpuwhy keeps only complete events with a numeric, non-negative time.
            if kind and is_number(event.get("ts")) and is_number(event.get("dur")) \
                    and Decimal(str(event["dur"])) >= 0:
                counts[kind] += 1
        elif ph in ("i", "I") and event.get("name") == "[memory]" and is_number(event.get("ts")):
            counts["memory_events"] += 1
    return counts


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpuwhy", required=True)
    parser.add_argument("--data", required=True)
    args = parser.parse_args()
    if not os.path.isdir(args.data):
        print(f"skipped: {args.data} is absent (real-trace checks need ../shared/data)")
        return 77
    files = sorted(os.path.join(root, name) for root, _, names in os.walk(args.data) for name in names)
    passed = failed = 0
    for path in files:
        expected = expected_counts(load(path))
        run = subprocess.run([args.gpuwhy, "info", "--format", "json", path],
                             capture_output=True, text=True)
        if run.returncode != 0:
            print(f"FAIL {path}: gpuwhy exited {run.returncode}: {run.stderr.strip()}")
            failed += 1
            continue
        report = json.loads(run.stdout)["files"][0]
        got = report["counts"]
        errors = [s["id"] for s in report["import_stats"] if s["severity"] == "error"]
        diffs = [f"{k}: python {v} vs gpuwhy {got.get(k)}" for k, v in sorted(expected.items())
                 if got.get(k) != v]
        if diffs or errors:
            print(f"FAIL {os.path.relpath(path, args.data)}: " + "; ".join(diffs + [f"error stat {e}" for e in errors]))
            failed += 1
        else:
            passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
