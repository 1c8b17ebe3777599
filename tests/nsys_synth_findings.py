#!/usr/bin/env python3
"""Every synth scenario written twice from one simulated run -- as Kineto JSON and as an
Nsight Systems SQLite export (`gpuwhy synth --format nsys-sqlite`) -- must get the same ranked
findings from `gpuwhy analyze` (the same ids in the same order), and every scenario but
`healthy` must have at least one.

Usage: nsys_synth_findings.py --gpuwhy PATH [--steps N]
"""
import argparse
import json
import subprocess
import sys
import tempfile
import os


def scenarios(gpuwhy):
    out = subprocess.run([gpuwhy, "synth", "--list"], capture_output=True, text=True, check=True).stdout
    return [line.split()[0] for line in out.splitlines() if line and not line.startswith(" ")]


def findings(gpuwhy, path):
    run = subprocess.run([gpuwhy, "analyze", "--format", "json", path], capture_output=True, text=True)
    if run.returncode not in (0, 1):
        raise RuntimeError(f"{path}: gpuwhy analyze exited {run.returncode}: {run.stderr.strip()}")
    report = json.loads(run.stdout)
    return [f["id"] for f in report["ranks"][0]["findings"]]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpuwhy", required=True)
    parser.add_argument("--steps", default="6")
    args = parser.parse_args()
    failed = 0
    with tempfile.TemporaryDirectory(prefix="gpuwhy_nsys_synth_") as tmp:
        for name in scenarios(args.gpuwhy):
            ids = {}
            for fmt, ext in (("kineto", "json"), ("nsys-sqlite", "sqlite")):
                path = os.path.join(tmp, f"{name}.{ext}")
                subprocess.run([args.gpuwhy, "synth", "--scenario", name, "--steps", args.steps,
                                "--format", fmt, "-o", path], check=True, capture_output=True)
                ids[fmt] = findings(args.gpuwhy, path)
            same = ids["kineto"] == ids["nsys-sqlite"] and (name == "healthy" or ids["kineto"])
            print(("ok   " if same else "FAIL ") +
                  f"{name}: kineto {ids['kineto'][:3]} | nsys-sqlite {ids['nsys-sqlite'][:3]}")
            failed += not same
    print(f"{failed} scenario(s) differ")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
