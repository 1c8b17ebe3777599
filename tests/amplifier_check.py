#!/usr/bin/env python3
"""Crafted amplifiers (issue 37) through the built binary: each is refused or read within its
bound (README, "what an input may claim"), never a crash, a signal or a bad_alloc.

Every input is built here, small: an Nsight Systems export whose correlation ids are +-2^63 and
one whose string id is 2^31, a 40 KB snapshot pickle that shares one segment and one block 10^4
times each, two Kineto traces that claim world_size 2^62, a Kineto event whose ts + dur passes
int64, a gzip bomb given as a node log, --config /dev/zero, a Kineto trace of 50,000 steps and
one whose kernels name 5,000 devices (reports capped to their row limits, docs/limits.md). The
peak RSS of each command is read from wait4().

    tests/amplifier_check.py --gpuwhy BUILD/gpuwhy
Exit 0 when every check holds, 1 otherwise.
"""
import argparse
import gzip
import json
import os
import pickle
import sqlite3
import subprocess
import sys
import tempfile

MIB = 1 << 20


def run(gpuwhy, args, env=None):
    """(exit code or -signal, stderr, peak RSS in bytes) of one gpuwhy command."""
    proc = subprocess.Popen([gpuwhy, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**os.environ, **(env or {})})
    _, status, usage = os.wait4(proc.pid, 0)
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, err, usage.ru_maxrss * 1024


def nsys_export(path, runtime_ids, string_id=3):
    pid = 100 << 24
    tid = pid | 100
    db = sqlite3.connect(path)
    db.executescript("""
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE EXPORT_META_DATA (name TEXT NOT NULL, value TEXT);
INSERT INTO EXPORT_META_DATA VALUES ('EXPORT_PRODUCT_VERSION', '2022.1.3.3'),
  ('EXPORT_SCHEMA_VERSION', '2.9.1');
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT,
  totalMemory INTEGER, smCount INTEGER, cuDevice INTEGER, computeMajor INTEGER,
  computeMinor INTEGER);
INSERT INTO TARGET_INFO_GPU VALUES (281474976710656, 0, 'Test GPU', 8000000000, 40, 0, 8, 0);
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL,
  shortName INTEGER NOT NULL, registersPerThread INTEGER, gridX INTEGER, gridY INTEGER,
  gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER, staticSharedMemory INTEGER,
  dynamicSharedMemory INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER,
  nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL);
INSERT INTO StringIds VALUES (1, 'void gemm_kernel<float>(int)'), (2, 'gemm_kernel'),
  (3, 'cudaLaunchKernel_v7000');
""")
    db.execute("INSERT INTO StringIds VALUES (?, 'far_kernel')", (string_id,)) \
        if string_id > 3 else None
    db.execute("INSERT INTO PROCESSES VALUES (?, 100, 'python3')", (pid,))
    for i, cid in enumerate(runtime_ids):
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, 3, 0)",
                   (1000 + 2000 * i, 1500 + 2000 * i, tid, cid))
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES "
                   "(?, ?, 0, 1, 7, ?, ?, ?, ?, 32, 80, 1, 1, 256, 1, 1, 1024, 512)",
                   (1400 + 2000 * i, 2400 + 2000 * i, cid, pid, string_id, string_id))
    db.commit()
    db.close()


def kineto_trace(path, rank, world_size, extra_events=()):
    events = [
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 5},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
         "ts": 11, "dur": 1, "args": {"correlation": 1}},
        {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 12, "dur": 3,
         "args": {"device": 0, "stream": 7, "correlation": 1}},
        *extra_events,
    ]
    doc = {"distributedInfo": {"backend": "nccl", "rank": rank, "world_size": world_size},
           "traceEvents": events}
    with open(path, "w") as f:
        json.dump(doc, f)


