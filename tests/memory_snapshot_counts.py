#!/usr/bin/env python3
"""gpuwhy's reading of every real allocator snapshot against Python's own unpickler.

Each torch.cuda.memory._dump_snapshot() pickle under DATA is loaded with a pickle.Unpickler whose
find_class refuses every global (so nothing in the file can import or run code; none of the real
files names one), and the counts gpuwhy info --format json reports must equal the ones computed
here: segments, their total/allocated/active/requested bytes, blocks and bytes by state, trace
entries and bytes by action, and the trace's first and last time.

    tests/memory_snapshot_counts.py --gpuwhy BUILD/gpuwhy --data ../shared/data/memory/snapshots
Exit 0 when all match, 1 on a mismatch, 77 (skipped) when DATA is absent.
"""
import argparse
import collections
import json
import pathlib
import pickle
import subprocess
import sys


class RefusingUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"global {module}.{name} refused")


def expected_counts(path):
    with open(path, "rb") as f:
        snap = RefusingUnpickler(f).load()
    segments = snap["segments"] if isinstance(snap, dict) else snap
    out = {
        "segments": len(segments),
        "total_bytes": sum(s["total_size"] for s in segments),
        "allocated_bytes": sum(s.get("allocated_size", 0) for s in segments),
        "active_bytes": sum(s.get("active_size", 0) for s in segments),
        "requested_bytes": sum(s.get("requested_size", 0) for s in segments),
        "large_segments": sum(1 for s in segments if s.get("segment_type") == "large"),
        "small_segments": sum(1 for s in segments if s.get("segment_type") == "small"),
    }
    blocks = collections.Counter()
    block_bytes = collections.Counter()
    for s in segments:
        for b in s.get("blocks", []):
            blocks[b.get("state", "unknown")] += 1
            block_bytes[b.get("state", "unknown")] += b["size"]
    out["blocks"] = {k: [blocks[k], block_bytes[k]] for k in blocks}
    actions = collections.Counter()
    action_bytes = collections.Counter()
    times = []
    for trace in (snap.get("device_traces", []) if isinstance(snap, dict) else []):
        for e in trace:
            actions[e["action"]] += 1
            action_bytes[e["action"]] += e.get("size", 0)
            if "time_us" in e:
                times.append(e["time_us"])
    out["actions"] = {k: [actions[k], action_bytes[k]] for k in actions}
    out["first_time_us"] = min(times) if times else None
    out["last_time_us"] = max(times) if times else None
    return out


def reported_counts(gpuwhy, path):
    run = subprocess.run([gpuwhy, "info", "--format", "json", str(path)], capture_output=True,
                         text=True, check=False)
    if run.returncode != 0:
        raise RuntimeError(f"gpuwhy info exited {run.returncode}: {run.stderr.strip()}")
    snaps = json.loads(run.stdout)["memory_snapshots"]
    if len(snaps) != 1:
        raise RuntimeError(f"{len(snaps)} memory snapshots reported, expected 1")
    s = snaps[0]
    seg = s["segments"]
    return {
        "segments": seg["count"],
        "total_bytes": seg["total_bytes"],
        "allocated_bytes": seg["allocated_bytes"],
        "active_bytes": seg["active_bytes"],
        "requested_bytes": seg["requested_bytes"],
        "large_segments": seg["large"],
        "small_segments": seg["small"],
        "blocks": {k: [v["count"], v["bytes"]] for k, v in s["blocks"]["by_state"].items()
                   if v["count"] > 0},
        "actions": {k: [v["count"], v["bytes"]] for k, v in s["trace"]["by_action"].items()
                    if v["count"] > 0},
        "first_time_us": s["trace"]["first_time_us"],
        "last_time_us": s["trace"]["last_time_us"],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpuwhy", required=True)
    parser.add_argument("--data", required=True)
    args = parser.parse_args()
    data = pathlib.Path(args.data)
    files = sorted(data.glob("*.pickle")) if data.is_dir() else []
    if not files:
        print(f"memory_snapshot_counts: no snapshots under {data}: skipped")
        return 77
    failures = 0
    for path in files:
        want = expected_counts(path)
        try:
            got = reported_counts(args.gpuwhy, path)
        except (RuntimeError, KeyError, json.JSONDecodeError) as e:
            print(f"FAIL {path.name}: {e}")
            failures += 1
            continue
        wrong = [k for k in want if want[k] != got.get(k)]
        for k in wrong:
            print(f"FAIL {path.name}: {k}: python {want[k]} gpuwhy {got.get(k)}")
        failures += bool(wrong)
        if not wrong:
            print(f"ok   {path.name}: {want['segments']} segments, "
                  f"{sum(v[0] for v in want['blocks'].values())} blocks, "
                  f"{sum(v[0] for v in want['actions'].values())} trace entries")
    print(f"memory_snapshot_counts: {len(files) - failures} of {len(files)} snapshots match")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
