#!/usr/bin/env python3
"""`gpuwhy analyze --hta-compat` against HolisticTraceAnalysis' own outputs.

For every trace set in ../shared/data/reference/hta (HTA's CSVs, computed by HTA itself at the
commit in each manifest.json), runs the real binary with --hta-compat --format json on each
rank's trace and compares the report's metrics with HTA's numbers:
  temporal_breakdown.csv       temporal.{idle,compute,non_compute}_pct within 0.5 percentage
                               points, temporal.*_us within max(1 %, 0.5 % of the span)
  idle_time_breakdown.csv      hta_idle.{host_wait,kernel_wait,other}_us per stream within
                               max(1 %, 0.5 % of the stream's idle time)
  gpu_kernel_type_breakdown.csv kernels.hta.{type}_pct within 0.5 points (single-rank sets:
                               HTA aggregates the percentages over ranks)
  comm_comp_overlap.csv        comm.overlap_pct within 0.01 (HTA prints two decimals)
It also checks the flag matters: without it, at least one set's temporal breakdown differs
from HTA's by more than the tolerance (gpuwhy's exact view keeps the last step).

Usage: hta_compat_check.py --gpuwhy PATH --data DIR
Exits 77 (CTest's skip code) when the reference data is absent, 1 on any disagreement.
"""
import argparse
import csv
import json
import os
import subprocess
import sys

SETS = {
    "trace_filter": ["trace_filter_sampled_rank-0.json.gz", "trace_filter_sampled_rank-1.json.gz"],
    "ns_resolution_trace": ["ns_resolution_trace_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"],
    "nccl_parser_config": ["nccl_parser_config_nccl_data.json.gz"],
    "amd_trace": ["amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz"],
    "critical_path_alexnet": [
        "critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz"],
}


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def number(text):
    return float(text) if text not in ("", None) else None


def rank_metrics(gpuwhy, trace, hta_compat):
    args = [gpuwhy, "analyze", "--format", "json", trace]
    if hta_compat:
        args.insert(2, "--hta-compat")
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} exited {done.returncode}: {done.stderr.strip()}")
    doc = json.loads(done.stdout)
    rank = doc["ranks"][0]
    if rank.get("hta_compat") is not hta_compat:
        raise RuntimeError(f"{trace}: report's hta_compat is {rank.get('hta_compat')!r}")
    by_id = {}
    for m in rank["metrics"]:
        scope = m["scope"]
        by_id[(m["id"], scope.get("device"), scope.get("stream"))] = m["value"]
    return by_id


def close(ours, ref, whole):
    return ours is not None and abs(ours - ref) <= max(0.01 * abs(ref), 0.005 * abs(whole)) + 1e-9


class Checker:
    def __init__(self):
        self.failures = []
        self.checks = 0

    def expect(self, ok, label):
        self.checks += 1
        if not ok:
            self.failures.append(label)
            print("MISMATCH", label)


