"""The optimizer stepping of gpuwhy._autoprofile on a stand-in torch.optim.optimizer module:
both paths (step post-hooks of PyTorch 2.x, the wrapper for PyTorch without them), one count
per iteration with two optimizers, and everything put back on uninstall. Needs no torch."""

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
            for hook in list(hooks.values()):
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

        return base, SGD

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