def many_steps_trace(path, steps):
    """A Kineto trace of `steps` ProfilerSteps, one launch and one kernel each (gzipped)."""
    events = []
    for i in range(steps):
        t = 12 * i
        events += [
            {"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{i}", "pid": 1,
             "tid": 1, "ts": t, "dur": 10},
            {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": t + 1,
             "dur": 5},
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
             "ts": t + 2, "dur": 1, "args": {"correlation": i + 1}},
            {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": t + 3,
             "dur": 4 + i % 7, "args": {"device": 0, "stream": 7, "correlation": i + 1}}]
    with gzip.open(path, "wt", compresslevel=6) as f:
        json.dump({"traceEvents": events}, f)


def many_devices_trace(path, devices):
    """A Kineto trace whose kernels run on `devices` devices, one kernel each (gzipped)."""
    events = []
    for d in range(devices):
        events += [
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
             "ts": 5 * d, "dur": 1, "args": {"correlation": d + 1}},
            {"ph": "X", "cat": "kernel", "name": "gemm", "pid": d, "tid": 7, "ts": 5 * d + 1,
             "dur": 3, "args": {"device": d, "stream": 7, "correlation": d + 1}}]
    with gzip.open(path, "wt", compresslevel=6) as f:
        json.dump({"traceEvents": events}, f)


def gunzipped_size(path):
    with gzip.open(path, "rb") as f:
        return sum(len(chunk) for chunk in iter(lambda: f.read(1 << 20), b""))


