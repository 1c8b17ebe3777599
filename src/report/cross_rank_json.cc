// The cross-rank view as the "cross_rank" member of the JSON report: every collective with
// every rank's aligned arrival (what the HTML heat map and the merged trace read).
#include "report/cross_rank_report.h"
#include "report/diagnosis_sections.h"

namespace gpuwhy {
namespace {

using report::WriteOptionalInt;

void WriteSpread(JsonWriter& w, std::string_view key, const RankSpread& s) {
  w.Key(key);
  w.BeginObject();
  w.Field("min", s.min);
  w.Field("median", s.median);
  w.Field("max", s.max);
  WriteOptionalInt(w, "min_rank", s.min_rank);
  WriteOptionalInt(w, "max_rank", s.max_rank);
  w.EndObject();
}

void WriteRow(JsonWriter& w, const CrossRankRow& r) {
  w.BeginObject();
  WriteOptionalInt(w, "rank", r.rank);
  w.Field("path", r.path);
  w.Field("device", r.device);
  w.Field("steps", r.steps);
  w.Field("step_median_ms", r.step_median_ms);
  w.Field("step_mean_ms", r.step_mean_ms);
  w.Field("kernel_pct", r.kernel_pct);
  w.Field("comm_pct", r.comm_pct);
  w.Field("memcpy_pct", r.memcpy_pct);
  w.Field("host_pct", r.host_pct);
  w.Field("idle_pct", r.idle_pct);
  w.Field("top_idle_cause", r.top_idle_cause);
  w.Field("top_idle_cause_pct", r.top_idle_cause_pct);
  w.Field("comm_exposed_ms_per_step", r.comm_exposed_ms_per_step);
  w.Field("top_finding", r.top_finding);
  w.EndObject();
}

void WriteCollective(JsonWriter& w, const MatchedCollective& m) {
  w.BeginObject();
  WriteOptionalInt(w, "step", m.step);
  w.Field("kind", m.kind);
  w.Field("process_group", m.process_group);
  w.Field("ordinal", m.ordinal);
  w.Field("first_arrival_ns", m.first_arrival);
  w.Field("last_arrival_ns", m.last_arrival);
  WriteOptionalInt(w, "late_rank", m.late_rank);
  w.Field("late_by_ns", m.late_by_ns);
  w.Field("late_vs_second_ns", m.late_vs_second_ns);
  w.Field("total_wait_ns", m.total_wait_ns);
  w.Field("transfer_ns", m.transfer_ns);
  WriteOptionalInt(w, "bytes", m.bytes);
  WriteOptionalInt(w, "group_size", m.group_size);
  w.Field("busbw_gbps", m.busbw_gbps);
  w.Key("arrivals");
  w.BeginArray();
  for (const CollectiveArrival& a : m.arrivals) {
    w.BeginObject();
    w.Field("rank", a.rank);
    w.Field("arrival_ns", a.arrival);
    w.Field("end_ns", a.end);
    w.Field("wait_ns", a.wait_ns);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void WriteStraggler(JsonWriter& w, const StragglerStats& s) {
  w.BeginObject();
  w.Field("rank", s.rank);
  w.Field("collectives", s.collectives);
  w.Field("late_count", s.late_count);
  w.Field("late_fraction", s.late_fraction);
  w.Field("mean_late_ns", s.mean_late_ns);
  w.Field("others_wait_ns_per_step", s.others_wait_ns_per_step);
  w.Field("step_start_delta_ns", s.step_start_delta_ns);
  w.Field("compute_delta_ns", s.compute_delta_ns);
  w.Field("input_wait_delta_ns", s.input_wait_delta_ns);
  w.Field("host_delta_ns", s.host_delta_ns);
  w.Field("cause", s.cause);
  w.Field("same_kernels_ratio", s.same_kernels_ratio);
  w.Key("slowest_kernels");
  w.BeginArray();
  for (const std::string& k : s.slowest_kernels) w.String(k);
  w.EndArray();
  w.EndObject();
}

}  // namespace

void WriteCrossRankJson(JsonWriter& w, const CrossRankReport& report, size_t top_n) {
  (void)top_n;  // every collective is written: the HTML heat map reads them all
  const CrossRankResult& r = report.result;
  w.BeginObject();
  w.Field("rank_count", r.rank_count);
  WriteOptionalInt(w, "world_size", r.world_size);
  WriteOptionalInt(w, "reference_rank", r.reference_rank);
  w.Key("diagnosis");
  w.BeginObject();
  report::WriteDiagnosisJson(w, report.diagnosis);
  w.EndObject();
  w.Key("warnings");
  w.BeginArray();
  for (const std::string& s : r.warnings) w.String(s);
  w.EndArray();
  WriteSpread(w, "step_time_ms", r.step_time_ms);
  WriteSpread(w, "comm_exposed_ms_per_step", r.comm_exposed_ms);
  w.Key("ranks");
  w.BeginArray();
  for (const CrossRankRow& row : r.ranks) WriteRow(w, row);
  w.EndArray();
  w.Key("clocks");
  w.BeginArray();
  for (const RankClock& c : r.clocks) {
    w.BeginObject();
    w.Field("rank", c.rank);
    w.Field("aligned", c.aligned);
    w.Field("offset_ns", c.offset_ns);
    w.Field("uncertainty_ns", c.uncertainty_ns);
    w.Field("matched", c.matched);
    w.EndObject();
  }
  w.EndArray();
  w.Field("max_skew_ns", r.max_skew_ns);
  w.Field("max_uncertainty_ns", r.max_uncertainty_ns);
  w.Key("collectives");
  w.BeginArray();
  for (const MatchedCollective& m : r.collectives) WriteCollective(w, m);
  w.EndArray();
  w.Field("unmatched_kernels", r.unmatched_kernels);
  w.Key("stragglers");
  w.BeginArray();
  for (const StragglerStats& s : r.stragglers) WriteStraggler(w, s);
  w.EndArray();
  w.Field("busbw_median_gbps", r.busbw_median_gbps);
  w.Field("link_peak_gbps", r.link_peak_gbps);
  w.Key("scaling");
  w.BeginObject();
  w.Field("present", r.scaling.present);
  w.Field("ranks", r.scaling.ranks);
  w.Field("single_step_ms", r.scaling.single_step_ms);
  w.Field("multi_step_ms", r.scaling.multi_step_ms);
  w.Field("speedup", r.scaling.speedup);
  w.Field("efficiency", r.scaling.efficiency);
  w.EndObject();
  w.EndObject();
}

}  // namespace gpuwhy
