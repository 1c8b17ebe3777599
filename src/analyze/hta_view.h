// The GPU ops of one rank as a flat list, optionally seen the way HolisticTraceAnalysis
// sees them (last ProfilerStep dropped, cuda_sync counted as busy, µs rounding). The
// temporal breakdown, the per-stream idle split and the kernel statistics all run on this
// view, so production (exact) numbers and HTA-compatible ones come from the same code.
#pragma once

#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "analyze/analysis_input.h"
#include "analyze/device_timeline.h"
#include "model/trace.h"

namespace gpuwhy {

enum class SyncPolicy {
  kExclude,        // cuda_sync records are waits: never busy (gpuwhy's convention)
  kIncludeAsBusy,  // HTA's temporal breakdown counts them as busy, non-compute time
};
enum class TimeResolution {
  kExactNs,
  // HTA's parser: when any timestamp is fractional it takes ceil(ts) and floor(ts + dur)
  // in float64 microseconds; integer-µs traces are left as they are.
  kHtaMicroseconds,
};

struct HtaViewOptions {
  bool drop_last_step = false;  // HTA: keep ops launched before the last ProfilerStep starts
  SyncPolicy syncs = SyncPolicy::kExclude;
  TimeResolution resolution = TimeResolution::kExactNs;
  bool operator==(const HtaViewOptions&) const = default;
};

constexpr TimeNs kNoLaunch = std::numeric_limits<TimeNs>::min();
constexpr uint32_t kSyncRow = std::numeric_limits<uint32_t>::max();

struct ViewOp {
  int32_t device = 0;
  int64_t stream = 0;
  TimeNs start = 0;
  TimeNs end = 0;
  TimeNs launch_start = kNoLaunch;  // start of the runtime/driver call that enqueued it
  HtaKernelType type = HtaKernelType::kComputation;
  bool is_sync = false;
  uint32_t row = kSyncRow;  // row in trace.gpu_ops; kSyncRow for cuda_sync records
};

struct HtaView {
  std::vector<ViewOp> ops;  // sorted by (start, end)
  // Start of the dropped last step's launches, when one was dropped.
  std::optional<TimeNs> cutoff;
  bool rounded = false;    // µs rounding was applied
  HtaViewOptions options;  // what it was built with
};

// |op_launch|: each gpu_ops row's launch call when the caller has them (AnalysisInput),
// else each is looked up by correlation.
HtaView BuildHtaView(const Trace& trace, const DeviceTimelines& timelines,
                     const HtaViewOptions& options, std::span<const CpuSliceId> op_launch = {});

// The view an analysis runs on under |options|: exact ns unless options.hta_compat, which
// applies HTA's loader (last step dropped, µs rounding) and |compat_syncs| (the temporal
// breakdown counts cuda_sync busy as HTA does; its idle split and kernel tables do not).
HtaViewOptions ViewOptionsFor(const AnalysisOptions& options,
                              SyncPolicy compat_syncs = SyncPolicy::kExclude);

// input.view when it was built with |options| (AnalyzeTrace builds the one under
// ViewOptionsFor(input.options) once: the temporal breakdown, the idle split and the kernel
// statistics all read it), else the view built into |scratch|.
const HtaView& SharedHtaView(const AnalysisInput& input, const HtaViewOptions& options,
                             HtaView& scratch);

// HTA's rounding as BuildHtaView applies it: whether it applies to |trace| (any fractional
// µs timestamp) and the rounded interval (ceil start, floor end, in float64 µs).
bool HtaRoundsTrace(const Trace& trace);
Interval HtaRoundInterval(TimeNs start, TimeNs end);

// HTA drops the last step only when the trace names at least two ProfilerSteps; returns the
// host start of that last step, or nullopt when nothing is dropped.
std::optional<TimeNs> LastStepCutoff(const Trace& trace);

// The nearest float64 to |ns| / 1000, i.e. what Python reads for the JSON µs value.
double NsToFloatUs(TimeNs ns);

}  // namespace gpuwhy
