#!/usr/bin/env python3
"""Independent ground truth for the Nsight Compute importer (src/ingest/ncu) and roofline classes.

Reads every export under DATA (../shared/data/ncu) and FIXTURES (tests/data/ncu) with Python's
csv module (no code shared with gpuwhy): kernels and metric values per file (details page: rows
with a Metric Name, distinct IDs among them; raw page: rows under the units row, non-empty metric
cells) and each kernel's roofline class by the rule of docs/metrics/efficiency.md. Then runs
`gpuwhy info --format json` on each file and compares. Exit 77 when DATA is absent.

    ncu_counts.py --gpuwhy BUILD/gpuwhy --data ../shared/data/ncu --fixtures tests/data/ncu
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys

IDENTITY = {"ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Kernel Time",
            "Context", "Stream", "Block Size", "Grid Size", "Device", "CC", "Section Name",
            "Metric Name", "Metric Unit", "Metric Value", "Rule Name", "Rule Type",
            "Rule Description"}
SM = ["Compute (SM) Throughput", "SM [%]", "sm__throughput.avg.pct_of_peak_sustained_elapsed"]
MEM = ["Memory Throughput", "Memory [%]",
       "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"]
OCC = ["Achieved Occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active"]


def number(text):
    if not re.fullmatch(r"-?\d{1,3}(,\d{3})*(\.\d+)?|-?\d+(\.\d+)?", text):
        return None
    return float(text.replace(",", ""))


def read(path):
    """[(id, [(name, unit, text)])] in file order."""
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f) if r and not r[0].startswith("==")]
    header = rows[0]
    kernels = {}
    if "Metric Name" in header:
        col = {name: i for i, name in enumerate(header)}
        for r in rows[1:]:
            if r[col["Metric Name"]]:
                kernels.setdefault(int(r[col["ID"]]), []).append(
                    (r[col["Metric Name"]], r[col["Metric Unit"]], r[col["Metric Value"]]))
        return list(kernels.items())
    units = rows[1]
    metric_cols = [i for i, name in enumerate(header)
                   if name not in IDENTITY and not name.startswith("Estimated Speedup")]
    out = []
    for r in rows[2:]:
        out.append((int(r[0]), [(header[i], units[i], r[i]) for i in metric_cols if r[i]]))
    return out


def pct(metrics, names):
    for name in names:
        for n, unit, text in metrics:
            if n == name and unit == "%" and number(text) is not None:
                return number(text)
    return None


def roofline(metrics):
    sm, mem, occ = pct(metrics, SM), pct(metrics, MEM), pct(metrics, OCC)
    if sm is None or mem is None:
        return "unclassified"
    if sm >= 60 and sm >= mem:
        return "compute_bound"
    if mem >= 60:
        return "memory_bound"
    if occ is not None and occ < 25:
        return "occupancy_limited"
    return "latency_bound"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuwhy", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--fixtures", required=True)
    args = ap.parse_args()
    if not os.path.isdir(args.data):
        print(f"skip: no {args.data}")
        return 77
    paths = [os.path.join(d, f) for d in (args.data, args.fixtures) for f in sorted(os.listdir(d))]
    failures = 0
    for path in paths:
        truth = read(path)
        want = (len(truth), sum(len(m) for _, m in truth), [roofline(m) for _, m in truth])
        run = subprocess.run([args.gpuwhy, "info", "--format", "json", path],
                             capture_output=True, text=True)
        if run.returncode != 0:
            print(f"FAIL {path}: gpuwhy exit {run.returncode}: {run.stderr.strip()}")
            failures += 1
            continue
        profile = json.loads(run.stdout)["kernel_profiles"][0]
        got = (profile["kernel_count"], profile["metric_count"],
               [k["roofline_class"] for k in profile["kernels"]])
        ids = [k["id"] for k in profile["kernels"]]
        ok = got == want and ids == [i for i, _ in truth]
        print(f"{'ok  ' if ok else 'FAIL'} {os.path.basename(path)}: kernels {got[0]}/{want[0]}, "
              f"metrics {got[1]}/{want[1]}, classes {'same' if got[2] == want[2] else got[2]}")
        failures += not ok
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
