#!/usr/bin/env python3
"""Profiler summary reports read by gpuwhy against an independent reading in Python.

For every `nsys stats` kernel summary (cuda_gpu_kern_sum text) and DLProf summary / kernel CSV
in ../shared/data/nsys_stats, counts the kernel rows, sums their instances and total times (a
regex over the dash-run table; the csv module for DLProf) and reads DLProf's iterations and
wall clock, then runs `gpuwhy analyze --format json FILE` and compares the report's summary.*
metrics. It also checks the share of kernel time in fp32 SIMT GEMMs (cuBLAS "ffma" and
"sgemm" kernels) against gpuwhy's summary.tc_eligible_without_tc_pct within 2 points, for the
kern_sum files whose names are not NVTX placeholders.

Usage: profile_summary_check.py --gpuwhy PATH --data DIR
Exits 77 (CTest's skip code) when the folder is absent, 1 on any disagreement.
"""
import argparse
import csv
import io
import json
import os
import re
import subprocess
import sys

RULE = re.compile(r"^\s*-{3,}(\s+-{3,})+\s*$")


def read_kern_sum(path):
    lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
    rows = []
    for i, line in enumerate(lines):
        if "Total Time" not in line or i + 1 >= len(lines) or not RULE.match(lines[i + 1]):
            continue
        columns = len(lines[i + 1].split())
        for row in lines[i + 2:]:
            if not row.strip():
                break
            parts = row.split(None, columns - 1)
            rows.append({"total": int(parts[1]), "instances": int(parts[2]), "name": parts[-1]})
        break
    return rows


def fp32_simt_gemm(name):
    n = name.lower()
    return "gemm" in n and ("ffma" in n or "sgemm" in n)


def gpuwhy_metrics(gpuwhy, path):
    done = subprocess.run([gpuwhy, "analyze", "--format", "json", path], capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"gpuwhy analyze {path} exited {done.returncode}: {done.stderr.strip()}")
    rank = json.loads(done.stdout)["ranks"][0]
    return {m["id"]: m["value"] for m in rank["metrics"]}, rank["findings"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpuwhy", required=True)
    parser.add_argument("--data", required=True)
    args = parser.parse_args()
    folder = os.path.join(args.data, "nsys_stats")
    if not os.path.isdir(folder):
        print(f"skipped: {folder} is absent")
        return 77
    failures = []
    checked = 0

    def expect(ok, label):
        nonlocal checked
        checked += 1
        if not ok:
            failures.append(label)
            print("MISMATCH", label)

    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if "_kern_sum" in name and name.endswith(".txt"):
            rows = read_kern_sum(path)
            metrics, findings = gpuwhy_metrics(args.gpuwhy, path)
            total = sum(r["total"] for r in rows)
            expect(metrics.get("summary.kernel_rows") == len(rows),
                   f"{name}: rows {metrics.get('summary.kernel_rows')} vs {len(rows)}")
            expect(metrics.get("summary.kernel_instances") == sum(r["instances"] for r in rows),
                   f"{name}: instances")
            expect(abs(metrics.get("summary.kernel_time_ms", -1) - total / 1e6) < 1e-3,
                   f"{name}: kernel time {metrics.get('summary.kernel_time_ms')} vs {total / 1e6}")
            if "nvtx" not in name:
                share = 100.0 * sum(r["total"] for r in rows if fp32_simt_gemm(r["name"])) / total
                ours = metrics.get("summary.tc_eligible_without_tc_pct", -1)
                expect(abs(ours - share) <= 2.0, f"{name}: fp32 GEMM share {ours} vs {share:.1f}")
            top = findings[0]["id"] if findings else ""
            expect(top == "compute.no_tensor_cores", f"{name}: first finding {top!r}")
            print(f"{name}: {len(rows)} rows, {total / 1e6:.1f} ms of kernels, first finding {top}")
        elif name.endswith("dlprof_kernel.csv"):
            text = open(path, encoding="utf-8").read()
            table = list(csv.DictReader(io.StringIO(text.split("\n", 1)[1])))
            metrics, _ = gpuwhy_metrics(args.gpuwhy, path)
            total = sum(int(r["Total GPU Time (ns)"]) for r in table)
            expect(metrics.get("summary.kernel_rows") == len(table), f"{name}: rows")
            expect(abs(metrics.get("summary.kernel_time_ms", -1) - total / 1e6) < 1e-6,
                   f"{name}: kernel time")
            print(f"{name}: {len(table)} rows, {total} ns of kernels")
        elif name.endswith("dlprof_summary.csv"):
            values = {}
            for row in csv.reader(open(path, encoding="utf-8")):
                if len(row) == 2:
                    values[row[0]] = row[1]
            metrics, findings = gpuwhy_metrics(args.gpuwhy, path)
            expect(metrics.get("summary.iterations") == int(values["Total Iterations"]),
                   f"{name}: iterations")
            expect(abs(metrics.get("summary.wall_ms", -1) - int(values["Wall Clock Time (ns)"]) / 1e6)
                   < 1e-6, f"{name}: wall clock")
            top = findings[0]["id"] if findings else ""
            expect(top == "quality.warmup_dominated", f"{name}: first finding {top!r}")
            print(f"{name}: {values['Total Iterations']} iteration(s), first finding {top}")
    print(f"{checked - len(failures)} of {checked} checks agree")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
