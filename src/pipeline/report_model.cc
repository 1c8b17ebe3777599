#include "pipeline/report_model.h"

#include <algorithm>

namespace gpuwhy {

RankHeader SummarizeTraceHeader(const Trace& trace) {
  RankHeader h;
  h.path = trace.metadata.path;
  h.rank = trace.rank.rank;
  h.world_size = trace.rank.world_size;
  h.vendor = std::string(GpuVendorName(trace.metadata.vendor));
  h.span = trace.span();
  // Devices with properties, plus active devices the trace never described.
  for (const DeviceTable::Row& row : trace.devices.rows) {
    h.devices.push_back({row.id, std::string(trace.Str(row.name)), row.total_memory_bytes, false});
  }
  for (int32_t id : trace.active_devices()) {
    auto it = std::find_if(h.devices.begin(), h.devices.end(),
                           [id](const ReportDevice& d) { return d.id == id; });
    if (it == h.devices.end()) {
      h.devices.push_back({id, "", kNoValue, true});
    } else {
      it->active = true;
    }
  }
  std::sort(h.devices.begin(), h.devices.end(),
            [](const ReportDevice& a, const ReportDevice& b) { return a.id < b.id; });
  h.problems = trace.problems;
  return h;
}

RankHeader SummarizeSeriesHeader(const MetricSeriesSet& set) {
  RankHeader h;
  h.path = set.path;
  for (int32_t index : set.DeviceIndices()) {
    ReportDevice d{index, "", kNoValue, true};
    if (const SeriesDevice* dev = set.Device(index)) d.name = dev->name;
    if (const MetricSeries* total = set.Find("gpu.mem_total_mib", index);
        total && !total->empty()) {
      d.memory_bytes = static_cast<int64_t>(total->Max()) << 20;
    }
    h.devices.push_back(std::move(d));
  }
  h.problems = set.problems;
  return h;
}

RankHeader SummarizeProfileSummaryHeader(const ProfileSummary& summary) {
  RankHeader h;
  h.path = summary.path;
  if (summary.dlprof && !summary.dlprof->gpu_name.empty())
    h.devices.push_back({0, summary.dlprof->gpu_name, kNoValue, true});
  h.problems = summary.problems;
  return h;
}

bool HasTraceAnalysis(const RankReport& rank) {
  return rank.header.span.length() > 0 || !rank.analysis.metrics.all().empty() ||
         !rank.header.problems.empty();
}

std::vector<SummaryFinding> SummarizeFindings(const Diagnosis& diagnosis) {
  std::vector<SummaryFinding> out;
  for (const Finding& f : diagnosis.findings) {
    out.push_back(
        {f.id, std::string(SeverityName(f.severity)), f.title, f.recoverable_ns_per_step});
  }
  return out;
}

}  // namespace gpuwhy
