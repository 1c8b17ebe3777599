"""Where a job's traces and summaries are, and what they are called (docs/at-scale.md).

The one place the at-scale recipes (deploy/slurm, deploy/kubernetes, the torchrun hook of
gpuwhy.epilogue) decide which traces a task reduces, what each summary is named, how files
appear in the shared directory (whole or not at all) and what the merge counts as present,
failed or missing. Standard library only: it runs where the job runs.
"""

import hashlib
import json
import os
import re
import socket

SUMMARY_SUFFIX = ".summary.json"
FAILED_SUFFIX = ".failed.json"
DONE_SUFFIX = ".done.json"
# Missing ranks listed by name (merge.json, the epilogue's line); the rest are counted.
MISSING_LISTED = 1024

# Names gpuwhy's own directory walk takes for traces (src/ingest/importer.cc), less the
# files this module and gpuwhy write beside them.
_TRACE_ENDINGS = (".json", ".gz", ".sqlite")
_NOT_TRACES = (".truth.json", SUMMARY_SUFFIX, FAILED_SUFFIX, DONE_SUFFIX)
_TRACE_SUFFIXES = (".pt.trace.json.gz", ".pt.trace.json", ".json.gz", ".json", ".sqlite", ".gz")


def _rank_in(name):
    # The same rule as gpuwhy's ParseRankIn: "rank" before "worker", the word must start a
    # word ("frank3" is no rank), an optional - or _, then up to 9 digits.
    lower = name.lower()
    for word in ("rank", "worker"):
        for match in re.finditer(word, lower):
            at = match.start()
            if at > 0 and lower[at - 1].isalpha():
                continue
            digits = re.match(r"[-_]?(\d{1,9})", lower[match.end():])
            if digits:
                return int(digits.group(1))
    return None


def rank_from_path(path):
    """The rank a trace's name states (file name first, then its folders), else None."""
    parts = os.path.normpath(path).split(os.sep)
    for part in reversed(parts):
        rank = _rank_in(part)
        if rank is not None:
            return rank
    return None


def is_trace_name(name):
    lower = name.lower()
    if name.startswith(".") or lower.endswith(_NOT_TRACES):
        return False
    return lower.endswith(_TRACE_ENDINGS)


def find_traces(directories):
    """Every trace under the directories (recursively, hidden folders skipped), ordered by
    (rank, path) with unranked files last: contiguous ranks are one node's under torchrun."""
    found = []
    for top in directories:
        if os.path.isfile(top):
            found.append(top)
            continue
        for root, dirs, files in os.walk(top):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            found += [os.path.join(root, f) for f in files if is_trace_name(f)]
    return sorted(set(found), key=_order)


def _order(path):
    rank = rank_from_path(path)
    return (rank is None, rank if rank is not None else 0, path)


def block(items, index, count):
    """Block INDEX of COUNT near-equal contiguous blocks of ITEMS (an array task's share)."""
    if not 0 <= index < count:
        raise ValueError(f"shard {index} is not one of 0..{count - 1}")
    n = len(items)
    return items[index * n // count:(index + 1) * n // count]


def on_host(paths, host):
    """The traces gpuwhy.profile wrote on HOST: rankR.HOST_PID[.N].pt.trace.json."""
    pattern = re.compile(r"(^|\.)" + re.escape(host) + r"_\d+\.")
    return [p for p in paths if pattern.search(os.path.basename(p))]


def newest_per_rank(paths):
    """One trace per rank (the latest written; a repeating schedule writes several); unranked
    traces are all kept. Returns (kept, left_out)."""
    by_rank, kept = {}, []
    for path in paths:
        rank = rank_from_path(path)
        if rank is None:
            kept.append(path)
            continue
        best = by_rank.get(rank)
        if best is None or (os.path.getmtime(path), path) > (os.path.getmtime(best), best):
            by_rank[rank] = path
    chosen = set(kept) | set(by_rank.values())
    left_out = [p for p in paths if p not in chosen]
    return sorted(chosen, key=_order), left_out


def stem(path):
    """RANK's name, "rank3", when the trace's name states it; else the file name without its
    trace suffix and a hash of the whole path (two nodes may both write trace.json)."""
    rank = rank_from_path(path)
    if rank is not None:
        return f"rank{rank}"
    name = os.path.basename(path)
    for suffix in _TRACE_SUFFIXES:
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
            break
    digest = hashlib.sha1(os.path.abspath(path).encode()).hexdigest()[:8]
    return f"{name}.{digest}"


def summary_path(out_dir, trace):
    return os.path.join(out_dir, stem(trace) + SUMMARY_SUFFIX)


def failed_path(out_dir, trace):
    return os.path.join(out_dir, stem(trace) + FAILED_SUFFIX)


def done_path(out_dir, node, nodes):
    return os.path.join(out_dir, f"node{node}-of-{nodes}{DONE_SUFFIX}")


def write_atomically(path, text):
    """Writes PATH whole or not at all: a hidden temporary in the same folder (readers list
    only visible names), flushed, then renamed over PATH (atomic on one file system, NFS
    included: rename is one RPC)."""
    folder, name = os.path.split(path)
    temp = os.path.join(folder, f".{name}.tmp-{socket.gethostname()}-{os.getpid()}")
    with open(temp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temp, path)


def write_json_atomically(path, value):
    write_atomically(path, json.dumps(value, indent=1, sort_keys=True) + "\n")


def remove_quietly(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _listed(out_dir, suffix):
    try:
        names = os.listdir(out_dir)
    except FileNotFoundError:
        return []
    return sorted(n for n in names if n.endswith(suffix) and not n.startswith("."))


class Inventory:
    """What the shared directory holds now: summaries, failure records and node markers."""

    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.summaries = [os.path.join(out_dir, n) for n in _listed(out_dir, SUMMARY_SUFFIX)]
        self.failed = {}
        for name in _listed(out_dir, FAILED_SUFFIX):
            record = _read_json(os.path.join(out_dir, name)) or {}
            self.failed[name[: -len(FAILED_SUFFIX)]] = record
        self.done = _listed(out_dir, DONE_SUFFIX)
        self.summary_ranks = set()
        for path in self.summaries:
            rank = _rank_in(os.path.basename(path)[: -len(SUMMARY_SUFFIX)])
            if rank is not None:
                self.summary_ranks.add(rank)
        self.failed_ranks = {r for r in map(_rank_in, self.failed) if r is not None}

    def accounted(self):
        return self.summary_ranks | self.failed_ranks

    def missing(self, world_size, limit=MISSING_LISTED):
        """The first LIMIT ranks below WORLD_SIZE with neither a summary nor a failure record.
        World size comes from a file (a summary's distributedInfo): the work is bounded by
        LIMIT and the ranks present, never by the number it states (issue 37)."""
        if not world_size:
            return []
        accounted, out = self.accounted(), []
        for rank in range(world_size):  # a lazy range: stops after LIMIT + len(accounted)
            if len(out) >= limit:
                break
            if rank not in accounted:
                out.append(rank)
        return out

    def missing_count(self, world_size):
        """How many ranks below WORLD_SIZE are unaccounted for, in O(ranks present)."""
        if not world_size:
            return 0
        return world_size - sum(1 for r in self.accounted() if 0 <= r < world_size)


def _read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def world_size_of(summary):
    """The world size a summary states (its trace's distributedInfo), else None."""
    value = (_read_json(summary) or {}).get("world_size")
    return value if isinstance(value, int) and value > 0 else None
