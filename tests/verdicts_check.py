#!/usr/bin/env python3
"""The expert verdicts as a test: runs gpuwhy on every trace, Nsight and multi-rank row of
../shared/data/verdicts/verdicts.tsv and prints, per row, what the expert concluded, what gpuwhy
concluded and whether they agree (scored as the verdicts' README says: the class of the first
finding at severity >= medium, job-wide findings first; host and launch are one family; healthy
and not_applicable are one; warmup_dominated is right when that finding is quality/warm-up; a
low-confidence row is also right when gpuwhy claims nothing at medium or above).

Rows where we are sure the label is wrong are listed in tests/verdict_disagreements.tsv (path,
the class gpuwhy gives, the evidence): they print as "disagrees with the label" and count as
right only when gpuwhy gives exactly that class.

Usage: verdicts_check.py --gpuwhy PATH --data DIR [--min-right N] [--kinds trace,nsys,...]
Exits 77 (CTest's skip code) when the verdicts are absent, 1 when fewer than N rows are right
or a recorded disagreement no longer matches what gpuwhy says.
"""
import argparse
import json
import os
import subprocess
import sys

SEVERITY = {"info": 0, "low": 1, "medium": 2, "high": 3, "critical": 4}
FAMILY = {"host": "cpu", "launch": "cpu", "healthy": "none", "not_applicable": "none"}


def findings_of(doc):
    out = list(((doc.get("cross_rank") or {}).get("diagnosis") or {}).get("findings") or [])
    for rank in doc.get("ranks") or []:
        out += rank.get("findings") or []
    return out + list(doc.get("findings") or [])


def top_of(doc):
    for f in findings_of(doc):
        if SEVERITY.get(str(f.get("severity", "")).lower(), 0) >= 2:
            return str(f.get("class", "")), str(f.get("id", ""))
    return "healthy", ""


def agrees(expected, cls, fid, confidence):
    if expected == "warmup_dominated":
        return "warm" in fid or cls == "quality" or (confidence == "low" and cls == "healthy")
    if confidence == "low" and cls == "healthy":
        return True
    return FAMILY.get(expected, expected) == FAMILY.get(cls, cls)


def analyse(gpuwhy, path):
    proc = subprocess.run([gpuwhy, "analyze", "--format", "json", path], capture_output=True,
                          text=True, timeout=600)
    try:
        return json.loads(proc.stdout), proc.returncode
    except ValueError:
        return None, proc.returncode


def read_rows(path):
    with open(path, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) >= len(header):
                yield dict(zip(header, cols))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuwhy", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--min-right", type=int, default=0)
    ap.add_argument("--kinds", default="trace,nsys,multi-rank-dir")
    ap.add_argument("--disagreements",
                    default=os.path.join(os.path.dirname(__file__), "verdict_disagreements.tsv"))
    args = ap.parse_args()
    labels = os.path.join(args.data, "verdicts", "verdicts.tsv")
    if not os.path.exists(labels):
        print(f"skipped: {labels} is absent (../shared/data is not beside the checkout)")
        return 77
    disagreements = {}
    if os.path.exists(args.disagreements):
        for row in read_rows(args.disagreements):
            disagreements[row["path"]] = row
    kinds = set(args.kinds.split(","))
    right = total = 0
    stale = []
    for row in read_rows(labels):
        if row["kind"] not in kinds:
            continue
        path = os.path.join(args.data, row["path"])
        if not os.path.exists(path):
            continue  # a glob row (a multi-rank set written as a pattern) or a missing file
        total += 1
        doc, rc = analyse(args.gpuwhy, path)
        cls, fid = top_of(doc) if doc is not None else ("error", f"exit {rc}")
        expected = row["expected_top"]
        disagreement = disagreements.get(row["path"])
        if disagreement is not None:
            good = cls == disagreement["gpuwhy_class"]
            verdict = "disagrees with the label" if good else "WRONG (recorded disagreement stale)"
            if not good:
                stale.append(row["path"])
        else:
            good = doc is not None and agrees(expected, cls, fid, row["confidence"])
            verdict = "right" if good else "WRONG"
        right += good
        print(f"{verdict:<26} {row['path'][-70:]:<70} expected {expected:<16} got {cls} {fid}")
    print(f"{right}/{total} rows right (floor {args.min_right})")
    if stale:
        print("recorded disagreements that no longer hold: " + ", ".join(stale))
        return 1
    return 0 if right >= args.min_right else 1


if __name__ == "__main__":
    sys.exit(main())
