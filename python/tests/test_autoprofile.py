"""gpuwhy._autoprofile on a stand-in torch (optimizer module and profiler): both stepping
paths (step post-hooks of PyTorch 2.x, the wrapper for PyTorch without them), one count per
iteration with two optimizers, everything put back on uninstall; the window (wait, warmup,
steps, then detached), an early exit, starting at the first step (gpuwhy run), gpuwhy.profile
as a decorator and with manual steps. Needs no torch."""

import sys
import types
import unittest

import support  # noqa: F401
from gpuwhy import _autoprofile


def fake_torch(with_hooks):
    """A torch.optim.optimizer with an Optimizer base class and, optionally, the global step
    post-hook registry of PyTorch >= 2.0."""
    module = types.ModuleType("torch.optim.optimizer")
    hooks = {}

    class Handle:
        def __init__(self, key):
            self.key = key

        def remove(self):
            hooks.pop(self.key, None)

    class Optimizer:
        def __init__(self, params=None):
            self.params = params

        def _run_hooks(self):
            # As PyTorch does: over the live dict, so a hook removed while hooks run raises.
            for hook in hooks.values():
                hook(self, (), {})

    if with_hooks:
        def register_optimizer_step_post_hook(hook):
            key = len(hooks) + 1
            hooks[key] = hook
            return Handle(key)

        module.register_optimizer_step_post_hook = register_optimizer_step_post_hook
    module.Optimizer = Optimizer
    torch = types.ModuleType("torch")
    optim = types.ModuleType("torch.optim")
    torch.optim, optim.optimizer = optim, module
    return {"torch": torch, "torch.optim": optim, "torch.optim.optimizer": module}, Optimizer


def fake_profiler(modules, log):
    """torch.profiler's profile/schedule/ProfilerActivity as far as AutoProfiler uses them:
    the schedule's phases are logged, on_trace_ready is called when the active window ends
    (or at stop() inside it), as torch.profiler does."""
    profiler = types.ModuleType("torch.profiler")

    class ProfilerActivity:
        CPU, CUDA = "cpu", "cuda"

    def schedule(wait, warmup, active, repeat):
        log.append(("schedule", wait, warmup, active, repeat))
        return lambda step: ("wait" if step < wait else "warmup" if step < wait + warmup
                             else "active" if step < wait + warmup + active else "done")

    class profile:  # noqa: N801
        def __init__(self, activities, schedule, on_trace_ready, **kwargs):
            self.schedule, self.on_trace_ready, self.kwargs = schedule, on_trace_ready, kwargs
            self.step_num = 0

        def start(self):
            log.append("start")

        def step(self):
            before = self.schedule(self.step_num)
            self.step_num += 1
            if before == "active" and self.schedule(self.step_num) != "active":
                self.on_trace_ready(self)

        def stop(self):
            log.append("stop")
            if self.schedule(self.step_num) == "active":
                self.on_trace_ready(self)

        def export_chrome_trace(self, path):
            log.append(("export", self.step_num))
            with open(path, "w") as f:
                f.write("{}")

    profiler.profile, profiler.schedule = profile, schedule
    profiler.ProfilerActivity = ProfilerActivity
    modules["torch"].profiler = profiler
    modules["torch"].cuda = types.SimpleNamespace(is_available=lambda: False)
    autograd = types.ModuleType("torch.autograd")
    autograd_profiler = types.ModuleType("torch.autograd.profiler")
    autograd_profiler.kineto_available = lambda: True
    autograd.profiler = autograd_profiler
    modules.update({"torch.profiler": profiler, "torch.autograd": autograd,
                    "torch.autograd.profiler": autograd_profiler})


