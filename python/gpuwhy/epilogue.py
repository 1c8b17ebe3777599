"""A job's traces reduced where they were written, then merged once (docs/at-scale.md).

    python -m gpuwhy.epilogue reduce --traces DIR --out SHARED [--split] [--host H] [--jobs N]
    python -m gpuwhy.epilogue merge --out SHARED [--expect-ranks N | --expect-nodes N]
    torchrun ... -m gpuwhy.epilogue rank --traces DIR --out SHARED     # one task per rank

reduce: one `gpuwhy analyze --summary` per trace, up to --jobs at once, each summary written
whole into SHARED as rankR.summary.json (a trace that cannot be reduced leaves
rankR.failed.json with gpuwhy's message instead), then nodeI-of-N.done.json. merge: waits
(polling, never a barrier) until every expected rank has a summary or a failure record, or
--timeout passes, then runs one `gpuwhy analyze` over the summaries and writes merge.json
naming the ranks merged, missing and failed. Exit 0 when every rank is in the report, 2 when
the report is partial or there is none. The Slurm and Kubernetes recipes (deploy/) call this
module; in a training script, gpuwhy.epilogue.at_exit(trace_dir, out_dir) does `rank`.
"""

import argparse
import atexit
import os
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from . import _jobfiles as files
from ._binary import EXIT_UNUSABLE, GpuwhyError, _one_line, find_binary

MERGE_STATUS = "merge.json"


def node_from_env(env=None):
    """(this task's node or shard index, how many): Kubernetes Indexed Job, Slurm array task,
    Slurm step task per node, else (0, 1). Kubernetes states no count: GPUWHY_NODES does."""
    env = os.environ if env is None else env
    if "JOB_COMPLETION_INDEX" in env:
        return int(env["JOB_COMPLETION_INDEX"]), int(env.get("GPUWHY_NODES", "1"))
    if "SLURM_ARRAY_TASK_ID" in env:
        first = int(env.get("SLURM_ARRAY_TASK_MIN", "0"))
        return int(env["SLURM_ARRAY_TASK_ID"]) - first, int(env["SLURM_ARRAY_TASK_COUNT"])
    if "SLURM_NODEID" in env:
        return int(env["SLURM_NODEID"]), int(env.get("SLURM_JOB_NUM_NODES") or env["SLURM_NNODES"])
    return 0, 1


def default_jobs():
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def reduce_one(trace, out_dir, timeout=None, strict=False):
    """rankR.summary.json for TRACE (gpuwhy writes it atomically), or rankR.failed.json.
    gpuwhy reduces a truncated trace from the events it holds; STRICT fails it instead."""
    summary, failed = files.summary_path(out_dir, trace), files.failed_path(out_dir, trace)
    os.makedirs(out_dir, exist_ok=True)
    start = time.monotonic()
    command = [find_binary(), "analyze", "--summary", "--jobs", "1", "-o", summary, "--", trace]
    if strict:
        command.insert(2, "--strict")
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        code, error = done.returncode, _one_line(done.stderr, done.returncode)
    except subprocess.TimeoutExpired:
        code, error = EXIT_UNUSABLE, f"{trace}: not reduced within {timeout} s"
    seconds = round(time.monotonic() - start, 3)
    if code == 0:
        files.remove_quietly(failed)
        return {"trace": trace, "summary": os.path.basename(summary), "seconds": seconds}
    # The latest attempt wins: a summary of an earlier run of this rank is not this run's.
    files.remove_quietly(summary)
    record = {"trace": trace, "exit_code": code, "message": error, "host": socket.gethostname()}
    files.write_json_atomically(failed, record)
    return {"trace": trace, "failed": os.path.basename(failed), "message": error,
            "seconds": seconds}


