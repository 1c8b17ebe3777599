// Writes a gpuwhy recording: a gzip stream of a small text header and one columnar block per
// series (times as zigzag varint deltas, values as 8-byte doubles). docs/recording-format.md;
// read back by ingest/metrics/recording_reader.h.
#pragma once

#include <string>

#include "base/status.h"
#include "model/metric_series.h"

namespace gpuwhy {

// The uncompressed bytes (exposed for tests and the reader's round trip).
std::string EncodeRecording(const MetricSeriesSet& set);
// Writes EncodeRecording(set) gzip-compressed to |path|.
Status WriteRecording(const MetricSeriesSet& set, const std::string& path);

}  // namespace gpuwhy
