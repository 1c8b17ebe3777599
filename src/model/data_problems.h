// Data problems: every record an importer could not use becomes a named counter, shown with the
// report instead of a log line. One table declares every kind, whatever reads the input (trace
// importers, metric-log importers and samplers, node-log parsers): a stable id, a severity and a
// one-line description. A kind keeps its count and the details of its first occurrences.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwhy {

enum class ProblemSeverity : uint8_t { kInfo, kDataLoss, kError };

// X-macro: enum name, stable id, severity, description. Reports list kinds in this order.
#define GPUWHY_DATA_PROBLEMS(X)                                                                   \
  /* Traces (Kineto, Nsight Systems); truncated and bad_timestamp also metric logs. */            \
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
    "two launch calls share one correlation id; the first is kept")                               \
  X(kCorruptGzip, "corrupt_gzip", kDataLoss,                                                      \
    "gzip CRC-32 or length check failed (zcat rejects the file): values read may be altered")     \
  /* Metric logs, recordings and samplers; unparsed_line also node logs. */                       \
  X(kUnparsedLine, "unparsed_line", kDataLoss, "a line could not be parsed and was skipped")      \
  X(kUnmappedMetric, "unmapped_metric", kInfo,                                                    \
    "a metric or column gpuwhy does not map to a series (kept out of the series)")                \
  X(kRingOverflow, "ring_overflow", kDataLoss,                                                    \
    "samples overwritten in the sampler's ring buffer before they were saved")                    \
  X(kUnknownProblem, "unknown_problem", kDataLoss,                                                \
    "a recording names a problem this gpuwhy does not declare (its id is in the detail)")         \
  X(kBadValue, "bad_value", kDataLoss, "a sample value is not a finite number and was skipped")   \
  /* Node logs and command outputs (doctor). */                                                   \
  X(kRowCutShort, "row_cut_short", kDataLoss,                                                     \
    "a table row has fewer cells than its header; the cells it has are kept")                     \
  X(kUnreadableOutput, "unreadable_output", kDataLoss,                                            \
    "a command's output could not be read as a whole; what was read before the error is kept")    \
  /* Nsight Compute exports. */                                                                   \
  X(kUnknownUnit, "unknown_unit", kInfo,                                                          \
    "a measured value has a unit gpuwhy does not know; kept as printed, not scaled")

enum class DataProblem : uint8_t {
#define GPUWHY_PROBLEM_ENUM(name, id, severity, description) name,
  GPUWHY_DATA_PROBLEMS(GPUWHY_PROBLEM_ENUM)
#undef GPUWHY_PROBLEM_ENUM
      kCount
};

constexpr size_t kDataProblemCount = static_cast<size_t>(DataProblem::kCount);

struct DataProblemInfo {
  std::string_view id;
  ProblemSeverity severity;
  std::string_view description;
};

const DataProblemInfo& GetDataProblemInfo(DataProblem kind);
// The kind declared with |id|; nullopt when none is (a recording from another version).
std::optional<DataProblem> FindDataProblem(std::string_view id);
std::string_view SeverityName(ProblemSeverity severity);  // "info", "data_loss", "error"

// Counts per kind, and for each kind the details ("byte 81234: ...", "PATH: line N: why") of
// its first kMaxDetails occurrences; the count goes on past them.
class DataProblems {
 public:
  static constexpr size_t kMaxDetails = 8;

  void Increment(DataProblem kind, int64_t by = 1) { counts_[Index(kind)] += by; }
  // Counts |by| occurrences of |kind| described by one |detail|.
  void Add(DataProblem kind, std::string detail, int64_t by = 1);
  int64_t Get(DataProblem kind) const { return counts_[Index(kind)]; }
  const std::vector<std::string>& Details(DataProblem kind) const { return details_[Index(kind)]; }
  // The first detail, "" when none was given.
  std::string_view Detail(DataProblem kind) const;
  // Kinds with a non-zero count, in table order.
  std::vector<DataProblem> Kinds() const;
  bool empty() const;
  int64_t Total() const;
  // The most severe kind with a non-zero count; kInfo when there is none.
  ProblemSeverity WorstSeverity() const;
  bool HasErrors() const { return WorstSeverity() == ProblemSeverity::kError; }
  // Adds |other|'s counts; its details follow this one's, up to the bound.
  void MergeFrom(const DataProblems& other);
  // "unparsed_line x2 (line 3: x; line 9: y)", one kind after the other; for test messages.
  std::string Describe() const;

 private:
  static size_t Index(DataProblem kind) { return static_cast<size_t>(kind); }
  std::array<int64_t, kDataProblemCount> counts_{};
  std::array<std::vector<std::string>, kDataProblemCount> details_{};
};

}  // namespace gpuwhy
