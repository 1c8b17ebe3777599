#!/usr/bin/env python3
"""Golden outputs of every gpuwhy command and format, as Perfetto's diff tests (docs/testing.md).

Each *group* (one ctest test, `golden_<group>`) prepares its input in a scratch folder (a
`gpuwhy synth` scenario, or a small file of ../shared/data linked in under its own name), runs
a list of gpuwhy commands there and compares what they print and write with the files in
tests/golden/<group>/:

    <step>.txt|.json|.md|.html|.csv   the command's standard output (gzip'd as <file>.gz when large;
                                      in HTML, long SVG point lists and the shared style sheet and
                                      script are replaced by their sha256)
    <file>.summary.txt                a written trace reduced to what gpuwhy added (annotate)
    commands.txt                      every command as run, its exit code and its standard error
    digests.txt                       sha256 and size of each binary or bulky output (a synthetic
                                      trace, an annotated trace, an SQLite export)

The normaliser replaces only what truly varies between two runs of the same binary: the
scratch folder's path ($TMP), the data folder's path ($DATA), the tool version ("gpuwhy
$VERSION") and the random suffix of demo's temp folder. Everything else must be byte-identical;
output that changes from run to run is a bug in gpuwhy, not something to normalise.

    golden_check.py --gpuwhy BIN [--group G ...]            compare; exit 1 on a difference
    golden_check.py --gpuwhy BIN --update [--group G ...]   rewrite the goldens
    golden_check.py --gpuwhy BIN --list                     the groups, one per line
    golden_check.py --gpuwhy BIN --groups                   every group has goldens and every
                                                            golden folder a group
    golden_check.py --gpuwhy BIN --twice [--group G ...]    run each group twice (different
                                                            scratch paths) and compare the runs

A group that reads ../shared/data exits 77 (ctest: skipped) when the data folder is absent.
scripts/golden.sh wraps this for the whole tree.
"""
import argparse
import concurrent.futures
import difflib
import gzip
import hashlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
GOLDEN_DIR = ROOT / "tests" / "golden"
DEFAULT_DATA = ROOT.parent / "shared" / "data"
SKIP = 77
# Outputs larger than this are stored gzip'd (keeps the tree small; diffs are shown unzipped).
GZIP_ABOVE = 48 * 1024
DIFF_LINES = 40
# HTML attribute values (SVG point lists) and style or script blocks longer than this are kept
# as their digest.
LONG_VALUE = 200
# Steps of one group run at once (they only read the group's inputs).
WORKERS = max(1, min(4, len(os.sched_getaffinity(0))))
SYNTH_STEPS = "4"
RUN_TIMEOUT_S = 100

FORMATS = (("text", "txt"), ("json", "json"), ("md", "md"), ("html", "html"))


class Step:
    """One gpuwhy command: its golden is its standard output (and what it wrote, if anything)."""

    def __init__(self, name, argv, ext, written=None):
        self.name = name
        self.argv = argv
        self.ext = ext  # of the stdout golden; None: stdout is only in commands.txt
        self.written = written or []  # (file in the scratch folder, "trace" | "binary" | ext)


class Group:
    def __init__(self, name, data=(), setup=(), steps=()):
        self.name = name
        self.data = list(data)  # paths under ../shared/data, linked into the scratch folder
        self.setup = list(setup)  # Steps whose outputs are inputs of the others
        self.steps = list(steps)


def analyze_steps(inputs, prefix="analyze"):
    return [Step(f"{prefix}-{fmt}", ["analyze", "--format", fmt, *inputs], ext)
            for fmt, ext in FORMATS]


def diff_steps(base, test):
    return [Step(f"diff-{fmt}", ["diff", "--format", fmt, base, test], ext) for fmt, ext in FORMATS]


def info_steps(inputs):
    return [Step("info", ["info", *inputs], "txt"),
            Step("info-json", ["info", "--format", "json", *inputs], "json")]


def doctor_steps(inputs):
    froms = [a for f in inputs for a in ("--from", f)]
    return [Step(f"doctor-{fmt}", ["doctor", "--format", fmt, *froms], ext)
            for fmt, ext in FORMATS if fmt != "html"]


def annotate_step(inputs):
    return Step("annotate", ["annotate", *inputs, "-o", "annotated.json"], "txt",
                written=[("annotated.json", "trace")])


