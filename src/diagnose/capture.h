// The exact commands that capture what a rule or checklist item needs. One place, so the
// catalog and the checklist say the same thing.
#pragma once

namespace gpuwhy {

inline constexpr const char* kCaptureProfilerSchedule =
    "with torch.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], "
    "schedule=torch.profiler.schedule(wait=1, warmup=2, active=5), "
    "on_trace_ready=torch.profiler.tensorboard_trace_handler('./traces'), "
    "record_shapes=True, profile_memory=True, with_stack=True) as prof: "
    "... call prof.step() once per training step";

inline constexpr const char* kCaptureProfilerLongSchedule =
    "torch.profiler.schedule(wait=1, warmup=2, active=30) (enough steps to catch a periodic "
    "stall), same profile(...) arguments as above";

inline constexpr const char* kCaptureProfileMemory =
    "torch.profiler.profile(..., profile_memory=True, record_shapes=True)";

inline constexpr const char* kCaptureWithStack = "torch.profiler.profile(..., with_stack=True)";

inline constexpr const char* kCaptureEveryRank =
    "run the profiler on every rank: tensorboard_trace_handler('./traces') writes one "
    "<host>_<pid>.pt.trace.json per rank; pass them all: gpuwhy analyze ./traces";

inline constexpr const char* kCaptureLiveMetrics =
    "gpuwhy run -- python train.py  (samples utilization, SM activity, clocks, power, PCIe)";

inline constexpr const char* kCaptureFlops =
    "torch.profiler.profile(..., record_shapes=True, with_flops=True)  (FLOPs and MFU)";

inline constexpr const char* kCaptureNcu =
    "ncu --set full -k regex:<top kernel> -c 20 -o kernels python train.py; ncu --import "
    "kernels.ncu-rep --csv --page details > kernels.ncu.csv; gpuwhy analyze trace.json "
    "kernels.ncu.csv  (measured throughput per kernel)";

inline constexpr const char* kCaptureGpuMetrics =
    "nsys profile --gpu-metrics-devices=all -o report python train.py; nsys export --type "
    "sqlite report.nsys-rep  (sampled SM activity: gpuwhy analyze report.sqlite); or DCGM "
    "with timestamps beside the trace: curl "
    "'PROMETHEUS/federate?match[]={__name__=~\"DCGM_FI_PROF_.*\"}' "
    "> dcgm.prom while it runs, then gpuwhy analyze trace.json dcgm.prom";

inline constexpr const char* kCaptureDoctor =
    "gpuwhy doctor  (driver, PCIe link, persistence mode, Xid errors, other processes)";

}  // namespace gpuwhy
