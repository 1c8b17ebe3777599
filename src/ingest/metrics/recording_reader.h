// Reads a gpuwhy recording (`gpuwhy run -o` / `gpuwhy record`): a gzip stream of a text
// header and one columnar block per series. The format is docs/recording-format.md; the
// writer is collect/recording_writer.h.
#pragma once

#include <string_view>

#include "base/status.h"
#include "model/metric_series.h"

namespace gpuwhy {

// The first line of the (decompressed) recording.
inline constexpr std::string_view kRecordingMagic = "gpuwhy-recording 1\n";

// Parses decompressed recording bytes. A recording cut short keeps the series before the
// cut and returns them with a "truncated" issue.
StatusOr<MetricSeriesSet> ParseRecording(std::string_view bytes, std::string_view name);

// One long-format CSV of every sample: time_s,device,entity,metric,unit,value (time in
// seconds since the first sample; device empty for the host). Sorted by series, then time.
std::string RenderSeriesCsv(const MetricSeriesSet& set);

}  // namespace gpuwhy