def synth_step(scenario, output, *extra):
    return Step(f"synth-{output.split('.')[0]}",
                ["synth", "--scenario", scenario, "--steps", SYNTH_STEPS, *extra, "-o", output],
                "txt", written=[(output, "binary"), (output + ".truth.json", "json")])


def synth_scenarios(gpuwhy):
    listing = run([gpuwhy, "synth", "--list"], ROOT, os.environ.copy()).stdout.decode()
    scenarios = [m.group(1) for m in re.finditer(r"^([a-z0-9][a-z0-9-]*)\s", listing, re.M)]
    if not scenarios:  # never read as "no scenario left" (--update would drop their goldens)
        sys.exit(f"golden_check: no scenario in `gpuwhy synth --list`:\n{listing[:500]}")
    return scenarios


def subcommands(gpuwhy):
    """The commands `gpuwhy --help` lists, so that a new command's help is a golden at once."""
    listing = run([gpuwhy, "--help"], ROOT, os.environ.copy()).stdout.decode()
    section = listing.split("Subcommands:", 1)[-1]
    commands = re.findall(r"^  ([a-z][a-z0-9-]*)\s", section, re.M)
    if not commands:
        sys.exit(f"golden_check: no command in `gpuwhy --help`:\n{listing[:500]}")
    return commands


def help_group(gpuwhy):
    commands = subcommands(gpuwhy)
    steps = [Step("help", ["--help"], "txt"), Step("version", ["version"], "txt"),
             Step("synth-list", ["synth", "--list"], "txt")]
    steps += [Step(f"help-{c}", [c, "--help"], "txt") for c in commands]
    steps += [Step(f"completion-{shell}", ["completion", shell], "txt")
              for shell in ("bash", "zsh", "fish")]
    steps += [Step("demo", ["demo"], "txt"),
              Step("demo-keep", ["demo", "--keep", "kept"], "txt",
                   written=[("kept/demo-input-bound.pt.trace.json", "binary")])]
    return Group("cli_help", steps=steps)


def synth_group(scenario):
    setup = [synth_step(scenario, "trace.json")]
    if scenario != "healthy":
        setup.append(Step("synth-healthy", ["synth", "--scenario", "healthy", "--steps",
                                            SYNTH_STEPS, "-o", "healthy.json"], None))
    return Group(f"synth_{scenario.replace('-', '_')}", setup=setup,
                 steps=info_steps(["trace.json"]) + analyze_steps(["trace.json"]) +
                 [Step("analyze-summary", ["analyze", "--summary", "trace.json"], "json"),
                  annotate_step(["trace.json"])] +
                 diff_steps("healthy.json" if scenario != "healthy" else "trace.json", "trace.json"))


def synth_extra_groups():
    ranks = ["job.rank0.json", "job.rank1.json", "job.rank2.json"]
    summaries = [f"rank{i}.summary.json" for i in range(len(ranks))]
    return [
        Group("synth_nsys_sqlite",
              setup=[synth_step("input-bound", "trace.sqlite", "--format", "nsys-sqlite",
                                "--gpu-metrics")],
              steps=info_steps(["trace.sqlite"]) + analyze_steps(["trace.sqlite"])),
        Group("synth_ranks",
              setup=[Step("synth-job", ["synth", "--scenario", "comm-exposed", "--ranks", "3",
                                        "--steps", SYNTH_STEPS, "--slow-rank", "1", "--slow-by",
                                        "40", "-o", "job.json"], "txt",
                          written=[(r, "binary") for r in ranks] +
                          [("job.json.truth.json", "json")])] +
              [Step(f"summary-rank{i}", ["analyze", "--summary", rank, "-o", summary], None,
                    written=[(summary, "json")])
               for i, (rank, summary) in enumerate(zip(ranks, summaries))],
              steps=info_steps(ranks) + analyze_steps(ranks) +
              [Step("analyze-md-full", ["analyze", "--format", "md", "--detail", "full", *ranks],
                    "md"),
               annotate_step(ranks),
               Step("diff-ranks", ["diff", ranks[0], ranks[1]], "txt"),
               Step("analyze-summaries", ["analyze", *summaries], "txt"),
               Step("analyze-summaries-json", ["analyze", "--format", "json", *summaries],
                    "json")]),
    ]