def reduce_traces(traces, out_dir, jobs=None, node=0, nodes=1, timeout=None, left_out=(),
                  strict=False):
    """Reduces TRACES into OUT_DIR, JOBS at once, then writes this node's done marker.
    Returns the marker's content."""
    os.makedirs(out_dir, exist_ok=True)
    start = time.monotonic()
    with ThreadPoolExecutor(max(1, jobs or default_jobs())) as pool:
        results = list(pool.map(lambda t: reduce_one(t, out_dir, timeout, strict), traces))
    marker = {
        "node": node, "nodes": nodes, "host": socket.gethostname(), "traces": len(traces),
        "summaries": [r["summary"] for r in results if "summary" in r],
        "failed": {r["trace"]: r["message"] for r in results if "failed" in r},
        "left_out": list(left_out), "seconds": round(time.monotonic() - start, 3),
    }
    files.write_json_atomically(files.done_path(out_dir, node, nodes), marker)
    return marker


def wait_for(out_dir, expect_ranks=None, expect_nodes=None, timeout=600.0, poll=2.0,
             clock=time.monotonic, sleep=time.sleep):
    """Polls OUT_DIR until every expected rank has a summary or failure record (or every
    expected node its marker), or TIMEOUT seconds pass. Returns (Inventory, complete)."""
    deadline = clock() + timeout
    while True:
        inventory = files.Inventory(out_dir)
        ranks_in = not expect_ranks or not inventory.missing(expect_ranks)
        nodes_in = not expect_nodes or len(inventory.done) >= expect_nodes
        if ranks_in and nodes_in:
            return inventory, True
        left = deadline - clock()
        if left <= 0:
            return inventory, False
        sleep(min(poll, left))


def merge(out_dir, report=None, report_format="json", expect_ranks=None, expect_nodes=None,
          timeout=600.0, poll=2.0, extra_args=(), stream=None):
    """Waits (wait_for), merges every summary in OUT_DIR into REPORT, writes merge.json and
    returns it; its "exit_code" is 0 when no rank is missing, failed or unreadable, else 2."""
    stream = stream or sys.stderr
    os.makedirs(out_dir, exist_ok=True)  # the merge may start before any node has written
    start = time.monotonic()
    inventory, complete = wait_for(out_dir, expect_ranks, expect_nodes, timeout, poll)
    waited = round(time.monotonic() - start, 3)
    extension = "txt" if report_format == "text" else report_format
    report = report or os.path.join(out_dir, f"report.{extension}")
    world = expect_ranks
    if not world and inventory.summaries:  # the job's own word: its traces' distributedInfo
        world = files.world_size_of(inventory.summaries[0])
    status = {
        "out": out_dir, "summaries": len(inventory.summaries), "world_size": world,
        "complete": complete, "waited_s": waited, "missing": inventory.missing(world),
        "missing_count": inventory.missing_count(world),
        "failed": {k: v.get("message", "") for k, v in sorted(inventory.failed.items())},
        "nodes_done": len(inventory.done), "report": report, "unreadable": {},
    }
    if inventory.summaries:
        status.update(_run_merge(inventory.summaries, report, report_format, extra_args))
    else:
        status.update(gpuwhy_exit=None, report=None, gpuwhy_error=None)
    partial = status["missing"] or status["failed"] or status["unreadable"] or not status["report"]
    status["exit_code"] = EXIT_UNUSABLE if partial or status["gpuwhy_exit"] not in (0, 1) else 0
    files.write_json_atomically(os.path.join(out_dir, MERGE_STATUS), status)
    print(_describe(status), file=stream)
    return status


def _run_merge(summaries, report, report_format, extra_args):
    command = [find_binary(), "analyze", "--format", report_format, "-o", report,
               *extra_args, "--", *summaries]
    done = subprocess.run(command, capture_output=True, text=True)
    # A summary gpuwhy cannot read is one line "gpuwhy: PATH: why"; the others are merged.
    unreadable = {}
    for line in done.stderr.splitlines():
        path, _, why = line[len("gpuwhy: "):].partition(": ")
        if line.startswith("gpuwhy: ") and path in summaries:
            unreadable[path] = why
    wrote = os.path.isfile(report)
    error = None if done.returncode in (0, 1) or unreadable else _one_line(done.stderr,
                                                                            done.returncode)
    return {"gpuwhy_exit": done.returncode, "report": report if wrote else None,
            "unreadable": dict(sorted(unreadable.items())), "gpuwhy_error": error}


