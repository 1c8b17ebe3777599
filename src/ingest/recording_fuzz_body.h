// The body shared by the recording reader's deterministic mutation fuzzer
// (recording_fuzz_test.cc, in ctest) and its libFuzzer target (fuzz/recording_fuzzer.cc, clang
// only): parse |data| as decompressed recording bytes and check the contract: no crash, no
// exception, an error names the input, and what is read back is what the format allows
// (docs/recording-format.md): samples the bytes can hold, times in range, finite values.
#pragma once

#include <cmath>
#include <exception>
#include <string_view>

#include "ingest/metrics/recording_reader.h"

namespace gpuwhy {

inline constexpr std::string_view kFuzzRecordingName = "fuzz.rec";

// True when |set| is something a recording of |size| bytes may hold.
inline bool RecordingSetIsSound(const MetricSeriesSet& set, size_t size) {
  if (set.empty() || set.sample_count() > size / 9) return false;
  if (set.nominal_interval_ns < 0 || !std::isfinite(set.sampler_cpu_pct)) return false;
  for (const SeriesDevice& d : set.devices) {
    if (d.index < -1 || d.index > 65536) return false;
  }
  for (DataProblem kind : set.problems.Kinds()) {
    if (set.problems.Get(kind) < 0) return false;
  }
  for (const auto& [key, s] : set.all()) {
    if (s.time.size() != s.value.size() || key.device < -1 || key.device > 65536) return false;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s.time[i] < 0 || s.time[i] >= kRecordingMaxTimeNs || !std::isfinite(s.value[i])) {
        return false;
      }
    }
  }
  return true;
}

// Returns false when the contract is broken (the caller reports or aborts).
inline bool FuzzRecordingReader(std::string_view data) {
  try {
    StatusOr<MetricSeriesSet> set = ParseRecording(data, kFuzzRecordingName);
    if (!set.ok()) return set.status().message().starts_with(kFuzzRecordingName);
    return RecordingSetIsSound(*set, data.size());
  } catch (const std::exception&) {
    return false;  // no exception may leave a parser
  }
}

}  // namespace gpuwhy