# Small real inputs of different kinds (docs/testing.md names them and why).
REAL_KINETO = "kineto/hta/amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz"
REAL_KINETO_BASE = "kineto/hta/trace_compare_base_base.json.gz"
REAL_KINETO_TEST = "kineto/hta/trace_compare_test_test.json.gz"
REAL_NSYS = "nsys_sqlite/dlprof_no_relu_nsys_profile.sqlite"
REAL_DMON = "logs/dmon/gpuexp_linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.dmon.txt"
REAL_QUERY_GPU = "logs/nvidia-smi/netdata_tesla-p100_query-gpu.csv"
REAL_NCCL = "logs/nccl/awsome_nccl-tests_allreduce_2x_p4de.txt"
REAL_XID = "logs/dmesg/kubecon_hk_2024_h100_xid79_fallen_off_bus.txt"
REAL_SNAPSHOT = "memory/snapshots/silmont2000_mem_snapshot.pickle"
REAL_OOM = "logs/oom/mle_debug_pytorch_b200_forward_oom_traceback.txt"
REAL_NCU = "ncu/leleucasAPC_sam_flashattn_nsight.csv"
REAL_KERN_SUM = "nsys_stats/shibukizero_cs336_2.7b_ctx512_forward_cuda_gpu_kern_sum.txt"


def real_groups():
    def name(path):
        return path.rsplit("/", 1)[-1]

    kineto, base, test = name(REAL_KINETO), name(REAL_KINETO_BASE), name(REAL_KINETO_TEST)
    nsys, dmon, query = name(REAL_NSYS), name(REAL_DMON), name(REAL_QUERY_GPU)
    nccl, xid, snapshot, oom = name(REAL_NCCL), name(REAL_XID), name(REAL_SNAPSHOT), name(REAL_OOM)
    ncu, kern_sum = name(REAL_NCU), name(REAL_KERN_SUM)
    return [
        Group("real_kineto", data=[REAL_KINETO, REAL_KINETO_BASE, REAL_KINETO_TEST],
              steps=info_steps([kineto]) + analyze_steps([kineto]) +
              [Step("analyze-hta-compat", ["analyze", "--hta-compat", kineto], "txt"),
               annotate_step([kineto]),
               Step("export-csv-refused", ["export-csv", kineto], "txt"),
               Step("doctor-refused", ["doctor", "--from", kineto], "txt")] +
              diff_steps(base, test)),
        Group("real_nsys_sqlite", data=[REAL_NSYS],
              steps=info_steps([nsys]) + analyze_steps([nsys]) + diff_steps(nsys, nsys)),
        Group("real_metric_logs", data=[REAL_DMON, REAL_QUERY_GPU],
              steps=analyze_steps([dmon]) + doctor_steps([dmon]) +
              [Step("export-csv", ["export-csv", dmon], "csv"),
               Step("export-csv-query-gpu", ["export-csv", query], "csv"),
               Step("analyze-query-gpu", ["analyze", query], "txt"),
               Step("info-refused", ["info", dmon], "txt")]),
        Group("real_node_logs", data=[REAL_NCCL, REAL_XID],
              steps=doctor_steps([nccl, xid]) + analyze_steps([nccl]) +
              [Step("doctor-xid", ["doctor", "--from", xid], "txt")]),
        Group("real_memory", data=[REAL_SNAPSHOT, REAL_OOM],
              steps=info_steps([snapshot]) + analyze_steps([snapshot]) +
              analyze_steps([oom], prefix="analyze-oom") +
              [Step("info-oom-refused", ["info", oom], "txt")]),
        Group("real_ncu", data=[REAL_NCU, REAL_KERN_SUM],
              steps=info_steps([ncu]) + analyze_steps([ncu]) +
              [Step("analyze-kern-sum", ["analyze", kern_sum], "txt"),
               Step("analyze-kern-sum-json", ["analyze", "--format", "json", kern_sum], "json")]),
    ]


def all_groups(gpuwhy):
    return ([help_group(gpuwhy)] + [synth_group(s) for s in synth_scenarios(gpuwhy)] +
            synth_extra_groups() + real_groups())


def named_group(name, gpuwhy):
    """One group by its name, without asking the binary for the others (a ctest test runs one);
    None for a name no group has."""
    if name == "cli_help":
        return help_group(gpuwhy)
    for group in synth_extra_groups() + real_groups():
        if group.name == name:
            return group
    scenario = name[len("synth_"):].replace("_", "-")
    if name.startswith("synth_") and scenario in synth_scenarios(gpuwhy):
        return synth_group(scenario)
    return None


