// A profiler memory timeline as a report: what the peak was made of, in notes and summary
// metrics, and memory.leak over its windows (diagnose/snapshot_rules). A timeline holds no
// allocator state and no capacity: the rules that need those are not its to assess.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "analyze/memory_timeline_series.h"
#include "analyze/memory_timeline_stats.h"
#include "base/bytes.h"
#include "diagnose/outcome_recorder.h"
#include "diagnose/snapshot_rules/snapshot_rules.h"
#include "pipeline/pipeline.h"

namespace gpuwhy {
namespace {


// "activation 2472.4 MiB (84.1%), unknown 128.0 MiB (4.4%), ...": largest first, empty ones out.
std::string CategoriesText(const MemoryTimelineStats& s) {
  std::array<size_t, kMemoryCategoryCount> order;
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return s.peak_by_category[a] > s.peak_by_category[b];
  });
  std::string out;
  for (size_t c : order) {
    const int64_t bytes = s.peak_by_category[c];
    if (bytes <= 0) continue;
    out += fmt::format("{}{} {:.1f} MiB ({:.1f}%)", out.empty() ? "" : ", ",
                       MemoryCategoryName(static_cast<MemoryCategory>(c)), bytes / kMiB,
                       100.0 * bytes / s.peak_bytes);
  }
  return out;
}

}  // namespace

RankReport ReportMemoryTimeline(const MemoryTimeline& timeline, const DiagnoseOptions& options) {
  RankReport report;
  report.header.path = timeline.path;
  MemoryTimelineStats s = AnalyzeMemoryTimeline(timeline);
  report.diagnosis = DiagnoseMemoryTimeline(s, options);
  report.diagnosis.notes.push_back(fmt::format(
      "profiler memory timeline (export_memory_timeline, {} rows over {:.1f} ms): peak {:.1f} MiB "
      "{:.1f} ms after the first change; at the peak: {}",
      s.entries, s.first_time == kNoValue ? 0.0 : NsToMs(s.last_time - s.first_time),
      s.peak_bytes / kMiB, NsToMs(s.peak_offset),
      s.peak_bytes > 0 ? CategoriesText(s) : "nothing"));
  RecordOutcome(report.diagnosis.outcomes, OutcomeMerge::kLatest, "memory.near_capacity",
                AssessStatus::kNotAssessed, false,
                "the device capacity (a memory timeline does not record it: analyze it with a "
                "trace or nvidia-smi output of the same job)");
  report.summary_metrics = std::move(s.metrics);
  report.memory_series = ComputeTimelineMemorySeries(timeline);
  return report;
}

}  // namespace gpuwhy
