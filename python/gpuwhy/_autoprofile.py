"""Profiles a window of optimizer steps with torch.profiler, stepping the schedule from the
optimizer: step post-hooks where PyTorch has them (2.0+), a wrapper of each optimizer class's
step where it does not (1.13: Debian's python3-torch).

Used two ways, so it imports only the standard library until torch is there:
- gpuwhy.profile() imports it as gpuwhy._autoprofile;
- `gpuwhy run --profile` writes it as _gpuwhy_autoprofile.py beside a sitecustomize.py
  (_sitecustomize.py) in a folder prepended to PYTHONPATH. At start-up that loads this file
  and calls install_from_environment(), which waits for `import torch` (a finder on
  sys.meta_path, nothing else): nothing at all happens in a program that never imports torch.
  Environment (set by gpuwhy run): GPUWHY_PROFILE_DIR (required), GPUWHY_PROFILE_STEPS,
  GPUWHY_PROFILE_WAIT, GPUWHY_PROFILE_WARMUP, GPUWHY_PROFILE_STATUS (a folder where each
  process notes how far it got, so that gpuwhy can say why no trace came);
  GPUWHY_PROFILE_NO_STEP_HOOKS=1 forces the wrapper.

Profiling may cost the job its trace, never its run: every path from the job into this file
(the optimizer's step, the profiler's on_trace_ready, start-up) catches what goes wrong, says
so once on stderr and stops profiling; the job goes on.
"""

import atexit
import os
import socket
import sys
import uuid

ENV_DIR = "GPUWHY_PROFILE_DIR"
ENV_STEPS = "GPUWHY_PROFILE_STEPS"
ENV_WAIT = "GPUWHY_PROFILE_WAIT"
ENV_WARMUP = "GPUWHY_PROFILE_WARMUP"
ENV_NO_HOOKS = "GPUWHY_PROFILE_NO_STEP_HOOKS"
ENV_STATUS = "GPUWHY_PROFILE_STATUS"

DEFAULT_STEPS = 3
DEFAULT_WAIT = 5
DEFAULT_WARMUP = 2


_reported = set()


def report_once(what, error, stream=None):
    """One line on stderr per kind of failure and process: a job that steps a thousand times
    into a full disk reads about it once."""
    if what in _reported:
        return
    _reported.add(what)
    try:
        print(f"gpuwhy: {what}: {type(error).__name__}: {error} (the job goes on, without "
              "this trace)", file=stream or sys.stderr, flush=True)
    except Exception:  # noqa: BLE001  (stderr closed: nothing left to tell)
        pass


def note_status(stage, detail=""):
    """Appends "STAGE DETAIL" to $GPUWHY_PROFILE_STATUS/PID (gpuwhy run reads the stages to
    explain a missing trace: loaded, torch, stepped, trace, failed). Never raises."""
    directory = os.environ.get(ENV_STATUS)
    if not directory:
        return
    try:
        line = f"{stage} {detail}".strip().replace("\n", " ") + "\n"
        fd = os.open(os.path.join(directory, str(os.getpid())),
                     os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0),
                     0o600)
        try:
            os.write(fd, line.encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except Exception:  # noqa: BLE001
        pass


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
    """Writes the trace to |path| whole or not at all: to a unique temporary beside it (its
    folder made again if it vanished), checked to end as JSON does (a full disk can cut the
    profiler's own export short without an error), then renamed. Raises OSError on failure,
    the temporary removed.

    PyTorch without Kineto: its legacy export drops the shapes record_shapes=True recorded
    ("args" is always {}) and writes names unescaped (a quote in a scope name breaks the
    JSON), so the same form (a bare array, pid "CPU functions") is written from the
    profiler's events with each op's "Input Dims"."""
    import torch.autograd.profiler as autograd_profiler

    directory = os.path.dirname(path) or "."
    os.makedirs(directory, exist_ok=True)
    tmp = os.path.join(directory, f".{os.path.basename(path)}.{uuid.uuid4().hex[:12]}.partial")
    try:
        if autograd_profiler.kineto_available():
            prof.export_chrome_trace(tmp)
        else:
            _export_legacy(prof, tmp)
        _check_complete(tmp)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _export_legacy(prof, tmp):
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
    # O_EXCL | O_NOFOLLOW: the unique name is ours alone, a planted link is not followed.
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    with os.fdopen(os.open(tmp, flags, 0o644), "w") as f:
        json.dump(events, f)
        f.flush()
        os.fsync(f.fileno())


def _check_complete(path):
    with open(path, "rb") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - 64))
        tail = f.read().rstrip()
    if not tail.endswith((b"}", b"]")):
        raise OSError(f"{path}: the trace was cut short ({size} bytes written; is the disk "
                      "full?)")


