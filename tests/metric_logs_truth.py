#!/usr/bin/env python3
"""Independent ground truth for the metric-log importers (src/ingest/metrics).

Reads every real log under DATA/logs/{dmon,nvidia-smi,dcgm} (dcgm-exporter text and DCGM field
CSVs) with plain Python (no code shared with gpuwhy) and prints, per file and series, the sample count and mean:
FILE<TAB>METRIC<TAB>DEVICE<TAB>ENTITY<TAB>COUNT<TAB>MEAN
Usage: metric_logs_truth.py DATA > tests/data/metric_logs_truth.tsv
"""
import collections
import csv
import os
import re
import sys

DMON = {"sm": "gpu.util_pct", "pwr": "gpu.power_w", "mclk": "gpu.mem_clock_mhz"}
QUERY = {"utilization.gpu": "gpu.util_pct", "power.draw": "gpu.power_w",
         "memory.used": "gpu.mem_used_mib"}
DCGM = {"DCGM_FI_DEV_GPU_UTIL": ("gpu.util_pct", 1), "DCGM_FI_PROF_SM_ACTIVE": ("gpu.sm_active_pct", 100),
        "DCGM_FI_DEV_FB_FREE": ("gpu.mem_free_mib", 1), "DCGM_FI_DEV_POWER_MGMT_LIMIT": ("gpu.power_limit_w", 1),
        "DCGM_FI_DEV_DEC_UTIL": ("gpu.dec_pct", 1), "DCGM_FI_DEV_ENC_UTIL": ("gpu.enc_pct", 1)}
# dcgmi short names (DCGM's field list) of a DCGM field CSV; profiling ratios become percent.
DCGM_SHORT = {"GRACT": ("gpu.gr_engine_active_pct", 100), "SMACT": ("gpu.sm_active_pct", 100),
              "FBUSD": ("gpu.mem_used_mib", 1), "GPUTL": ("gpu.util_pct", 1),
              "POWER": ("gpu.power_w", 1)}


def num(text):
    m = re.match(r"\s*(-?[0-9.]+)", text)
    return float(m.group(1)) if m else None


def dmon_like(path, out):
    cols = None
    for line in open(path):
        if line.startswith("$") or not line.strip():
            continue
        if line.startswith("#"):
            names = line[1:].split()
            if "gpu" in names:
                cols = names
            continue
        f = line.split()
        if "pid" in cols:
            if f[cols.index("pid")] == "-":
                continue
            # 1 for a process with a compute context (type C or C+G), 0 for graphics only
            kind = f[cols.index("type")]
            out[("gpu.process_seen", f[0], "pid " + f[cols.index("pid")])].append(1.0 if "C" in kind else 0.0)
            continue
        for name, metric in DMON.items():
            if name in cols and num(f[cols.index(name)]) is not None and f[cols.index(name)] != "-":
                out[(metric, f[cols.index("gpu")], "")].append(num(f[cols.index(name)]))


def query(path, out):
    lines = [l for l in open(path) if not l.startswith("$")]
    rows = list(csv.reader(lines, skipinitialspace=True))
    header = [h.split(" [")[0].strip() for h in rows[0]]
    for r in rows[1:]:
        idx = r[header.index("index")].strip()
        for name, metric in QUERY.items():
            if name in header:
                v = num(r[header.index(name)])
                if v is not None:
                    out[(metric, idx, "")].append(v)


def dcgm(path, out):
    for line in open(path):
        m = re.match(r'(DCGM_FI_\w+)\{(.*)\}\s+(\S+)', line)
        if not m or m.group(1) not in DCGM:
            continue
        labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2)))
        metric, scale = DCGM[m.group(1)]
        entity = "gi " + labels["GPU_I_ID"] if "GPU_I_ID" in labels else ""
        out[(metric, labels["gpu"], entity)].append(float(m.group(3)) * scale)


def dcgm_csv(path, out):
    rows = csv.DictReader(open(path, newline=""))
    for r in rows:
        for name, (metric, scale) in DCGM_SHORT.items():
            value = (r.get(name) or "").strip()
            if value and value != "N/A":
                out[(metric, r["EntityId"].strip(), "")].append(float(value) * scale)


def main():
    data = sys.argv[1]
    jobs = [("dmon", lambda n: n.endswith(".txt"), dmon_like),
            ("nvidia-smi", lambda n: "querygpu_csv" in n, query),
            ("dcgm", lambda n: n.endswith(".txt"), dcgm),
            ("dcgm", lambda n: n.endswith(".csv"), dcgm_csv)]
    for folder, wanted, reader in jobs:
        d = os.path.join(data, "logs", folder)
        for name in sorted(os.listdir(d)):
            if not wanted(name):
                continue
            out = collections.defaultdict(list)
            reader(os.path.join(d, name), out)
            for (metric, dev, ent), vals in sorted(out.items()):
                print(f"{folder}/{name}\t{metric}\t{dev}\t{ent}\t{len(vals)}\t{sum(vals)/len(vals):.4f}")


main()