# ---------------------------------------------------------------------------------------------
# Running and normalising


def run(argv, cwd, env):
    try:
        return subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired as e:  # a golden of its own: "exit timeout"
        return subprocess.CompletedProcess(argv, "timeout", e.stdout or b"", e.stderr or b"")


def clean_env(scratch):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUWHY_")}
    env.update({"LC_ALL": "C.UTF-8", "TZ": "UTC", "NO_COLOR": "1", "TMPDIR": str(scratch),
                "COLUMNS": "100"})
    return env


class Normaliser:
    """Replaces what varies between two runs of one binary; documented in docs/testing.md."""

    def __init__(self, scratch, data, version):
        self.pairs = []
        for path, token in ((scratch, "$TMP"), (data, "$DATA")):
            if path is None:
                continue
            for variant in {str(path), os.path.realpath(path)}:
                self.pairs.append((variant, token))
        self.pairs.sort(key=lambda p: -len(p[0]))
        self.version = version

    def text(self, raw):
        text = raw.decode("utf-8", errors="backslashreplace")
        for old, new in self.pairs:
            text = text.replace(old, new)
        if self.version:
            text = text.replace(f"gpuwhy {self.version}", "gpuwhy $VERSION")
        return re.sub(r"gpuwhy-demo-[A-Za-z0-9]{6}", "gpuwhy-demo-XXXXXX", text)


def summarise_trace(raw):
    """A Kineto trace reduced to what gpuwhy added: its tracks and markers in full, its counters
    and idle spans as counts and totals (the file's digest pins every other byte)."""
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    doc = json.loads(raw)
    events = doc.get("traceEvents", []) if isinstance(doc, dict) else doc
    lines = [f"events: {len(events)}"]
    if isinstance(doc, dict):
        lines.append("keys: " + ", ".join(sorted(doc)))
    totals = {}
    for event in events:
        cat = str(event.get("cat", ""))
        if event.get("ph") == "M":
            lines.append("meta " + json.dumps(event, sort_keys=True))
        elif cat in ("gpuwhy_step", "gpuwhy_finding"):
            lines.append(f"{cat} " + json.dumps(event, sort_keys=True))
        elif cat.startswith("gpuwhy"):
            key = (cat, str(event.get("ph")), str(event.get("name")))
            count, total = totals.get(key, (0, 0.0))
            if event.get("ph") == "C":  # a counter: the sum of its values
                amount = sum(v for v in event.get("args", {}).values()
                             if isinstance(v, (int, float)))
            else:
                amount = float(event.get("dur", 0) or 0)
            totals[key] = (count + 1, total + amount)
    for (cat, ph, name), (count, total) in sorted(totals.items()):
        what = "values sum to" if ph == "C" else "durations sum to"
        unit = "" if ph == "C" else " us"
        lines.append(f"{cat} {ph} {name}: {count} events, {what} {total:.3f}{unit}")
    return "\n".join(lines) + "\n"


def short_digest(value):
    return f"sha256:{hashlib.sha256(value.encode()).hexdigest()[:16]}, {len(value)} chars"


def shorten_html(text):
    """An HTML report with each long attribute value (an SVG chart's point list) and the shared
    style sheet and script replaced by their digests: all stay pinned, the golden stays small and
    its diff readable."""
    text = re.sub(r'(\s[\w:-]+)="([^"]{%d,})"' % LONG_VALUE,
                  lambda m: f'{m.group(1)}="{short_digest(m.group(2))}"', text)
    return re.sub(r"(<(style|script)\b[^>]*>)(.{%d,}?)(</\2>)" % LONG_VALUE,
                  lambda m: f"{m.group(1)}/* {short_digest(m.group(3))} */{m.group(4)}", text,
                  flags=re.S)


def html_lines(text):
    """HTML broken into lines between adjacent tags, so that a golden's diff shows the element
    that changed (the page's digest, taken before, pins the whitespace the breaks blur)."""
    return re.sub(r">(?=<)", ">\n", text)


# ---------------------------------------------------------------------------------------------
# One group


def shell_quote(argv):
    return " ".join(a if re.fullmatch(r"[\w@%+=:,./-]+", a) else "'" + a.replace("'", "'\\''") + "'"
                    for a in argv)


