// Rules over every rank at once. Each reads the CrossRankResult only; thresholds come from
// the catalog (comm.straggler and comm.poor_scaling here, comm.exposed and
// comm.low_bus_bandwidth in trace_rules/comm_rules.cc).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "diagnose/capture.h"
#include "diagnose/cross_rank_rules.h"
#include "diagnose/finding_builder.h"
#include "diagnose/outcome_recorder.h"
#include "diagnose/rule_family.h"
#include "diagnose/shared_params.h"

namespace gpuwhy {
namespace {

constexpr const char* kStraggler = "comm.straggler";
constexpr const char* kScaling = "comm.poor_scaling";
constexpr const char* kExposed = "comm.exposed";
constexpr const char* kBusBw = "comm.low_bus_bandwidth";

constexpr ParamRef kStragglerMinLatePct{kStraggler, "min_late_pct"};
constexpr ParamRef kStragglerMinWaitStepPct{kStraggler, "min_wait_step_pct"};
constexpr ParamRef kScalingMinEfficiency{kScaling, "min_efficiency"};
constexpr ParamRef kScalingFourGpuMinSpeedup{kScaling, "four_gpu_min_speedup"};
constexpr std::array<const ParamRef*, 4> kStragglerAndScalingParams = {
    &kStragglerMinLatePct, &kStragglerMinWaitStepPct, &kScalingMinEfficiency,
    &kScalingFourGpuMinSpeedup};

class JobRules {
 public:
  JobRules(const CrossRankResult& r, const DiagnoseOptions& o, Diagnosis& d)
      : result(r), options(o), out(d) {}

  const CrossRankResult& result;
  const DiagnoseOptions& options;
  Diagnosis& out;

  const RuleSpec& Spec(std::string_view id) const { return options.catalog.Spec(id); }
  const RuleParam& Param(const ParamRef& param) const { return options.catalog.Get(param); }
  double PctOfStep(double ns) const {
    return out.step_ns > 0 ? 100.0 * ns / static_cast<double>(out.step_ns) : 0;
  }

  Finding Start(const char* id) const {
    Finding f = StartFinding(Spec(id), Confidence::kHigh);
    f.step_ns = out.step_ns;
    return f;
  }

  static void Evidence(Finding& f, std::string id, double value, std::string unit, const char* cmp,
                       double threshold, const RuleParam* param) {
    AddEvidence(f, Metric{std::move(id), MetricScope{}, value, std::move(unit)}, cmp, threshold,
                param);
  }

  void Emit(Finding f, std::initializer_list<TitleArg> args, const std::string& suffix,
            bool by_share) {
    f.title =
        FormatTitle(Spec(f.id), std::span<const TitleArg>(args.begin(), args.size())) + suffix;
    if (by_share) {
      f.severity =
          std::max(f.severity == Severity::kHigh ? Severity::kHigh : Severity::kInfo,
                   SeverityForShare(PctOfStep(static_cast<double>(f.recoverable_ns_per_step)),
                                    options.bands));
    }
    Outcome(f.id, AssessStatus::kAssessed, true, "");
    out.findings.push_back(std::move(f));
  }

