#include "analyze/hta_view.h"

#include <algorithm>
#include <cmath>

namespace gpuwhy {
namespace {

TimeNs HtaRoundStart(TimeNs start) {
  return static_cast<TimeNs>(std::ceil(NsToFloatUs(start))) * kNsPerUs;
}

}  // namespace

bool HtaRoundsTrace(const Trace& trace) {
  auto fractional = [](TimeNs t) { return t % kNsPerUs != 0; };
  return std::any_of(trace.gpu_ops.start.begin(), trace.gpu_ops.start.end(), fractional) ||
         std::any_of(trace.cpu_slices.start.begin(), trace.cpu_slices.start.end(), fractional) ||
         std::any_of(trace.gpu_syncs.rows.begin(), trace.gpu_syncs.rows.end(),
                     [&](const GpuSyncTable::Row& r) { return fractional(r.start); });
}

// HTA: ts = ceil(ts), end = floor(ts + dur), both computed on float64 µs; the float64
// spacing at epoch-µs magnitudes is 0.25 µs, which decides many of the roundings.
Interval HtaRoundInterval(TimeNs start, TimeNs end) {
  double ts = NsToFloatUs(start);
  double dur = NsToFloatUs(end - start);
  auto s = static_cast<TimeNs>(std::ceil(ts));
  auto e = static_cast<TimeNs>(std::floor(ts + dur));
  return {s * kNsPerUs, e * kNsPerUs};
}

HtaViewOptions ViewOptionsFor(const AnalysisOptions& options, SyncPolicy compat_syncs) {
  HtaViewOptions view;
  view.drop_last_step = options.drop_last_step || options.hta_compat;
  if (options.hta_compat) {
    view.syncs = compat_syncs;
    view.resolution = TimeResolution::kHtaMicroseconds;
  }
  return view;
}

double NsToFloatUs(TimeNs ns) {
  // long double holds any int64 exactly on x86-64; one rounding to double follows.
  return static_cast<double>(static_cast<long double>(ns) / 1000.0L);
}

std::optional<TimeNs> LastStepCutoff(const Trace& trace) {
  if (trace.steps.synthesized || trace.steps.size() < 2) return std::nullopt;
  return trace.steps.rows.back().host_start;
}

HtaView BuildHtaView(const Trace& trace, const DeviceTimelines& timelines,
                     const HtaViewOptions& options, std::span<const CpuSliceId> op_launch) {
  HtaView view;
  view.options = options;
  view.rounded = options.resolution == TimeResolution::kHtaMicroseconds && HtaRoundsTrace(trace);
  if (options.drop_last_step) view.cutoff = LastStepCutoff(trace);
  if (view.cutoff && view.rounded) view.cutoff = HtaRoundStart(*view.cutoff);
  auto start_of = [&](CpuSliceId launch) {
    if (!launch.valid()) return kNoLaunch;
    TimeNs t = trace.cpu_slices.start[launch.value];
    return view.rounded ? HtaRoundStart(t) : t;
  };
  auto launch_start = [&](int64_t correlation) { return start_of(trace.FindLaunch(correlation)); };
  // HTA keeps an op only when its launching call started before the last step.
  auto kept = [&](TimeNs launch) {
    return !view.cutoff || (launch != kNoLaunch && launch < *view.cutoff);
  };
  auto add = [&](ViewOp op) {
    if (view.rounded) {
      Interval r = HtaRoundInterval(op.start, op.end);
      op.start = r.start;
      op.end = r.end;
    }
    view.ops.push_back(op);
  };

  const GpuOpTable& ops = trace.gpu_ops;
  view.ops.reserve(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    TimeNs launch =
        i < op_launch.size() ? start_of(op_launch[i]) : launch_start(ops.correlation[i]);
    if (!kept(launch)) continue;
    add({ops.device[i], ops.stream[i], ops.start[i], ops.end[i], launch, timelines.hta_type[i],
         false, static_cast<uint32_t>(i)});
  }
  if (options.syncs == SyncPolicy::kIncludeAsBusy) {
    for (const GpuSyncTable::Row& s : trace.gpu_syncs.rows) {
      TimeNs launch = launch_start(s.correlation);
      if (!kept(launch)) continue;
      add({s.device, s.stream, s.start, s.end, launch, HtaKernelType::kComputation, true,
           kSyncRow});
    }
  }
  auto by_time = [](const ViewOp& a, const ViewOp& b) {
    return a.start != b.start ? a.start < b.start : a.end < b.end;
  };
  // GPU ops are stored in start order, so without syncs this is mostly a pass, not a sort.
  if (!std::is_sorted(view.ops.begin(), view.ops.end(), by_time))
    std::stable_sort(view.ops.begin(), view.ops.end(), by_time);
  return view;
}

const HtaView& SharedHtaView(const AnalysisInput& input, const HtaViewOptions& options,
                             HtaView& scratch) {
  if (input.view != nullptr && input.view->options == options) return *input.view;
  scratch = BuildHtaView(input.trace, input.timelines, options, input.op_launch);
  return scratch;
}

}  // namespace gpuwhy
