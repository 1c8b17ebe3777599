"""gpuwhy.trace_handler (for torch.profiler's on_trace_ready) and gpuwhy.profile (a context
manager and decorator that profiles a representative window of the loop)."""

import contextlib
import os
import sys

from . import _autoprofile
from ._binary import GpuwhyError, run
from ._report import analyze as _analyze


def _summary_path(trace):
    base = trace[: -len(".json")] if trace.endswith(".json") else trace
    if base.endswith(".pt.trace"):
        base = base[: -len(".pt.trace")]
    return base + ".summary.json"


def _short_diagnosis(report, limit=3):
    lines = []
    for rank in report.get("ranks", []):
        verdict = rank.get("verdict", {})
        step = verdict.get("step_ms")
        head = f"gpuwhy: {rank.get('path', '')}"
        if step:
            head += f": {verdict.get('step_count', 0)} steps of {step:.1f} ms"
        lines.append(head)
        findings = rank.get("findings", [])
        for f in findings[:limit]:
            lines.append(f"  {f.get('severity', '')} {f.get('id', '')}: {f.get('title', '')}")
        if not findings:
            lines.append("  no finding")
    return "\n".join(lines)


class TraceHandler:
    """on_trace_ready for torch.profiler.profile: writes each trace as
    DIR/rank{RANK}.{host}_{pid}[.N].pt.trace.json, then (when the binary is there) the rank's
    summary beside it (gpuwhy analyze --summary; gpuwhy analyze DIR reads them across ranks)
    and, on rank 0, a short diagnosis on stderr. gpuwhy failing never stops the training:
    it is one line on stderr."""

    def __init__(self, directory, analyze=True, summary=True, stream=None):
        self.directory = os.fspath(directory)
        self.analyze = analyze
        self.summary = summary
        self.stream = stream
        self.traces = []
        self.summaries = []
        self.reports = []

    def __call__(self, prof):
        # torch.profiler calls it from inside prof.step() and the job's training loop: a
        # folder that is read-only, full or gone costs the trace, never the job.
        try:
            path = _autoprofile.trace_path(self.directory)
            if self.traces:  # a repeating schedule: one file per window
                root = path[: -len(".pt.trace.json")]
                path = f"{root}.{len(self.traces)}.pt.trace.json"
            _autoprofile.export_trace(prof, path)
        except Exception as e:  # noqa: BLE001
            _autoprofile.report_once("trace not written", e, self.stream)
            return None
        self.traces.append(path)
        try:
            self._analyse(path)
        except Exception as e:  # noqa: BLE001
            _autoprofile.report_once("trace not analysed", e, self.stream)
        return path

    def _analyse(self, path):
        stream = self.stream or sys.stderr
        try:
            if self.summary:
                target = _summary_path(path)
                run(["analyze", "--summary", "-o", target, "--", path])
                self.summaries.append(target)
            rank = _autoprofile.rank_of_process()
            if self.analyze and (rank is None or rank == 0):
                report = _analyze(path)
                self.reports.append(report)
                print(_short_diagnosis(report), file=stream)
        except GpuwhyError as e:
            print(f"gpuwhy: {path}: not analysed: {e}", file=stream)


def trace_handler(dir="gpuwhy-traces", analyze=True, summary=True):  # noqa: A002
    """A TraceHandler (see its doc) for torch.profiler.profile(on_trace_ready=...)."""
    return TraceHandler(dir, analyze=analyze, summary=summary)


class profile(contextlib.ContextDecorator):  # noqa: N801  (reads as torch.profiler.profile)
    """Profiles wait + warmup + steps training steps and hands the trace to trace_handler.

        with gpuwhy.profile(steps=3) as p:
            for batch in loader:
                ...; optimizer.step()       # steps are counted from the optimizer's step

        @gpuwhy.profile(steps=3, dir="traces")
        def train(): ...

    Steps are counted from the optimizer's step (post-hooks, or a wrapper on PyTorch
    without them); calling p.step() yourself counts your steps instead. The profiler detaches
    once the window is recorded; leaving the block early writes what was recorded."""

    def __init__(self, steps=_autoprofile.DEFAULT_STEPS, wait=_autoprofile.DEFAULT_WAIT,
                 warmup=_autoprofile.DEFAULT_WARMUP, record_shapes=True, profile_memory=True,
                 with_stack=False, activities=None, dir="gpuwhy-traces",  # noqa: A002
                 analyze=True, summary=True, on_trace_ready=None):
        self.handler = on_trace_ready or TraceHandler(dir, analyze=analyze, summary=summary)
        self._options = dict(steps=steps, wait=wait, warmup=warmup, record_shapes=record_shapes,
                             profile_memory=profile_memory, with_stack=with_stack,
                             activities=activities)
        self._dir = os.fspath(dir)
        self._auto = None

    @property
    def traces(self):
        return list(getattr(self.handler, "traces", []))

    @property
    def step_mode(self):
        return self._auto.step_mode if self._auto else None

    def step(self):
        if self._auto is not None:
            self._auto.step()

    def __enter__(self):
        self._auto = _autoprofile.AutoProfiler(self._dir, on_trace_ready=self.handler,
                                               start_now=True, **self._options).attach()
        return self

    def __exit__(self, *exc):
        self._auto.detach()
        return False
