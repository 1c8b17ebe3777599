#!/usr/bin/env python3
"""Properties every report of every shared input must keep, whatever rule made its findings
(docs/findings.md "Evidence that reads true", docs/fix-preconditions.md):

1. an evidence line shown as a reason (a comparison with a threshold) satisfies it;
2. high or critical needs confidence >= medium and, for a per-step class (input, host,
   launch, compute, communication), a measured recoverable time;
3. no printed fix declares a need the report's own job facts contradict (the check is written
   here again, independently of src/diagnose/fix_needs.cc);
4. the command exits 0, 1 or 2 (README's exit-code policy), never by a signal.

Runs `gpuwhy analyze --format json` on every trace, export, log, snapshot and Nsight Compute
file under DATA (verdicts/ and reference/ excepted). Exits 77 (CTest's skip code) when DATA is
absent, 1 on any violation (each printed)."""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys

OPS = {">": lambda a, b: a > b, ">=": lambda a, b: a >= b, "<": lambda a, b: a < b,
       "<=": lambda a, b: a <= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}
PER_STEP = {"input", "host", "launch", "compute", "communication"}


def diagnoses(doc):
    """(job facts or None, findings) of every diagnosis in a report."""
    out = []
    cr = (doc.get("cross_rank") or {}).get("diagnosis") or {}
    if cr:
        out.append((cr.get("job"), cr.get("findings") or []))
    for rank in doc.get("ranks") or []:
        out.append((rank.get("job"), rank.get("findings") or []))
    if doc.get("findings") is not None:
        out.append((doc.get("job"), doc.get("findings") or []))
    return out


def contradicted(needs, job):
    """The need that the facts contradict, or None; unknown facts contradict nothing."""
    if not needs or not job or not job.get("known"):
        return None
    vendor = job.get("vendor")
    if needs.get("vendor") and vendor in ("nvidia", "amd", "mtia") and vendor != needs["vendor"]:
        return f"vendor {needs['vendor']} on {vendor}"
    if needs.get("bf16") and job.get("tensor_cores") == "fp16_only":
        return "bf16 on an fp16-only GPU"
    if needs.get("job") and job.get("kind") in ("training", "inference") \
            and job["kind"] != needs["job"]:
        return f"{needs['job']} fix on {job['kind']}"
    if needs.get("fp32_math") and job.get("matmul_precision") == "low_precision":
        return "precision advice where the math is already 16-bit or narrower"
    if needs.get("adam_optimizer") and (job.get("kind") == "inference"
                                        or job.get("optimizer") == "other"):
        return "Adam-family fix without an Adam-family optimizer"
    return None


def check_report(path, doc):
    bad = []
    for job, findings in diagnoses(doc):
        for f in findings:
            fid = f.get("id")
            for e in f.get("evidence") or []:
                c, t, v = e.get("comparison"), e.get("threshold"), e.get("value")
                if c in OPS and isinstance(t, (int, float)) and isinstance(v, (int, float)) \
                        and (t != 0 or e.get("threshold_source")) and not OPS[c](v, t):
                    bad.append(f"{path}: {fid}: reason {e.get('id')} = {v} {c} {t} is false")
            sev = str(f.get("severity", "")).lower()
            if sev in ("high", "critical"):
                if f.get("confidence") == "low":
                    bad.append(f"{path}: {fid}: {sev} with low confidence")
                if f.get("class") in PER_STEP and not f.get("recoverable_ms_per_step"):
                    bad.append(f"{path}: {fid}: {sev} with no measured recoverable time")
            for fix in f.get("fixes") or []:
                why = contradicted(fix.get("needs"), job)
                if why:
                    bad.append(f"{path}: {fid}: fix '{fix.get('action')}': {why}")
    return bad


def inputs(root):
    for d, dirs, files in os.walk(root):
        dirs.sort()
        rel = os.path.relpath(d, root)
        if rel.split(os.sep)[0] in ("verdicts", "reference"):
            continue
        for f in sorted(files):
            if not f.endswith((".md", ".tsv")):
                yield os.path.join(d, f)


def run(gpuwhy, path):
    proc = subprocess.run([gpuwhy, "analyze", "--format", "json", path], capture_output=True,
                          text=True, timeout=600)
    return path, proc.returncode, proc.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuwhy", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    if not os.path.isdir(args.data):
        print(f"skipped: {args.data} is absent (../shared/data is not beside the checkout)")
        return 77
    violations, reports = [], 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for path, rc, out in pool.map(lambda p: run(args.gpuwhy, p), inputs(args.data)):
            rel = os.path.relpath(path, args.data)
            if rc not in (0, 1, 2):
                violations.append(f"{rel}: exit {rc} (policy: 0, 1 or 2)")
                continue
            try:
                doc = json.loads(out)
            except ValueError:
                continue  # nothing usable: exit 2 with a message, checked above
            reports += 1
            violations += check_report(rel, doc)
    for v in violations:
        print(v)
    print(f"{len(violations)} violations in {reports} reports")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
