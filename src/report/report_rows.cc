#include "report/report_rows.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

namespace gpuwhy::report {

bool StepRows::KeepsNumber(int64_t number) const {
  return left_out == 0 || std::binary_search(kept_numbers.begin(), kept_numbers.end(), number);
}

bool DeviceRows::Keeps(int32_t device) const {
  return left_out == 0 || std::binary_search(kept.begin(), kept.end(), device);
}

bool ReportRows::KeepsMetric(const Metric& m) const {
  if (m.scope.step >= 0 && !steps.KeepsNumber(m.scope.step)) return false;
  return m.scope.device < 0 || devices.Keeps(m.scope.device);
}

std::string ReportRows::Why() const {
  std::vector<std::string> parts;
  if (steps.left_out > 0) {
    parts.push_back(fmt::format(
        "{} of {} steps are not listed (over the cap of {} rows: listed are the first and last "
        "{}, the {} slowest of the others and an even sample of the rest; step.* rank metrics "
        "cover every step)",
        steps.left_out, steps.total, kMaxStepRows, kStepRowsAtEachEnd, kSlowestStepRows));
  }
  if (steps.excluded_left_out > 0) {
    parts.push_back(fmt::format("{} excluded step numbers past the first {} are not listed",
                                steps.excluded_left_out, kMaxStepRows));
  }
  if (devices.left_out > 0) {
    parts.push_back(fmt::format(
        "{} of {} devices are not listed ({} of them ran no GPU op; over the cap of {} rows: "
        "listed are the {} with the most and the least GPU-op time; rank metrics cover every "
        "device)",
        devices.left_out, devices.total, devices.idle_left_out, kMaxDeviceRows,
        kMaxDeviceRows / 2));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

StepRows SelectStepRows(const StepBreakdownResult& r) {
  StepRows rows;
  rows.total = r.steps.size();
  if (r.extents.excluded.size() > kMaxStepRows)
    rows.excluded_left_out = r.extents.excluded.size() - kMaxStepRows;
  if (rows.total <= kMaxStepRows) return rows;
  rows.kept.assign(rows.total, false);
  size_t kept = 0;
  auto keep = [&](size_t i) {
    if (!rows.kept[i]) rows.kept[i] = true, ++kept;
  };
  for (size_t i = 0; i < kStepRowsAtEachEnd; ++i) {
    keep(i);
    keep(rows.total - 1 - i);
  }
  // The slowest of the middle steps, by position so repeated numbers stay apart.
  std::vector<size_t> middle(rows.total - 2 * kStepRowsAtEachEnd);
  std::iota(middle.begin(), middle.end(), kStepRowsAtEachEnd);
  std::partial_sort(middle.begin(), middle.begin() + kSlowestStepRows, middle.end(),
                    [&](size_t a, size_t b) {
                      if (r.steps[a].total_ns != r.steps[b].total_ns)
                        return r.steps[a].total_ns > r.steps[b].total_ns;
                      return a < b;
                    });
  for (size_t i = 0; i < kSlowestStepRows; ++i) keep(middle[i]);
  // An even sample of the rest fills the cap.
  std::vector<size_t> rest;
  for (size_t i = kStepRowsAtEachEnd; i + kStepRowsAtEachEnd < rows.total; ++i) {
    if (!rows.kept[i]) rest.push_back(i);
  }
  const size_t want = kMaxStepRows - kept;
  for (size_t k = 0; k < want && !rest.empty(); ++k) keep(rest[k * rest.size() / want]);
  rows.left_out = rows.total - kept;
  for (size_t i = 0; i < rows.total; ++i) {
    if (rows.kept[i]) rows.kept_numbers.push_back(r.steps[i].number);
  }
  std::sort(rows.kept_numbers.begin(), rows.kept_numbers.end());
  rows.kept_numbers.erase(std::unique(rows.kept_numbers.begin(), rows.kept_numbers.end()),
                          rows.kept_numbers.end());
  return rows;
}

DeviceRows SelectDeviceRows(const RankHeader& header, const TraceAnalysis& analysis) {
  DeviceRows rows;
  rows.total = header.devices.size();
  if (rows.total <= kMaxDeviceRows) return rows;
  std::vector<int32_t> active;
  for (const ReportDevice& d : header.devices) {
    if (d.active) active.push_back(d.id);
  }
  rows.idle_left_out = rows.total - active.size();
  if (active.size() > kMaxDeviceRows && analysis.utilization.per_device.empty()) {
    active.resize(kMaxDeviceRows);  // no busy time to choose by (metric logs): the lowest ids
  } else if (active.size() > kMaxDeviceRows) {
    std::vector<std::pair<DurationNs, int32_t>> busy;  // GPU-op time, id
    busy.reserve(analysis.utilization.per_device.size());
    for (const DeviceUtilization& u : analysis.utilization.per_device)
      busy.emplace_back(u.share.gpu_op_busy_ns, u.device);
    std::sort(busy.begin(), busy.end());
    active.clear();
    const size_t half = std::min(kMaxDeviceRows / 2, busy.size() / 2);
    for (size_t i = 0; i < half; ++i) {
      active.push_back(busy[i].second);
      active.push_back(busy[busy.size() - 1 - i].second);
    }
  }
  std::sort(active.begin(), active.end());
  active.erase(std::unique(active.begin(), active.end()), active.end());
  rows.kept = std::move(active);
  rows.left_out = rows.total - rows.kept.size();
  return rows;
}

ReportRows SelectReportRows(const RankHeader& header, const TraceAnalysis& analysis) {
  return {SelectStepRows(analysis.steps), SelectDeviceRows(header, analysis)};
}

}  // namespace gpuwhy::report
