// Quality rules: what the capture itself cannot show. quality.warmup_dominated says when a
// trace holds initialisation instead of the steady state (the warm-up analysis finds the
// one-off events; the step extents leave warm-up steps out), so no per-step cost is claimed
// from a one-off event and the user learns how to capture the steady state instead.
#include <fmt/format.h>

#include <array>

#include "diagnose/capture.h"
#include "diagnose/trace_rules/trace_rules.h"

namespace gpuwhy {
namespace {

constexpr const char* kWarmup = "quality.warmup_dominated";
constexpr const char* kTooLittle = "quality.too_little_gpu_work";

constexpr ParamRef kWarmupMinSharePct{kWarmup, "min_share_pct"};
constexpr ParamRef kWarmupMinCaptureMs{kWarmup, "min_capture_ms"};
constexpr ParamRef kTooLittleMinKernels{kTooLittle, "min_kernels"};
constexpr std::array<const ParamRef*, 3> kQualityRulesParams = {&kWarmupMinSharePct, &kWarmupMinCaptureMs,
                                                    &kTooLittleMinKernels};

// MTIA's device events (mtia_ccp_events) are command-processor records: HTA reads them as
// kernels, but their spans are not kernel executions, so idle and busy on them are not the
// device's (the expert verdicts label such traces not applicable).
bool DeviceTimelineNotKernels(const RuleContext& ctx) {
  return ctx.trace.metadata.vendor == GpuVendor::kMtia;
}
constexpr const char* kMtiaReason =
    "MTIA device events (mtia_ccp_events) are command-processor records, not kernel "
    "executions: device idle, warm-up and per-step costs are not judged from them";

bool TooLittleGpuWork(const RuleContext& ctx) {
  return ctx.busy.kernel_count > 0 &&
         static_cast<double>(ctx.busy.kernel_count) < ctx.catalog.Get(kTooLittleMinKernels).value;
}

// torch.profiler.schedule that skips what this capture spent in warm-up.
std::string ScheduleFor(const StepExtents& e) {
  size_t warm = e.steady_state ? e.warmup.size() : e.warmup.size() + e.steps.size();
  int64_t wait = 1 + static_cast<int64_t>(warm);
  return fmt::format(
      "torch.profiler.profile(..., schedule=torch.profiler.schedule(wait={}, warmup=2, "
      "active=5), on_trace_ready=torch.profiler.tensorboard_trace_handler('./traces')) as "
      "prof: ... call prof.step() once per training step",
      wait);
}

void AddCauseEvidence(RuleContext& ctx, Finding& f) {
  const WarmupResult& w = ctx.analysis.warmup;
  for (size_t c = 0; c < kWarmupCauseCount; ++c) {
    if (w.ns_by_cause[c] <= 0) continue;
    std::string id = fmt::format("warmup.{}_ms", WarmupCauseName(static_cast<WarmupCause>(c)));
    ctx.AddMetricEvidence(f, id, ">", 0, nullptr);
  }
  for (const OneOffEvent& e : w.events) {
    if (f.ranges.size() >= ctx.options.max_ranges) break;
    f.ranges.push_back({"one_off", -1, -1, e.range.start, e.range.end,
                        fmt::format("{}: {} ({:.1f} ms)", WarmupCauseName(e.cause), e.name,
                                    NsToMs(e.range.length()))});
    f.top_events.push_back(e.name);
  }
}

// Why the capture holds no steady state, for the title.
std::string NoSteadyStateReason(const RuleContext& ctx) {
  const StepExtents& e = ctx.analysis.steps.extents;
  if (e.synthesized || e.steps.empty()) {
    return fmt::format("one-off set-up fills {:.0f}% of a capture without ProfilerStep",
                       ctx.metrics.ValueOr("warmup.share_pct", 0));
  }
  if (e.steps.size() == 1) {
    return fmt::format("its only step, ProfilerStep#{}, is warm-up", e.steps.front().number);
  }
  return fmt::format("all {} captured steps are warm-up", e.steps.size());
}

void WarmupDominated(RuleContext& ctx) {
  const WarmupResult& w = ctx.analysis.warmup;
  const StepExtents& e = ctx.analysis.steps.extents;
  if (w.capture.length() <= 0 || ctx.trace.active_devices().empty()) {
    // A capture without GPU work has no steady state to miss (the checklist says so).
    ctx.Outcome(kWarmup, AssessStatus::kNotAssessed, false, "the trace holds no GPU op");
    return;
  }
  if (DeviceTimelineNotKernels(ctx)) {
    ctx.Outcome(kWarmup, AssessStatus::kNotAssessed, false, kMtiaReason);
    return;
  }
  const RuleParam& min_capture = ctx.catalog.Get(kWarmupMinCaptureMs);
  if (TooLittleGpuWork(ctx) && NsToMs(w.capture.length()) < min_capture.value) {
    // A fixture of a few kernels in a few milliseconds: its first launch is no warm-up worth
    // a verdict (quality.too_little_gpu_work says what it is). Seconds of context set-up
    // around a few kernels still are.
    ctx.Outcome(kWarmup, AssessStatus::kNotAssessed, false,
                fmt::format("a {:.1f} ms capture with too little GPU work: no warm-up to judge",
                            NsToMs(w.capture.length())));
    return;
  }
  const RuleSpec& spec = ctx.catalog.Spec(kWarmup);
  const RuleParam& min_share = ctx.catalog.Get(kWarmupMinSharePct);
  double share = ctx.metrics.ValueOr("warmup.share_pct", 0);
  bool steady = e.steady_state;
  if (steady && (e.warmup.empty() || share < min_share.value)) {
    ctx.Outcome(kWarmup, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = ctx.Start(spec);
  f.confidence = Confidence::kHigh;
  f.severity = steady ? Severity::kLow : Severity::kHigh;
  RuleContext::AddEvidence(f, "warmup.share_pct", share, unit::kPercent, ">=", min_share.value,
                           &min_share);
  ctx.AddMetricEvidence(f, "warmup.capture_ms", ">", 0, nullptr);
  ctx.AddMetricEvidence(f, "warmup.one_off_ms", ">", 0, nullptr);
  ctx.AddMetricEvidence(f, "warmup.steps_excluded", ">=", 0, nullptr);
  AddCauseEvidence(ctx, f);
  if (!f.fixes.empty()) f.fixes.front().code = ScheduleFor(e);
  std::string reason =
      steady
          ? fmt::format("per-step numbers use the {} steady-state step(s) after it", e.steps.size())
          : NoSteadyStateReason(ctx);
  ctx.Emit(std::move(f),
           {{"share", share}, {"capture_ms", NsToMs(w.capture.length())}, {"reason", 0, reason}});
}

// A handful of kernels (a unit-test fixture, a docs example, a trimmed trace) says nothing about
// a job: per-step rules would turn its gaps into a verdict.
void TooLittle(RuleContext& ctx) {
  if (ctx.busy.kernel_count == 0) {
    ctx.Outcome(kTooLittle, AssessStatus::kNotAssessed, false, "the trace holds no kernel");
    return;
  }
  if (!TooLittleGpuWork(ctx)) {
    ctx.Outcome(kTooLittle, AssessStatus::kAssessed, false);
    return;
  }
  const RuleParam& min_kernels = ctx.catalog.Get(kTooLittleMinKernels);
  Finding f = ctx.Start(ctx.catalog.Spec(kTooLittle));
  f.confidence = Confidence::kHigh;
  RuleContext::AddEvidence(f, "diagnose.kernels_in_window",
                           static_cast<double>(ctx.busy.kernel_count), unit::kCount, "<",
                           min_kernels.value, &min_kernels);
  RuleContext::AddEvidence(f, "diagnose.kernel_ms_in_window", NsToMs(ctx.busy.kernel_ns), unit::kMs,
                           ">", 0, nullptr);
  ctx.Emit(std::move(f), {{"kernels", static_cast<double>(ctx.busy.kernel_count)},
                          {"kernel_ms", NsToMs(ctx.busy.kernel_ns)}});
}

}  // namespace

std::string WhyNoPerStepVerdict(const RuleContext& ctx) {
  if (ctx.trace.active_devices().empty()) return "";  // the rules say what they cannot assess
  if (DeviceTimelineNotKernels(ctx)) return kMtiaReason;
  if (TooLittleGpuWork(ctx)) return "too little GPU work to judge (quality.too_little_gpu_work)";
  if (!ctx.analysis.steps.extents.steady_state) {
    return "no steady state in the capture (quality.warmup_dominated)";
  }
  return "";
}

void EvaluateQualityRules(RuleContext& ctx) {
  WarmupDominated(ctx);
  TooLittle(ctx);
}

std::span<const ParamRef* const> QualityRuleParams() { return kQualityRulesParams; }

std::vector<RuleSpec> QualityRuleSpecs() {
  std::vector<RuleSpec> rules;
  rules.push_back(RuleSpec{
      .id = kWarmup,
      .bottleneck_class = BottleneckClass::kQuality,
      .section = ChecklistSection::kBaseline,
      .default_severity = Severity::kHigh,
      .severity_logic = "high when the capture holds no steady-state step (every per-step rule "
                        "is then left unassessed); low when warm-up steps were left out but "
                        "fill at least min_share_pct of the capture",
      .title_template = "warm-up fills {share:.0f}% of the {capture_ms:.0f} ms capture: "
                        "{reason}",
      .recoverable_logic = "none: warm-up is paid once per job, not per step",
      .params = {{"min_share_pct", 50, "%",
                  "gpuwhy, after HTA and the PyTorch profiler docs: profile after warm-up "
                  "(schedule wait/warmup)",
                  "warm-up share of the capture at or above this fires when a steady state "
                  "remains"},
                 {"min_capture_ms", 5, "ms",
                  "gpuwhy: a capture of a few ms holding a handful of kernels is a unit-test "
                  "fixture (HTA's trace_file_list: 4 kernels in 1.6 ms); a 9.6 ms one whose "
                  "first launch loads modules for 6.5 ms is still a warm-up capture",
                  "with fewer than quality.too_little_gpu_work's min_kernels, a capture "
                  "shorter than this is not judged for warm-up"}},
      .fixes = {{"Profile the steady state: skip the first iterations with a schedule", ""},
                {"Run a few iterations before the profiler starts (lazy CUDA init, cuDNN "
                 "autotuning, torch.compile and DataLoader workers happen once)",
                 "for _ in range(3): train_step(next(it)); torch.cuda.synchronize()"},
                {"Keep persistent DataLoader workers so later epochs skip start-up",
                 "DataLoader(ds, num_workers=8, persistent_workers=True)"}},
      .verify = "warmup.share_pct falls below 50 and step.count reaches 3 or more",
      .needs = "a trace with host runtime calls (any torch.profiler capture)",
      .capture_command = kCaptureProfilerSchedule,
      .checklist = {{Checklist::kTrace, "capture covers the steady state"}},
  });
  rules.push_back(RuleSpec{
      .id = kTooLittle,
      .bottleneck_class = BottleneckClass::kQuality,
      .section = ChecklistSection::kBaseline,
      .default_severity = Severity::kLow,
      .severity_logic = "fixed at low: says what the capture cannot show; every per-step rule "
                        "is then left unassessed",
      .title_template = "too little GPU work to judge: {kernels:.0f} kernel(s), {kernel_ms:.3f} ms "
                        "of kernel time in the analysed window",
      .recoverable_logic = "none: a verdict needs a representative capture",
      .params = {{"min_kernels", 20, "count",
                  "gpuwhy: a training or inference step runs hundreds of kernels; fixtures "
                  "and docs examples run a handful",
                  "kernels in the analysed window below this fire"}},
      .fixes = {{"Capture several real steps of the job", ""},
                {"Profile the steady state with a schedule", kCaptureProfilerSchedule}},
      .verify = "diagnose.kernels_in_window reaches 20 or more",
      .needs = "a trace with kernels",
      .capture_command = kCaptureProfilerSchedule,
      .checklist = {{Checklist::kTrace, "capture covers the steady state"}},
  });
  return rules;
}

}  // namespace gpuwhy
