"""analyze / diagnose / diff / report_html: the binary's JSON as Python objects."""

import html
import json
import os
import tempfile
from dataclasses import dataclass, field
from typing import Optional, Tuple

from ._binary import EXIT_FINDING, EXIT_OK, GpuwhyError, flags, paths_of, run


@dataclass(frozen=True)
class Evidence:
    id: str
    value: Optional[float]
    unit: str
    comparison: str
    threshold: Optional[float]
    threshold_source: str


@dataclass(frozen=True)
class Fix:
    action: str
    code: str


@dataclass(frozen=True)
class Finding:
    """One ranked finding of one rank (docs/findings.md names every id)."""

    id: str
    bottleneck_class: str
    severity: str
    title: str
    confidence: str
    recoverable_ms_per_step: Optional[float]
    step_ms: Optional[float]
    speedup_upper_bound: Optional[float]
    rank: Optional[int]
    path: str
    evidence: Tuple[Evidence, ...] = field(default_factory=tuple)
    fixes: Tuple[Fix, ...] = field(default_factory=tuple)
    top_events: Tuple[str, ...] = field(default_factory=tuple)
    verify: str = ""

    @classmethod
    def from_json(cls, f, rank=None, path=""):
        return cls(
            id=f.get("id", ""),
            bottleneck_class=f.get("class", ""),
            severity=f.get("severity", ""),
            title=f.get("title", ""),
            confidence=f.get("confidence", ""),
            recoverable_ms_per_step=f.get("recoverable_ms_per_step"),
            step_ms=f.get("step_ms"),
            speedup_upper_bound=f.get("speedup_upper_bound"),
            rank=rank,
            path=path,
            evidence=tuple(
                Evidence(e.get("id", ""), e.get("value"), e.get("unit", ""),
                         e.get("comparison", ""), e.get("threshold"),
                         e.get("threshold_source", ""))
                for e in f.get("evidence", [])),
            fixes=tuple(Fix(x.get("action", ""), x.get("code", "")) for x in f.get("fixes", [])),
            top_events=tuple(f.get("top_events", [])),
            verify=f.get("verify", ""),
        )


class Report(dict):
    """The JSON report of `gpuwhy analyze --format json` (docs/report-schema.json), with the
    findings as dataclasses and an HTML view for Jupyter."""

    def __init__(self, data, paths=(), options=None):
        super().__init__(data)
        self._paths = list(paths)
        self._options = dict(options or {})
        self._html = None

    @property
    def findings(self):
        out = []
        for rank in self.get("ranks", []):
            for f in rank.get("findings", []):
                out.append(Finding.from_json(f, rank.get("rank"), rank.get("path", "")))
        return out

    def metric(self, metric_id, rank=0, **scope):
        """The value of a metric (docs/metrics.md) of the rank at index |rank|; rank-wide
        scope unless step=, device=, ... say otherwise. None when absent."""
        ranks = self.get("ranks", [])
        if rank >= len(ranks):
            return None
        for m in ranks[rank].get("metrics", []):
            if m.get("id") != metric_id:
                continue
            s = m.get("scope", {})
            if all(s.get(k) == scope.get(k) for k in ("rank", "device", "stream", "step")):
                return m.get("value")
        return None

    def _repr_html_(self):
        if self._html is None:
            try:
                self._html = notebook_frame(report_html(self._paths, **self._options))
            except GpuwhyError as e:
                self._html = _fallback_html(self, e)
        return self._html


# The report page in a notebook cell: its own frame, so the page's styles (body width, fonts,
# tables) neither leak into the notebook nor overflow the cell; the frame is as wide as the
# cell and scrolls inside. The page's policy still forbids every fetch; scripts run sandboxed
# (table sorting) with no access to the notebook.
NOTEBOOK_FRAME_HEIGHT_PX = 640


def notebook_frame(page):
    return (f'<iframe class="gpuwhy-report" sandbox="allow-scripts" '
            f'style="width:100%;max-width:100%;height:{NOTEBOOK_FRAME_HEIGHT_PX}px;'
            f'border:1px solid #ddd;box-sizing:border-box" '
            f'srcdoc="{html.escape(page, quote=True)}"></iframe>')


def _fallback_html(report, error):
    rows = "".join(
        f"<tr><td>{html.escape(f.severity)}</td><td>{html.escape(f.id)}</td>"
        f"<td>{html.escape(f.title)}</td></tr>" for f in report.findings)
    return (f"<p>gpuwhy report (HTML view unavailable: {html.escape(error.message)})</p>"
            f'<div style="overflow-x:auto;max-width:100%"><table>'
            f"<tr><th>severity</th><th>finding</th><th>title</th></tr>{rows}</table></div>")


def _json_run(command, paths, options):
    # Exit 1 (a gate fired) still comes with the full report; the caller raises with it. The
    # paths come after "--": a file named "-onotes.txt" is a path, not `-o notes.txt`.
    code, out, err = run([command, "--format", "json", *flags(options), "--", *paths],
                         (EXIT_OK, EXIT_FINDING))
    try:
        data = json.loads(out)
    except ValueError:
        raise GpuwhyError(f"gpuwhy {command}: output is not JSON", code, err) from None
    return code, data, err


def analyze(paths, **options):
    """The JSON report of `gpuwhy analyze PATHS` as a Report (a dict). Options are the
    command's flags: top=5, set={"rule.param": value}, config=FILE, step_range=REGEX,
    fail_on="high" (raises GpuwhyError with exit code 1 and .report when reached), strict=True."""
    paths = paths_of(paths)
    code, data, err = _json_run("analyze", paths, options)
    report = Report(data, paths, {k: v for k, v in options.items() if k != "fail_on"})
    if code == EXIT_FINDING:
        raise GpuwhyError(f"a finding reached --fail-on {options.get('fail_on')}", code, err,
                          report)
    return report


def diagnose(paths, **options):
    """The findings of every rank, ranked as the report ranks them."""
    return analyze(paths, **options).findings


def diff(base, test, **options):
    """`gpuwhy diff --format json BASE TEST` as a dict; max_regression=PCT raises GpuwhyError
    (exit code 1, .report the diff) when the gate fires."""
    code, data, err = _json_run("diff", [os.fspath(base), os.fspath(test)], options)
    if code == EXIT_FINDING:
        raise GpuwhyError(
            f"step time regressed by more than {options.get('max_regression')} %", code, err,
            data)
    return data


def report_html(paths, output=None, **options):
    """The HTML report of `gpuwhy analyze --format html` (docs/html.md) as a string; also
    written to |output| when given."""
    paths = paths_of(paths)
    with tempfile.TemporaryDirectory(prefix="gpuwhy-html-") as tmp:
        target = output or os.path.join(tmp, "report.html")
        run(["analyze", "--format", "html", "-o", target, *flags(options), "--", *paths],
            (EXIT_OK, EXIT_FINDING))
        with open(target, encoding="utf-8") as f:
            return f.read()
