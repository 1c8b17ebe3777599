"""Profiles a window of optimizer steps with torch.profiler, stepping the schedule from the
optimizer: step post-hooks where PyTorch has them (2.0+), a wrapper of each optimizer class's
step where it does not (1.13: Debian's python3-torch).

Used two ways, so it imports only the standard library until torch is there:
- gpuwhy.profile() imports it as gpuwhy._autoprofile;
- `gpuwhy run --profile` writes this file as sitecustomize.py into a folder prepended to
  PYTHONPATH. Python imports it at start-up; it then waits for `import torch` (a finder on
  sys.meta_path, nothing else), imports the sitecustomize it shadows (if any), and does
  nothing at all in a program that never imports torch. Environment (set by gpuwhy run):
  GPUWHY_PROFILE_DIR (required), GPUWHY_PROFILE_STEPS, GPUWHY_PROFILE_WAIT,
  GPUWHY_PROFILE_WARMUP; GPUWHY_PROFILE_NO_STEP_HOOKS=1 forces the wrapper.
"""

import atexit
import os
import socket
import sys

ENV_DIR = "GPUWHY_PROFILE_DIR"
ENV_STEPS = "GPUWHY_PROFILE_STEPS"
ENV_WAIT = "GPUWHY_PROFILE_WAIT"
ENV_WARMUP = "GPUWHY_PROFILE_WARMUP"
ENV_NO_HOOKS = "GPUWHY_PROFILE_NO_STEP_HOOKS"

DEFAULT_STEPS = 3
DEFAULT_WAIT = 5
DEFAULT_WARMUP = 2


def rank_of_process():
    """RANK (torchrun, most launchers), else LOCAL_RANK, else None."""
    for key in ("RANK", "LOCAL_RANK"):
        value = os.environ.get(key, "")
        if value.isdigit():
            return int(value)
    return None


def trace_path(directory, suffix=".pt.trace.json"):
    """rank3.HOST_PID.pt.trace.json: gpuwhy reads the rank from "rank3" (importer.h), host and
    pid keep the traces of several machines and restarts apart."""
    rank = rank_of_process()
    host = socket.gethostname().split(".")[0] or "host"
    name = f"{host}_{os.getpid()}{suffix}"
    if rank is not None:
        name = f"rank{rank}.{name}"
    return os.path.join(directory, name)


def export_trace(prof, path):
    """prof.export_chrome_trace(path), except on PyTorch without Kineto: its legacy export
    drops the shapes record_shapes=True recorded ("args" is always {}) and writes names
    unescaped (a quote in a scope name breaks the JSON). There the same form (a bare array,
    pid "CPU functions") is written from the profiler's events with each op's "Input Dims"."""
    import torch.autograd.profiler as autograd_profiler

    if autograd_profiler.kineto_available():
        prof.export_chrome_trace(path)
        return
    import json

    events = []
    for evt in prof.events():
        if evt.trace_name is None:
            continue
        args = {}
        shapes = getattr(evt, "input_shapes", None)
        if shapes and any(shapes):
            args["Input Dims"] = [list(shape) for shape in shapes]
        events.append({"name": evt.trace_name, "ph": "X", "ts": evt.time_range.start,
                       "dur": evt.time_range.elapsed_us(), "tid": evt.thread,
                       "pid": "CPU functions", "args": args})
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(events, f)
    os.replace(tmp, path)


class OptimizerStepper:
    """Calls on_step() after each step of the first optimizer that steps (a second optimizer,
    as in a GAN, steps in the same iteration and must not count twice)."""

    def __init__(self, on_step, use_hooks=True):
        self._on_step = on_step
        self._use_hooks = use_hooks and not os.environ.get(ENV_NO_HOOKS)
        self._handle = None
        self._wrapped = {}  # class -> its original step
        self._original_init = None
        self._leader = None
        self.mode = None  # "hook" or "wrapper"

    def install(self):
        import torch.optim.optimizer as optimizer_module

        register = getattr(optimizer_module, "register_optimizer_step_post_hook", None)
        if self._use_hooks and register is not None:
            self._handle = register(lambda optimizer, args, kwargs: self._stepped(optimizer))
            self.mode = "hook"
            return
        self.mode = "wrapper"
        base = optimizer_module.Optimizer
        # Classes already defined (instances made before profiling started step through them)
        # and, through __init__, any defined later.
        for cls in self._subclasses(base):
            self._wrap(cls)
        self._original_init = base.__init__
        stepper = self

        def init(optimizer, *args, **kwargs):
            stepper._original_init(optimizer, *args, **kwargs)
            stepper._wrap(type(optimizer))

        base.__init__ = init

    @staticmethod
    def _subclasses(cls):
        seen, todo = [], list(cls.__subclasses__())
        while todo:
            c = todo.pop()
            if c not in seen:
                seen.append(c)
                todo.extend(c.__subclasses__())
        return seen

    def _wrap(self, cls):
        if cls in self._wrapped or "step" not in cls.__dict__:
            return
        original = cls.__dict__["step"]
        stepper = self

        def step(optimizer, *args, **kwargs):
            result = original(optimizer, *args, **kwargs)
            stepper._stepped(optimizer)
            return result

        # PyTorch 1.13 marks its own profiling wrapper with .hooked; keep such attributes.
        step.__dict__.update(getattr(original, "__dict__", {}))
        step.__name__ = getattr(original, "__name__", "step")
        step.__qualname__ = getattr(original, "__qualname__", "step")
        step.__doc__ = getattr(original, "__doc__", None)
        step.__wrapped__ = original
        self._wrapped[cls] = original
        cls.step = step

    def _stepped(self, optimizer):
        if self._leader is None:
            self._leader = id(optimizer)
        if id(optimizer) == self._leader:
            self._on_step()

    def uninstall(self):
        if self._handle is not None:
            self._handle.remove()
            self._handle = None
        for cls, original in self._wrapped.items():
            cls.step = original
        self._wrapped.clear()
        if self._original_init is not None:
            import torch.optim.optimizer as optimizer_module

            optimizer_module.Optimizer.__init__ = self._original_init
            self._original_init = None


