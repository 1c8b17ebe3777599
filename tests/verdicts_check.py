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
import re
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


def fix_texts(doc):
    out = []
    for f in findings_of(doc):
        for fix in f.get("fixes") or []:
            out.append((str(fix.get("title", "")) + " " + str(fix.get("code", ""))).lower())
    return out


def forbidden_claims(must_not, doc, cls):
    """The clauses of a row's must_not_claim that the report makes, as far as a clause can be
    checked mechanically: fix texts (bf16/TF32 or FP8 advice), the top class for an "X-bound"
    claim, any finding of a class, any verdict at all, straggler findings. An "X-bound from
    <event>" clause names the evidence a wrong verdict would rest on, which is not mechanical:
    it is left to the reader of the per-row output."""
    made = []
    fixes = fix_texts(doc)
    medium = [f for f in findings_of(doc)
              if SEVERITY.get(str(f.get("severity", "")).lower(), 0) >= 2]
    top_id = top_of(doc)[1]
    for clause in (c.strip() for c in must_not.split(";")):
        c = clause.lower()
        hit = False
        if ("bf16" in c or "tf32" in c) and "advice" in c:
            hit = any("bf16" in t or "tf32" in t for t in fixes)
        elif "fp8 advice" in c:
            hit = any("fp8" in t or "transformer engine" in t or "transformer_engine" in t
                      for t in fixes)
        elif "any comm finding" in c:
            hit = any(f.get("class") == "communication" for f in findings_of(doc))
        elif "verdict" in c and ("any" in c or c.startswith("gpu verdicts")):
            hit = cls not in ("healthy", "quality")
        elif "straggler" in c:
            stragglers = [f for f in medium if "straggler" in str(f.get("id", ""))]
            named = re.search(r"rank (\d+) is the (?:job )?straggler", c)
            if named:  # that rank named as the straggler
                hit = any(str(f.get("title", "")).startswith(f"rank {named.group(1)} ")
                          for f in stragglers)
            elif "gpu-compute straggler" in c:  # a straggler blamed on its GPU work
                hit = any("cause: its computation" in str(f.get("title", "")) for f in stragglers)
            else:  # naming any straggler at all
                hit = bool(stragglers)
        elif " from " in c:
            pass  # "X-bound from <one event>": which evidence a verdict rests on is not mechanical
        else:
            bound = {"launch-bound": "launch", "host-bound": "host", "host/launch-bound": "host",
                     "input-bound": "input", "dataloader-bound": "input",
                     "comm-bound": "communication", "communication-bound": "communication",
                     "memory-bound": "memory", "compute-bound only": None}
            for word, klass in bound.items():
                if word in c and klass is not None and not c.startswith("compute-bound"):
                    if klass == "memory":
                        hit = hit or cls == "memory" or "memory_bound" in top_id
                    elif klass in ("host", "launch") and ("host" in c and "launch" in c):
                        hit = hit or FAMILY.get(cls, cls) == "cpu"
                    else:
                        hit = hit or cls == klass
        if hit:
            made.append(clause)
    return made


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
    ap.add_argument("--max-forbidden", type=int, default=-1,
                    help="fail when more rows than this make a must_not_claim claim (-1: report)")
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
    forbidden_rows = 0
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
        made = forbidden_claims(row.get("must_not_claim", ""), doc, cls) if doc else []
        if made:
            forbidden_rows += 1
            print(f"{'':<26} claims what the expert rules out: {' | '.join(made)}")
    print(f"{right}/{total} rows right (floor {args.min_right})")
    print(f"{forbidden_rows} rows make a claim their must_not_claim rules out "
          f"(ceiling {args.max_forbidden})")
    if 0 <= args.max_forbidden < forbidden_rows:
        return 1
    if stale:
        print("recorded disagreements that no longer hold: " + ", ".join(stale))
        return 1
    return 0 if right >= args.min_right else 1


if __name__ == "__main__":
    sys.exit(main())
