#!/usr/bin/env python3
"""gpuwhy doctor --from every real log folder: exit 0, every file recognised and parsed, and
the JSON report valid against docs/report-schema.json (jsonschema, an independent validator).
Exit 77 (skip) when the data or the jsonschema module is missing."""
import argparse
import json
import os
import subprocess
import sys

DIRS = ["dmesg", "topo", "nccl", "lspci", "nvidia-smi", "nvidia-smi-q", "nvidia-smi-q-xml",
        "infiniband"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuwhy", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--schema", required=True)
    args = ap.parse_args()
    try:
        import jsonschema
    except ImportError:
        print("skip: python3 jsonschema not installed")
        return 77
    logs = os.path.join(args.data, "logs")
    if not os.path.isdir(logs):
        print("skip: no data at " + logs)
        return 77
    cmd = [args.gpuwhy, "doctor", "--format", "json"]
    for d in DIRS:
        cmd += ["--from", os.path.join(logs, d)]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        print("exit", run.returncode, run.stderr)
        return 1
    report = json.loads(run.stdout)
    schema = json.load(open(args.schema))
    jsonschema.validate(report, schema)
    rank = report["ranks"][0]
    skipped = [n for n in rank["notes"] if "not a recognised" in n]
    if skipped:
        print("unrecognised files:", skipped)
        return 1
    files = sum(len(os.listdir(os.path.join(logs, d))) for d in DIRS)
    note = rank["notes"][0]
    # "inputs read: kernel log x12, …": every file was read as some format.
    counted = sum(int(part.rsplit("x", 1)[1]) for part in note.split(": ", 1)[1].split(", "))
    if counted != files:
        print(f"read {counted} inputs, expected {files}: {note}")
        return 1
    ids = {f["id"] for f in rank["findings"]}
    for expected in ["platform.xid_errors", "platform.pcie_downgraded",
                     "platform.nccl_socket_fallback", "platform.topology_slow_pairs",
                     "platform.ecc_errors"]:
        if expected not in ids:
            print("missing finding", expected, sorted(ids))
            return 1
    print(f"ok: {files} files, {len(ids)} findings, schema valid")
    return 0


if __name__ == "__main__":
    sys.exit(main())