def check_set(name, files, ref_dir, kineto_dir, gpuwhy, checker):
    metrics = [rank_metrics(gpuwhy, os.path.join(kineto_dir, f), True) for f in files]
    for row in read_csv(os.path.join(ref_dir, "temporal_breakdown.csv")):
        m = metrics[int(row["rank"])]
        span = float(row["kernel_time(us)"])
        for part in ("idle", "compute", "non_compute"):
            pct = m.get((f"temporal.{part}_pct", None, None))
            ref_pct = float(row[f"{part}_time_pctg"])
            label = f"{name} rank {row['rank']} temporal {part}: {pct} % vs HTA {ref_pct} %"
            checker.expect(pct is not None and abs(pct - ref_pct) <= 0.505, label)
            us = m.get((f"temporal.{part}_us", None, None))
            checker.expect(close(us, float(row[f"{part}_time(us)"]), span),
                           f"{name} rank {row['rank']} temporal {part}: {us} us vs HTA "
                           f"{row[f'{part}_time(us)']} us")
    stream_total = {}
    rows = read_csv(os.path.join(ref_dir, "idle_time_breakdown.csv"))
    for row in rows:
        key = (int(row["rank"]), int(row["stream"]))
        stream_total[key] = stream_total.get(key, 0.0) + float(row["idle_time"])
    for row in rows:
        rank, stream = int(row["rank"]), int(row["stream"])
        values = [v for (mid, _dev, s), v in metrics[rank].items()
                  if mid == f"hta_idle.{row['idle_category']}_us" and s == stream]
        ours = values[0] if len(values) == 1 else None
        checker.expect(close(ours, float(row["idle_time"]), stream_total[(rank, stream)]),
                       f"{name} rank {rank} stream {stream} {row['idle_category']}: {ours} us vs "
                       f"HTA {row['idle_time']} us")
    if len(files) == 1:
        for row in read_csv(os.path.join(ref_dir, "gpu_kernel_type_breakdown.csv")):
            kind = row["kernel_type"]
            mid = "kernels.hta.overlap_pct" if " " in kind else f"kernels.hta.{kind.lower()}_pct"
            if " " in kind:
                continue  # the overlap regions are summed into one metric: checked below
            ours = metrics[0].get((mid, None, None))
            checker.expect(ours is not None and abs(ours - float(row["percentage"])) <= 0.5,
                           f"{name} kernel type {kind}: {ours} % vs HTA {row['percentage']} %")
        overlap = sum(float(r["percentage"]) for r in read_csv(
            os.path.join(ref_dir, "gpu_kernel_type_breakdown.csv")) if " " in r["kernel_type"])
        ours = metrics[0].get(("kernels.hta.overlap_pct", None, None), 0.0)
        checker.expect(abs(ours - overlap) <= 0.5,
                       f"{name} kernel-type overlap regions: {ours} % vs HTA {overlap} %")
    for row in read_csv(os.path.join(ref_dir, "comm_comp_overlap.csv")):
        ref = number(row["comp_comm_overlap_pctg"])
        ours = metrics[int(row["rank"])].get(("comm.overlap_pct", None, None))
        if ref is None:  # HTA leaves it empty for a rank without communication kernels
            checker.expect(ours is None or ours == 0,
                           f"{name} rank {row['rank']} overlap: {ours} % vs HTA none")
        else:
            checker.expect(ours is not None and abs(ours - ref) <= 0.01,
                           f"{name} rank {row['rank']} overlap: {ours} % vs HTA {ref} %")


def exact_view_differs(gpuwhy, ref_root, kineto_dir):
    """Without --hta-compat some set must disagree with HTA, or the flag changes nothing."""
    for name, files in SETS.items():
        for row in read_csv(os.path.join(ref_root, name, "temporal_breakdown.csv")):
            m = rank_metrics(gpuwhy, os.path.join(kineto_dir, files[int(row["rank"])]), False)
            pct = m.get(("temporal.idle_pct", None, None))
            if pct is None or abs(pct - float(row["idle_time_pctg"])) > 0.505:
                print(f"without --hta-compat {name} rank {row['rank']}: idle {pct} % vs HTA "
                      f"{row['idle_time_pctg']} % (exact view, last step kept)")
                return True
    return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpuwhy", required=True)
    parser.add_argument("--data", required=True)
    args = parser.parse_args()
    ref_root = os.path.join(args.data, "reference", "hta")
    kineto_dir = os.path.join(args.data, "kineto", "hta")
    if not os.path.isdir(ref_root) or not os.path.isdir(kineto_dir):
        print(f"skipped: {ref_root} or {kineto_dir} is absent")
        return 77
    checker = Checker()
    for name, files in SETS.items():
        check_set(name, files, os.path.join(ref_root, name), kineto_dir, args.gpuwhy, checker)
    checker.expect(exact_view_differs(args.gpuwhy, ref_root, kineto_dir),
                   "the exact view equals HTA's everywhere: --hta-compat is not tested")
    print(f"{checker.checks - len(checker.failures)} of {checker.checks} comparisons with HTA agree")
    return 1 if checker.failures else 0


if __name__ == "__main__":
    sys.exit(main())
