"""gpuwhy: why the GPUs of a training job sit underused.

A pure-Python front end of the gpuwhy binary (found at $GPUWHY_BIN, beside the package, or on
PATH): analyze / diagnose / diff / report_html over traces and reports, and trace capture for
PyTorch (trace_handler, profile)."""

from ._binary import GpuwhyError, find_binary
from ._report import Evidence, Finding, Fix, Report, analyze, diagnose, diff, report_html
from ._torch import TraceHandler, profile, trace_handler

__version__ = "0.1.0"

__all__ = [
    "Evidence", "Finding", "Fix", "GpuwhyError", "Report", "TraceHandler", "analyze",
    "diagnose", "diff", "find_binary", "profile", "report_html", "trace_handler",
]