class OptimizerStepper:
    """Calls on_step() once per training iteration, counted from the optimizers' steps.

    The leading optimizer's steps count. Another optimizer that steps in the same iteration
    (a GAN's second one) does not count twice; one that steps twice while the leader is
    silent has replaced it (warm-up with SGD then Adam, an optimizer rebuilt at a restart)
    and leads from then on. Nothing here may raise into the job's optimizer.step()."""

    def __init__(self, on_step, use_hooks=True):
        self._on_step = on_step
        self._use_hooks = use_hooks and not os.environ.get(ENV_NO_HOOKS)
        self._handle = None
        self._wrapped = {}  # class -> its original step
        self._original_init = None
        self._leader = None
        self._others = {}  # id of another optimizer -> its steps since the leader's last
        self._active = True
        self._in_step = False
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
        if not self._active or self._in_step:
            return
        key = id(optimizer)
        if self._leader is None:
            self._leader = key
        if key != self._leader:
            self._others[key] = self._others.get(key, 0) + 1
            if self._others[key] < 2:
                return
            self._leader = key  # the leader fell silent: this one leads now
        self._others.clear()
        self._in_step = True
        try:
            self._on_step()
        except Exception as e:  # noqa: BLE001  (the job's step must not fail)
            report_once("profiling stopped", e)
            self.uninstall()
        finally:
            self._in_step = False

    def uninstall(self):
        """Stops counting and puts every optimizer back. A step hook removed from inside a
        step (the window just ended) would raise in the job's step, since PyTorch iterates
        over its hooks while calling them: that one stays registered, inert."""
        self._active = False
        if self._handle is not None and not self._in_step:
            try:
                self._handle.remove()
            except Exception:  # noqa: BLE001
                pass
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
        """Starts profiling (at the first optimizer step when start_now is False). A folder
        that cannot be made, a profiler that cannot start: said once on stderr, and the job
        runs on unprofiled."""
        try:
            os.makedirs(self.directory, exist_ok=True)
            self._stepper.install()
            if self.start_now:
                self._start_profiler()
        except Exception as e:  # noqa: BLE001
            self._fail("profiling not started", e)
            return self
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
        # Called by torch.profiler from inside prof.step() or prof.stop(): must not raise.
        try:
            if self.on_trace_ready is not None:
                path = self.on_trace_ready(prof)
            else:
                path = trace_path(self.directory)
                export_trace(prof, path)
        except Exception as e:  # noqa: BLE001
            report_once("trace not written", e)
            note_status("failed", f"trace not written: {type(e).__name__}: {e}")
            return
        if path:
            self.written.append(path)
            note_status("trace", path)

    def _on_optimizer_step(self):
        if self.done or self.manual:
            return
        if self.prof is None:
            note_status("stepped")
            try:
                self._start_profiler()
            except Exception as e:  # noqa: BLE001
                self._fail("profiling not started", e)
            return
        self._advance()

    def step(self):
        """One training step done. Calling it yourself turns the optimizer stepping off."""
        self.manual = True
        self._advance()

    def _advance(self):
        if self.done or self.prof is None:
            return
        try:
            self.prof.step()
        except Exception as e:  # noqa: BLE001
            self._fail("profiling stopped", e)
            return
        self.stepped += 1
        if self.stepped >= self.wait + self.warmup + self.steps:
            self.detach()

    def _fail(self, what, error):
        report_once(what, error)
        note_status("failed", f"{what}: {type(error).__name__}: {error}")
        self.detach()

    def detach(self):
        if self.done:
            return
        self.done = True
        self._stepper.uninstall()
        if self.prof is not None:
            try:
                self.prof.stop()
            except Exception as e:  # noqa: BLE001  (never let profiling break the job's exit)
                report_once("profiler stop failed", e)
        try:
            atexit.unregister(self.detach)
        except Exception:  # noqa: BLE001
            pass


# ---- start-up side (gpuwhy run --profile; _sitecustomize.py calls it) ------------------

_profiler = None


def _on_torch_imported():
    global _profiler
    note_status("torch")
    try:
        _profiler = AutoProfiler(
            os.environ[ENV_DIR],
            steps=int(os.environ.get(ENV_STEPS, DEFAULT_STEPS)),
            wait=int(os.environ.get(ENV_WAIT, DEFAULT_WAIT)),
            warmup=int(os.environ.get(ENV_WARMUP, DEFAULT_WARMUP)),
            start_now=False).attach()
    except Exception as e:  # noqa: BLE001  (the job runs on, unprofiled)
        report_once("profiling not started", e)
        note_status("failed", f"profiling not started: {type(e).__name__}: {e}")


class _TorchImportFinder:
    """On sys.meta_path until `import torch`: lets the other finders find torch, and runs
    _on_torch_imported once torch's module has executed."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        try:
            sys.meta_path.remove(self)
        except ValueError:
            pass
        try:
            import importlib.util

            spec = importlib.util.find_spec("torch")
            if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
                return spec
            loader = spec.loader
            exec_module = loader.exec_module
        except Exception as e:  # noqa: BLE001  (the other finders import torch as usual)
            report_once("profiling not started", e)
            return None

        def exec_then_hook(module):
            exec_module(module)  # torch's own errors are the job's
            try:
                _on_torch_imported()
            except Exception as e:  # noqa: BLE001
                report_once("profiling not started", e)

        loader.exec_module = exec_then_hook
        return spec


def install_from_environment():
    """Waits for `import torch` when GPUWHY_PROFILE_DIR is set. Never raises."""
    try:
        if not os.environ.get(ENV_DIR):
            return
        note_status("loaded", sys.executable)
        if "torch" in sys.modules:
            _on_torch_imported()
        else:
            sys.meta_path.insert(0, _TorchImportFinder())
    except Exception as e:  # noqa: BLE001
        report_once("profiling not started", e)
