// Named import counters: every data problem an importer meets becomes one of these,
// shown in every report instead of a log line. One table drives ids, labels and severity.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpuwhy {

enum class StatSeverity { kInfo, kDataLoss, kError };

// X-macro: enum name, stable id, severity, description.
#define GPUWHY_IMPORT_STATS(X)                                                                    \
  X(kTruncated, "truncated", kDataLoss, "input ends mid-document; events after the cut are lost") \
  X(kMalformedEvent, "malformed_event", kDataLoss, "event could not be parsed and was skipped")   \
  X(kMissingField, "missing_field", kDataLoss,                                                    \
    "event lacks a required field (ts, dur, ph) and was skipped")                                 \
  X(kBadTimestamp, "bad_timestamp", kDataLoss,                                                    \
    "timestamp or duration is not a number or overflows")                                         \
  X(kNegativeDuration, "negative_duration", kDataLoss,                                            \
    "event with a negative duration was skipped")                                                 \
  X(kUnknownCategory, "unknown_category", kInfo,                                                  \
    "events of a category gpuwhy does not model (kept out of the tables)")                        \
  X(kUnknownPhase, "unknown_phase", kInfo, "events with a phase gpuwhy does not model")           \
  X(kUnmatchedFlow, "unmatched_flow", kInfo, "flow start or finish without its partner")          \
  X(kGpuOpWithoutLaunch, "gpu_op_without_launch", kInfo,                                          \
    "GPU op whose correlation id matches no runtime or driver call")                              \
  X(kOverlappingStreamOps, "overlapping_stream_ops", kInfo,                                       \
    "GPU ops that overlap on one stream (a stream runs one op at a time)")                        \
  X(kImproperNesting, "improper_nesting", kInfo,                                                  \
    "CPU slices that partially overlap a parent on the same thread")                              \
  X(kClockAnomaly, "clock_anomaly", kInfo,                                                        \
    "instants far outside the trace span (e.g. Record Window End)")                               \
  X(kTopLevelNotObject, "top_level_parse_error", kError,                                          \
    "a top-level metadata value could not be parsed")                                             \
  X(kDuplicateCorrelation, "duplicate_correlation", kInfo,                                        \
    "two launch calls share one correlation id; the first is kept")

enum class ImportStat : uint8_t {
#define GPUWHY_STAT_ENUM(name, id, severity, description) name,
  GPUWHY_IMPORT_STATS(GPUWHY_STAT_ENUM)
#undef GPUWHY_STAT_ENUM
      kCount
};

constexpr size_t kImportStatCount = static_cast<size_t>(ImportStat::kCount);

struct ImportStatInfo {
  std::string_view id;
  StatSeverity severity;
  std::string_view description;
};

const ImportStatInfo& GetImportStatInfo(ImportStat stat);
std::string_view SeverityName(StatSeverity severity);

class ImportStats {
 public:
  void Increment(ImportStat stat, int64_t by = 1) { values_[Index(stat)] += by; }
  int64_t Get(ImportStat stat) const { return values_[Index(stat)]; }
  // A free-text detail shown next to the counter, e.g. the byte offset of a truncation.
  void SetDetail(ImportStat stat, std::string detail) { details_[Index(stat)] = std::move(detail); }
  const std::string& Detail(ImportStat stat) const { return details_[Index(stat)]; }
  bool HasErrors() const;
  void MergeFrom(const ImportStats& other);

 private:
  static size_t Index(ImportStat stat) { return static_cast<size_t>(stat); }
  std::array<int64_t, kImportStatCount> values_{};
  std::array<std::string, kImportStatCount> details_{};
};

}  // namespace gpuwhy
