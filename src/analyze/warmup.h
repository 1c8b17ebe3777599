// Warm-up: the one-off costs a capture holds before the job reaches its steady state (CUDA
// context creation, lazy module loading, first calls that autotune or compile, DataLoader
// worker start-up, first allocations), and which leading steps they make unrepresentative.
// The step extents leave those steps out, so per-step numbers describe the steady state;
// quality.warmup_dominated says when nothing but warm-up was captured. docs/metrics/warmup.md.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/metric.h"
#include "base/interval_set.h"
#include "model/trace.h"

namespace gpuwhy {

enum class WarmupCause : uint8_t {
  // Setup and allocation calls count only in the first iteration: later, they are the steady
  // state's own cost (allocator churn).
  kContextSetup,     // calls that create the CUDA/HIP context, streams, events
  kAllocation,       // cudaMalloc/cudaFree/host allocations of a millisecond or more
  kModuleLoad,       // a kernel's first launch 100× slower than the median launch
  kFirstCall,        // an op's first call 10× its later calls: autotuning, handles, compiling
  kDataLoaderStart,  // a first DataLoader __next__ 10× the later ones: worker start-up
  // Host time with nothing recorded inside an op, ending at the first launch of a kernel that
  // is launched through the driver API (a module loaded at run time: TorchScript/nvFuser/NNC,
  // Triton, NVRTC): the kernel was being compiled.
  kCompile,
  // CUDA/HIP graph capture: kernels issued between Begin/EndCapture are recorded, not run, and
  // torch.cuda.graph() synchronizes the device before it captures; instantiation is one-off.
  kGraphCapture,
  // After the job's last launch: modules unloaded, memory unmapped, contexts and graphs
  // destroyed. Nothing repeats after it.
  kTeardown,
};
inline constexpr size_t kWarmupCauseCount = 8;
// "context_setup", "allocation", ...: the metric id infix.
std::string_view WarmupCauseName(WarmupCause cause);
// One line of what the cause is, for reports.
std::string_view WarmupCauseDescription(WarmupCause cause);

struct OneOffEvent {
  WarmupCause cause = WarmupCause::kContextSetup;
  std::string name;  // the host event ("cudaDeviceGetStreamPriorityRange", "aten::conv2d")
  Interval range;    // on the host
};

struct WarmupThresholds {
  DurationNs min_call_ns = 1 * kNsPerMs;               // a setup or allocation call this long
  double module_load_ratio = 100;                      // launch call / median launch call
  DurationNs min_first_call_ns = 10 * kNsPerMs;        // first op call this long ...
  double first_call_ratio = 10;                        // ... and this many times the later ones
  DurationNs min_dataloader_start_ns = 50 * kNsPerMs;  // first __next__ this long ...
  DurationNs min_compile_ns = 10 * kNsPerMs;  // silent host time before a JIT kernel's launch
  double step_one_off_share = 0.5;            // a leading step this much one-off
  double step_outlier_ratio = 3;              // or this many times the later steps
  double steady_busy_share = 0.5;  // a first step this busy is steady when nothing follows it
};

struct WarmupResult {
  std::vector<OneOffEvent> events;  // every one-off event, longest first
  // Union of the events' ranges per cause; causes may overlap (a first conv2d holds the
  // cudaMalloc it triggers), so the total is the union over all causes, not their sum.
  std::array<DurationNs, kWarmupCauseCount> ns_by_cause{};
  DurationNs one_off_ns = 0;
  IntervalSet one_off;  // the union, for per-step shares
  Interval capture;     // the trace span
  // Leading rows of trace.steps that are warm-up (one-off time >= the share of the step, or a
  // step that is an outlier against the later ones); the step extents leave them out while a
  // later step stays.
  size_t leading_warmup_steps = 0;
  // Later rows of trace.steps that one-off work fills as it fills a warm-up step (>= the share
  // of the host span): a mid-run recompile, a teardown inside the last step. A phase that does
  // not recur is one-off wherever it sits; the step extents leave these out too.
  std::vector<Interval> one_off_steps;  // their host spans
};

WarmupResult ComputeWarmup(const Trace& trace, const WarmupThresholds& thresholds = {});

struct StepExtents;
// The warmup.* metrics, once the step extents have left the warm-up steps out.
void AddWarmupMetrics(const WarmupResult& warmup, const StepExtents& extents, MetricSet& metrics);

// What the warm-up analysis emits (docs/metrics/warmup.md); the step extents add
// warmup.steps_excluded.
namespace metric {
inline constexpr MetricDecl kWarmupOneOffMs{
    "warmup.one_off_ms", unit::kMs, kRank,
    "union of the one-off events' host ranges (context setup, allocations, module loads, "
    "first calls, DataLoader start-up)"};
inline constexpr MetricDecl kWarmupCauseMs{"warmup.{cause}_ms", unit::kMs, kRank,
                                           "union of the one-off events of that cause"};
inline constexpr MetricDecl kWarmupCaptureMs{"warmup.capture_ms", unit::kMs, kRank,
                                             "trace span, first to last event"};
inline constexpr MetricDecl kWarmupSharePct{
    "warmup.share_pct", unit::kPercent, kRank,
    "warm-up / capture: the left-out warm-up steps' span, or the one-off time when no step "
    "was left out"};
inline constexpr MetricDecl kWarmupStepsExcluded{"warmup.steps_excluded", unit::kCount, kRank,
                                                 "leading steps left out as warm-up"};
inline constexpr const MetricDecl* kWarmupMetrics[] = {
    &kWarmupOneOffMs, &kWarmupCauseMs, &kWarmupCaptureMs, &kWarmupSharePct, &kWarmupStepsExcluded};
}  // namespace metric

}  // namespace gpuwhy
