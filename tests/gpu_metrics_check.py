#!/usr/bin/env python3
"""Sampled SM activity (Nsight Systems GPU_METRICS) recomputed in Python, two ways, against
`gpuwhy analyze --format json` on synthetic exports (`gpuwhy synth --format nsys-sqlite
--gpu-metrics`):

1. from the GPU_METRICS rows themselves: each sample covers the 100 us before its timestamp;
   the time-weighted mean over the analysed window (importer binning + analysis);
2. from the kernel rows: per 100 us bin, sum of min(1, gridX / smCount) x overlap, capped at
   100 % and rounded as nsys stores it (the writer's documented model, docs/nsys.md).

Also checks that compute.busy_not_efficient fires on small-grids and not on healthy.

3. DCGM beside a Kineto trace: the same scenario written as a Kineto trace, and the export's SM
   Active samples re-sampled in Python into a dcgm-exporter text log (10 ms periods, each value
   the mean of the 10 ms before its wall-clock timestamp, DCGM's 0..1 ratio) given beside it:
   `gpuwhy analyze trace.json dcgm.prom` must join the log by wall clock and report the
   time-weighted mean of those samples over its window, and busy_not_efficient must fire on
   small-grids only; the log without timestamps must not join (and say why).

Usage: gpu_metrics_check.py --gpuwhy PATH
"""
import argparse
import json
import math
import os
import sqlite3
import subprocess
import sys
import tempfile

BIN = 100_000  # ns


def analyze(gpuwhy, path):
    run = subprocess.run([gpuwhy, "analyze", "--format", "json", path], capture_output=True, text=True)
    if run.returncode not in (0, 1):
        raise RuntimeError(f"{path}: gpuwhy analyze exited {run.returncode}: {run.stderr.strip()}")
    return json.loads(run.stdout)["ranks"][0]


def mean_over(samples, start, end, width=BIN):
    """samples: [(bin_start, value)] of |width| ns bins; time-weighted mean over [start, end)."""
    weighted = covered = 0
    for b, v in samples:
        overlap = min(b + width, end) - max(b, start)
        if overlap > 0:
            weighted += v * overlap
            covered += overlap
    return weighted / covered if covered else -1


def from_table(db, start, end):
    ids = [r[0] for r in db.execute(
        "SELECT metricId FROM TARGET_INFO_GPU_METRICS WHERE metricName = 'SM Active [Throughput %]'")]
    rows = db.execute("SELECT timestamp, value FROM GPU_METRICS WHERE metricId = ? ORDER BY timestamp",
                      (ids[0],)).fetchall()
    return mean_over([(t - BIN, v) for t, v in rows], start, end)


def from_kernels(db, start, end):
    sms = db.execute("SELECT smCount FROM TARGET_INFO_GPU").fetchone()[0]
    bins = {}
    for k_start, k_end, grid in db.execute("SELECT start, end, gridX FROM CUPTI_ACTIVITY_KIND_KERNEL"):
        fill = min(1.0, grid / sms)
        b = k_start // BIN
        while b * BIN < k_end:
            overlap = min(k_end, (b + 1) * BIN) - max(k_start, b * BIN)
            bins[b] = bins.get(b, 0.0) + fill * overlap
            b += 1
    first, last = start // BIN, (end - 1) // BIN
    # Half away from zero, as the writer's llround (Python's round() goes to even).
    samples = [(b * BIN, math.floor(min(100.0, 100.0 * bins.get(b, 0.0) / BIN) + 0.5))
               for b in range(first, last + 1)]
    return mean_over(samples, start, end)


DCGM_PERIOD = 10_000_000  # ns