class AutoProfiler:
    """A torch.profiler.profile over wait + warmup + steps optimizer steps, then detached.

    start_now=False starts the profiler at the first optimizer step (gpuwhy run: nothing runs
    in a process that never steps an optimizer, such as torchrun's launcher or DataLoader
    workers). on_trace_ready(prof) writes the trace (default: export_chrome_trace to
    trace_path(directory)); written lists what was written."""

    def __init__(self, directory, steps=DEFAULT_STEPS, wait=DEFAULT_WAIT, warmup=DEFAULT_WARMUP,
                 record_shapes=True, profile_memory=True, with_stack=False, activities=None,
                 on_trace_ready=None, start_now=True, use_hooks=True):
        self.directory = directory
        self.steps, self.wait, self.warmup = int(steps), int(wait), int(warmup)
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.activities = activities
        self.on_trace_ready = on_trace_ready
        self.start_now = start_now
        self.written = []
        self.prof = None
        self.stepped = 0
        self.done = False
        self.manual = False
        self._stepper = OptimizerStepper(self._on_optimizer_step, use_hooks)

    @property
    def step_mode(self):
        return "manual" if self.manual else self._stepper.mode

    def attach(self):
        os.makedirs(self.directory, exist_ok=True)
        self._stepper.install()
        if self.start_now:
            self._start_profiler()
        atexit.register(self.detach)  # a job that crashes keeps the window so far
        return self

    def _start_profiler(self):
        import torch
        import torch.profiler as tp

        activities = self.activities
        if activities is None:
            activities = [tp.ProfilerActivity.CPU]
            if torch.cuda.is_available():
                activities.append(tp.ProfilerActivity.CUDA)
        self.prof = tp.profile(
            activities=activities,
            schedule=tp.schedule(wait=self.wait, warmup=self.warmup, active=self.steps, repeat=1),
            on_trace_ready=self._ready,
            record_shapes=self.record_shapes,
            profile_memory=self.profile_memory,
            with_stack=self.with_stack)
        self.prof.start()

    def _ready(self, prof):
        if self.on_trace_ready is not None:
            path = self.on_trace_ready(prof)
        else:
            path = trace_path(self.directory)
            export_trace(prof, path)
        if path:
            self.written.append(path)

    def _on_optimizer_step(self):
        if self.done or self.manual:
            return
        if self.prof is None:
            self._start_profiler()
            return
        self._advance()

    def step(self):
        """One training step done. Calling it yourself turns the optimizer stepping off."""
        self.manual = True
        self._advance()

    def _advance(self):
        if self.done or self.prof is None:
            return
        self.prof.step()
        self.stepped += 1
        if self.stepped >= self.wait + self.warmup + self.steps:
            self.detach()

    def detach(self):
        if self.done:
            return
        self.done = True
        self._stepper.uninstall()
        if self.prof is not None:
            try:
                self.prof.stop()
            except Exception as e:  # never let profiling break the job's exit
                print(f"gpuwhy: profiler stop failed: {e}", file=sys.stderr)
        try:
            atexit.unregister(self.detach)
        except Exception:
            pass


# ---- sitecustomize side (gpuwhy run --profile) ----------------------------------------

_profiler = None


def _on_torch_imported():
    global _profiler
    try:
        _profiler = AutoProfiler(
            os.environ[ENV_DIR],
            steps=int(os.environ.get(ENV_STEPS, DEFAULT_STEPS)),
            wait=int(os.environ.get(ENV_WAIT, DEFAULT_WAIT)),
            warmup=int(os.environ.get(ENV_WARMUP, DEFAULT_WARMUP)),
            start_now=False).attach()
    except Exception as e:  # the job runs on, unprofiled
        print(f"gpuwhy: profiling not started: {type(e).__name__}: {e}", file=sys.stderr)


class _TorchImportFinder:
    """On sys.meta_path until `import torch`: lets the other finders find torch, and runs
    _on_torch_imported once torch's module has executed."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        sys.meta_path.remove(self)
        import importlib.util

        spec = importlib.util.find_spec("torch")
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader = spec.loader
        exec_module = loader.exec_module

        def exec_then_hook(module):
            exec_module(module)
            _on_torch_imported()

        loader.exec_module = exec_then_hook
        return spec


def _chain_shadowed_sitecustomize():
    """Imports the sitecustomize this file shadows, as Python would have without gpuwhy."""
    here = os.path.dirname(os.path.abspath(__file__))
    ours = sys.modules.pop("sitecustomize", None)
    saved = list(sys.path)
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    try:
        import sitecustomize  # noqa: F401  (the next one on the path, if any)
    except ImportError as e:
        if getattr(e, "name", None) != "sitecustomize":
            raise
        if ours is not None:
            sys.modules["sitecustomize"] = ours
    finally:
        sys.path[:] = saved


def _install_from_environment():
    if os.environ.get(ENV_DIR):
        if "torch" in sys.modules:
            _on_torch_imported()
        else:
            sys.meta_path.insert(0, _TorchImportFinder())
    _chain_shadowed_sitecustomize()


if __name__ == "sitecustomize":
    _install_from_environment()
