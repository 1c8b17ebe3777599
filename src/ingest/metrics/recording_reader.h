// Reads a gpuwhy recording (`gpuwhy run -o` / `gpuwhy record`): a gzip stream of a text
// header and columnar blocks of samples. The format is docs/recording-format.md; the writer is
// collect/recording_writer.h.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "model/metric_series.h"

namespace gpuwhy {

// The start of every recording's first line; the version and a newline follow
// ("gpuwhy-recording 2\n").
inline constexpr std::string_view kRecordingMagic = "gpuwhy-recording ";
// What the writer writes; the reader reads every version from 1 up to it.
inline constexpr int kRecordingVersion = 2;
// Sample times are in [0, kRecordingMaxTimeNs) (2^62 ns, the year 2116), so that any
// difference of two of them fits in an int64.
inline constexpr int64_t kRecordingMaxTimeNs = int64_t{1} << 62;

// Parses decompressed recording bytes, cut anywhere or not: a recording without its 'end'
// keeps every complete block before the cut and reports an issue "truncated" (|cut|, when
// given, says where the file itself ended). Counts, indices and times from the file are checked
// against the bytes that remain and the ranges above; a value that is not a finite number is
// skipped and counted (bad_value).
StatusOr<MetricSeriesSet> ParseRecording(std::string_view bytes, std::string_view name,
                                         std::string_view cut);
StatusOr<MetricSeriesSet> ParseRecording(std::string_view bytes, std::string_view name);

// Reads the recording at |path| (gzip or not). A gzip stream that ends early, as a recording
// does when gpuwhy was killed while writing it, gives the samples it holds, flagged truncated.
StatusOr<MetricSeriesSet> ReadRecordingFile(const std::string& path);

// One long-format CSV of every sample: time_s,device,entity,metric,unit,value (time in
// seconds since the first sample; device empty for the host). Sorted by series, then time.
std::string RenderSeriesCsv(const MetricSeriesSet& set);

}  // namespace gpuwhy
