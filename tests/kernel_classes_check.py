#!/usr/bin/env python3
"""Every kernel name in ../shared/data has a label in tests/data/kernel_classes.tsv, and in no
file do kernels labelled unknown (the kernel table recognises no row of them) take 1% or more of
the kernel time unless their label carries a note saying why.

The C++ test kernel_table_test checks that the table gives every label; this one checks that the
labels cover the data. Exits 77 (CTest's skip code) when the data directory is absent.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernel_names_extract  # noqa: E402

UNKNOWN_LIMIT_PCT = 1.0


def read_labels(path):
    labels = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cls, dtype, math, note, name = line.split("\t", 4)
            labels[name] = (cls, dtype, math, note)
    return labels


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/work/shared/data")
    ap.add_argument("--tsv", required=True)
    args = ap.parse_args()
    if not os.path.isdir(args.data):
        print("skip: no shared data directory at {}".format(args.data))
        return 77
    labels = read_labels(args.tsv)
    missing = {}
    offenders = []
    files = 0
    for rel, kernels in kernel_names_extract.walk(args.data):
        files += 1
        total = sum(kernels.values())
        unknown = 0.0
        unnoted = []
        for name, us in kernels.items():
            label = labels.get(name)
            if label is None:
                missing.setdefault(name, rel)
                continue
            if label[0] == "unknown":
                unknown += us
                if label[3] in ("", "-"):
                    unnoted.append((us, name))
        pct = 100.0 * unknown / total if total > 0 else 0.0
        if pct >= UNKNOWN_LIMIT_PCT and unnoted:
            top = ", ".join(n[:80] for _, n in sorted(unnoted, reverse=True)[:5])
            offenders.append("{}: {:.2f}% of kernel time unrecognised without a note: {}".format(
                rel, pct, top))
    print("{} files with kernels, {} labelled names".format(files, len(labels)))
    ok = True
    if missing:
        ok = False
        print("{} kernel names of the data have no label in {}:".format(len(missing), args.tsv))
        for name, rel in sorted(missing.items())[:50]:
            print("  {}  (first in {})".format(name[:200], rel))
    if offenders:
        ok = False
        print("files where unrecognised kernels take >= {}% of kernel time:".format(
            UNKNOWN_LIMIT_PCT))
        for o in offenders:
            print("  " + o)
    if ok:
        print("every kernel name is labelled; unrecognised kernels stay below {}% of each "
              "file's kernel time or carry a note".format(UNKNOWN_LIMIT_PCT))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
