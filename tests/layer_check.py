#!/usr/bin/env python3
"""Fails on any include or link edge that goes up (or sideways) the layer order of ARCHITECTURE.md.

ARCHITECTURE.md's "Layers" table lists the folders of src/ lowest layer first. Code in a folder
may include headers of, and its CMake targets may link, its own folder and folders of lower
layers only. Tests (files named *_test.cc or *_test_util.h, and gpuwhy_test targets) may also use
folders of their own layer, so a format's test can build its input with src/synth.

A sub-folder of a listed folder that is not listed itself (src/diagnose/trace_rules, one kind of
rule) is a component of its folder: it sits in its folder's layer and may include its own files,
its folder's shared core and lower layers. Everything outside it (its siblings, the core, higher
layers) may include only its interface, the header named after it (trace_rules/trace_rules.h),
and its *_test_util.h headers (test fixtures such as collect/fake_nvml's). What two kinds share
lives in the core (diagnose/shared_params.h), never in one kind reached into by another.

    tests/layer_check.py [REPO_ROOT]     prints each violation as FILE:LINE: edge; exit 1 if any
    tests/layer_check.py --self-test     checks the checker on a small made-up tree
"""
import pathlib
import re
import sys


def read_layers(root):
    text = (root / "ARCHITECTURE.md").read_text(encoding="utf-8")
    section = text.split("## Layers", 1)
    if len(section) != 2:
        sys.exit("layer_check: ARCHITECTURE.md has no '## Layers' section")
    layers = {}
    for line in section[1].splitlines():
        m = re.match(r"\|\s*(\d+)\s*\|([^|]+)\|", line)
        if not m:
            if layers and line.startswith("#"):
                break
            continue
        for folder in m.group(2).split(","):
            folder = folder.strip().strip("`").rstrip("/")
            if folder.startswith("src/"):
                folder = folder[len("src/"):]
            if folder:
                layers[folder] = int(m.group(1))
    if not layers:
        sys.exit("layer_check: the '## Layers' table of ARCHITECTURE.md lists no folder")
    return layers


def folder_of(path, layers):
    """The longest listed folder that |path| (relative to src/) sits in, or None."""
    parts = pathlib.PurePosixPath(path).parts
    for n in range(len(parts) - 1, 0, -1):
        candidate = "/".join(parts[:n])
        if candidate in layers:
            return candidate
    return None


def component_of(path, layers):
    """The sub-folder of a listed folder that |path| (relative to src/) sits in when that
    sub-folder is not itself listed (src/diagnose/trace_rules: one kind of rule), or None."""
    folder = folder_of(path, layers)
    if folder is None:
        return None
    rest = pathlib.PurePosixPath(path).parts[len(pathlib.PurePosixPath(folder).parts):]
    return f"{folder}/{rest[0]}" if len(rest) >= 2 else None


def is_interface(header, component):
    """A sub-folder shows the rest of the tree one header named after it (trace_rules/trace_rules.h)
    and its test fixtures."""
    name = pathlib.PurePosixPath(component).name
    return header == f"{component}/{name}.h" or header.endswith("_test_util.h")


# Known edges into a component's internals, each with the fix it waits for. Printed on every run,
# never failing; a new edge fails. Remove a line when its edge is gone.
KNOWN_INTERNAL_INCLUDES = {
    ("src/pipeline/pipeline.cc", "diagnose/summary_rules/profile_alone_rules.h"):
        "move the header into the core as diagnose/diagnose_profile_alone.h, beside "
        "diagnose_summary.h (waits for issue 39's input-kind registry, which rewrites pipeline.cc)",
}


def is_test(name):
    return name.endswith("_test.cc") or name.endswith("_test_util.h")


def allowed(src_folder, dst_folder, layers, test):
    if dst_folder == src_folder:
        return True
    if layers[dst_folder] < layers[src_folder]:
        return True
    return test and layers[dst_folder] == layers[src_folder]


def check_includes(root, layers, problems):
    src = root / "src"
    include = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    for path in sorted(src.rglob("*")):
        if path.suffix not in (".cc", ".h"):
            continue
        rel = path.relative_to(src).as_posix()
        folder = folder_of(rel, layers)
        if folder is None:
            problems.append(f"src/{rel}: its folder is not in ARCHITECTURE.md's layer table")
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            m = include.match(line)
            if not m:
                continue
            target = folder_of(m.group(1), layers)
            if target is None:
                continue  # a header next to the file, or not one of ours
            if not allowed(folder, target, layers, is_test(path.name)):
                problems.append(f"src/{rel}:{number}: includes {m.group(1)} "
                                f"({folder}, layer {layers[folder]} -> {target}, layer {layers[target]})")
                continue
            component = component_of(m.group(1), layers)
            if component and component != component_of(rel, layers) and \
                    not is_interface(m.group(1), component):
                known = KNOWN_INTERNAL_INCLUDES.get((f"src/{rel}", m.group(1)))
                if known:
                    print(f"src/{rel}:{number}: known: includes {m.group(1)}; to do: {known}")
                    continue
                problems.append(f"src/{rel}:{number}: includes {m.group(1)}, an internal header "
                                f"of src/{component} (outside it only "
                                f"{component}/{pathlib.PurePosixPath(component).name}.h)")


