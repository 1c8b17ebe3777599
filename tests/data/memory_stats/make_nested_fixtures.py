#!/usr/bin/python3
"""Writes the torch.cuda.memory_stats_as_nested_dict() fixtures beside this script.

torch.cuda.memory_stats_as_nested_dict() returns torch._C._cuda_memoryStats(device), which
needs a CUDA device: the CPU-only torch 1.13 here returns {} without one. So the nested dict
is built from the same documented numbers as make_fixtures.py (its "fragmented" dict), nested
the way the C++ side builds it (torch/csrc/cuda/Module.cpp: the scalar counters, then each
statistic as {'all': {...}, 'small_pool': {...}, 'large_pool': {...}} of {'current', 'peak',
'allocated', 'freed'}), and checked against PyTorch's own code path: torch.cuda.memory_stats()
is run over it (memory_stats_as_nested_dict patched to return it) and must give back the flat
dict exactly, so the nesting is the inverse of memory_stats()'s flattening.
Run with the interpreter that has torch: /usr/bin/python3 make_nested_fixtures.py
"""
import collections
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_fixtures  # noqa: E402

SCALARS = ["num_alloc_retries", "num_ooms", "max_split_size", "num_sync_all_streams",
           "num_device_alloc", "num_device_free"]
STATS = ["allocation", "segment", "active", "inactive_split", "allocated_bytes",
         "reserved_bytes", "active_bytes", "inactive_split_bytes", "requested_bytes"]
POOLS = ["all", "small_pool", "large_pool"]
METRICS = ["current", "peak", "allocated", "freed"]


def nested(flat):
    out = {}
    for name in SCALARS:
        out[name] = flat[name]
    for name in ("oversize_allocations", "oversize_segments"):
        out[name] = {m: flat[f"{name}.{m}"] for m in METRICS}
    for stat in STATS:
        out[stat] = {p: {m: flat[f"{stat}.{p}.{m}"] for m in METRICS} for p in POOLS}
    return out


def check_with_torch(flat, tree):
    import torch.cuda.memory as memory
    saved = memory.memory_stats_as_nested_dict
    memory.memory_stats_as_nested_dict = lambda device=None: tree
    try:
        again = memory.memory_stats()
    finally:
        memory.memory_stats_as_nested_dict = saved
    if again != collections.OrderedDict(sorted(flat.items())):
        sys.exit("torch.cuda.memory_stats() does not flatten the nested dict back")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    flat = make_fixtures.stats_dict(20 * make_fixtures.GIB, 12 * make_fixtures.GIB,
                                    6 * make_fixtures.GIB, 1500, 3, 0)
    tree = nested(flat)
    check_with_torch(flat, tree)
    files = {
        "stats_nested_fragmented.json": json.dumps(tree, indent=1) + "\n",
        "stats_nested_fragmented_literal.log": (
            "step 1200 loss 1.873\n"
            "[rank1]: torch.cuda.memory_stats_as_nested_dict(device=1):\n"
            "[rank1]: " + repr(tree) + "\n"
            "step 1201 loss 1.870\n"),
    }
    for name, text in files.items():
        with open(os.path.join(here, name), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
