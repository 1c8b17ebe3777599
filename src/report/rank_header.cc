// The trace facts a report shows next to the analyses, and the not-applicable list.
#include <algorithm>
#include <string>

#include "report/report.h"

namespace gpuwhy {
namespace {

void AddLines(std::vector<NotApplicable>& out, std::string_view analysis,
              const std::vector<std::string>& reasons) {
  for (const std::string& reason : reasons) out.push_back({std::string(analysis), reason});
}

}  // namespace

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
  for (size_t i = 0; i < kImportStatCount; ++i) {
    auto stat = static_cast<ImportStat>(i);
    int64_t value = trace.stats.Get(stat);
    if (value == 0) continue;
    const ImportStatInfo& info = GetImportStatInfo(stat);
    h.import_stats.push_back({std::string(info.id), std::string(SeverityName(info.severity)), value,
                              trace.stats.Detail(stat)});
  }
  return h;
}

bool HasTraceAnalysis(const RankReport& rank) {
  return rank.header.span.length() > 0 || !rank.analysis.metrics.all().empty() ||
         !rank.header.import_stats.empty();
}

std::vector<NotApplicable> CollectNotApplicable(const TraceAnalysis& a) {
  std::vector<NotApplicable> out;
  AddLines(out, "utilization", a.utilization.not_applicable);
  AddLines(out, "temporal", a.temporal.not_applicable);
  AddLines(out, "hta_idle_split", a.hta_idle_split.not_applicable);
  AddLines(out, "steps", a.steps.not_applicable);
  AddLines(out, "idle_gaps", a.idle_gaps.not_applicable);
  AddLines(out, "kernels", a.kernels.not_applicable);
  AddLines(out, "launch", a.launch.not_applicable);
  AddLines(out, "sync_copies", a.sync_copies.not_applicable);
  AddLines(out, "communication", a.communication.not_applicable);
  AddLines(out, "memory", a.memory.not_applicable);
  return out;
}

}  // namespace gpuwhy
