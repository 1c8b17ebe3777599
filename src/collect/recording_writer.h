// Encodes gpuwhy recordings (docs/recording-format.md, version 2): a small text header and
// columnar blocks of samples (times as zigzag varint deltas, values as 8-byte doubles), read
// back by ingest/metrics/recording_reader.h. A recording grows as the run goes: each flush
// appends a block per series with the samples added since the previous flush, so what was
// written before a cut stays readable (collect/recording_file.h writes it to disk).
#pragma once

#include <array>
#include <map>
#include <set>
#include <string>

#include "base/status.h"
#include "model/metric_series.h"

namespace gpuwhy {

// What of a growing set has been encoded: each series' sample count, the notes, devices and
// problem counts, so that the next chunk holds only what is new.
class RecordingEncoder {
 public:
  // Appends to |out| the header (on the first call) and what |set| gained since the last
  // call. |set| only grows: series gain samples, lists gain entries, counts rise.
  void EncodeNew(const MetricSeriesSet& set, std::string& out);
  // The last line of a complete recording.
  static void EncodeEnd(std::string& out) { out += "end\n"; }

 private:
  bool header_ = false;
  DurationNs interval_ns_ = -1;
  double sampler_cpu_pct_ = -2;
  std::map<SeriesKey, size_t> written_;
  std::set<std::string> notes_;
  std::map<int32_t, std::array<std::string, 3>> devices_;
  std::array<int64_t, kDataProblemCount> problems_{};
};

// The whole of |set| as one complete recording (tests, round trips).
std::string EncodeRecording(const MetricSeriesSet& set);
// Writes EncodeRecording(set) gzip-compressed to |path|, all or nothing.
Status WriteRecording(const MetricSeriesSet& set, const std::string& path);

}  // namespace gpuwhy
