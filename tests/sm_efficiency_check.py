#!/usr/bin/env python3
"""Independent check of gpuwhy's estimated SM efficiency and achieved occupancy.

For every real Kineto trace whose kernels carry "blocks per SM", recomputes from the raw JSON
(Python's json module, decimal timestamps) the PyTorch TensorBoard plugin's definitions
(tb_plugin gpu_metrics_parser.py):

  est. SM efficiency (per device) = sum over the device timeline of
      min(sum of "blocks per SM" of the kernels running, 1) x time / window
  est. achieved occupancy = sum(occupancy x time) / sum(time), kernels with an occupancy >= 0

and the share of non-communication kernel time in grids with fewer blocks than SMs, then
compares them with `gpuwhy analyze --format json` (its "sm_efficiency" object). The window is
the one gpuwhy reports (the utilization window: first step start to last step end); the check
also confirms it equals util.window_ms. Kernels are clipped to the window, as the plugin does.

Usage: sm_efficiency_check.py --gpuwhy PATH --data DIR
Exits 77 (CTest's skip code) when DIR is absent, 1 on any mismatch.
"""
import argparse
import gzip
import json
import os
import re
import subprocess
import sys
from collections import defaultdict
from decimal import Decimal

KERNEL_CATEGORIES = {"kernel", "Kernel"}
COMMUNICATION = re.compile(r"nccl|rccl", re.IGNORECASE)
TOLERANCE_PCT = 0.01  # percentage points


def load(path):
    with open(path, "rb") as f:
        magic = f.read(2)
    opener = gzip.open if magic == b"\x1f\x8b" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f, parse_float=Decimal)


def ns(value):
    return int((Decimal(value) * 1000).to_integral_value())


def kernels_of(doc):
    events = doc if isinstance(doc, list) else doc.get("traceEvents", [])
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "X" or e.get("cat") not in KERNEL_CATEGORIES:
            continue
        args = e.get("args") or {}
        device = args.get("device", e.get("pid"))
        start = ns(e["ts"])
        yield {
            "device": int(device),
            "start": start,
            "end": start + ns(e.get("dur", 0)),
            "name": e.get("name", ""),
            "blocks": args.get("blocks per SM"),
            "occupancy": args.get("est. achieved occupancy %"),
        }


def filled_time(ranges):
    """The plugin's merge_ranges_with_value summed: min(running value, 1) x dt."""
    points = []
    for start, end, value in ranges:
        points.append((start, 0, value))
        points.append((end, 1, value))
    points.sort(key=lambda p: (p[0], p[1]))
    total = Decimal(0)
    running = Decimal(0)
    active = 0
    for i, (at, kind, value) in enumerate(points):
        if i > 0 and active > 0 and at > points[i - 1][0]:
            total += min(running, Decimal(1)) * (at - points[i - 1][0])
        active += -1 if kind else 1
        running += -value if kind else value
        if active == 0:
            running = Decimal(0)
    return total


def expected(doc, start, end):
    per_device = defaultdict(list)
    occupancy_ns = Decimal(0)
    occupancy_time = 0
    compute_ns = 0
    small_ns = 0
    for k in kernels_of(doc):
        s, e = max(k["start"], start), min(k["end"], end)
        if e <= s:
            continue
        occ = k["occupancy"]
        if occ is not None and Decimal(occ) >= 0:
            occupancy_ns += Decimal(occ) * (e - s)
            occupancy_time += e - s
        bps = k["blocks"]
        if bps is None or Decimal(bps) <= 0:
            continue
        per_device[k["device"]].append((s, e, Decimal(bps)))
        if COMMUNICATION.search(k["name"]):
            continue
        compute_ns += e - s
        if Decimal(bps) < 1:
            small_ns += e - s
    window = end - start
    devices = {d: float(100 * filled_time(r) / window) for d, r in per_device.items()}
    return {
        "devices": devices,
        "sm_efficiency": sum(devices.values()) / len(devices) if devices else None,
        "occupancy": float(occupancy_ns / occupancy_time) if occupancy_time else None,
        "small_grid": 100.0 * small_ns / compute_ns if compute_ns else 0.0,
    }


def traces(data):
    for root, _, files in os.walk(data):
        for name in sorted(files):
            if name.endswith((".json", ".json.gz")):
                yield os.path.join(root, name)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gpuwhy", required=True)
    parser.add_argument("--data", required=True)
    args = parser.parse_args()
    if not os.path.isdir(args.data):
        print(f"skip: {args.data} is absent (../shared/data holds the real traces)")
        return 77
    failures = []
    checked = 0
    for path in sorted(traces(args.data)):
        try:
            doc = load(path)
        except (ValueError, OSError, EOFError):
            continue  # not a whole JSON trace; the importer tests cover those
        if not any(k["blocks"] is not None for k in kernels_of(doc)):
            continue
        run = subprocess.run([args.gpuwhy, "analyze", path, "--format", "json"],
                             capture_output=True, text=True)
        if run.returncode not in (0, 1):
            failures.append(f"{path}: gpuwhy exited {run.returncode}: {run.stderr.strip()}")
            continue
        rank = json.loads(run.stdout)["ranks"][0]
        got = rank.get("sm_efficiency")
        if got is None:
            failures.append(f"{path}: kernels carry blocks per SM but no sm_efficiency object")
            continue
        start, end = got["window_start_ns"], got["window_end_ns"]
        window_ms = next((m["value"] for m in rank["metrics"]
                          if m["id"] == "util.window_ms" and m["scope"]["device"] is None), None)
        if window_ms is None or abs(window_ms - (end - start) / 1e6) > 1e-3:
            failures.append(f"{path}: sm_efficiency window {end - start} ns is not util.window_ms "
                            f"{window_ms}")
        want = expected(doc, start, end)
        checks = [("est_sm_efficiency_pct", got["est_sm_efficiency_pct"], want["sm_efficiency"]),
                  ("est_occupancy_pct", got["est_occupancy_pct"], want["occupancy"]),
                  ("small_grid_time_pct", got["small_grid_time_pct"], want["small_grid"])]
        for d in got["per_device"]:
            checks.append((f"device {d['device']} est_sm_efficiency_pct",
                           d["est_sm_efficiency_pct"], want["devices"].get(d["device"])))
        if len(got["per_device"]) != len(want["devices"]):
            failures.append(f"{path}: {len(got['per_device'])} devices, Python finds "
                            f"{len(want['devices'])}")
        for label, g, w in checks:
            if (g is None) != (w is None) or (g is not None and abs(g - w) > TOLERANCE_PCT):
                failures.append(f"{path}: {label} gpuwhy {g} Python {w}")
        checked += 1
        occupancy = "-" if want["occupancy"] is None else f"{want['occupancy']:.2f}%"
        print(f"ok {os.path.relpath(path, args.data)}: est. SM efficiency "
              f"{want['sm_efficiency']:.2f}%, occupancy {occupancy}, small grids "
              f"{want['small_grid']:.1f}%")
    for f in failures:
        print("FAIL", f)
    print(f"{checked} traces with launch arguments checked, {len(failures)} mismatches")
    if checked == 0:
        print("FAIL: no trace with blocks per SM found")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
