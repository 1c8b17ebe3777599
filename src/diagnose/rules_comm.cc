// Communication rules. comm.exposed owns the exposed time (communication kernels not under
// computation, plus comm_wait idle); comm.low_bus_bandwidth and comm.no_overlap explain it
// and carry no recoverable time of their own, so nothing counts twice.
#include <numeric>

#include "diagnose/rule_context.h"

namespace gpuwhy {
namespace {

constexpr const char* kExposed = "comm.exposed";
constexpr const char* kBusBw = "comm.low_bus_bandwidth";
constexpr const char* kNoOverlap = "comm.no_overlap";

double ExposedPerStep(const RuleContext& ctx) {
  const CommunicationResult& comm = ctx.analysis.communication;
  if (comm.per_step.empty()) return ctx.PerStep(static_cast<double>(comm.rank.exposed));
  double sum = 0;
  for (const CommStepStats& s : comm.per_step) sum += static_cast<double>(s.exposed);
  return sum / static_cast<double>(comm.per_step.size());
}

double CommPerStep(const RuleContext& ctx) {
  const CommunicationResult& comm = ctx.analysis.communication;
  if (comm.per_step.empty()) return ctx.PerStep(static_cast<double>(comm.rank.comm_time));
  double sum = 0;
  for (const CommStepStats& s : comm.per_step) sum += static_cast<double>(s.comm_time);
  return sum / static_cast<double>(comm.per_step.size());
}

void AddCollectiveEvidence(const RuleContext& ctx, Finding& f) {
  std::vector<const CollectiveRecord*> longest;
  for (const CollectiveRecord& c : ctx.analysis.communication.collectives) longest.push_back(&c);
  std::stable_sort(longest.begin(), longest.end(), [](const auto* a, const auto* b) {
    return a->end - a->start > b->end - b->start;
  });
  for (size_t i = 0; i < longest.size() && i < ctx.options.max_ranges; ++i) {
    const CollectiveRecord& c = *longest[i];
    f.ranges.push_back({"collective", c.device, -1, c.start, c.end, c.name});
  }
  for (const CollectiveSummary& s : ctx.analysis.communication.by_collective) {
    f.top_events.push_back(s.name);
  }
}

void Exposed(RuleContext& ctx) {
  const RuleSpec& spec = *ctx.catalog.Find(kExposed);
  const RuleParam* min_pct = spec.FindParam("min_step_pct");
  const RuleParam* dominant = spec.FindParam("dominant_pct");
  double exposed = ExposedPerStep(ctx);
  double wait = ctx.IdleLeft(IdleCause::kCommWait);
  double pct = ctx.PctOfStep(exposed + wait);
  if (pct <= min_pct->value) {
    ctx.Outcome(kExposed, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = ctx.Start(spec);
  f.recoverable_ns_per_step =
      static_cast<DurationNs>(exposed + ctx.ClaimIdle(IdleCause::kCommWait, wait));
  RuleContext::AddEvidence(f, "diagnose.comm_exposed_step_pct", pct, unit::kPercent, ">",
                           min_pct->value, min_pct);
  ctx.AddMetricEvidence(f, "comm.exposed_ms", ">", 0, nullptr);
  ctx.AddMetricEvidence(f, "comm.overlap_pct", ">=", 0, nullptr);
  ctx.AddMetricEvidence(f, "idle.comm_wait_pct", ">=", 0, nullptr);
  AddCollectiveEvidence(ctx, f);
  ctx.AddIdleEvidence(f, IdleCause::kCommWait);
  ctx.Emit(std::move(f), {}, pct >= dominant->value ? Severity::kHigh : Severity::kInfo);
}

void BusBandwidth(RuleContext& ctx) {
  const RuleSpec& spec = *ctx.catalog.Find(kBusBw);
  const RuleParam* min_bw = spec.FindParam("min_busbw_gbps");
  const RuleParam* min_bytes = spec.FindParam("min_message_bytes");
  double bus_bytes = 0;
  double seconds = 0;
  double bytes = 0;
  int64_t sized = 0;
  for (const CollectiveRecord& c : ctx.analysis.communication.collectives) {
    if (c.bytes < min_bytes->value || c.busbw_factor <= 0 || c.end <= c.start) continue;
    ++sized;
    bytes += static_cast<double>(c.bytes);
    bus_bytes += static_cast<double>(c.bytes) * c.busbw_factor;
    seconds += NsToSec(c.end - c.start);
  }
  if (sized == 0 || seconds <= 0) {
    ctx.Outcome(kBusBw, AssessStatus::kNotAssessed, false,
                "no collective with a recorded size >= min_message_bytes (sizes need PyTorch >= "
                "2.1)");
    return;
  }
  double busbw = bus_bytes / seconds / 1e9;
  if (busbw >= min_bw->value) {
    ctx.Outcome(kBusBw, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = ctx.Start(spec);
  f.confidence = Confidence::kMedium;  // no link peak in a trace; a straggler looks the same
  RuleContext::AddEvidence(f, "diagnose.large_collective_busbw_gbps", busbw, unit::kGBps, "<",
                           min_bw->value, min_bw);
  ctx.AddMetricEvidence(f, "comm.busbw_gbps", "<", min_bw->value, min_bw);
  AddCollectiveEvidence(ctx, f);
  double bytes_mb = ctx.PerStep(bytes) * ctx.device_count / 1e6;
  ctx.Emit(std::move(f), {{"busbw", busbw}, {"bytes_mb", bytes_mb}});
}

void NoOverlap(RuleContext& ctx) {
  const RuleSpec& spec = *ctx.catalog.Find(kNoOverlap);
  const RuleParam* max_overlap = spec.FindParam("max_overlap_pct");
  const RuleParam* min_pct = spec.FindParam("min_step_pct");
  double overlap = ctx.analysis.communication.rank.overlap_pct;
  double comm_pct = ctx.PctOfStep(CommPerStep(ctx));
  if (overlap >= max_overlap->value || comm_pct < min_pct->value) {
    ctx.Outcome(kNoOverlap, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = ctx.Start(spec);
  ctx.AddMetricEvidence(f, "comm.overlap_pct", "<", max_overlap->value, max_overlap);
  RuleContext::AddEvidence(f, "diagnose.comm_step_pct", comm_pct, unit::kPercent, ">=",
                           min_pct->value, min_pct);
  AddCollectiveEvidence(ctx, f);
  ctx.Emit(std::move(f), {{"overlap", overlap}});
}

}  // namespace

void EvaluateCommRules(RuleContext& ctx) {
  const CommunicationResult& comm = ctx.analysis.communication;
  if (comm.rank.kernel_count == 0) {
    std::string why = "no communication kernels in the trace";
    if (ctx.trace.rank.world_size > 1) {
      why += " although world size is " + std::to_string(ctx.trace.rank.world_size) +
             " (NCCL kernels not traced?)";
    } else {
      why += " (single-GPU job, or NCCL not traced)";
    }
    for (const char* id : {kExposed, kBusBw, kNoOverlap}) {
      ctx.Outcome(id, AssessStatus::kNotAssessed, false, why);
    }
    return;
  }
  Exposed(ctx);
  BusBandwidth(ctx);
  NoOverlap(ctx);
}

}  // namespace gpuwhy
