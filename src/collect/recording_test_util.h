// Shared by the recording tests (collect/recorder_test.cc, ingest/recording_fuzz_test.cc): a
// small set with every kind of header record, as a live run would record it.
#pragma once

#include "model/metric_series.h"

namespace gpuwhy {

// 50 samples of a GPU and a thread series, a device, a note, a ring overflow, a label with a
// tab (written as a space).
inline MetricSeriesSet ExampleRecordingSet() {
  MetricSeriesSet set;
  set.source = "live";
  set.nominal_interval_ns = 100 * kNsPerMs;
  set.sampler_cpu_pct = 0.25;
  set.devices.push_back({0, "NVIDIA H100", "GPU-1", "00000000:17:00.0"});
  set.notes.push_back("nvml: lacks nvmlDeviceGetSamples");
  set.problems.Add(DataProblem::kRingOverflow, "samples overwritten", 3);
  for (int i = 0; i < 50; ++i) {
    TimeNs t = 1700000000 * kNsPerSec + i * 100 * kNsPerMs;
    set.Add({"gpu.util_pct", 0, ""}, "%", t, i % 7 * 13.5);
    set.Add({"thread.cpu_pct", -1, "tid 42"}, "%", t + 5, 99.5);
  }
  set.GetOrCreate({"thread.cpu_pct", -1, "tid 42"}, "%").label = "python\tmain";
  return set;
}

}  // namespace gpuwhy