  void Outcome(const std::string& id, AssessStatus status, bool fired, std::string note) {
    RecordOutcome(out.outcomes, OutcomeMerge::kAppend, id, status, fired, std::move(note));
  }
};

std::string CauseText(const StragglerStats& s) {
  if (s.cause == "compute") {
    std::string text =
        fmt::format("; cause: its computation before the collective takes {:.3f} ms longer",
                    NsToMs(s.compute_delta_ns));
    if (s.same_kernels_ratio > 0) {
      text += fmt::format(" and the same kernels run {:.0f}% {} than on its peers",
                          std::abs(s.same_kernels_ratio - 1) * 100,
                          s.same_kernels_ratio >= 1 ? "slower" : "faster");
    }
    return text + " (slow GPU)";
  }
  if (s.cause == "input_wait") {
    return fmt::format("; cause: it waits {:.3f} ms longer for input before the collective",
                       NsToMs(s.input_wait_delta_ns));
  }
  if (s.cause == "step_start") {
    return fmt::format("; cause: it starts the step {:.3f} ms late", NsToMs(s.step_start_delta_ns));
  }
  return fmt::format("; cause: {:.3f} ms more host time before the collective",
                     NsToMs(s.host_delta_ns));
}

void Straggler(JobRules& j) {
  if (j.result.collectives.empty()) {
    j.Outcome(kStraggler, AssessStatus::kNotAssessed, false,
              "no collective matched across two ranks or more");
    return;
  }
  const RuleParam& min_late = j.Param(kStragglerMinLatePct);
  const RuleParam& min_wait = j.Param(kStragglerMinWaitStepPct);
  double others = std::max<double>(1, static_cast<double>(j.result.rank_count - 1));
  bool fired = false;
  for (const StragglerStats& s : j.result.stragglers) {
    double late_pct = 100.0 * s.late_fraction;
    // The wait each other rank loses per step: what the job's step shrinks by.
    double wait_per_rank = static_cast<double>(s.others_wait_ns_per_step) / others;
    double wait_pct = j.PctOfStep(wait_per_rank);
    if (s.late_count == 0 || late_pct < min_late.value || wait_pct <= min_wait.value) continue;
    Finding f = j.Start(kStraggler);
    f.rank = s.rank;
    f.recoverable_ns_per_step = std::llround(wait_per_rank);
    f.confidence = s.collectives >= 4 ? Confidence::kHigh : Confidence::kMedium;
    JobRules::Evidence(f, "ranks.late_pct", late_pct, unit::kPercent, ">=", min_late.value,
                       &min_late);
    JobRules::Evidence(f, "ranks.wait_step_pct", wait_pct, unit::kPercent, ">", min_wait.value,
                       &min_wait);
    JobRules::Evidence(f, "ranks.mean_late_ms", NsToMs(s.mean_late_ns), unit::kMs, ">", 0, nullptr);
    JobRules::Evidence(f, "ranks.compute_delta_ms", NsToMs(s.compute_delta_ns), unit::kMs, ">=", 0,
                       nullptr);
    JobRules::Evidence(f, "ranks.input_wait_delta_ms", NsToMs(s.input_wait_delta_ns), unit::kMs,
                       ">=", 0, nullptr);
    JobRules::Evidence(f, "ranks.step_start_delta_ms", NsToMs(s.step_start_delta_ns), unit::kMs,
                       ">=", 0, nullptr);
    JobRules::Evidence(f, "ranks.host_delta_ms", NsToMs(s.host_delta_ns), unit::kMs, ">=", 0,
                       nullptr);
    if (s.same_kernels_ratio > 0) {
      JobRules::Evidence(f, "ranks.same_kernels_ratio", s.same_kernels_ratio, unit::kRatio, ">=", 0,
                         nullptr);
    }
    f.top_events = s.slowest_kernels;
    // The catalog orders fixes compute, input, host; the one for this cause goes first.
    size_t first = s.cause == "compute" ? 0 : s.cause == "input_wait" ? 1 : 2;
    if (first < f.fixes.size())
      std::rotate(f.fixes.begin(), f.fixes.begin() + static_cast<ptrdiff_t>(first),
                  f.fixes.begin() + static_cast<ptrdiff_t>(first) + 1);
    j.Emit(std::move(f),
           {{"rank", static_cast<double>(s.rank)},
            {"late_pct", late_pct},
            {"late_ms", NsToMs(s.mean_late_ns)},
            {"wait_ms", wait_per_rank / kNsPerMs}},
           CauseText(s), true);
    fired = true;
  }
  if (!fired) j.Outcome(kStraggler, AssessStatus::kAssessed, false, "");
}

void Scaling(JobRules& j) {
  const ScalingResult& s = j.result.scaling;
  if (!s.present) {
    j.Outcome(kScaling, AssessStatus::kNotAssessed, false,
              "no --baseline-single run to compare with");
    return;
  }
  const RuleParam& min_eff = j.Param(kScalingMinEfficiency);
  const RuleParam& four = j.Param(kScalingFourGpuMinSpeedup);
  bool four_gpu_low = s.ranks == 4 && s.speedup < four.value;
  if (s.efficiency >= min_eff.value && !four_gpu_low) {
    j.Outcome(kScaling, AssessStatus::kAssessed, false, "");
    return;
  }
  Finding f = j.Start(kScaling);
  double target_ms =
      s.single_step_ms / min_eff.value;  // the step time that would meet the threshold
  f.recoverable_ns_per_step =
      std::max<DurationNs>(0, std::llround((s.multi_step_ms - target_ms) * kNsPerMs));
  f.severity = s.efficiency < min_eff.value ? Severity::kHigh : Severity::kMedium;
  JobRules::Evidence(f, "ranks.scaling_efficiency", s.efficiency, unit::kRatio, "<", min_eff.value,
                     &min_eff);
  JobRules::Evidence(f, "ranks.speedup", s.speedup, unit::kRatio,
                     four_gpu_low ? "<" : ">=", four_gpu_low ? four.value : 0,
                     four_gpu_low ? &four : nullptr);
  std::string suffix = four_gpu_low ? "; 4 GPUs below 2.5x points at communication" : "";
  j.Emit(std::move(f),
         {{"ranks", static_cast<double>(s.ranks)},
          {"speedup", s.speedup},
          {"eff", 100 * s.efficiency}},
         suffix, false);
}

// comm.exposed over all ranks: the median rank's exposed communication per step (a job is as
// slow as its ranks together; the max rank is in the evidence).
void Exposed(JobRules& j) {
  const RuleParam& min_pct = j.Param(kExposedMinStepPct);
  const RuleParam& dominant = j.Param(kExposedDominantPct);
  const RankSpread& e = j.result.comm_exposed_ms;
  double pct = j.PctOfStep(e.median * kNsPerMs);
  if (j.result.ranks.empty() || pct <= min_pct.value) {
    j.Outcome(kExposed, AssessStatus::kAssessed, false, "");
    return;
  }
  Finding f = j.Start(kExposed);
  f.recoverable_ns_per_step = std::llround(e.median * kNsPerMs);
  JobRules::Evidence(f, "ranks.comm_exposed_step_pct", pct, unit::kPercent, ">", min_pct.value,
                     &min_pct);
  JobRules::Evidence(f, "ranks.comm_exposed_ms_max", e.max, unit::kMs, ">=", 0, nullptr);
  JobRules::Evidence(f, "ranks.comm_exposed_ms_min", e.min, unit::kMs, ">=", 0, nullptr);
  std::string suffix = fmt::format(" (median over {} ranks; rank {} most, {:.3f} ms)",
                                   j.result.rank_count, e.max_rank, e.max);
  Severity floor = pct >= dominant.value ? Severity::kHigh : Severity::kInfo;
  f.severity = floor;
  j.Emit(std::move(f), {{"ms", e.median}, {"pct", pct}}, suffix, true);
}

// comm.low_bus_bandwidth over all ranks: bus bandwidth of the matched collectives measured
// from the last arrival (waiting for a straggler is not slow transfer).
void BusBandwidth(JobRules& j) {
  const RuleParam& min_bw = j.Param(kBusBwMinBusbwGbps);
  const RuleParam& min_bytes = j.Param(kBusBwMinMessageBytes);
  double bus_bytes = 0;
  double ns = 0;
  double bytes = 0;
  for (const MatchedCollective& m : j.result.collectives) {
    if (m.bytes < min_bytes.value || m.busbw_gbps <= 0) continue;
    bus_bytes += m.busbw_gbps * static_cast<double>(m.transfer_ns);
    ns += static_cast<double>(m.transfer_ns);
    bytes += static_cast<double>(m.bytes);
  }
  if (ns <= 0) {
    j.Outcome(kBusBw, AssessStatus::kNotAssessed, false,
              "no matched collective with a recorded size >= min_message_bytes");
    return;
  }
  double busbw = bus_bytes / ns;
  double threshold = j.result.link_peak_gbps > 0 ? 0.5 * j.result.link_peak_gbps : min_bw.value;
  if (busbw >= threshold) {
    j.Outcome(kBusBw, AssessStatus::kAssessed, false, "");
    return;
  }
  Finding f = j.Start(kBusBw);
  f.severity = Severity::kMedium;
  f.confidence = j.result.link_peak_gbps > 0 ? Confidence::kHigh : Confidence::kMedium;
  JobRules::Evidence(f, "ranks.busbw_gbps", busbw, unit::kGBps, "<", threshold,
                     j.result.link_peak_gbps > 0 ? nullptr : &min_bw);
  double steps = 0;
  for (const CrossRankRow& r : j.result.ranks)
    steps = std::max(steps, static_cast<double>(r.steps));
  std::string suffix = fmt::format(
      " (all ranks, from the last arrival{})",
      j.result.link_peak_gbps > 0 ? fmt::format("; link peak {:.0f} GB/s", j.result.link_peak_gbps)
                                  : "");
  j.Emit(std::move(f), {{"busbw", busbw}, {"bytes_mb", bytes / std::max(1.0, steps) / 1e6}}, suffix,
         false);
}

// comm.straggler and comm.poor_scaling exist only over every rank.
std::span<const ParamRef* const> StragglerAndScalingParams() { return kStragglerAndScalingParams; }

std::vector<RuleSpec> StragglerAndScalingSpecs() {
  std::vector<RuleSpec> rules;
  rules.push_back(RuleSpec{
      .id = "comm.straggler",
      .bottleneck_class = BottleneckClass::kCommunication,
      .section = ChecklistSection::kCommunication,
      .default_severity = Severity::kMedium,
      .severity_logic = "recoverable share of step",
      .title_template = "rank {rank:.0f} arrives last at {late_pct:.0f}% of collectives, "
                        "{late_ms:.3f} ms after the others' median; the other ranks lose "
                        "{wait_ms:.3f} ms per step waiting",
      .recoverable_logic = "per step, what the late rank's lateness over the second-latest rank "
                           "adds to every collective it delays (the job's step shrinks by it "
                           "when the rank keeps pace)",
      .params = {{"min_late_pct", 50, "%",
                  "gpuwhy: by chance a rank is last at 1/N of the collectives",
                  "the rank arrives decisively last at at least this share of its collectives"},
                 {"min_wait_step_pct", 2, "%", "gpuwhy",
                  "the other ranks' wait for it, per rank and step, above this share of step"}},
      .fixes = {{"If its computation is slower on the same kernels: check that GPU",
                 "nvidia-smi -q -d CLOCK,PERFORMANCE,TEMPERATURE -i <gpu>  # throttling, a "
                 "lower clock, ECC errors; swap the node out"},
                {"If it waits longer for input: give its loader the same resources",
                 "DataLoader(ds, num_workers=8, pin_memory=True)  # and a local copy of its shard"},
                {"If it starts steps late or its host is busier: look at that host",
                 "top -H -p <pid>  # another process, CPU frequency, NUMA placement"},
                {"If the work is uneven across ranks: balance it",
                 "equal-sized shards / bucket sequence lengths so each rank does the same work"}},
      .verify = "the rank's late share and the others' wait per step fall; step time spread "
                "narrows",
      .needs = "the traces (or summaries) of at least two ranks with matching collectives",
      .capture_command = kCaptureEveryRank,
  });
  rules.push_back(RuleSpec{
      .id = "comm.poor_scaling",
      .bottleneck_class = BottleneckClass::kCommunication,
      .section = ChecklistSection::kCommunication,
      .default_severity = Severity::kMedium,
      .severity_logic = "high below min_efficiency, else medium",
      .title_template = "{ranks:.0f} GPUs run {speedup:.2f}x one GPU's throughput: {eff:.0f}% "
                        "scaling efficiency",
      .recoverable_logic =
          "step time above single-GPU step time × N / (N × min_efficiency), per step",
      .params = {{"min_efficiency", 0.7, "ratio",
                  "field rule: data-parallel scaling below 70% needs a look",
                  "scaling efficiency below this fires"},
                 {"four_gpu_min_speedup", 2.5, "ratio",
                  "field rule: 4 GPUs below 2.5x points at communication",
                  "with 4 GPUs, a speed-up below this points at communication"}},
      .fixes = {{"Hide communication under backward", "DDP(model, bucket_cap_mb=25)"},
                {"Communicate less often", "gradient accumulation; larger per-GPU batch"},
                {"Check the fabric", "NCCL_DEBUG=INFO; all_reduce_perf -b 8M -e 1G -f 2"}},
      .verify = "scaling efficiency rises toward 1",
      .needs = "--baseline-single TRACE: a one-GPU run of the same model and per-GPU batch",
      .capture_command = "profile the same script on one GPU and pass it with --baseline-single",
  });
  return rules;
}

// The cross-rank rules, in evaluation order; comm.exposed and comm.low_bus_bandwidth are
// specified by the trace rules (trace_rules/comm_rules.cc).
constexpr std::array<RuleFamily<JobRules>, 4> kCrossRankRules = {{
    {StragglerAndScalingSpecs, Straggler, StragglerAndScalingParams},
    {nullptr, Exposed},
    {nullptr, BusBandwidth},
    {nullptr, Scaling},
}};

}  // namespace

Diagnosis DiagnoseCrossRank(const CrossRankResult& result, const DiagnoseOptions& options) {
  Diagnosis d;
  d.rank = -1;
  d.step_ns = std::llround(result.step_time_ms.median * kNsPerMs);
  for (const CrossRankRow& r : result.ranks) d.step_count = std::max(d.step_count, r.steps);
  JobRules j(result, options, d);
  EvaluateAll(std::span<const RuleFamily<JobRules>>(kCrossRankRules), j);
  RankFindings(d.findings);
  d.notes = result.warnings;
  return d;
}

std::vector<RuleSpec> CrossRankRuleSpecs() {
  return SpecsOf(std::span<const RuleFamily<JobRules>>(kCrossRankRules));
}

std::vector<const ParamRef*> CrossRankParamRefs() {
  return ParamRefsOf(std::span<const RuleFamily<JobRules>>(kCrossRankRules));
}

}  // namespace gpuwhy
