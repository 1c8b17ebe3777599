#!/usr/bin/env python3
"""cmake --install into a temporary prefix gives a working gpuwhy: the binary runs, gpuwhy.1 is
a man page with every command, the completion scripts pass their shell's syntax check (bash -n,
zsh -n and fish -n where installed) and the installed Python package finds the installed
binary. Also: the image name in deploy/IMAGE is the one the DaemonSet runs, tagged with the
project version.

    install_check.py --build BUILD_DIR --source SOURCE_DIR --version X.Y.Z"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile


def check(condition, what):
    if not condition:
        print(f"install_check: FAIL: {what}", file=sys.stderr)
        sys.exit(1)
    print(f"ok: {what}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", required=True)
    p.add_argument("--source", required=True)
    p.add_argument("--version", required=True)
    a = p.parse_args()

    with open(os.path.join(a.source, "deploy", "IMAGE")) as f:
        image = f.read().strip()
    check(image.endswith(":" + a.version), f"deploy/IMAGE {image} is tagged {a.version}")
    with open(os.path.join(a.source, "deploy", "kubernetes", "daemonset.yaml")) as f:
        images = re.findall(r"image:\s*(\S+)", f.read())
    check(images == [image], f"daemonset.yaml runs {images}, deploy/IMAGE says {image}")

    with tempfile.TemporaryDirectory(prefix="gpuwhy-install-") as prefix:
        done = subprocess.run(["cmake", "--install", a.build, "--prefix", prefix],
                              capture_output=True, text=True)
        check(done.returncode == 0, f"cmake --install: {done.stderr.strip()[-500:]}")
        binary = os.path.join(prefix, "bin", "gpuwhy")
        out = subprocess.run([binary, "version"], capture_output=True, text=True)
        check(out.returncode == 0 and out.stdout.strip() == f"gpuwhy {a.version}",
              f"installed gpuwhy version says {out.stdout.strip()!r}")
        out = subprocess.run([binary, "-V"], capture_output=True, text=True)
        check(out.returncode == 0 and a.version in out.stdout, "gpuwhy -V")

        man = os.path.join(prefix, "share", "man", "man1", "gpuwhy.1")
        check(os.path.isfile(man), "share/man/man1/gpuwhy.1 installed")
        with open(man) as f:
            text = f.read()
        check(text.startswith(".TH GPUWHY 1"), "gpuwhy.1 starts with .TH")
        for command in ("analyze", "run", "diff", "doctor", "serve", "completion"):
            check(f".SS {command}" in text, f"gpuwhy.1 documents {command}")
        if shutil.which("man"):
            rendered = subprocess.run(["man", "-l", "-P", "cat", man], capture_output=True,
                                      text=True, env={**os.environ, "MANWIDTH": "100"})
            check(rendered.returncode == 0 and "analyze" in rendered.stdout, "man -l renders it")

        completions = {
            "bash": os.path.join(prefix, "share", "bash-completion", "completions", "gpuwhy"),
            "zsh": os.path.join(prefix, "share", "zsh", "vendor-completions", "_gpuwhy"),
            "fish": os.path.join(prefix, "share", "fish", "vendor_completions.d", "gpuwhy.fish"),
        }
        for shell, path in completions.items():
            check(os.path.isfile(path), f"{shell} completion installed")
            flag = "-l format" if shell == "fish" else "--format"
            with open(path) as f:
                check(flag in f.read(), f"{shell} completion lists analyze's flags")
            if shutil.which(shell):
                syntax = subprocess.run([shell, "-n", path], capture_output=True, text=True)
                check(syntax.returncode == 0, f"{shell} -n {path}: {syntax.stderr.strip()}")
            else:
                print(f"skip: {shell} -n ({shell} is not installed)")
        if shutil.which("bash"):
            # Loaded in bash, it completes a subcommand and a flag.
            script = (f"source {completions['bash']}; COMP_WORDS=(gpuwhy ana); COMP_CWORD=1; "
                      "_gpuwhy; echo ${COMPREPLY[@]}; COMP_WORDS=(gpuwhy analyze --for); "
                      "COMP_CWORD=2; _gpuwhy; echo ${COMPREPLY[@]}")
            done = subprocess.run(["bash", "-c", script], capture_output=True, text=True)
            check(done.stdout.split() == ["analyze", "--format"],
                  f"bash completion completes: {done.stdout.split()}")

        for sub in ("README.md", "findings.md"):
            check(os.path.isfile(os.path.join(prefix, "share", "doc", "gpuwhy", sub)),
                  f"share/doc/gpuwhy/{sub}")
        check(os.path.isfile(os.path.join(prefix, "share", "gpuwhy", "deploy", "kubernetes",
                                          "daemonset.yaml")), "deploy files installed")
        package = os.path.join(prefix, "share", "gpuwhy", "python")
        found = subprocess.run(
            [sys.executable, "-c", "import gpuwhy; print(gpuwhy.find_binary())"],
            capture_output=True, text=True,
            env={"PATH": os.path.join(prefix, "bin"), "PYTHONPATH": package}, cwd=prefix)
        check(found.returncode == 0 and found.stdout.strip() == binary,
              f"the installed package finds the installed binary: {found.stdout.strip()}"
              f"{found.stderr.strip()[-300:]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