def check_capped_report(check, gpuwhy, tmp, name, trace, key, max_report, rss_factor):
    """analyze --format json/html on `trace`: every report under max_report bytes, its rows
    capped and said so, the peak RSS under rss_factor x the decompressed trace + 64 MiB."""
    content = gunzipped_size(trace)
    bound = rss_factor * content + 64 * MIB
    for fmt in ("json", "html", "text"):
        out = os.path.join(tmp, f"{name}.{fmt}")
        code, err, rss = run(gpuwhy, ["analyze", trace, "--format", fmt, "-o", out])
        size = os.path.getsize(out) if os.path.exists(out) else 0
        said = True
        if fmt == "json" and code in (0, 1):
            with open(out) as f:
                left_out = json.load(f)["ranks"][0].get("rows_left_out", {})
            said = left_out.get(key, 0) > 0 and left_out.get("why", "") != ""
        elif code in (0, 1):
            with open(out, errors="replace") as f:
                said = "not listed" in f.read()
        check(f"{name}: {fmt}", code in (0, 1) and size < max_report and said and rss < bound,
              f"exit {code}, report {size / MIB:.1f} MiB (< {max_report / MIB:.0f}), rows left "
              f"out said: {said}, {rss / MIB:.0f} MiB (bound {bound / MIB:.0f} MiB for "
              f"{content / MIB:.1f} MiB of JSON) {err.strip()[:120]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpuwhy", required=True)
    args = parser.parse_args()
    failures = []

    def check(name, ok, detail):
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {detail}")
        if not ok:
            failures.append(name)

    with tempfile.TemporaryDirectory(prefix="gpuwhy_amplifiers_") as tmp:
        # Nsight: correlation ids at both ends of int64 (a crash with signal 11).
        extreme = os.path.join(tmp, "extreme.sqlite")
        nsys_export(extreme, [-(1 << 63), (1 << 63) - 1])
        for command in (["info", extreme], ["analyze", extreme],
                        ["annotate", extreme, "-o", os.path.join(tmp, "annotated.json")]):
            code, err, rss = run(args.gpuwhy, command)
            check(f"nsys +-2^63 correlation ids: {command[0]}", code in (0, 1, 2),
                  f"exit {code}, {rss / MIB:.0f} MiB {err.strip()[:120]}")

        # Nsight: one string id of 2^31 (8.4 GB before).
        far = os.path.join(tmp, "far_string.sqlite")
        nsys_export(far, [11], string_id=1 << 31)
        code, err, rss = run(args.gpuwhy, ["info", far])
        check("nsys StringIds id 2^31", code == 0 and rss < 256 * MIB,
              f"exit {code}, {rss / MIB:.0f} MiB")

        # Snapshot: one segment and one block shared 10^4 times each (2.2 GB before).
        block = {"size": 16, "state": "active_allocated"}
        segment = {"device": 0, "address": 0, "total_size": 16, "segment_type": "large",
                   "blocks": [block] * 10_000}
        snapshot = os.path.join(tmp, "shared.pickle")
        with open(snapshot, "wb") as f:
            pickle.dump({"segments": [segment] * 10_000, "device_traces": [[]]}, f, protocol=4)
        size = os.path.getsize(snapshot)
        code, err, rss = run(args.gpuwhy, ["info", snapshot])
        check("snapshot shared references", code == 2 and "over the limit" in err and
              rss < 256 * MIB, f"{size} bytes, exit {code}, {rss / MIB:.0f} MiB: {err.strip()}")

        # Two traces claiming world_size 2^62 (bad_alloc before).
        ranks = os.path.join(tmp, "ranks")
        os.mkdir(ranks)
        for rank in (0, 1):
            kineto_trace(os.path.join(ranks, f"rank{rank}.json"), rank, 1 << 62)
        code, err, rss = run(args.gpuwhy, ["analyze", ranks])
        check("world_size 2^62", code in (0, 1) and rss < 512 * MIB,
              f"exit {code}, {rss / MIB:.0f} MiB {err.strip()[:120]}")

        # Kineto: ts + dur past int64 (UB; a wrapped end before).
        wild = os.path.join(tmp, "wild_dur.json")
        kineto_trace(wild, 0, 1, [{"ph": "X", "cat": "kernel", "name": "wild", "pid": 0,
                                    "tid": 7, "ts": 9223372036854775, "dur": 9223372036854775,
                                    "args": {"device": 0, "stream": 7, "correlation": 2}}])
        code, err, rss = run(args.gpuwhy, ["info", wild])
        check("kineto ts + dur past int64", code == 0, f"exit {code} {err.strip()[:120]}")

        # A gzip bomb as a node log: refused before the process holds the limit.
        bomb = os.path.join(tmp, "dmesg.log.gz")
        line = b"[    1.000000] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.\n"
        with gzip.open(bomb, "wb", compresslevel=9) as f:
            lines = line * (16 * MIB // len(line))
            for _ in range(16):  # 256 MiB inflated
                f.write(lines)
        limit = {"GPUWHY_INPUT_LIMITS": "node_log=64M"}
        code, err, rss = run(args.gpuwhy, ["doctor", "--from", bomb], limit)
        _, _, base_rss = run(args.gpuwhy, ["--version"])
        check("gzip bomb as a node log", "over the 64 MiB limit" in err and code in (0, 1, 2) and
              rss < base_rss + 48 * MIB,
              f"exit {code}, {rss / MIB:.0f} MiB (limit 64 MiB, bare {base_rss / MIB:.0f} MiB)"
              f" {err.strip()[:160]}")

        # --config that never ends.
        code, err, _ = run(args.gpuwhy, ["analyze", "--config", "/dev/zero", wild])
        check("--config /dev/zero", code == 2 and "not a regular file" in err,
              f"exit {code} {err.strip()[:120]}")

        # 50,000 steps (a 304 MB JSON report and 1.27 GB RSS before the step-row cap).
        steps = os.path.join(tmp, "steps.json.gz")
        many_steps_trace(steps, 50_000)
        check_capped_report(check, args.gpuwhy, tmp, "50,000 steps", steps, "steps",
                            16 * MIB, 12)

        # 5,000 devices (20,000 wrote a 592 MB JSON report, a 762 MB HTML one).
        devices = os.path.join(tmp, "devices.json.gz")
        many_devices_trace(devices, 5_000)
        check_capped_report(check, args.gpuwhy, tmp, "5,000 devices", devices, "devices",
                            4 * MIB, 80)

    print(f"{len(failures)} check(s) failed" if failures else "every amplifier is bounded")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
