"""`gpuwhy run --profile`'s start-up hook, written as sitecustomize.py beside
_gpuwhy_autoprofile.py (this package's _autoprofile.py) in a private folder that gpuwhy puts
first on the job's PYTHONPATH. Not imported by the package.

Every Python the job starts imports it, Python 2 included: so it is written in the language
both share (no f-strings, no keyword-only arguments) and does its Python 3 work only on
Python 3, where a Python 2 child would otherwise print "'import sitecustomize' failed". It
then imports the sitecustomize it shadows (if any), as Python would have without gpuwhy.
"""

import os
import sys


def _gpuwhy_note_python2():
    # What gpuwhy run says when no trace comes (cli/profile_hook.cc reads it).
    directory = os.environ.get("GPUWHY_PROFILE_STATUS")
    if not directory:
        return
    try:
        fd = os.open(os.path.join(directory, str(os.getpid())),
                     os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, ("python2 %s\n" % sys.executable).encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except Exception:  # noqa: BLE001
        pass


def _gpuwhy_start_profiling(here):
    if sys.version_info[0] < 3:
        _gpuwhy_note_python2()
        return
    try:
        import importlib.util

        path = os.path.join(here, "_gpuwhy_autoprofile.py")
        spec = importlib.util.spec_from_file_location("_gpuwhy_autoprofile", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules["_gpuwhy_autoprofile"] = module
        spec.loader.exec_module(module)
        module.install_from_environment()
    except Exception as e:  # noqa: BLE001  (the job runs on, unprofiled)
        sys.stderr.write("gpuwhy: profiling not started: %s: %s\n" % (type(e).__name__, e))


def _gpuwhy_chain_shadowed(here):
    ours = sys.modules.pop("sitecustomize", None)
    saved = list(sys.path)
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    try:
        try:
            import sitecustomize  # noqa: F401  (the next one on the path, if any)
        except ImportError as e:
            # Python 3 names the missing module; Python 2 only says it.
            missing = getattr(e, "name", None) == "sitecustomize" or \
                str(e) == "No module named sitecustomize"
            if not missing:
                raise
            if ours is not None:
                sys.modules["sitecustomize"] = ours
    finally:
        sys.path[:] = saved


def _gpuwhy_main():
    here = os.path.dirname(os.path.abspath(__file__))
    _gpuwhy_start_profiling(here)
    _gpuwhy_chain_shadowed(here)


if __name__ == "sitecustomize":
    _gpuwhy_main()