def check_links(root, layers, problems):
    src = root / "src"
    target_folder = {}
    calls = []
    call = re.compile(r"(gpuwhy_library|gpuwhy_test)\(\s*(\w+)(.*?)\)", re.S)
    for cmake in sorted(src.rglob("CMakeLists.txt")):
        rel = cmake.parent.relative_to(src).as_posix()
        folder = folder_of(rel + "/x", layers)
        text = cmake.read_text(encoding="utf-8")
        for m in call.finditer(text):
            kind, name, body = m.groups()
            target_folder[name] = folder
            deps = body.split("DEPS", 1)[1].split() if "DEPS" in body else []
            calls.append((cmake, text[:m.start()].count("\n") + 1, kind, name, folder, deps))
    for cmake, line, kind, name, folder, deps in calls:
        if folder is None:
            problems.append(f"{cmake.relative_to(root)}:{line}: its folder is not in ARCHITECTURE.md's layer table")
            continue
        for dep in deps:
            dst = target_folder.get(dep)
            if dst is None:
                continue  # a system library
            if not allowed(folder, dst, layers, kind == "gpuwhy_test"):
                problems.append(f"{cmake.relative_to(root)}:{line}: {name} links {dep} "
                                f"({folder}, layer {layers[folder]} -> {dst}, layer {layers[dst]})")


def find_problems(root):
    layers = read_layers(root)
    problems = []
    check_includes(root, layers, problems)
    check_links(root, layers, problems)
    return layers, problems


# A made-up tree: each file's includes, and the edges the check must name (by file and header).
SELF_TEST_TREE = {
    "src/base/base.h": [],
    "src/diagnose/core.h": ["base/base.h"],
    "src/diagnose/core.cc": ["diagnose/kind_a/kind_a.h", "diagnose/kind_b/helper.h"],
    "src/diagnose/kind_a/kind_a.h": ["diagnose/core.h"],
    "src/diagnose/kind_a/helper.h": [],
    "src/diagnose/kind_a/a.cc": ["diagnose/kind_a/helper.h", "diagnose/core.h",
                                 "diagnose/kind_b/kind_b.h", "pipeline/p.h"],
    "src/diagnose/kind_a/a_test.cc": ["diagnose/kind_b/fixture_test_util.h"],
    "src/diagnose/kind_b/kind_b.h": [],
    "src/diagnose/kind_b/helper.h": [],
    "src/diagnose/kind_b/fixture_test_util.h": [],
    "src/diagnose/kind_b/b.cc": ["diagnose/kind_a/helper.h"],
    "src/pipeline/p.h": [],
    "src/pipeline/p.cc": ["diagnose/kind_a/kind_a.h", "diagnose/kind_a/helper.h"],
}
SELF_TEST_EXPECTED = [
    ("src/diagnose/core.cc", "diagnose/kind_b/helper.h"),  # the core into a kind's internals
    ("src/diagnose/kind_a/a.cc", "pipeline/p.h"),  # a kind upward, to a higher layer
    ("src/diagnose/kind_b/b.cc", "diagnose/kind_a/helper.h"),  # into a sibling's internals
    ("src/pipeline/p.cc", "diagnose/kind_a/helper.h"),  # a higher layer into the internals
]


def self_test():
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        (root / "ARCHITECTURE.md").write_text(
            "## Layers\n\n| Layer | Folders |\n|---|---|\n| 1 | `src/base` |\n"
            "| 2 | `src/diagnose` |\n| 3 | `src/pipeline` |\n\n## Next\n")
        for name, includes in SELF_TEST_TREE.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(f'#include "{h}"\n' for h in includes))
        _, problems = find_problems(root)
    found = sorted((p.split(":")[0], p.split("includes ")[1].split()[0].rstrip(",")) for p in problems)
    if found != sorted(SELF_TEST_EXPECTED):
        print("layer_check --self-test: expected", sorted(SELF_TEST_EXPECTED), "got", found)
        print("\n".join(problems))
        return 1
    print(f"layer_check --self-test: the {len(found)} planted edges found, no other")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent).resolve()
    layers, problems = find_problems(root)
    for problem in problems:
        print(problem)
    print(f"layer_check: {len(layers)} folders in {max(layers.values())} layers, "
          f"{len(problems)} edge(s) against the order")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
