#!/usr/bin/env python3
"""The replay error table over every real trace in the shared data (docs/metrics/critical_path.md).

Runs `gpuwhy analyze --format json` once per trace (Kineto JSON and Nsight Systems SQLite under
the data folder, two at a time) and prints, per rank with at least --min-steps steady steps, the
replay error's median and maximum over those steps. Issue 40's target is a median of at most 3%
and a maximum of at most 5% on every row; rows that miss it are listed with their worst step and
the critical path's largest classes, so the reason can be read.

    tests/replay_check.py --gpuwhy build/dev/src/cli/gpuwhy --data ../shared/data
        [--min-steps 3] [--max-median PCT] [--max-worst PCT] [--max-missing N]

Fails when a row's median exceeds --max-median or its maximum --max-worst (defaults: no limit,
the table only), or when more than --max-missing rows miss the issue's target. Exit 77 (skip)
when the data folder is absent.
"""
import argparse
import concurrent.futures
import json
import pathlib
import subprocess
import sys

TRACE_SUFFIXES = (".json", ".json.gz", ".sqlite")


def traces(data):
    out = []
    for sub in ("kineto", "nsys_sqlite"):
        root = data / sub
        if not root.is_dir():
            continue
        for p in sorted(root.rglob("*")):
            if p.is_file() and p.name.endswith(TRACE_SUFFIXES):
                out.append(p)
    return out


def analyse(gpuwhy, path):
    proc = subprocess.run([gpuwhy, "analyze", "--format", "json", str(path)],
                          capture_output=True, text=True, timeout=300)
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return path, []
    return path, [r for r in report.get("ranks", []) if "replay" in r]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuwhy", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--min-steps", type=int, default=3)
    ap.add_argument("--max-median", type=float, default=None)
    ap.add_argument("--max-worst", type=float, default=None)
    ap.add_argument("--max-missing", type=int, default=None)
    args = ap.parse_args()
    data = pathlib.Path(args.data)
    if not data.is_dir():
        print(f"replay_check: {data} is absent: skipped")
        return 77
    rows = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for path, ranks in pool.map(lambda p: analyse(args.gpuwhy, p), traces(data)):
            for rank in ranks:
                r = rank["replay"]
                if r["steps"] < args.min_steps:
                    continue
                rows.append((str(path.relative_to(data)), rank, r))
    print(f"{'trace':<72} {'steps':>5} {'median%':>8} {'max%':>7} {'step ms':>9} {'cp top'}")
    failures, missing = [], []
    for name, rank, r in rows:
        classes = sorted(r["critical_path_by_class_ms"].items(), key=lambda kv: -kv[1])[:2]
        top = ", ".join(f"{c} {ms:.1f}" for c, ms in classes)
        short = name if len(name) <= 72 else "…" + name[-71:]
        print(f"{short:<72} {r['steps']:>5} {r['error_median_pct']:>8.2f} "
              f"{r['error_max_pct']:>7.2f} {r['measured_step_median_ms']:>9.2f} {top}")
        if r["error_median_pct"] > 3 or r["error_max_pct"] > 5:
            worst = max(r["step_errors"], key=lambda s: abs(s["error_pct"]))
            missing.append(f"{name}: worst step {worst['step']} measured "
                           f"{worst['measured_ms']:.2f} ms, replayed {worst['replayed_ms']:.2f} ms")
        if args.max_median is not None and r["error_median_pct"] > args.max_median:
            failures.append(f"{name}: median error {r['error_median_pct']:.2f}% > {args.max_median}%")
        if args.max_worst is not None and r["error_max_pct"] > args.max_worst:
            failures.append(f"{name}: max error {r['error_max_pct']:.2f}% > {args.max_worst}%")
    within = len(rows) - len(missing)
    print(f"\n{within} of {len(rows)} rows within the target (median <= 3%, max <= 5%)")
    for line in missing:
        print("  misses: " + line)
    if args.max_missing is not None and len(missing) > args.max_missing:
        failures.append(f"{len(missing)} rows miss the target (> {args.max_missing})")
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
