#!/usr/bin/env python3
"""Convolution FLOPs from Concrete Inputs on a real trace, recomputed here.

The ResNet-18 training trace in ../shared/data/kineto/tracelens (PyTorch 2.x on an MI300, no
with_flops) records `Input Dims` and `Concrete Inputs` for its convolutions. This script reads
the events with Python's json and counts, independently of gpuwhy's code:
  aten::conv2d                2*N*K*(C/groups)*R*S*P*Q, P and Q from stride, padding, dilation
  aten::convolution_backward  the same from grad_output's P, Q, once per gradient in output_mask
  aten::mm / aten::addmm      2*M*K*N
per iteration (by the op's host start, the iterations cut at the optimizer's steps as
docs/metrics/steps.md says), and checks gpuwhy's per-step flops.total_tflop for
each steady-state step it kept, and its total over them, within 1% (none of these ops nests in
another).

Usage: conv_flops_real.py --gpuwhy PATH --data DIR   (DIR: ../shared/data/kineto)
Exits 77 (CTest's skip code) when the trace is absent, 1 on a mismatch.
"""
import argparse
import gzip
import json
import os
import subprocess
import sys

TRACE = "tracelens/mi300__ddp_resnet18_no_pool__train_resnet18.json.gz"


def ints(text):
    return json.loads(text.replace("True", "1").replace("False", "0"))


def op_flops(name, args):
    dims = args.get("Input Dims")
    concrete = args.get("Concrete Inputs")
    if name == "aten::conv2d":
        x, w = dims[0], dims[1]
        stride, padding, dilation = ints(concrete[3]), ints(concrete[4]), ints(concrete[5])
        out = [(x[2 + i] + 2 * padding[i] - dilation[i] * (w[2 + i] - 1) - 1) // stride[i] + 1
               for i in range(2)]
        return 2 * x[0] * w[0] * w[1] * w[2] * w[3] * out[0] * out[1]
    if name == "aten::convolution_backward":
        grad_out, x, w = dims[0], dims[1], dims[2]
        mask = ints(concrete[10])
        return 2 * x[0] * w[0] * w[1] * w[2] * w[3] * grad_out[2] * grad_out[3] * (mask[0] + mask[1])
    if name == "aten::addmm":
        return 2 * dims[1][0] * dims[1][1] * dims[2][1]
    if name == "aten::mm":
        return 2 * dims[0][0] * dims[0][1] * dims[1][1]
    return 0


def iterations(events):
    """The trace has no ProfilerStep: as docs/metrics/steps.md cuts such a capture, step N runs
    from the end of the outermost Optimizer.step N-1 (the trace start for N = 1) to the end of
    optimizer step N; what follows the last one is no step."""
    spans = sorted((e["ts"], e["ts"] + e["dur"]) for e in events
                   if e.get("ph") == "X" and e.get("name", "").startswith("Optimizer.step#"))
    outermost = []
    for start, end in spans:
        if outermost and start < outermost[-1][1]:
            continue  # nested in the one before
        outermost.append((start, end))
    begin = min(e["ts"] for e in events if e.get("ph") == "X")
    steps = []
    for n, (_, end) in enumerate(outermost, start=1):
        steps.append((begin, end, n))
        begin = end
    return steps


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gpuwhy", required=True)
    parser.add_argument("--data", required=True)
    args = parser.parse_args()
    path = os.path.join(args.data, TRACE)
    if not os.path.exists(path):
        print(f"skip: {path} is absent (../shared/data not mounted)")
        return 77
    with gzip.open(path, "rt") as f:
        events = json.load(f)["traceEvents"]
    steps = iterations(events)
    expected = {}
    counts = {}
    for e in events:
        if e.get("ph") != "X" or e.get("cat") != "cpu_op":
            continue
        flops = op_flops(e["name"], e.get("args", {}))
        step = next((n for start, end, n in steps if start <= e["ts"] < end), None)
        if flops and step is not None:
            expected[step] = expected.get(step, 0) + flops
            counts[e["name"]] = counts.get(e["name"], 0) + 1
    run = subprocess.run([args.gpuwhy, "analyze", path, "--format", "json"], capture_output=True,
                         text=True)
    if run.returncode not in (0, 1):
        print(f"FAIL: gpuwhy exited {run.returncode}: {run.stderr.strip()}")
        return 1
    metrics = json.loads(run.stdout)["ranks"][0]["metrics"]
    got_steps = {m["scope"]["step"]: m["value"] * 1e12 for m in metrics
                 if m["id"] == "flops.total_tflop" and m["scope"]["step"] is not None}
    total = next((m["value"] * 1e12 for m in metrics if m["id"] == "flops.total_tflop" and
                  all(v is None for v in m["scope"].values())), 0)
    print(f"{TRACE}: ops counted {counts}; gpuwhy total {total:.0f} FLOP over steps "
          f"{sorted(got_steps)}")
    if counts.get("aten::conv2d", 0) == 0 or counts.get("aten::convolution_backward", 0) == 0:
        print("FAIL: no convolutions with Concrete Inputs: the check would prove nothing")
        return 1
    failed = not got_steps
    for number, got in sorted(got_steps.items()):
        want = expected.get(number, 0)
        print(f"  step {number}: gpuwhy {got:.0f} FLOP, Python {want}")
        failed |= abs(got - want) > 0.01 * want
    want_total = sum(expected.get(n, 0) for n in got_steps)
    if abs(total - want_total) > 0.01 * want_total:
        print(f"FAIL: the total {total:.0f} is not the kept steps' {want_total}")
        failed = True
    if failed:
        print("FAIL: gpuwhy's FLOPs differ by more than 1%")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