def _describe(status, shown=5):
    merged = status["summaries"] - len(status["unreadable"])
    parts = [f"gpuwhy epilogue: {merged} ranks merged into {status['report']}"
             if status["report"] else
             f"gpuwhy epilogue: no report ({status['summaries']} summaries in {status['out']})"]
    if status["world_size"]:
        parts.append(f"world size {status['world_size']}")
    if not status["complete"]:
        parts.append(f"stopped waiting after {status['waited_s']} s")
    if status["missing"]:
        more = status["missing_count"] - len(status["missing"])
        parts.append("missing ranks " + _ranges(status["missing"]) +
                     (f" and {more} more" if more > 0 else ""))
    # A thousand failures stay a readable line; merge.json has them all.
    problems = [f"{name} failed: {why}" for name, why in status["failed"].items()]
    problems += [f"unreadable summary {p}: {why}" for p, why in status["unreadable"].items()]
    parts += problems[:shown]
    if len(problems) > shown:
        parts.append(f"{len(problems) - shown} more in {MERGE_STATUS}")
    if status.get("gpuwhy_error"):
        parts.append(status["gpuwhy_error"])
    return "; ".join(parts)


def _ranges(ranks):
    """[0, 1, 2, 5] -> "0-2, 5": a thousand missing ranks stay one line."""
    out, start = [], None
    for i, r in enumerate(ranks):
        if start is None:
            start = r
        if i + 1 == len(ranks) or ranks[i + 1] != r + 1:
            out.append(str(start) if start == r else f"{start}-{r}")
            start = None
    return ", ".join(out)


def reduce_rank(trace_dir, out_dir, merge_on_rank0=True, timeout=600.0, poll=2.0, env=None,
                stream=None):
    """torchrun's view: reduce this process's rank (RANK) from TRACE_DIR into OUT_DIR; rank 0
    then waits for WORLD_SIZE ranks and merges. A failure is printed, never raised: this runs
    as a training job ends. Returns the merge status on rank 0, else the reduction's result."""
    env = os.environ if env is None else env
    stream = stream or sys.stderr
    try:
        rank, world = int(env["RANK"]), int(env.get("WORLD_SIZE", "1"))
    except (KeyError, ValueError):
        print("gpuwhy epilogue: RANK is not set (run under torchrun)", file=stream)
        return None
    try:
        mine = [t for t in files.find_traces([trace_dir]) if files.rank_from_path(t) == rank]
        traces, _ = files.newest_per_rank(mine)
        os.makedirs(out_dir, exist_ok=True)
        if traces:
            result = reduce_one(traces[0], out_dir)
        else:  # say so, or rank 0 waits for this rank until its timeout
            message = f"{trace_dir}: no trace of rank {rank}"
            files.write_json_atomically(os.path.join(out_dir, f"rank{rank}{files.FAILED_SUFFIX}"),
                                        {"trace": None, "message": message})
            result = {"failed": f"rank{rank}", "message": message}
        if rank != 0 or not merge_on_rank0:
            return result
        return merge(out_dir, expect_ranks=world, timeout=timeout, poll=poll, stream=stream)
    except (GpuwhyError, OSError) as e:
        print(f"gpuwhy epilogue: rank {rank}: {e}", file=stream)
        return None


def at_exit(trace_dir, out_dir, **options):
    """Registers reduce_rank(trace_dir, out_dir, **options) to run when the script exits."""
    atexit.register(reduce_rank, trace_dir, out_dir, **options)


