#!/usr/bin/env python3
"""Writes the torch.cuda.memory_stats() fixtures beside this script.

CPU-only torch cannot produce CUDA allocator statistics, so the dictionaries are built here from
the key set PyTorch documents for torch.cuda.memory_stats() (torch/cuda/memory.py: every
"<stat>.<pool>.<metric>" of the nine statistics, the oversize counters, and the scalar counters),
sorted by key as memory_stats() returns them, and printed the three ways a log holds them:
json.dumps, a plain dict's repr (Python literal), and the OrderedDict repr of print(stats).
The numbers are chosen (ground truth for the tests, memory_stats_parser_test.cc):
  healthy:    5 GiB reserved, 4 GiB allocated, 256 MiB inactive split, no retries or OOMs;
  fragmented: 20 GiB reserved, 12 GiB allocated, 6 GiB (30%) inactive split in 1,500 blocks,
              3 cudaMalloc retries, 0 OOMs;
  both: 310 segments, 3 (healthy) or 6 (fragmented) freed over the run (no churn).
Run: python3 make_fixtures.py (no arguments; deterministic output).
"""
import collections
import json
import os

GIB = 1 << 30
MIB = 1 << 20
STATS = ["allocated_bytes", "active_bytes", "inactive_split_bytes", "reserved_bytes",
         "requested_bytes", "allocation", "active", "inactive_split", "segment"]
POOLS = ["all", "large_pool", "small_pool"]
METRICS = ["current", "peak", "allocated", "freed"]


def stats_dict(reserved, allocated, inactive, inactive_blocks, retries, ooms):
    # current per stat for the "all" pool; large gets 90%, small the rest (sums exact).
    current = {
        "allocated_bytes": allocated, "active_bytes": allocated + inactive // 4,
        "inactive_split_bytes": inactive, "reserved_bytes": reserved,
        "requested_bytes": allocated - 7 * MIB, "allocation": 4200, "active": 4300,
        "inactive_split": inactive_blocks, "segment": 310,
    }
    out = {}
    for stat in STATS:
        c = current[stat]
        large = c * 9 // 10
        for pool, value in (("all", c), ("large_pool", large), ("small_pool", c - large)):
            peak = value + value // 8
            # Segments are cudaMalloc'd once and kept (a warmed-up cache): a few freed in all.
            total = value + 3 + retries if stat == "segment" else value * 50 + 12345
            out[f"{stat}.{pool}.current"] = value
            out[f"{stat}.{pool}.peak"] = peak
            out[f"{stat}.{pool}.allocated"] = total
            out[f"{stat}.{pool}.freed"] = total - value
    for name in ("oversize_allocations", "oversize_segments"):
        for metric, value in zip(METRICS, (0, 2, 17, 17)):
            out[f"{name}.{metric}"] = value
    out["num_alloc_retries"] = retries
    out["num_ooms"] = ooms
    out["num_sync_all_streams"] = retries
    out["num_device_alloc"] = 330 + retries
    out["num_device_free"] = 20 + retries
    out["max_split_size"] = -1
    return collections.OrderedDict(sorted(out.items()))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    healthy = stats_dict(5 * GIB, 4 * GIB, 256 * MIB, 40, 0, 0)
    fragmented = stats_dict(20 * GIB, 12 * GIB, 6 * GIB, 1500, 3, 0)
    files = {
        "stats_healthy.json": json.dumps(healthy, indent=2) + "\n",
        "stats_fragmented.json": json.dumps(fragmented) + "\n",
        "stats_fragmented_literal.txt": repr(dict(fragmented)) + "\n",
        "stats_fragmented_ordereddict.log": (
            "epoch 3 step 1200 loss 1.873\n"
            "[rank0]: memory stats after step 1200:\n"
            "[rank0]: " + repr(fragmented) + "\n"
            "epoch 3 step 1201 loss 1.870\n"),
    }
    for name, text in files.items():
        with open(os.path.join(here, name), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
