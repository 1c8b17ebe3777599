// The replay's JSON object and its text line (docs/metrics/critical_path.md).
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "report/diagnosis_sections.h"
#include "report/text_format.h"

namespace gpuwhy::report {

void WriteReplayJson(JsonWriter& w, const ReplayResult& r) {
  w.Key("replay");
  w.BeginObject();
  w.Field("steps", static_cast<int64_t>(r.steps.size()));
  w.Field("error_median_pct", r.error_median_pct);
  w.Field("error_max_pct", r.error_max_pct);
  w.Field("measured_step_median_ms", NsToMs(r.measured_median_ns));
  w.Field("replayed_step_median_ms", NsToMs(r.replayed_median_ns));
  w.Key("step_errors");
  w.BeginArray();
  for (const ReplayStep& s : r.steps) {
    w.BeginObject();
    w.Field("step", s.number);
    w.Field("measured_ms", NsToMs(s.measured_ns));
    w.Field("replayed_ms", NsToMs(s.replayed_ns));
    w.Field("error_pct", s.error_pct);
    w.EndObject();
  }
  w.EndArray();
  w.Field("critical_path_ms", NsToMs(r.critical_path_ns));
  w.Key("critical_path_by_class_ms");
  w.BeginObject();
  for (size_t c = 0; c < kPathClassCount; ++c) {
    if (r.class_ns[c] > 0) w.Field(PathClassName(static_cast<PathClass>(c)), NsToMs(r.class_ns[c]));
  }
  w.EndObject();
  w.Key("critical_path_top");
  w.BeginArray();
  for (const PathEntry& e : r.top) {
    w.BeginObject();
    w.Field("name", e.name);
    w.Field("class", PathClassName(e.path_class));
    w.Field("ms_per_step", NsToMs(e.ns_per_step));
    w.EndObject();
  }
  w.EndArray();
  w.Key("what_if");
  w.BeginArray();
  for (const WhatIfResult& x : r.what_ifs) {
    w.BeginObject();
    w.Field("fix", WhatIfName(x.what_if));
    w.Field("step_ms", NsToMs(x.step_ns));
    w.Field("saving_ms", NsToMs(x.saving_ns));
    w.EndObject();
  }
  w.EndArray();
  w.Key("what_if_pairs");
  w.BeginArray();
  for (const WhatIfPair& x : r.what_if_pairs) {
    w.BeginObject();
    w.Key("fixes");
    w.BeginArray();
    w.String(WhatIfName(x.first));
    w.String(WhatIfName(x.second));
    w.EndArray();
    w.Field("step_ms", NsToMs(x.step_ns));
    w.Field("saving_ms", NsToMs(x.saving_ns));
    w.EndObject();
  }
  w.EndArray();
  w.Key("graph");
  w.BeginObject();
  w.Field("points", static_cast<int64_t>(r.points));
  w.Field("edges", static_cast<int64_t>(r.edges));
  w.Field("sync_waits", r.sync_waits);
  w.Field("event_waits", r.event_waits);
  w.Field("inferred_waits", r.inferred_waits);
  w.Field("launch_latency_us", static_cast<double>(r.launch_latency_ns) / kNsPerUs);
  w.Field("queue_gap_us", static_cast<double>(r.queue_gap_ns) / kNsPerUs);
  w.EndObject();
  w.EndObject();
}

std::string ReplayText(const ReplayResult& r) {
  std::string text =
      fmt::format("error median {}, max {} over {} step{}; critical path ", Pct(r.error_median_pct),
                  Pct(r.error_max_pct), r.steps.size(), r.steps.size() == 1 ? "" : "s");
  std::vector<size_t> order(kPathClassCount);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return r.class_ns[a] > r.class_ns[b]; });
  for (size_t k = 0; k < 3 && r.class_ns[order[k]] > 0 && r.critical_path_ns > 0; ++k) {
    if (k > 0) text += ", ";
    text += fmt::format("{} {}", PathClassName(static_cast<PathClass>(order[k])),
                        Pct(100.0 * static_cast<double>(r.class_ns[order[k]]) /
                            static_cast<double>(r.critical_path_ns)));
  }
  return text;
}

}  // namespace gpuwhy::report