def _parser():
    p = argparse.ArgumentParser(prog="python -m gpuwhy.epilogue",
                                description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("reduce", help="reduce this node's (or shard's) traces")
    r.add_argument("--traces", action="append", required=True, help="trace folder or file")
    r.add_argument("--out", required=True, help="shared folder of summaries")
    r.add_argument("--jobs", type=int, help="reductions at once (default: usable cores)")
    r.add_argument("--node", type=int, help="this task's index (default: from Slurm/Kubernetes)")
    r.add_argument("--nodes", type=int, help="how many tasks (default: from Slurm/Kubernetes)")
    r.add_argument("--split", action="store_true",
                   help="take only block NODE of NODES of the traces (a shared trace folder)")
    r.add_argument("--host", help="only traces gpuwhy.profile wrote on HOST (rankR.HOST_PID.*)")
    r.add_argument("--timeout", type=float, help="seconds one reduction may take")
    r.add_argument("--strict", action="store_true",
                   help="a trace that lost data (cut short) fails instead of being reduced")
    m = sub.add_parser("merge", help="wait for the summaries, then merge them")
    m.add_argument("--out", required=True, help="shared folder of summaries")
    m.add_argument("--report", help="report file (default OUT/report.FORMAT)")
    m.add_argument("--format", default="json", choices=["json", "text", "md", "html"])
    m.add_argument("--expect-ranks", type=int, help="wait for ranks 0..N-1")
    m.add_argument("--expect-nodes", type=int, help="wait for N node markers")
    m.add_argument("--timeout", type=float, default=600.0, help="seconds to wait (default 600)")
    m.add_argument("--poll", type=float, default=2.0, help="seconds between looks (default 2)")
    m.add_argument("analyze_flags", nargs="*", metavar="-- FLAG",
                   help="more gpuwhy analyze flags, after --: -- --link-peak-gbps 400")
    k = sub.add_parser("rank", help="torchrun: reduce RANK's trace; rank 0 merges")
    k.add_argument("--traces", required=True)
    k.add_argument("--out", required=True)
    k.add_argument("--no-merge", action="store_true")
    k.add_argument("--timeout", type=float, default=600.0)
    k.add_argument("--poll", type=float, default=2.0)
    return p


def _run_reduce(a):
    node, nodes = node_from_env()
    node = node if a.node is None else a.node
    nodes = nodes if a.nodes is None else a.nodes
    traces = files.find_traces(a.traces)
    if a.host:
        traces = files.on_host(traces, a.host)
    if a.split:
        traces = files.block(traces, node, nodes)
    traces, left_out = files.newest_per_rank(traces)
    marker = reduce_traces(traces, a.out, a.jobs, node, nodes, a.timeout, left_out, a.strict)
    print(f"gpuwhy epilogue: node {node} of {nodes}: {len(marker['summaries'])} of "
          f"{len(traces)} traces reduced in {marker['seconds']} s", file=sys.stderr)
    if not traces:
        print(f"gpuwhy epilogue: node {node}: no trace under {', '.join(a.traces)}",
              file=sys.stderr)
    for trace, message in marker["failed"].items():
        print(f"gpuwhy epilogue: not reduced: {message}", file=sys.stderr)
    return EXIT_UNUSABLE if marker["failed"] or not traces else 0


def main(argv=None):
    a = _parser().parse_args(argv)
    try:
        if a.command == "reduce":
            return _run_reduce(a)
        if a.command == "merge":
            return merge(a.out, a.report, a.format, a.expect_ranks, a.expect_nodes, a.timeout,
                         a.poll, a.analyze_flags)["exit_code"]
        status = reduce_rank(a.traces, a.out, not a.no_merge, a.timeout, a.poll)
        if status is None:
            return EXIT_UNUSABLE
        return status.get("exit_code", EXIT_UNUSABLE if "failed" in status else 0)
    except (GpuwhyError, OSError, ValueError) as e:
        print(f"gpuwhy epilogue: {e}", file=sys.stderr)
        return getattr(e, "exit_code", EXIT_UNUSABLE)


if __name__ == "__main__":
    sys.exit(main())
