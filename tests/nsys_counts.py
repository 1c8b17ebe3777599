#!/usr/bin/env python3
"""Independent check of gpuwhy's Nsight Systems importer: counts rows of every real export
with Python's own sqlite3 module and compares them with `gpuwhy info --format json`; also
checks that an export without CUDA activity is refused with the capture command.

Usage: nsys_counts.py --gpuwhy PATH --data DIR      (DIR: ../shared/data/nsys_sqlite)
Exits 77 (CTest's skip code) when DIR is absent, 1 on any mismatch.
"""
import argparse
import json
import os
import sqlite3
import subprocess
import sys

# gpuwhy `info` count id -> SQL counting the same rows in the export.
COUNTS = {
    "kernels": "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL",
    "memcpy": "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY",
    "memset": "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET",
    "runtime_calls": "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME",
    "driver_calls": "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_DRIVER",
    "cuda_syncs": "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
    # NVTX push/pop and start/end ranges that ended: ops (aten::) plus annotations.
    "nvtx_ranges": "SELECT count(*) FROM NVTX_EVENTS WHERE eventType IN (59, 60) AND end IS NOT NULL",
}


def expected(path):
    db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    out = {}
    for key, sql in COUNTS.items():
        table = sql.split("FROM ")[1].split()[0]
        out[key] = db.execute(sql).fetchone()[0] if table in tables else 0
    has_kernels = "CUPTI_ACTIVITY_KIND_KERNEL" in tables
    db.close()
    return out, has_kernels


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpuwhy", required=True)
    parser.add_argument("--data", required=True)
    args = parser.parse_args()
    if not os.path.isdir(args.data):
        print(f"skipped: {args.data} is absent (real-export checks need ../shared/data)")
        return 77
    failed = passed = 0
    for name in sorted(os.listdir(args.data)):
        path = os.path.join(args.data, name)
        want, has_kernels = expected(path)
        run = subprocess.run([args.gpuwhy, "info", "--format", "json", path], capture_output=True, text=True)
        if not has_kernels:
            ok = run.returncode == 2 and "nsys profile --trace=cuda,nvtx,osrt" in run.stderr
            print(("ok  " if ok else "FAIL ") + f"{name}: no kernel table -> exit {run.returncode}: {run.stderr.strip()}")
            passed, failed = passed + ok, failed + (not ok)
            continue
        if run.returncode != 0:
            print(f"FAIL {name}: gpuwhy exited {run.returncode}: {run.stderr.strip()}")
            failed += 1
            continue
        files = json.loads(run.stdout)["files"]
        got = {k: sum(f["counts"].get(k, 0) for f in files) for k in COUNTS}
        got["nvtx_ranges"] = sum(f["counts"].get("cpu_ops", 0) + f["counts"].get("user_annotations", 0) for f in files)
        diffs = [f"{k}: sqlite {v} vs gpuwhy {got[k]}" for k, v in want.items() if got[k] != v]
        if diffs:
            print(f"FAIL {name}: " + "; ".join(diffs))
            failed += 1
        else:
            print(f"ok   {name}: " + ", ".join(f"{k}={v}" for k, v in want.items()))
            passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