def dcgm_log(db, with_time):
    """dcgm-exporter text of the export's SM Active, one sample per 10 ms period."""
    epoch = db.execute("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME").fetchone()[0]
    ids = [r[0] for r in db.execute(
        "SELECT metricId FROM TARGET_INFO_GPU_METRICS WHERE metricName = 'SM Active [Throughput %]'")]
    rows = db.execute("SELECT timestamp, value FROM GPU_METRICS WHERE metricId = ? ORDER BY timestamp",
                      (ids[0],)).fetchall()
    bins = [(t - BIN, v) for t, v in rows]
    first, last = bins[0][0], bins[-1][0] + BIN
    samples = []  # (sample time on the export's clock, %)
    t = first + DCGM_PERIOD
    while t <= last + DCGM_PERIOD:
        samples.append((t, mean_over(bins, t - DCGM_PERIOD, t)))
        t += DCGM_PERIOD
    lines = ["# HELP DCGM_FI_PROF_SM_ACTIVE The ratio of cycles an SM has at least 1 warp assigned.",
             "# TYPE DCGM_FI_PROF_SM_ACTIVE gauge"]
    joined = []  # what gpuwhy should see: ms timestamps, 6-decimal ratios, on the trace's clock
    for t, v in samples:
        ms = (epoch + t) // 1_000_000
        stamp = f" {ms}" if with_time else ""
        lines.append(f'DCGM_FI_PROF_SM_ACTIVE{{gpu="0",UUID="GPU-0",device="nvidia0"}} {v / 100:.6f}{stamp}')
        joined.append((ms * 1_000_000 - epoch - DCGM_PERIOD, float(f"{v / 100:.6f}") * 100))
    return "\n".join(lines) + "\n", joined


def check_dcgm_join(gpuwhy, tmp, scenario, fires, db):
    trace = os.path.join(tmp, f"{scenario}.json")
    subprocess.run([gpuwhy, "synth", "--scenario", scenario, "--steps", "6", "-o", trace], check=True,
                   capture_output=True)
    failed = 0
    for with_time in (True, False):
        text, samples = dcgm_log(db, with_time)
        log = os.path.join(tmp, f"{scenario}{'' if with_time else '_untimed'}.prom")
        with open(log, "w") as f:
            f.write(text)
        run = subprocess.run([gpuwhy, "analyze", "--format", "json", trace, log], capture_output=True,
                             text=True)
        if run.returncode not in (0, 1):
            raise RuntimeError(f"analyze {trace} {log} exited {run.returncode}: {run.stderr.strip()}")
        rank = json.loads(run.stdout)["ranks"][0]
        gm = rank.get("gpu_metrics") or {}
        ids = [f["id"] for f in rank["findings"]]
        fired = "compute.busy_not_efficient" in ids
        if with_time:
            start, end = gm.get("window_start_ns", 0), gm.get("window_end_ns", 0)
            want = mean_over(samples, start, end, DCGM_PERIOD)
            got = gm.get("sm_active_pct", -1)
            ok = abs(got - want) < 1e-3 and fired == fires and "dcgm-exporter" in gm.get("source", "")
            print(f"{scenario} + timed DCGM log: gpuwhy SM active {got:.6f} %, Python {want:.6f} %, "
                  f"source '{gm.get('source', '')}'; busy_not_efficient "
                  f"{'fired' if fired else 'not fired'} {'ok' if ok else 'MISMATCH'}")
        else:
            why = " ".join(n["reason"] for n in rank.get("not_applicable", [])
                           if n["analysis"] == "gpu_metrics")
            ok = not fired and "not joined" in why and "wall-clock" in why
            print(f"{scenario} + untimed DCGM log: not joined ('{why[:90]}...') {'ok' if ok else 'MISMATCH'}")
        failed += not ok
    return failed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpuwhy", required=True)
    args = parser.parse_args()
    failed = 0
    with tempfile.TemporaryDirectory(prefix="gpuwhy_gpu_metrics_") as tmp:
        for scenario, fires in (("healthy", False), ("small-grids", True)):
            path = os.path.join(tmp, f"{scenario}.sqlite")
            subprocess.run([args.gpuwhy, "synth", "--scenario", scenario, "--steps", "6", "--format",
                            "nsys-sqlite", "--gpu-metrics", "-o", path], check=True, capture_output=True)
            rank = analyze(args.gpuwhy, path)
            gm = rank["gpu_metrics"]
            start, end = gm["window_start_ns"], gm["window_end_ns"]
            db = sqlite3.connect(path)
            table, kernels = from_table(db, start, end), from_kernels(db, start, end)
            got = gm["sm_active_pct"]
            ids = [f["id"] for f in rank["findings"]]
            fired = "compute.busy_not_efficient" in ids
            ok = abs(got - table) < 1e-6 and abs(got - kernels) < 1e-6 and fired == fires
            print(f"{scenario}: gpuwhy SM active {got:.6f} %, GPU_METRICS rows {table:.6f} %, "
                  f"kernels {kernels:.6f} %; busy_not_efficient {'fired' if fired else 'not fired'}"
                  f" {'ok' if ok else 'MISMATCH'}")
            failed += not ok
            failed += check_dcgm_join(args.gpuwhy, tmp, scenario, fires, db)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
