#!/usr/bin/env python3
"""Crafted amplifiers (issue 37) through the built binary: each is refused or read within its
bound (README, "what an input may claim"), never a crash, a signal or a bad_alloc.

Every input is built here, small: an Nsight Systems export whose correlation ids are +-2^63 and
one whose string id is 2^31, a 40 KB snapshot pickle that shares one segment and one block 10^4
times each, two Kineto traces that claim world_size 2^62, a Kineto event whose ts + dur passes
int64, a gzip bomb given as a node log, and --config /dev/zero. The peak RSS of each command
is read from wait4().

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

    print(f"{len(failures)} check(s) failed" if failures else "every amplifier is bounded")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
