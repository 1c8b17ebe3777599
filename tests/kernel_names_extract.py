#!/usr/bin/env python3
"""Lists every GPU kernel name in the traces under a data directory, with its time.

Walks Kineto traces (*.json, *.json.gz, *.pt.trace.json*: events whose "cat" is "kernel" or
the pre-1.10 "Kernel") and Nsight Systems SQLite exports (*.sqlite:
CUPTI_ACTIVITY_KIND_KERNEL joined to StringIds on demangledName, the column gpuwhy's importer
reads first). Standard library only, so the ctest runs without extra packages.

Output, tab-separated, one row per (file, name):
  file  name  total_us  share_of_file_kernel_time_pct
With --unique, one row per name: name, total_us over all files, the largest share in any file.
"""
import argparse
import gzip
import json
import os
import sqlite3
import sys

KERNEL_CATS = {"kernel", "Kernel"}


def is_kineto(path):
    return path.endswith(".json") or path.endswith(".json.gz")


def kineto_kernels(path):
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace") as f:
            doc = json.load(f)
    except (OSError, ValueError, EOFError):
        return None
    # The pre-1.10 tb_plugin samples are a bare event list, later schemas an object.
    events = doc.get("traceEvents") if isinstance(doc, dict) else doc
    if not isinstance(events, list):
        return None
    out = {}
    for e in events:
        if not isinstance(e, dict) or e.get("cat") not in KERNEL_CATS:
            continue
        if e.get("ph") != "X":
            continue
        name = e.get("name")
        if not isinstance(name, str):
            continue
        try:
            dur = float(e.get("dur", 0) or 0)
        except (TypeError, ValueError):
            dur = 0.0
        out[name] = out.get(name, 0.0) + dur  # microseconds in every Kineto schema
    return out


def nsys_kernels(path):
    try:
        db = sqlite3.connect("file:{}?mode=ro".format(path), uri=True)
    except sqlite3.Error:
        return None
    try:
        cols = [r[1] for r in db.execute("PRAGMA table_info(CUPTI_ACTIVITY_KIND_KERNEL)")]
        if not cols:
            return None
        col = next((c for c in ("demangledName", "shortName", "mangledName") if c in cols), None)
        if col is None:
            return None
        rows = db.execute(
            "SELECT s.value, SUM(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
            "JOIN StringIds s ON s.id = k.{} GROUP BY s.value".format(col))
        return {name: ns / 1000.0 for name, ns in rows}  # ns to us
    except sqlite3.Error:
        return None
    finally:
        db.close()


def walk(data_dir):
    """Yields (relative path, {name: total_us}) for every trace with at least one kernel."""
    for root, dirs, files in os.walk(data_dir):
        dirs.sort()
        for fn in sorted(files):
            path = os.path.join(root, fn)
            if fn.endswith(".sqlite"):
                kernels = nsys_kernels(path)
            elif is_kineto(fn):
                kernels = kineto_kernels(path)
            else:
                continue
            if kernels:
                yield os.path.relpath(path, data_dir), kernels


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data_dir", nargs="?", default="/work/shared/data")
    ap.add_argument("--unique", action="store_true", help="one row per name over all files")
    args = ap.parse_args()
    if not os.path.isdir(args.data_dir):
        print("no data directory {}".format(args.data_dir), file=sys.stderr)
        return 2
    total = {}
    share = {}
    for rel, kernels in walk(args.data_dir):
        file_us = sum(kernels.values())
        for name, us in sorted(kernels.items(), key=lambda kv: (-kv[1], kv[0])):
            pct = 100.0 * us / file_us if file_us > 0 else 0.0
            if args.unique:
                total[name] = total.get(name, 0.0) + us
                share[name] = max(share.get(name, 0.0), pct)
            else:
                print("{}\t{}\t{:.3f}\t{:.4f}".format(rel, name.replace("\t", " "), us, pct))
    if args.unique:
        for name in sorted(total, key=lambda n: (-share[n], n)):
            print("{}\t{:.3f}\t{:.4f}".format(name.replace("\t", " "), total[name], share[name]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
