// Classification of CUDA/HIP runtime and driver calls by name (launches, blocking calls,
// allocator calls), and HolisticTraceAnalysis' last-step filter. Shared by the launch,
// synchronization, communication and memory analyses.
#pragma once

#include <string_view>
#include <vector>

#include "analyze/analysis_input.h"
#include "model/trace.h"

namespace gpuwhy {

enum class RuntimeCallKind : uint8_t {
  kOther,
  kLaunch,       // enqueues kernels or copies asynchronously (cudaLaunchKernel, cudaMemcpyAsync)
  kGraphLaunch,  // one call, many GPU ops (cudaGraphLaunch, hipGraphLaunch)
  kDeviceSync,   // cudaDeviceSynchronize, cudaCtxSynchronize
  kStreamSync,   // cudaStreamSynchronize
  kEventSync,    // cudaEventSynchronize
  kSyncMemcpy,   // cudaMemcpy and other non-Async copies: the host waits for the copy
  kAlloc,        // cudaMalloc, hipMalloc, cudaMallocHost, ...
  kFree,         // cudaFree, hipFree, ...
};

RuntimeCallKind ClassifyRuntimeCall(std::string_view name);
std::string_view RuntimeCallKindName(RuntimeCallKind kind);
bool IsBlockingCallKind(RuntimeCallKind kind);
// Calls that put GPU work on a stream's launch queue: launches, graph launches, and
// hipMemcpyWithStream (a blocking copy that is still enqueued on a stream; HTA counts it).
bool IsQueuedLaunch(RuntimeCallKind kind, std::string_view name);

// The calls HTA's get_cuda_kernel_launch_stats joins (cudaLaunchKernel[ExC],
// cudaMemcpyAsync, cudaMemsetAsync), for parity checks.
bool IsHtaLaunchStatsCall(std::string_view name);

// Classifies every runtime/driver row of trace.cpu_slices once (other rows: kOther).
// Distinct names are classified once each: traces repeat a few dozen names millions of times.
std::vector<RuntimeCallKind> ClassifyRuntimeCalls(const Trace& trace);

// HolisticTraceAnalysis' trace filter, applied when options.drop_last_step is set (HTA
// parity): host events that start at or after the last ProfilerStep's start are dropped
// (nothing when the trace has fewer than two steps), and GPU ops survive only through a
// surviving launch call (all of them when the trace recorded no launch calls at all).
struct HtaFilter {
  bool active = false;
  bool has_launches = false;
  TimeNs cutoff = 0;  // host events must start before this
  bool HostKept(TimeNs start) const { return !active || start < cutoff; }
  bool GpuOpKept(const Trace& trace, size_t row) const;
};
HtaFilter MakeHtaFilter(const AnalysisInput& input);

// Index of the (non-synthesized) step whose host extent contains |t|, or -1.
int64_t StepIndexAt(const StepTable& steps, TimeNs t);

}  // namespace gpuwhy