def run_step(step, gpuwhy, scratch, env, norm):
    """Runs one step; returns its lines of commands.txt, its golden files and its digest lines."""
    result = run([gpuwhy, *step.argv], scratch, env)
    log = [f"$ gpuwhy {shell_quote(step.argv)}", f"exit {result.returncode}"]
    log.extend("stderr: " + line for line in norm.text(result.stderr).splitlines())
    files, digests = {}, []
    if step.ext == "html":
        page = shorten_html(norm.text(result.stdout))
        files[f"{step.name}.html"] = html_lines(page)
        digests.append(f"{step.name}.html sha256 {hashlib.sha256(page.encode()).hexdigest()} "
                       "(before the line breaks at tags)")
    elif step.ext:
        files[f"{step.name}.{step.ext}"] = norm.text(result.stdout)
    elif result.stdout:
        log.extend("stdout: " + line for line in norm.text(result.stdout).splitlines())
    for written, kind in step.written:
        path = scratch / written
        if not path.exists():
            log.append(f"missing: {written}")
            continue
        raw = path.read_bytes()
        if kind in ("binary", "trace"):
            digests.append(f"{written} sha256 {hashlib.sha256(raw).hexdigest()} {len(raw)} bytes")
        if kind == "trace":
            files[f"{step.name}.summary.txt"] = norm.text(summarise_trace(raw).encode())
        elif kind != "binary":
            files[f"{step.name}.{pathlib.PurePosixPath(written).name}"] = norm.text(raw)
    return log, files, digests


def produce(group, gpuwhy, data, version):
    """Runs |group| (its setup in order, then its steps a few at a time) and returns
    {golden file name: text}. The files are assembled in step order, so the result does not
    depend on which step finished first."""
    scratch = pathlib.Path(tempfile.mkdtemp(prefix=f"golden-{group.name}-"))
    try:
        env = clean_env(scratch)
        norm = Normaliser(scratch, data, version)
        for path in group.data:
            (scratch / pathlib.PurePosixPath(path).name).symlink_to(data / path)
        results = [run_step(step, gpuwhy, scratch, env, norm) for step in group.setup]
        with concurrent.futures.ThreadPoolExecutor(max_workers=WORKERS) as pool:
            results += pool.map(lambda s: run_step(s, gpuwhy, scratch, env, norm), group.steps)
        files, log, digests = {}, [], []
        for step_log, step_files, step_digests in results:
            log += step_log
            files.update(step_files)
            digests += step_digests
        files["commands.txt"] = "\n".join(log) + "\n"
        if digests:
            files["digests.txt"] = "\n".join(digests) + "\n"
        return files
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def stored_name(name, text):
    return name + ".gz" if len(text.encode()) > GZIP_ABOVE else name


def read_golden(folder):
    files = {}
    if not folder.is_dir():
        return files
    for path in sorted(folder.iterdir()):
        raw = path.read_bytes()
        if path.suffix == ".gz":
            files[path.name[:-3]] = gzip.decompress(raw).decode("utf-8", errors="backslashreplace")
        else:
            files[path.name] = raw.decode("utf-8", errors="backslashreplace")
    return files


def write_golden(folder, files):
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for name, text in sorted(files.items()):
        stored = stored_name(name, text)
        data = text.encode()
        if stored.endswith(".gz"):
            data = gzip.compress(data, compresslevel=9, mtime=0)
        (folder / stored).write_bytes(data)


def producer(group, name):
    """The step whose output golden file |name| is (its name starts with the step's)."""
    steps = [s for s in group.setup + group.steps if name.startswith(s.name + ".")]
    return max(steps, key=lambda s: len(s.name)) if steps else None


def show_differences(group, expected, actual, regen, diff_lines=DIFF_LINES):
    """Prints a unified diff (its first |diff_lines| lines; 0: all) and how to regenerate;
    returns True when nothing differs."""
    names = sorted(set(expected) | set(actual))
    changed = [n for n in names if expected.get(n) != actual.get(n)]
    if not changed:
        return True
    print(f"golden_{group.name}: {len(changed)} of {len(names)} golden files differ: "
          + ", ".join(changed))
    budget = diff_lines if diff_lines > 0 else sys.maxsize
    for name in changed:
        old, new = expected.get(name), actual.get(name)
        if old is None or new is None:
            print(f"  {name}: {'new output, no golden' if old is None else 'golden, no output'}")
            continue
        step = producer(group, name)
        if step:
            print(f"  {name} is the output of: gpuwhy {shell_quote(step.argv)}")
        lines = list(difflib.unified_diff(old.splitlines(), new.splitlines(),
                                          f"tests/golden/{group.name}/{name}", f"{name} (now)",
                                          n=2, lineterm=""))
        for line in lines[:budget]:
            print(line[:300])
        if len(lines) > budget:
            print(f"... {len(lines) - budget} more diff lines")
        budget = max(budget - len(lines), 0)
        if budget == 0:
            break
    print(f"command lines: tests/golden/{group.name}/commands.txt")
    if regen:
        print(f"regenerate after review: {regen}")
    return False


