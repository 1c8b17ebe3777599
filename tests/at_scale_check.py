#!/usr/bin/env python3
"""The at-scale recipes' driver (python -m gpuwhy.epilogue, docs/at-scale.md) on 64 "nodes".

A synthetic 128-rank job (gpuwhy synth: rank 77 computes 30% slower, the ground truth) is laid
out as 64 node folders of 2 ranks. 64 `reduce` processes run at once, one per node, while a
`merge` waits for their markers; a watcher reads every summary the moment its name appears.
Asserts: every rank reduced and merged; the merged report equals `gpuwhy analyze` of the 128
traces directly on the cross-rank numbers and findings, and names rank 77; no half-written
file was ever visible and no temporary is left. Then the failures: a node that never runs, a
truncated trace and a corrupt summary are each named in merge.json and on stderr, the report
still holds the other ranks, the merge exits 2 within its timeout (no hang), nothing crashes.
Last, the recipes' own entry points on a small job: deploy/slurm/epilogue.sh under a fake
srun, and the Indexed Job's arguments from deploy/kubernetes/reduce-job.yaml as 4 pods.
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

NODES, PER_NODE, SLOW_RANK = 64, 2, 77
RANKS = NODES * PER_NODE


def epilogue(python_dir, gpuwhy, *args, env_extra=None):
    """python -m gpuwhy.epilogue ARGS, started; the node comes from ARGS or ENV_EXTRA only."""
    env = dict(os.environ, GPUWHY_BIN=gpuwhy, PYTHONDONTWRITEBYTECODE="1",
               PYTHONPATH=python_dir + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for key in ("SLURM_NODEID", "SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "RANK"):
        env.pop(key, None)
    env.update(env_extra or {})
    return subprocess.Popen([sys.executable, "-m", "gpuwhy.epilogue", *map(str, args)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(proc, timeout=60):
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, err


class Watcher(threading.Thread):
    """Reads every visible *.summary.json / *.done.json as soon as it appears: each must be
    whole JSON the first time it is seen (a rename, not a growing file)."""

    def __init__(self, folder):
        super().__init__(daemon=True)
        self.folder, self.stop, self.seen, self.partial = folder, False, set(), []

    def run(self):
        while not self.stop:
            try:
                names = os.listdir(self.folder)
            except FileNotFoundError:
                names = []
            for name in names:
                if name.startswith(".") or name in self.seen or not name.endswith(".json"):
                    continue
                try:
                    with open(os.path.join(self.folder, name), encoding="utf-8") as f:
                        json.load(f)
                    self.seen.add(name)
                except FileNotFoundError:
                    pass
                except ValueError as e:
                    self.partial.append(f"{name}: {e}")
                    self.seen.add(name)
            time.sleep(0.005)


def lay_out_job(gpuwhy, tmp, name="nodes", count=NODES):
    """A synthetic job of COUNT x PER_NODE ranks in TMP/NAME/node0..: one folder per node."""
    gen = os.path.join(tmp, "gen")
    os.makedirs(gen, exist_ok=True)
    ranks = count * PER_NODE
    subprocess.run([gpuwhy, "synth", "--scenario", "comm-exposed", "--ranks", str(ranks),
                    "--steps", "3", "--slow-rank", str(SLOW_RANK % ranks), "--slow-by", "30",
                    "-o", os.path.join(gen, "job.json")], check=True,
                   stdout=subprocess.DEVNULL)
    nodes = []
    for node in range(count):
        folder = os.path.join(tmp, name, f"node{node}")
        os.makedirs(folder)
        for rank in range(node * PER_NODE, (node + 1) * PER_NODE):
            os.replace(os.path.join(gen, f"job.rank{rank}.json"),
                       os.path.join(folder, f"job.rank{rank}.json"))
        nodes.append(folder)
    return nodes


def close(a, b):
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-6)
    return a == b


def key_numbers(report):
    c = report["cross_rank"]
    ranks = sorted(c["ranks"], key=lambda r: r["rank"])
    return {
        "rank_count": c["rank_count"], "world_size": c["world_size"],
        "reference_rank": c["reference_rank"],
        "findings": [(f["id"], f.get("severity")) for f in c["diagnosis"]["findings"]],
        "step_time_ms": [c["step_time_ms"][k] for k in ("min", "median", "max")],
        "collectives": len(c["collectives"]),
        "late_ranks": [m["late_rank"] for m in c["collectives"]],
        "stragglers": [(s["rank"], s["late_count"], s["collectives"], s["cause"],
                        s["mean_late_ns"]) for s in c["stragglers"]],
        "per_rank": [(r["rank"], r["steps"], r["step_median_ms"], r["comm_exposed_ms_per_step"],
                      r["top_finding"]) for r in ranks],
        "offsets": sorted((k["rank"], k["offset_ns"]) for k in c["clocks"]),
    }


def compare(merged, direct, errors):
    a, b = key_numbers(merged), key_numbers(direct)
    if not a["findings"] or not a["collectives"] or len(a["per_rank"]) != RANKS:
        errors.append(f"the merged report is too empty to compare: {json.dumps(a)[:300]}")
    exact = 0
    for key in a:
        flat_a, flat_b = json.dumps(a[key]), json.dumps(b[key])
        exact += flat_a == flat_b
        if flat_a != flat_b and not _deep_close(a[key], b[key]):
            errors.append(f"merged {key} differs from the direct analysis: {flat_a[:300]} vs "
                          f"{flat_b[:300]}")
    print(f"merged vs direct: {len(a)} key figures agree ({exact} byte for byte): "
          f"{a['rank_count']} ranks, {a['collectives']} collectives, findings "
          f"{[f for f, _ in a['findings']]}, straggler {a['stragglers'][:1]}")


def _deep_close(a, b):
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_deep_close(x, y) for x, y in zip(a, b))
    return close(a, b)


def run_complete_job(args, tmp, nodes, errors):
    shared = os.path.join(tmp, "shared")
    os.makedirs(shared)
    watcher = Watcher(shared)
    watcher.start()
    merge = epilogue(args.python, args.gpuwhy, "merge", "--out", shared, "--expect-nodes", NODES,
                     "--timeout", 50, "--poll", 0.2)
    reducers = [epilogue(args.python, args.gpuwhy, "reduce", "--traces", folder, "--out", shared,
                         "--node", node, "--nodes", NODES, "--jobs", 2)
                for node, folder in enumerate(nodes)]
    for node, proc in enumerate(reducers):
        code, err = finish(proc)
        if code != 0:
            errors.append(f"node {node}: reduce exited {code}: {err.strip()}")
    code, err = finish(merge)
    watcher.stop = True
    watcher.join()
    if code != 0:
        errors.append(f"merge of the complete job exited {code}: {err.strip()}")
    status = json.load(open(os.path.join(shared, "merge.json")))
    names = sorted(n for n in os.listdir(shared) if n.endswith(".summary.json"))
    want = sorted(f"rank{r}.summary.json" for r in range(RANKS))
    if names != want:
        errors.append(f"summaries: got {len(names)}, want rank0..rank{RANKS - 1}")
    if status["missing"] or status["failed"] or status["summaries"] != RANKS:
        errors.append(f"merge.json of the complete job: {status}")
    leftovers = [n for n in os.listdir(shared) if n.startswith(".")]
    if leftovers:
        errors.append(f"temporary files left in the shared folder: {leftovers[:5]}")
    if watcher.partial:
        errors.append(f"half-written files were visible: {watcher.partial[:5]}")
    if len(watcher.seen) < RANKS + NODES:
        errors.append(f"the watcher saw only {len(watcher.seen)} files appear")
    print(f"complete job: {len(names)} summaries, {len(watcher.seen)} files read as they "
          f"appeared, none partial; merge waited {status['waited_s']} s")
    return json.load(open(status["report"]))


def run_broken_job(args, tmp, nodes, complete, errors):
    """The complete job's summaries, less a node that never ran, and one node rerun with a
    trace cut short: its reduce fails for that rank and says so."""
    shared = os.path.join(tmp, "broken")
    bad_node, dead_node = 5, 9
    bad_rank = bad_node * PER_NODE + 1
    dead = [dead_node * PER_NODE + i for i in range(PER_NODE)]
    os.makedirs(shared)
    for rank in set(range(RANKS)) - set(dead) - {bad_node * PER_NODE, bad_rank}:
        shutil.copy(os.path.join(complete, f"rank{rank}.summary.json"), shared)
    bad = os.path.join(tmp, "bad", f"node{bad_node}")
    shutil.copytree(nodes[bad_node], bad)
    trace = os.path.join(bad, f"job.rank{bad_rank}.json")
    with open(trace, "r+b") as f:
        f.truncate(3000)  # a rank killed just after it began writing its trace
    code, err = finish(epilogue(args.python, args.gpuwhy, "reduce", "--traces", bad, "--out",
                                shared, "--node", bad_node, "--nodes", NODES, "--jobs", 2))
    marker = json.load(open(os.path.join(shared, f"node{bad_node}-of-{NODES}.done.json")))
    if code != 2 or list(marker["failed"]) != [trace] or "not reduced" not in err:
        errors.append(f"reduce of a node with a bad trace: exit {code} (want 2), marker "
                      f"{marker}: {err}")
    start = time.monotonic()
    code, err = finish(epilogue(args.python, args.gpuwhy, "merge", "--out", shared,
                                "--expect-ranks", RANKS, "--timeout", 2, "--poll", 0.2))
    took = time.monotonic() - start
    status = json.load(open(os.path.join(shared, "merge.json")))
    if code != 2 or took > 30:
        errors.append(f"partial merge: exit {code} after {took:.1f} s (want 2, well under 30 s)")
    if status["missing"] != dead or status["complete"]:
        errors.append(f"missing ranks: {status['missing']} (want {dead}), complete "
                      f"{status['complete']}")
    failed = status["failed"].get(f"rank{bad_rank}", "")
    if list(status["failed"]) != [f"rank{bad_rank}"] or trace not in failed:
        errors.append(f"failed ranks: {status['failed']} (want rank{bad_rank} naming {trace})")
    if f"missing ranks {dead[0]}-{dead[-1]}" not in err or f"rank{bad_rank} failed" not in err:
        errors.append(f"the merge's line does not name the missing and failed ranks: {err}")
    report = json.load(open(status["report"]))
    if report["cross_rank"]["rank_count"] != RANKS - len(dead) - 1:
        errors.append(f"partial report holds {report['cross_rank']['rank_count']} ranks")
    print(f"broken job: {took:.1f} s to a partial report; {err.strip()}")

    # A summary damaged on the shared file system: named, the others still merged.
    damaged = os.path.join(shared, "rank40.summary.json")
    with open(damaged, "r+b") as f:
        f.truncate(os.path.getsize(damaged) // 2)
    code, err = finish(epilogue(args.python, args.gpuwhy, "merge", "--out", shared,
                                "--expect-ranks", RANKS, "--timeout", 0))
    status = json.load(open(os.path.join(shared, "merge.json")))
    if code != 2 or list(status["unreadable"]) != [damaged] or "unreadable summary" not in err:
        errors.append(f"corrupt summary: exit {code}, unreadable {status['unreadable']}: {err}")
    report = json.load(open(status["report"]))
    if report["cross_rank"]["rank_count"] != RANKS - len(dead) - 2:
        errors.append(f"report beside a corrupt summary holds "
                      f"{report['cross_rank']['rank_count']} ranks")
    print(f"corrupt summary: {err.strip()}")


FAKE_SRUN = r"""#!/bin/sh
# srun for one machine: --ntasks=N tasks at once, task I with SLURM_NODEID=I in its own "node"
# folder FAKE_NODES/nodeI (so a relative GPUWHY_TRACES is that node's local folder).
tasks=1
while [ $# -gt 0 ]; do
  case "$1" in --ntasks=*) tasks=${1#--ntasks=} ;; --*) ;; *) break ;; esac
  shift
done
i=0; pids=""
while [ "$i" -lt "$tasks" ]; do
  (cd "$FAKE_NODES/node$i" && SLURM_NODEID=$i exec "$@") & pids="$pids $!"
  i=$((i + 1))
done
rc=0
for p in $pids; do wait "$p" || rc=$?; done
exit "$rc"
"""


def run_slurm_epilogue(args, tmp, errors):
    """deploy/slurm/epilogue.sh itself, with a fake srun, on a job of 4 nodes."""
    count = 4
    nodes = lay_out_job(args.gpuwhy, tmp, "slurm-nodes", count)
    bin_dir, shared = os.path.join(tmp, "bin"), os.path.join(tmp, "slurm-summaries")
    os.makedirs(bin_dir)
    with open(os.path.join(bin_dir, "srun"), "w") as f:
        f.write(FAKE_SRUN)
    os.chmod(os.path.join(bin_dir, "srun"), 0o755)
    env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"],
               FAKE_NODES=os.path.dirname(nodes[0]), SLURM_JOB_NUM_NODES=str(count),
               SLURM_CPUS_ON_NODE="2", GPUWHY_TRACES=".", GPUWHY_SUMMARIES=shared,
               GPUWHY_PYTHON=sys.executable, GPUWHY_BIN=args.gpuwhy, GPUWHY_MERGE_TIMEOUT="20",
               PYTHONPATH=args.python, PYTHONDONTWRITEBYTECODE="1")
    script = os.path.join(args.deploy, "slurm", "epilogue.sh")
    done = subprocess.run(["bash", script], env=env, capture_output=True, text=True, timeout=60)
    if not os.path.isfile(os.path.join(shared, "merge.json")):
        errors.append(f"slurm epilogue.sh wrote no merge.json: exit {done.returncode}: "
                      f"{done.stderr}")
        return
    status = json.load(open(os.path.join(shared, "merge.json")))
    if done.returncode != 0 or status["summaries"] != count * PER_NODE or not status["complete"]:
        errors.append(f"slurm epilogue.sh: exit {done.returncode}, {status}: {done.stderr}")
    print(f"slurm epilogue.sh on {count} fake nodes: exit {done.returncode}, "
          f"{status['summaries']} summaries merged")


def run_indexed_job(args, tmp, errors):
    """deploy/kubernetes/reduce-job.yaml's own arguments, its /traces and /summaries mapped to
    folders here, as 4 pods with JOB_COMPLETION_INDEX over one shared folder of 8 traces."""
    try:
        import yaml
    except ImportError:
        print("PyYAML is absent: the Indexed Job's arguments are not run")
        return
    with open(os.path.join(args.deploy, "kubernetes", "reduce-job.yaml"), encoding="utf-8") as f:
        (container,) = yaml.safe_load(f)["spec"]["template"]["spec"]["containers"]
    traces, shared, pods = os.path.join(tmp, "slurm-nodes"), os.path.join(tmp, "k8s"), 4
    pod_args = [a.replace("/traces", traces).replace("/summaries", shared)
                for a in container["args"]]
    procs = [epilogue(args.python, args.gpuwhy, *pod_args,
                      env_extra={"JOB_COMPLETION_INDEX": str(i), "GPUWHY_NODES": str(pods)})
             for i in range(pods)]
    codes = [finish(p)[0] for p in procs]
    markers = [json.load(open(os.path.join(shared, f"node{i}-of-{pods}.done.json")))
               for i in range(pods)]
    taken = [sorted(m["summaries"]) for m in markers]
    # Pod I takes block I of the traces sorted by rank: ranks 2I and 2I+1, node I's.
    want = [sorted(f"rank{r}.summary.json" for r in range(i * PER_NODE, (i + 1) * PER_NODE))
            for i in range(pods)]
    if codes != [0] * pods or taken != want:
        errors.append(f"Indexed Job pods: exits {codes}, took {taken} (want {want})")
    code, err = finish(epilogue(args.python, args.gpuwhy, "merge", "--out", shared,
                                "--expect-nodes", pods, "--timeout", 5))
    if code != 0:
        errors.append(f"merge after the Indexed Job: exit {code}: {err}")
    print(f"Indexed Job ({' '.join(container['args'])}): {pods} pods of {PER_NODE} ranks each, "
          f"merge exit {code}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpuwhy", required=True)
    parser.add_argument("--python", required=True, help="the folder holding the gpuwhy package")
    parser.add_argument("--deploy", required=True, help="the deploy/ folder of the checkout")
    args = parser.parse_args()
    args.gpuwhy, args.python, args.deploy = map(os.path.abspath,
                                                (args.gpuwhy, args.python, args.deploy))
    errors = []
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="gpuwhy_at_scale_") as tmp:
        nodes = lay_out_job(args.gpuwhy, tmp)
        merged = run_complete_job(args, tmp, nodes, errors)
        complete = os.path.join(tmp, "shared")
        direct_path = os.path.join(tmp, "direct.json")
        subprocess.run([args.gpuwhy, "analyze", "--format", "json", "-o", direct_path,
                        os.path.join(tmp, "nodes")], stdout=subprocess.DEVNULL)
        direct = json.load(open(direct_path))
        compare(merged, direct, errors)
        stragglers = merged["cross_rank"]["stragglers"]
        if not stragglers or stragglers[0]["rank"] != SLOW_RANK:
            errors.append(f"the merged report does not put rank {SLOW_RANK} first: "
                          f"{stragglers[:1]}")
        run_broken_job(args, tmp, nodes, complete, errors)
        run_slurm_epilogue(args, tmp, errors)
        run_indexed_job(args, tmp, errors)
    for e in errors:
        print(f"FAILED: {e}")
    print(f"{NODES} nodes x {PER_NODE} ranks: {'FAILED' if errors else 'ok'} in "
          f"{time.monotonic() - start:.1f} s")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