class StepperTest(unittest.TestCase):
    def install(self, with_hooks):
        modules, base = fake_torch(with_hooks)
        saved = {k: sys.modules.get(k) for k in modules}
        sys.modules.update(modules)
        self.addCleanup(lambda: [sys.modules.pop(k) if v is None else
                                 sys.modules.__setitem__(k, v) for k, v in saved.items()])

        class SGD(base):
            def step(self):
                self.stepped = getattr(self, "stepped", 0) + 1
                if with_hooks:
                    self._run_hooks()
                return "sgd result"

        self.modules = modules
        return base, SGD

    def profiled(self, with_hooks=False):
        base, SGD = self.install(with_hooks=with_hooks)
        log = []
        fake_profiler(self.modules, log)
        added = {k: v for k, v in self.modules.items() if k not in sys.modules}
        sys.modules.update(added)
        self.addCleanup(lambda: [sys.modules.pop(k, None) for k in added])
        import tempfile

        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        return SGD, log, tmp.name

    def test_the_window_is_wait_warmup_steps_then_detached(self):
        SGD, log, tmp = self.profiled()
        auto = _autoprofile.AutoProfiler(tmp, steps=3, wait=2, warmup=1).attach()
        opt = SGD()
        for _ in range(12):
            opt.step()
        self.assertEqual(log[0], ("schedule", 2, 1, 3, 1))
        self.assertEqual([e for e in log if e[0] == "export"], [("export", 6)])
        self.assertTrue(auto.done)
        self.assertEqual(auto.stepped, 6)  # then detached: later steps are not counted
        self.assertEqual(auto.step_mode, "wrapper")
        self.assertEqual(len(auto.written), 1)

    def test_an_early_exit_writes_the_window_so_far(self):
        SGD, log, tmp = self.profiled()
        auto = _autoprofile.AutoProfiler(tmp, steps=3, wait=1, warmup=1).attach()
        opt = SGD()
        for _ in range(3):  # into the active window, then the job ends
            opt.step()
        auto.detach()
        self.assertIn(("export", 3), log)

    def test_start_at_the_first_optimizer_step_for_gpuwhy_run(self):
        SGD, log, tmp = self.profiled()
        _autoprofile.AutoProfiler(tmp, steps=1, wait=0, warmup=0, start_now=False).attach()
        self.assertNotIn("start", log)  # no optimizer has stepped: nothing runs
        opt = SGD()
        opt.step()
        self.assertIn("start", log)
        opt.step()
        self.assertEqual([e for e in log if e[0] == "export"], [("export", 1)])

    def test_profile_as_decorator_and_with_manual_steps(self):
        SGD, log, tmp = self.profiled()
        import gpuwhy

        handler_calls = []

        @gpuwhy.profile(steps=1, wait=0, warmup=0, dir=tmp,
                        on_trace_ready=lambda prof: handler_calls.append(prof) or "t.json")
        def train():
            opt = SGD()
            opt.step()
            opt.step()

        train()
        self.assertEqual(len(handler_calls), 1)
        with gpuwhy.profile(steps=2, wait=0, warmup=0, dir=tmp,
                            on_trace_ready=lambda prof: handler_calls.append(prof)) as p:
            p.step()  # the user steps: the optimizer's steps no longer count
            SGD().step()
            self.assertEqual(p.step_mode, "manual")
            p.step()
        self.assertEqual(len(handler_calls), 2)

    def test_hooks_where_pytorch_has_them(self):
        base, SGD = self.install(with_hooks=True)
        calls = []
        stepper = _autoprofile.OptimizerStepper(lambda: calls.append(1))
        stepper.install()
        self.assertEqual(stepper.mode, "hook")
        a, b = SGD(), SGD()
        a.step()
        b.step()  # a second optimizer in the same iteration: not a second step
        a.step()
        self.assertEqual(len(calls), 2)
        stepper.uninstall()
        a.step()
        self.assertEqual(len(calls), 2)

    def test_wrapper_without_hooks_covers_optimizers_made_before_and_after(self):
        base, SGD = self.install(with_hooks=False)
        early = SGD()
        calls = []
        stepper = _autoprofile.OptimizerStepper(lambda: calls.append(1))
        stepper.install()
        self.assertEqual(stepper.mode, "wrapper")

        class Adam(base):  # defined after install: wrapped by Optimizer.__init__
            def step(self):
                return "adam result"

        self.assertEqual(early.step(), "sgd result")
        self.assertEqual(len(calls), 1)
        late = Adam()
        self.assertEqual(late.step(), "adam result")
        self.assertEqual(len(calls), 1)  # not the leading optimizer
        early.step()
        self.assertEqual(len(calls), 2)
        stepper.uninstall()
        self.assertNotIn("__wrapped__", SGD.step.__dict__)
        self.assertEqual(base.__init__.__qualname__, "fake_torch.<locals>.Optimizer.__init__")
        early.step()
        self.assertEqual(len(calls), 2)

    def test_an_optimizer_that_replaces_the_first_leads(self):
        for with_hooks in (True, False):
            with self.subTest(with_hooks=with_hooks):
                base, SGD = self.install(with_hooks=with_hooks)

                class Adam(base):
                    def step(self):
                        if with_hooks:
                            self._run_hooks()

                calls = []
                stepper = _autoprofile.OptimizerStepper(lambda: calls.append(1))
                stepper.install()
                warmup = SGD()
                for _ in range(3):
                    warmup.step()
                self.assertEqual(len(calls), 3)
                adam = Adam()  # the warm-up is over: SGD never steps again
                for _ in range(5):
                    adam.step()
                # Its first step could be a GAN's second optimizer; from its second it leads.
                self.assertEqual(len(calls), 3 + 4)
                rebuilt = Adam()  # rebuilt at a restart
                for _ in range(3):
                    rebuilt.step()
                self.assertEqual(len(calls), 7 + 2)
                stepper.uninstall()

    def test_a_gan_counts_one_step_per_iteration(self):
        base, SGD = self.install(with_hooks=True)
        calls = []
        stepper = _autoprofile.OptimizerStepper(lambda: calls.append(1))
        stepper.install()
        d, g = SGD(), SGD()
        for _ in range(10):
            d.step()
            g.step()
        self.assertEqual(len(calls), 10)
        stepper.uninstall()

    def test_the_window_ends_inside_a_step_hook_without_raising(self):
        SGD, log, tmp = self.profiled(with_hooks=True)
        auto = _autoprofile.AutoProfiler(tmp, steps=1, wait=0, warmup=0).attach()
        opt = SGD()
        for _ in range(4):
            opt.step()  # detached inside the hook: PyTorch's hook loop must not see a removal
        self.assertTrue(auto.done)
        self.assertEqual(auto.step_mode, "hook")
        self.assertEqual(len(auto.written), 1)

    def test_no_failure_of_profiling_reaches_the_job(self):
        import io
        import os

        SGD, log, tmp = self.profiled()
        stream = io.StringIO()
        saved = sys.stderr
        sys.stderr = stream
        _autoprofile._reported.clear()
        try:
            # A folder that cannot be made (a file is in the way; root can't make it either).
            blocker = os.path.join(tmp, "file")
            open(blocker, "w").close()
            auto = _autoprofile.AutoProfiler(os.path.join(blocker, "traces"), steps=1, wait=0,
                                             warmup=0).attach()
            opt = SGD()
            for _ in range(3):
                self.assertEqual(opt.step(), "sgd result")
            self.assertTrue(auto.done)
            self.assertEqual(auto.written, [])

            # The profiler itself failing at a step, and a handler that raises.
            def broken_handler(prof):
                raise OSError(28, "No space left on device")

            auto = _autoprofile.AutoProfiler(tmp, steps=1, wait=0, warmup=0,
                                             on_trace_ready=broken_handler).attach()
            for _ in range(3):
                self.assertEqual(opt.step(), "sgd result")
            self.assertEqual(auto.written, [])
            auto = _autoprofile.AutoProfiler(tmp, steps=2, wait=0, warmup=0).attach()
            auto.prof.step = lambda: (_ for _ in ()).throw(RuntimeError("profiler broke"))
            for _ in range(3):
                self.assertEqual(opt.step(), "sgd result")
            self.assertTrue(auto.done)
        finally:
            sys.stderr = saved
        text = stream.getvalue()
        # Each kind of failure said once, with the job told it goes on.
        self.assertEqual(text.count("profiling not started"), 1, text)
        self.assertEqual(text.count("trace not written"), 1, text)
        self.assertEqual(text.count("profiling stopped"), 1, text)
        self.assertIn("the job goes on", text)

    def test_a_cut_short_export_leaves_no_trace_behind(self):
        import os

        SGD, log, tmp = self.profiled()

        class Cut:
            def export_chrome_trace(self, path):
                with open(path, "w") as f:
                    f.write('{"traceEvents": [{"name": "a"')  # the disk filled up here

        path = os.path.join(tmp, "gone", "rank0.t.pt.trace.json")  # the folder vanished
        with self.assertRaises(OSError):
            _autoprofile.export_trace(Cut(), path)
        self.assertEqual(os.listdir(os.path.dirname(path)), [])

    def test_no_hooks_forced_by_the_environment(self):
        self.install(with_hooks=True)
        import os

        os.environ[_autoprofile.ENV_NO_HOOKS] = "1"
        try:
            stepper = _autoprofile.OptimizerStepper(lambda: None)
            stepper.install()
            self.assertEqual(stepper.mode, "wrapper")
            stepper.uninstall()
        finally:
            del os.environ[_autoprofile.ENV_NO_HOOKS]

    def test_trace_names_carry_the_rank_host_and_pid(self):
        import os

        saved = {k: os.environ.pop(k, None) for k in ("RANK", "LOCAL_RANK")}
        try:
            self.assertRegex(os.path.basename(_autoprofile.trace_path("/d")),
                             rf"^[^.]+_{os.getpid()}\.pt\.trace\.json$")
            os.environ["LOCAL_RANK"] = "5"
            self.assertTrue(os.path.basename(_autoprofile.trace_path("/d")).startswith("rank5."))
            os.environ["RANK"] = "12"
            self.assertTrue(os.path.basename(_autoprofile.trace_path("/d")).startswith("rank12."))
        finally:
            for k, v in saved.items():
                os.environ.pop(k, None)
                if v is not None:
                    os.environ[k] = v


if __name__ == "__main__":
    unittest.main()
