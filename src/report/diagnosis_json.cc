// The diagnosis in the JSON report: the verdict, every finding with all its evidence,
// ranges, events and fixes, the checklist and the notes. docs/report-schema.json.
#include "report/diagnosis_sections.h"

namespace gpuwhy::report {
namespace {

void WriteStrings(JsonWriter& w, std::string_view key, const std::vector<std::string>& list) {
  w.Key(key);
  w.BeginArray();
  for (const std::string& s : list) w.String(s);
  w.EndArray();
}

// A fix's preconditions (docs/fix-preconditions.md): null / false where it applies anywhere.
void WriteFixNeeds(JsonWriter& w, const FixNeeds& n) {
  w.Key("needs");
  w.BeginObject();
  w.Key("vendor");
  if (n.vendor != GpuVendor::kUnknown) {
    w.String(GpuVendorName(n.vendor));
  } else {
    w.Null();
  }
  w.Field("bf16", n.bf16);
  w.Key("job");
  if (n.job != JobKind::kUnknown) {
    w.String(JobKindName(n.job));
  } else {
    w.Null();
  }
  w.Field("fp32_math", n.fp32_math);
  w.Field("adam_optimizer", n.adam_optimizer);
  w.Field("text", DescribeNeeds(n));
  w.EndObject();
}

void WriteJobFacts(JsonWriter& w, const Diagnosis& d) {
  w.Key("job");
  w.BeginObject();
  const JobFacts& j = d.job;
  w.Field("known", d.job_known);
  w.Field("vendor", GpuVendorName(j.vendor));
  w.Field("tensor_cores", LowPrecisionSupportName(j.tensor_cores));
  w.Field("kind", JobKindName(j.kind));
  w.Field("optimizer", OptimizerKindName(j.optimizer));
  w.Field("matmul_precision", MatmulPrecisionName(j.matmul_precision));
  w.FieldOrNull("low_precision_matmul_pct", j.low_precision_matmul_pct >= 0
                                                ? std::optional<double>(j.low_precision_matmul_pct)
                                                : std::nullopt);
  w.EndObject();
}

void WriteFinding(JsonWriter& w, const Finding& f) {
  w.BeginObject();
  w.Field("id", f.id);
  w.Field("class", BottleneckClassName(f.bottleneck_class));
  w.Field("severity", SeverityName(f.severity));
  w.Field("title", f.title);
  w.Key("evidence");
  w.BeginArray();
  for (const FindingEvidence& e : f.evidence) {
    w.BeginObject();
    w.Field("id", e.metric.id);
    WriteMetricScope(w, e.metric.scope);
    w.Field("value", e.metric.value);
    w.Field("unit", e.metric.unit);
    w.Field("comparison", e.comparison);
    w.Field("threshold", e.threshold);
    w.Field("threshold_source", e.threshold_source);
    w.EndObject();
  }
  w.EndArray();
  w.Key("ranges");
  w.BeginArray();
  for (const EvidenceRange& r : f.ranges) {
    w.BeginObject();
    w.Field("kind", r.kind);
    WriteOptionalInt(w, "device", r.device);
    WriteOptionalInt(w, "stream", r.stream);
    w.Field("start_ns", r.start);
    w.Field("end_ns", r.end);
    w.Field("duration_ms", NsToMs(r.end - r.start));
    w.Field("label", r.label);
    w.EndObject();
  }
  w.EndArray();
  WriteStrings(w, "top_events", f.top_events);
  w.Key("quotes");
  w.BeginArray();
  for (const SourceQuote& q : f.quotes) {
    w.BeginObject();
    w.Field("file", q.file);
    w.Field("line", q.line);
    w.Field("text", q.text);
    w.EndObject();
  }
  w.EndArray();
  w.Field("recoverable_ms_per_step", NsToMs(f.recoverable_ns_per_step));
  w.Field("idle_recoverable_ms_per_step", NsToMs(f.idle_recoverable_ns_per_step));
  if (f.replayed_saving_ns_per_step >= 0)
    w.Field("replayed_saving_ms", NsToMs(f.replayed_saving_ns_per_step));
  w.Field("step_ms", NsToMs(f.step_ns));
  w.Field("speedup_upper_bound", f.SpeedupUpperBound());
  w.Field("confidence", ConfidenceName(f.confidence));
  w.Key("fixes");
  w.BeginArray();
  for (const Fix& fix : f.fixes) {
    w.BeginObject();
    w.Field("action", fix.action);
    w.Field("code", fix.code);
    WriteFixNeeds(w, fix.needs);
    w.EndObject();
  }
  w.EndArray();
  w.Key("fixes_left_out");
  w.BeginArray();
  for (const FixLeftOut& fix : f.fixes_left_out) {
    w.BeginObject();
    w.Field("action", fix.action);
    w.Field("why", fix.why);
    w.EndObject();
  }
  w.EndArray();
  w.Field("verify", f.verify);
  w.EndObject();
}

void WriteChecklistItem(JsonWriter& w, const ChecklistItem& item) {
  w.BeginObject();
  w.Field("section", ChecklistSectionName(item.section));
  w.Field("title", item.title);
  w.Field("status", AssessStatusName(item.status));
  w.Field("detail", item.detail);
  w.Field("missing", item.missing);
  w.Field("command", item.command);
  WriteStrings(w, "rules", item.rule_ids);
  w.EndObject();
}

}  // namespace

void WriteDiagnosisJson(JsonWriter& w, const Diagnosis& d) {
  w.Key("verdict");
  w.BeginObject();
  w.Field("step_ms", NsToMs(d.step_ns));
  w.Field("step_count", d.step_count);
  w.Field("steps_synthesized", d.steps_synthesized);
  w.Field("idle_ms_per_step", NsToMs(d.idle_ns_per_step));
  w.Field("finding_count", static_cast<int64_t>(d.findings.size()));
  w.Field("max_severity", SeverityName(d.MaxSeverity()));
  w.EndObject();
  WriteJobFacts(w, d);
  w.Key("findings");
  w.BeginArray();
  for (const Finding& f : d.findings) WriteFinding(w, f);
  w.EndArray();
  w.Key("checklist");
  w.BeginArray();
  for (const ChecklistItem& item : d.checklist) WriteChecklistItem(w, item);
  w.EndArray();
  WriteStrings(w, "notes", d.notes);
}

void WriteOptionalInt(JsonWriter& w, std::string_view key, int64_t value) {
  w.FieldOrNull(key, value, value >= 0);
}

void WriteRooflineJson(JsonWriter& w, const KernelRoofline& r) {
  w.Field("roofline_class", RooflineClassId(r.roofline_class));
  w.Field("rule", r.rule);
  w.FieldOrNull("sm_pct", r.sm_pct);
  w.FieldOrNull("memory_pct", r.memory_pct);
  w.FieldOrNull("dram_pct", r.dram_pct);
  w.FieldOrNull("achieved_occupancy_pct", r.achieved_occupancy_pct);
}

void WriteMetricScope(JsonWriter& w, const MetricScope& scope) {
  w.Key("scope");
  w.BeginObject();
  WriteOptionalInt(w, "rank", scope.rank);
  WriteOptionalInt(w, "device", scope.device);
  WriteOptionalInt(w, "stream", scope.stream);
  WriteOptionalInt(w, "step", scope.step);
  w.EndObject();
}

}  // namespace gpuwhy::report
