#!/usr/bin/env python3
"""gpuwhy's FLOPs against PyTorch's own counter.

Runs a small model (linear layers, batched matmuls, a convolution; forward, backward, optimizer)
under real PyTorch's profiler with record_shapes=True and with_flops=True, and writes the ops
it recorded -- names, times, input dims, input types, and PyTorch's `flops` -- as a Kineto
trace (Debian's CPU build exports the legacy form, without the args). Then checks:

  1. with the `flops` args removed, gpuwhy's FLOPs from shapes equal PyTorch's flops of the same
     GEMM ops (mm, addmm, bmm, baddbmm) within 1%;
  2. with them, gpuwhy reads PyTorch's numbers (flops.recorded_pct = 100) and counts each op
     once (the GEMMs plus conv2d, not conv2d's convolution child);
  Each iteration is a ProfilerStep; gpuwhy counts over the steady-state steps (warm-up left
  out), so PyTorch's numbers are summed over the steps gpuwhy kept, and each kept step's
  flops.total_tflop is checked against PyTorch's ops in that step.
  3. without them but with the `Concrete Inputs` PyTorch 2.x records (stride, padding,
     dilation, groups, output_mask; 1.13 records none, so they are written from the model's
     known arguments), gpuwhy's convolution FLOPs from shapes equal PyTorch's conv2d flops within
     1%, and each convolution_backward counts one forward per gradient it computes (the
     first layer's input needs none: 1x; the second layer's: 2x) -- PyTorch counts no backward.

Usage: flops_check.py --gpuwhy PATH [--python-with-torch PATH]
Exits 77 (CTest's skip code) when torch cannot be imported, 1 on any mismatch.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

GEMMS = {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm"}

# The model's convolutions by weight shape: their arguments as PyTorch 2.x's Concrete Inputs
# write them, and how many gradients (input, weight) their backward computes.
CONVS = {
    (8, 3, 3, 3): {"stride": [2, 2], "padding": [1, 1], "dilation": [1, 1], "groups": 1,
                   "mask": [False, True, True], "gradients": 1},
    (16, 4, 3, 3): {"stride": [1, 1], "padding": [2, 2], "dilation": [2, 2], "groups": 2,
                    "mask": [True, True, True], "gradients": 2},
}


def concrete_inputs(op):
    if op["name"] == "aten::conv2d":
        c = CONVS[tuple(op["dims"][1])]
        return ["", "", "", str(c["stride"]), str(c["padding"]), str(c["dilation"]),
                str(c["groups"])]
    if op["name"] == "aten::convolution_backward":
        weight = op["dims"][2]
        c = CONVS[tuple(weight)]
        return ["", "", "", f"[{weight[0]}]", str(c["stride"]), str(c["padding"]),
                str(c["dilation"]), "False", "[0, 0]", str(c["groups"]), str(c["mask"])]
    return None

PROFILE = r"""
import json, sys, torch, torch.nn as nn
from torch.profiler import profile, ProfilerActivity
torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, stride=2), nn.ReLU(),
                      nn.Conv2d(8, 16, 3, padding=2, dilation=2, groups=2), nn.ReLU(),
                      nn.Flatten(), nn.Linear(16 * 16 * 16, 96), nn.ReLU(), nn.Linear(96, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(6, 3, 32, 32)
a, b = torch.randn(4, 5, 7), torch.randn(4, 7, 3)
with profile(activities=[ProfilerActivity.CPU], record_shapes=True, with_flops=True) as p:
    for i in range(4):
        # 1.13 renames a "ProfilerStep#N" record to "ProfilerStep*": trace_of names it back.
        with torch.profiler.record_function(f"iteration#{i + 1}"):
            loss = model(x).sum()
            loss.backward()
            opt.step()
            opt.zero_grad()
            torch.baddbmm(torch.zeros(4, 5, 3), a, b)
            torch.bmm(a, b)
            torch.matmul(torch.randn(33, 17), torch.randn(17, 9))
ops = []
for e in p.events():
    ops.append({"name": e.name, "start_us": e.time_range.start, "end_us": e.time_range.end,
                "tid": e.thread, "dims": e.input_shapes, "flops": e.flops or 0})
json.dump(ops, sys.stdout)
"""


def trace_of(ops, with_flops, with_concrete=False):
    events = []
    for op in ops:
        args = {"Input Dims": op["dims"], "Input type": ["float"] * len(op["dims"])}
        if with_flops and op["flops"]:
            args["flops"] = op["flops"]
        if with_concrete and concrete_inputs(op) is not None:
            args["Concrete Inputs"] = concrete_inputs(op)
        name = op["name"].replace("iteration#", "ProfilerStep#")
        events.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1,
                       "tid": op["tid"] + 1, "ts": op["start_us"],
                       "dur": max(op["end_us"] - op["start_us"], 0), "args": args})
    return {"schemaVersion": 1, "traceEvents": events}


def gpuwhy_flops(gpuwhy, trace, folder, name):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        json.dump(trace, f)
    run = subprocess.run([gpuwhy, "analyze", path, "--format", "json"], capture_output=True,
                         text=True)
    if run.returncode not in (0, 1):
        raise RuntimeError(f"gpuwhy exited {run.returncode}: {run.stderr.strip()}")
    metrics = json.loads(run.stdout)["ranks"][0]["metrics"]
    rank = {m["id"]: m["value"] for m in metrics
            if m["id"].startswith("flops.") and all(v is None for v in m["scope"].values())}
    steps = {m["scope"]["step"]: m["value"] * 1e12 for m in metrics
             if m["id"] == "flops.total_tflop" and m["scope"]["step"] is not None}
    return rank, steps


def step_of(op, spans):
    for number, (start, end) in spans.items():
        if start <= op["start_us"] < end:
            return number
    return None


def by_step(ops, spans, flops_of):
    out = {}
    for op in ops:
        number = step_of(op, spans)
        if number is not None:
            out[number] = out.get(number, 0) + flops_of(op)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gpuwhy", required=True)
    parser.add_argument("--python-with-torch",
                        help="interpreter that imports torch (default: this one, else "
                             "/usr/bin/python3, as python/CMakeLists.txt picks)")
    args = parser.parse_args()
    candidates = [args.python_with_torch] if args.python_with_torch else [sys.executable,
                                                                          "/usr/bin/python3"]
    torch_python = next((c for c in candidates if os.path.exists(c) and subprocess.run(
        [c, "-c", "import torch"], capture_output=True).returncode == 0), None)
    if torch_python is None:
        print(f"skip: none of {candidates} imports torch (apt-get install python3-torch)")
        return 77
    args.python_with_torch = torch_python
    run = subprocess.run([args.python_with_torch, "-c", PROFILE], capture_output=True, text=True)
    if run.returncode != 0:
        print("FAIL: the PyTorch run failed:", run.stderr.strip()[-2000:])
        return 1
    ops = json.loads(run.stdout)
    failures = []
    with tempfile.TemporaryDirectory() as folder:
        shapes, _ = gpuwhy_flops(args.gpuwhy, trace_of(ops, False), folder, "shapes.json")
        recorded, _ = gpuwhy_flops(args.gpuwhy, trace_of(ops, True), folder, "recorded.json")
        concrete, concrete_steps = gpuwhy_flops(args.gpuwhy, trace_of(ops, False, True), folder,
                                                "concrete.json")
    spans = {int(op["name"].split("#")[1]): (op["start_us"], op["end_us"]) for op in ops
             if op["name"].startswith("iteration#")}
    kept = {n: spans[n] for n in concrete_steps if n in spans}
    print(f"steps: {sorted(spans)}, kept by gpuwhy (steady state): {sorted(kept)}")
    if not kept:
        failures.append("gpuwhy reported no per-step FLOPs")
    kept_ops = [op for op in ops if step_of(op, kept) is not None]
    gemm_flops = sum(op["flops"] for op in kept_ops if op["name"] in GEMMS)
    # conv2d carries PyTorch's count; its children do not.
    conv_flops = sum(op["flops"] for op in kept_ops if op["name"] == "aten::conv2d")
    counted = gemm_flops + conv_flops
    # Backward: one forward per gradient, the forward's count from PyTorch's own conv2d number.
    forward_of = {tuple(op["dims"][1]): op["flops"] for op in ops if op["name"] == "aten::conv2d"}

    def concrete_flops(op):
        if op["name"] in GEMMS or op["name"] == "aten::conv2d":
            return op["flops"]
        if op["name"] == "aten::convolution_backward":
            weight = tuple(op["dims"][2])
            return CONVS[weight]["gradients"] * forward_of[weight]
        return 0

    backward_flops = sum(concrete_flops(op) for op in kept_ops
                         if op["name"] == "aten::convolution_backward")
    if gemm_flops <= 0:
        failures.append("PyTorch recorded no GEMM flops: the check would prove nothing")
    for number, want in sorted(by_step(ops, kept, concrete_flops).items()):
        got = concrete_steps.get(number, 0)
        print(f"  step {number}: gpuwhy {got:.0f} FLOP, expected {want}")
        if abs(got - want) > 0.01 * want:
            failures.append(f"step {number}: FLOPs {got:.0f} differ from {want} by >1%")
    got = shapes.get("flops.total_tflop", 0) * 1e12
    print(f"from shapes: gpuwhy {got:.0f} FLOP, PyTorch {gemm_flops} FLOP over "
          f"{sum(op['name'] in GEMMS for op in kept_ops)} GEMM ops in the kept steps")
    if abs(got - gemm_flops) > 0.01 * gemm_flops:
        failures.append(f"FLOPs from shapes {got:.0f} differ from PyTorch's {gemm_flops} by >1%")
    got = recorded.get("flops.total_tflop", 0) * 1e12
    print(f"recorded: gpuwhy {got:.0f} FLOP, PyTorch {counted} FLOP "
          f"(recorded_pct {recorded.get('flops.recorded_pct')})")
    if abs(got - counted) > 1e-6 * counted or recorded.get("flops.recorded_pct") != 100:
        failures.append(f"recorded FLOPs {got:.0f} are not PyTorch's {counted}")
    expected = gemm_flops + conv_flops + backward_flops
    got = concrete.get("flops.total_tflop", 0) * 1e12
    print(f"with Concrete Inputs: gpuwhy {got:.0f} FLOP, expected {expected} (GEMMs {gemm_flops} + "
          f"PyTorch's conv2d {conv_flops} + backward {backward_flops})")
    if conv_flops <= 0 or backward_flops <= 0:
        failures.append("PyTorch recorded no conv2d flops or no convolution_backward")
    if abs(got - expected) > 0.01 * expected:
        failures.append(f"FLOPs with Concrete Inputs {got:.0f} differ from {expected} by >1%")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
