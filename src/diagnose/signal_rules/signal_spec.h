// What the specs of the metric-series rules share: what they need, how severity is chosen,
// common fixes and the spec skeleton.
#pragma once

#include <string>

#include "diagnose/capture.h"
#include "diagnose/catalog.h"

namespace gpuwhy {

inline constexpr const char* kNeedsSeries =
    "live GPU metrics over the run (gpuwhy run/record, nvidia-smi dmon or --query-gpu logs, "
    "dcgm-exporter text)";
inline constexpr const char* kNeedsHost =
    "host CPU, per-thread and disk series of the job (gpuwhy run records them)";
inline constexpr const char* kFromShare =
    "share of the run's time in the condition (severity bands of "
    "the diagnosis)";

inline const Fix kDataLoaderFix = {"Load batches in parallel worker processes and prefetch",
                                   "DataLoader(ds, batch_size=B, num_workers=8, pin_memory=True, "
                                   "persistent_workers=True, prefetch_factor=4)"};
inline const Fix kTraceFix = {"Capture a profiler trace to see what fills the gaps",
                              "gpuwhy run --trace-dir ./traces -- python train.py  (with "
                              "torch.profiler writing to ./traces)"};

// |item|: the rule's item of the metric-series checklist; platform rules also feed the trace
// checklist's platform item.
inline RuleSpec Series(std::string id, BottleneckClass cls, ChecklistSection section,
                       std::string item, int position = 0) {
  RuleSpec spec;
  spec.id = std::move(id);
  spec.bottleneck_class = cls;
  spec.section = section;
  spec.default_severity = Severity::kMedium;
  spec.severity_logic = kFromShare;
  spec.recoverable_logic = "not estimated from series: no step time; a trace gives it";
  spec.needs = kNeedsSeries;
  spec.capture_command = kCaptureLiveMetrics;
  if (cls == BottleneckClass::kPlatform)
    spec.checklist.push_back({Checklist::kTrace, kPlatformChecklistItem});
  spec.checklist.push_back({Checklist::kSignals, std::move(item), position});
  return spec;
}

}  // namespace gpuwhy
