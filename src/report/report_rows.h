// Which per-step and per-device rows a report lists. Up to a cap every row; past it a chosen
// few, the rest said to be left out (JSON "rows_left_out", a line in text, Markdown and HTML),
// while rank-wide numbers still cover every step and device. Without a cap a 50,000-step trace
// wrote a 304 MB JSON report and 20,000 devices a 762 MB HTML page (issue 37; README limits).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "analyze/metric.h"
#include "pipeline/report_model.h"

namespace gpuwhy::report {

// Past kMaxStepRows steps a report lists the first and the last kStepRowsAtEachEnd, the
// kSlowestStepRows slowest of the others and an even sample of what remains, kMaxStepRows in
// all: the sample keeps the listed steps' median near the whole run's (what `gpuwhy diff`
// compares), the slowest keep the outliers a reader looks for.
inline constexpr size_t kMaxStepRows = 1000;
inline constexpr size_t kStepRowsAtEachEnd = 250;
inline constexpr size_t kSlowestStepRows = 100;
// Past kMaxDeviceRows devices a report lists the half with the most GPU-op time and the half
// with the least among those that ran GPU ops; devices that ran none are counted only.
inline constexpr size_t kMaxDeviceRows = 64;

struct StepRows {
  size_t total = 0;
  size_t left_out = 0;
  std::vector<bool> kept;             // by position in StepBreakdownResult::steps
  std::vector<int64_t> kept_numbers;  // sorted, unique: what a step-scoped metric is kept by
  size_t excluded_left_out = 0;       // numbers of steps_excluded past kMaxStepRows

  bool Keeps(size_t index) const { return left_out == 0 || kept[index]; }
  bool KeepsNumber(int64_t number) const;
};

struct DeviceRows {
  size_t total = 0;
  size_t left_out = 0;
  size_t idle_left_out = 0;   // of left_out: devices that ran no GPU op
  std::vector<int32_t> kept;  // sorted

  bool Keeps(int32_t device) const;
};

struct ReportRows {
  StepRows steps;
  DeviceRows devices;

  bool Capped() const {
    return steps.left_out > 0 || devices.left_out > 0 || steps.excluded_left_out > 0;
  }
  // Whether a metric's row is listed: rank-wide ones always.
  bool KeepsMetric(const Metric& m) const;
  // One sentence: how many rows of each kind were left out, which were kept and why.
  std::string Why() const;
};

StepRows SelectStepRows(const StepBreakdownResult& steps);
DeviceRows SelectDeviceRows(const RankHeader& header, const TraceAnalysis& analysis);
ReportRows SelectReportRows(const RankHeader& header, const TraceAnalysis& analysis);

}  // namespace gpuwhy::report
