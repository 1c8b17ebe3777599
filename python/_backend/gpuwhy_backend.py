"""The package's build backend (PEP 517, PEP 660): the standard library only.

Why our own: `pip install ./python` must work where no package index is reachable (an
air-gapped cluster, a build farm). pip builds every project in an isolated environment and
installs the backend's `requires` there first; setuptools (the backend before) had to come from
an index, so the documented command failed offline. This backend has no requirements, so pip
has nothing to fetch; and it writes only into the folder pip hands it, never into the source
tree (setuptools left build/ and gpuwhy.egg-info/ there, which ended up in the .deb). The
package is a handful of pure-Python files: a wheel is a zip with three metadata files, less
code than configuring a general backend to be offline.

GPUWHY_WHEEL_BINARY=/path/to/gpuwhy bundles that binary as gpuwhy/bin/gpuwhy, tags the wheel
for this platform and adds the `gpuwhy` command (gpuwhy._binary:main), so that
`pip install gpuwhy-*.whl` gives both the module and the command.
"""

import base64
import hashlib
import io
import os
import re
import stat
import sysconfig
import tarfile
import time
import zipfile

NAME = "gpuwhy"
SUMMARY = ("Why do the GPUs of a training job sit underused? Python front end of the gpuwhy "
           "binary")
REQUIRES_PYTHON = ">=3.8"
LICENSE = "Apache-2.0"
ENV_BINARY = "GPUWHY_WHEEL_BINARY"

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # python/
PACKAGE_DIR = os.path.join(HERE, NAME)
# What an sdist carries besides the package: enough to build the wheel again.
SDIST_FILES = ("pyproject.toml", "README.md", "_backend/gpuwhy_backend.py")


def _version():
    with open(os.path.join(PACKAGE_DIR, "__init__.py"), encoding="utf-8") as f:
        match = re.search(r'^__version__ = "([^"]+)"', f.read(), re.M)
    if not match:
        raise RuntimeError("gpuwhy/__init__.py: no __version__")
    return match.group(1)


def _metadata():
    with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {_version()}\nSummary: {SUMMARY}\n"
            f"License: {LICENSE}\nRequires-Python: {REQUIRES_PYTHON}\nProvides-Extra: torch\n"
            'Requires-Dist: torch; extra == "torch"\n'
            f"Description-Content-Type: text/markdown\n\n{readme}")


def _package_files():
    """(path in the wheel, path on disk) of every file of the package, sorted."""
    out = []
    for root, dirs, files in os.walk(PACKAGE_DIR):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and d != "bin")
        for name in sorted(files):
            if name.endswith((".pyc", ".pyo")):
                continue
            disk = os.path.join(root, name)
            out.append((os.path.relpath(disk, HERE).replace(os.sep, "/"), disk))
    return out


def _zip_time():
    # Reproducible: the same sources give the same wheel (SOURCE_DATE_EPOCH when set).
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))
    return time.gmtime(max(epoch, 315532800))[:6]


class _Wheel:
    def __init__(self, directory, tag, purelib):
        self.dist_info = f"{NAME}-{_version()}.dist-info"
        self.name = f"{NAME}-{_version()}-{tag}.whl"
        self.path = os.path.join(directory, self.name)
        self.tag = tag
        self.purelib = purelib
        self.records = []
        self.zip = zipfile.ZipFile(self.path, "w", zipfile.ZIP_DEFLATED)

    def add(self, arcname, data, executable=False):
        info = zipfile.ZipInfo(arcname, date_time=_zip_time())
        # A regular file's mode: installers set the executable bits only with S_IFREG.
        info.external_attr = (stat.S_IFREG | (0o755 if executable else 0o644)) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
        self.records.append(f"{arcname},sha256={digest.decode()},{len(data)}")

    def finish(self, entry_points=None):
        self.add(f"{self.dist_info}/METADATA", _metadata().encode("utf-8"))
        self.add(f"{self.dist_info}/WHEEL", (
            f"Wheel-Version: 1.0\nGenerator: gpuwhy_backend\nRoot-Is-Purelib: "
            f"{'true' if self.purelib else 'false'}\nTag: {self.tag}\n").encode())
        self.add(f"{self.dist_info}/top_level.txt", f"{NAME}\n".encode())
        if entry_points:
            self.add(f"{self.dist_info}/entry_points.txt", entry_points.encode())
        record = f"{self.dist_info}/RECORD"
        self.records.append(f"{record},,")
        info = zipfile.ZipInfo(record, date_time=_zip_time())
        info.external_attr = (stat.S_IFREG | 0o644) << 16
        self.zip.writestr(info, "\n".join(self.records) + "\n", zipfile.ZIP_DEFLATED)
        self.zip.close()
        return self.name


def _platform_tag():
    return sysconfig.get_platform().replace("-", "_").replace(".", "_")


# ---- PEP 517 -------------------------------------------------------------------------


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    dist_info = os.path.join(metadata_directory, f"{NAME}-{_version()}.dist-info")
    os.makedirs(dist_info, exist_ok=True)
    with open(os.path.join(dist_info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata())
    return os.path.basename(dist_info)


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    binary = os.environ.get(ENV_BINARY, "")
    if binary and not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        raise RuntimeError(f"{ENV_BINARY}={binary}: not an executable file")
    tag = f"py3-none-{_platform_tag()}" if binary else "py3-none-any"
    wheel = _Wheel(wheel_directory, tag, purelib=not binary)
    for arcname, disk in _package_files():
        with open(disk, "rb") as f:
            wheel.add(arcname, f.read())
    entry_points = None
    if binary:
        with open(binary, "rb") as f:
            wheel.add(f"{NAME}/bin/gpuwhy", f.read(), executable=True)
        entry_points = "[console_scripts]\ngpuwhy = gpuwhy._binary:main\n"
    return wheel.finish(entry_points)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # PEP 660: a .pth file that puts this folder on sys.path; the sources stay where they are.
    wheel = _Wheel(wheel_directory, "py3-none-any", purelib=True)
    wheel.add(f"__editable__.{NAME}.pth", (HERE + "\n").encode("utf-8"))
    return wheel.finish()


def build_sdist(sdist_directory, config_settings=None):
    base = f"{NAME}-{_version()}"
    path = os.path.join(sdist_directory, base + ".tar.gz")
    mtime = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))

    def add(tar, arcname, data, mode=0o644):
        info = tarfile.TarInfo(f"{base}/{arcname}")
        info.size, info.mode, info.mtime = len(data), mode, mtime
        tar.addfile(info, io.BytesIO(data))

    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        add(tar, "PKG-INFO", _metadata().encode("utf-8"))
        for name in SDIST_FILES:
            with open(os.path.join(HERE, name), "rb") as f:
                add(tar, name, f.read())
        for arcname, disk in _package_files():
            with open(disk, "rb") as f:
                add(tar, arcname, f.read())
    return os.path.basename(path)