def check_group_folders(by_name):
    """Every group has a golden folder and every folder a group (a new synth scenario, say)."""
    folders = {p.name for p in GOLDEN_DIR.iterdir() if p.is_dir()} if GOLDEN_DIR.is_dir() else set()
    missing = sorted(set(by_name) - folders)
    stale = sorted(folders - set(by_name))
    for name in missing:
        print(f"golden_check: group {name} has no goldens in tests/golden/{name}")
    for name in stale:
        print(f"golden_check: tests/golden/{name} belongs to no group (a scenario was removed?)")
    if missing or stale:
        print("regenerate after review: scripts/golden.sh --update")
        return 1
    print(f"golden_check: {len(by_name)} groups, each with its goldens")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gpuwhy", help="the gpuwhy binary")
    parser.add_argument("--data", default=os.environ.get("GPUWHY_DATA", str(DEFAULT_DATA)))
    parser.add_argument("--group", action="append", default=[])
    parser.add_argument("--update", action="store_true")
    parser.add_argument("--twice", action="store_true")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--groups", action="store_true",
                        help="check only that every group has goldens and every golden a group")
    parser.add_argument("--diff-lines", type=int, default=DIFF_LINES,
                        help=f"diff lines shown per group (default {DIFF_LINES}; 0: all)")
    args = parser.parse_args()
    if not args.gpuwhy:
        parser.error("--gpuwhy is required")
    gpuwhy = os.path.realpath(args.gpuwhy)
    if args.group and not (args.list or args.groups):
        chosen = [named_group(name, gpuwhy) for name in args.group]
        unknown = [name for name, group in zip(args.group, chosen) if group is None]
        if unknown:
            print(f"golden_check: unknown group(s) {', '.join(unknown)}; --list names them")
            return 2
    else:
        chosen = all_groups(gpuwhy)
    by_name = {g.name: g for g in chosen}
    if args.list:
        print("\n".join(by_name))
        return 0
    if args.groups:
        return check_group_folders(by_name)
    data = pathlib.Path(args.data).resolve()
    version_out = run([gpuwhy, "version"], ROOT, os.environ.copy()).stdout.decode().split()
    version = version_out[1] if len(version_out) == 2 else None
    if not args.group and args.update:  # drop the goldens of groups that no longer exist
        for folder in GOLDEN_DIR.iterdir() if GOLDEN_DIR.is_dir() else []:
            if folder.is_dir() and folder.name not in by_name:
                shutil.rmtree(folder)
    failed, skipped = [], []
    for group in chosen:
        absent = [p for p in group.data if not (data / p).is_file()]
        if absent:
            print(f"golden_{group.name}: SKIPPED, {data / absent[0]} is absent "
                  f"(set GPUWHY_DATA or --data to the shared data folder)")
            skipped.append(group.name)
            continue
        actual = produce(group, gpuwhy, data, version)
        folder = GOLDEN_DIR / group.name
        if args.twice:
            again = produce(group, gpuwhy, data, version)
            if not show_differences(group, actual, again, "", args.diff_lines):
                print(f"golden_{group.name}: two runs differ: a nondeterminism to fix in gpuwhy")
                failed.append(group.name)
            continue
        if args.update:
            show_differences(group, read_golden(folder), actual, "", args.diff_lines)
            write_golden(folder, actual)
            continue
        regen = f"scripts/golden.sh --update {group.name}"
        if not show_differences(group, read_golden(folder), actual, regen, args.diff_lines):
            failed.append(group.name)
    if failed:
        print(f"golden_check: {len(failed)} group(s) differ: {' '.join(failed)}")
        return 1
    if skipped and len(skipped) == len(chosen):
        return SKIP
    verb = "updated" if args.update else "identical across two runs" if args.twice else "match"
    print(f"golden_check: {len(chosen) - len(skipped)} group(s) {verb}"
          + (f", {len(skipped)} skipped" if skipped else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
