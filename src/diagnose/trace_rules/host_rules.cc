// Host rules: periodic stalls (a few slow steps), CPU-bound gaps, DataParallel.
#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <unordered_set>

#include "diagnose/capture.h"
#include "diagnose/trace_rules/trace_rules.h"

namespace gpuwhy {
namespace {

constexpr const char* kStall = "host.periodic_stall";
constexpr const char* kCpuGaps = "host.cpu_bound_gaps";
constexpr const char* kDataParallel = "host.dataparallel";

constexpr ParamRef kStallSlowFactor{kStall, "slow_factor"};
constexpr ParamRef kStallMaxSlowSharePct{kStall, "max_slow_share_pct"};
constexpr ParamRef kStallMinStepPct{kStall, "min_step_pct"};
constexpr ParamRef kStallLongGapMs{kStall, "long_gap_ms"};
constexpr ParamRef kCpuGapsMinStepPct{kCpuGaps, "min_step_pct"};
constexpr ParamRef kDataParallelMinDevices{kDataParallel, "min_devices"};
constexpr std::array<const ParamRef*, 6> kHostRulesParams = {&kStallSlowFactor,   &kStallMaxSlowSharePct,
                                                    &kStallMinStepPct,   &kStallLongGapMs,
                                                    &kCpuGapsMinStepPct, &kDataParallelMinDevices};

void PeriodicStall(RuleContext& ctx) {
  const RuleSpec& spec = ctx.catalog.Spec(kStall);
  const RuleParam& factor = ctx.catalog.Get(kStallSlowFactor);
  const RuleParam& max_share = ctx.catalog.Get(kStallMaxSlowSharePct);
  const RuleParam& min_pct = ctx.catalog.Get(kStallMinStepPct);
  const RuleParam& long_gap = ctx.catalog.Get(kStallLongGapMs);
  const StepBreakdownResult& steps = ctx.analysis.steps;
  if (ctx.trace.active_devices().empty() || ctx.step_ns == 0) {
    ctx.Outcome(kStall, AssessStatus::kNotAssessed, false, "no GPU ops inside analysed steps");
    return;
  }
  // Slow steps: at least slow_factor x the median, and only a few of them.
  double excess = 0;
  int64_t slow = 0;
  std::vector<EvidenceRange> ranges;
  if (steps.steps.size() >= 3 && steps.median_ns > 0) {
    for (const StepCosts& s : steps.steps) {
      if (s.total_ns < factor.value * static_cast<double>(steps.median_ns)) continue;
      ++slow;
      excess += static_cast<double>(s.total_ns - steps.median_ns);
      ranges.push_back({"step", -1, -1, s.window.start, s.window.end,
                        "ProfilerStep#" + std::to_string(s.number)});
    }
    if (100.0 * slow > max_share.value * static_cast<double>(steps.steps.size())) {
      slow = 0;  // most steps are slow: the job is slow, not stalled
      excess = 0;
      ranges.clear();
    }
  }
  // Any idle gap beyond long_gap_ms is a stall, whatever the step count; but a capture without
  // ProfilerStep has nothing to repeat against, and one long gap in it may be a one-off.
  double long_gap_ns = long_gap.value * kNsPerMs;
  int64_t long_gaps = 0;
  double long_gap_total = 0;
  for (const IdleGap& g : ctx.analysis.idle_gaps.top_gaps) {
    if (steps.extents.synthesized) break;
    if (static_cast<double>(g.range.length()) <= long_gap_ns) continue;
    ++long_gaps;
    long_gap_total += static_cast<double>(g.range.length());
    ranges.push_back({"idle_gap", g.device, -1, g.range.start, g.range.end,
                      std::string(IdleCauseName(g.dominant))});
  }
  double want =
      std::max(excess / std::max<int64_t>(1, ctx.step_count), ctx.PerStep(long_gap_total));
  if (slow == 0 && long_gaps == 0) {
    AssessStatus status = steps.steps.size() >= 3 ? AssessStatus::kAssessed : AssessStatus::kPartly;
    ctx.Outcome(kStall, status, false,
                status != AssessStatus::kPartly ? ""
                : steps.extents.synthesized     ? "no ProfilerStep: a stall needs steps to compare"
                                                : "fewer than 3 steps captured");
    return;
  }
  // The stall's cost is GPU idle time in the slow steps; busy slow steps (e.g. evaluation
  // on the GPU) are not a host stall.
  double available =
      std::min(want, ctx.IdleLeft(IdleCause::kStepBoundary) + ctx.IdleLeft(IdleCause::kHostBusy));
  if (ctx.PctOfStep(available) < min_pct.value) {
    ctx.Outcome(kStall, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = ctx.Start(spec);
  // The stall's time is idle time of the slow steps: take it from step_boundary first (a
  // gap spanning a step boundary), then from host_busy (checkpoint, logging, eval on host).
  double got = ctx.ClaimIdle(IdleCause::kStepBoundary, want);
  got += ctx.ClaimIdle(IdleCause::kHostBusy, want - got);
  f.recoverable_ns_per_step = static_cast<DurationNs>(got);
  if (got < 0.5 * want) f.confidence = Confidence::kMedium;
  if (slow > 0) {  // evidence says what fired: a long gap alone fires without slow steps
    RuleContext::AddEvidence(f, "diagnose.slow_steps", static_cast<double>(slow), unit::kCount,
                             ">=", 1, &factor);
    ctx.AddMetricEvidence(f, "step.time_max_ms", ">=", factor.value * NsToMs(steps.median_ns),
                          &factor);
  }
  ctx.AddMetricEvidence(f, "step.time_median_ms", ">", 0, nullptr);
  if (long_gaps > 0) {
    RuleContext::AddEvidence(f, "diagnose.long_idle_gaps", static_cast<double>(long_gaps),
                             unit::kCount, ">", 0, &long_gap);
  }
  f.ranges = std::move(ranges);
  for (const HostNameTime& h : ctx.analysis.idle_gaps.host_busy_top) f.top_events.push_back(h.name);
  ctx.Emit(std::move(f), {{"slow", static_cast<double>(slow)},
                          {"steps", static_cast<double>(steps.steps.size())},
                          {"factor", factor.value}});
}

// The input-preparation fix names work (tokenizers, collate, image/video transforms and decode)
// that must be among the host ops filling the gaps: a fix applies only where the evidence
// shows what it changes (a DDP step's Python, a TensorRT teardown get no tokenizer advice).
constexpr std::string_view kInputPrepFix = "Tokenize ahead of time";
bool LooksLikeInputPreparation(std::string_view name) {
  std::string lower(name.substr(0, 256));
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::string_view w : {"token", "collate", "transform", "processor", "processing_", "decode",
                             "read_video", "pil/", "image", "augment", "resize"}) {
    if (lower.find(w) != std::string::npos) return true;
  }
  return false;
}

void DropInputPrepFixUnlessSeen(Finding& f) {
  for (const std::string& name : f.top_events) {
    if (LooksLikeInputPreparation(name)) return;
  }
  for (auto it = f.fixes.begin(); it != f.fixes.end(); ++it) {
    if (!it->action.starts_with(kInputPrepFix)) continue;
    f.fixes_left_out.push_back(
        {it->action,
         "no input preparation (tokenizer, collate, transforms, decode) among the "
         "host ops in the gaps"});
    f.fixes.erase(it);
    return;
  }
}

void CpuBoundGaps(RuleContext& ctx) {
  const RuleSpec& spec = ctx.catalog.Spec(kCpuGaps);
  const RuleParam& min_pct = ctx.catalog.Get(kCpuGapsMinStepPct);
  double left = ctx.IdleLeft(IdleCause::kHostBusy);
  if (ctx.PctOfStep(left) <= min_pct.value) {
    ctx.Outcome(kCpuGaps, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = ctx.Start(spec);
  f.recoverable_ns_per_step = static_cast<DurationNs>(ctx.ClaimIdle(IdleCause::kHostBusy, left));
  RuleContext::AddEvidence(f, "diagnose.host_busy_idle_step_pct", ctx.PctOfStep(left),
                           unit::kPercent, ">", min_pct.value, &min_pct);
  ctx.AddMetricEvidence(f, "idle.host_busy_pct", ">", min_pct.value, &min_pct);
  ctx.AddMetricEvidence(f, "step.cpu_exec_pct", ">", 0, nullptr);
  ctx.AddIdleEvidence(f, IdleCause::kHostBusy);
  f.top_events.clear();  // the host-busy ranking over all gaps is the better list
  for (const HostNameTime& h : ctx.analysis.idle_gaps.host_busy_top) f.top_events.push_back(h.name);
  DropInputPrepFixUnlessSeen(f);
  ctx.Emit(std::move(f), {});
}

// torch.nn.DataParallel: one process, several GPUs, replicate/scatter/gather every step.
bool UsesDataParallel(const Trace& trace) {
  std::unordered_set<uint32_t> seen;
  for (StringId id : trace.cpu_slices.name) {
    if (!seen.insert(id.value).second) continue;
    std::string_view name = trace.Str(id);
    if (name.find("data_parallel.py") != std::string_view::npos ||
        name.find("nn.parallel") != std::string_view::npos ||
        name.find("ReduceAddCoalesced") != std::string_view::npos || name.find("Broadcast") == 0 ||
        name.find("comm::broadcast_coalesced") == 0) {
      return true;
    }
  }
  return false;
}

void DataParallel(RuleContext& ctx) {
  const RuleSpec& spec = ctx.catalog.Spec(kDataParallel);
  const RuleParam& min_devices = ctx.catalog.Get(kDataParallelMinDevices);
  double devices = static_cast<double>(ctx.trace.active_devices().size());
  if (devices < min_devices.value || !UsesDataParallel(ctx.trace)) {
    ctx.Outcome(kDataParallel, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = ctx.Start(spec);
  f.confidence = Confidence::kMedium;
  RuleContext::AddEvidence(f, "diagnose.devices_per_process", devices, unit::kCount,
                           ">=", min_devices.value, &min_devices);
  ctx.Emit(std::move(f), {{"devices", devices}});
}

}  // namespace

void EvaluateHostRules(RuleContext& ctx) {
  PeriodicStall(ctx);
  CpuBoundGaps(ctx);
  DataParallel(ctx);
}

std::span<const ParamRef* const> HostRuleParams() { return kHostRulesParams; }

// host.*: the CPU cannot keep up (docs/knowledge.md §2).
std::vector<RuleSpec> HostRuleSpecs() {
  std::vector<RuleSpec> rules;
  rules.push_back(RuleSpec{
      .id = "host.cpu_bound_gaps",
      .bottleneck_class = BottleneckClass::kHost,
      .section = ChecklistSection::kInputAndCpu,
      .default_severity = Severity::kLow,
      .severity_logic = "recoverable share of step",
      .title_template = "GPU idles {ms:.1f} ms per step ({pct:.0f}%) while the host runs Python "
                        "or CPU ops",
      .recoverable_logic = "idle time attributed to host_busy, minus what host.periodic_stall and "
                           "memory.allocator_churn claim",
      .params = {{"min_step_pct", 5, "%",
                  "gpuwhy: same 5% floor as the TensorBoard plugin's DataLoader rule",
                  "host-busy idle above this share of step fires"}},
      .fixes = {{"Find the hot spot on the main thread",
                 "py-spy dump --pid <PID>  # or "
                 "torch.profiler(..., with_stack=True)"},
                {"Tokenize ahead of time; fill preallocated tensors in collate instead of Python "
                 "loops",
                 ""},
                {"Move logging/upload and checkpoint serialization to a background thread, and "
                 "do them less often",
                 ""},
                {"Keep DataLoader workers off the main process's cores",
                 "taskset -c 0-3 python train.py  # or worker_init_fn with os.sched_setaffinity"}},
      .verify = "idle.host_busy_pct falls; step.cpu_exec_pct falls",
      .needs = "CPU ops on the launching threads (default torch.profiler); with_stack=True names "
               "the Python frames",
      .capture_command = kCaptureProfilerSchedule,
      .checklist = {{Checklist::kTrace, "host-bound gaps"}},
  });
  rules.push_back(RuleSpec{
      .id = "host.periodic_stall",
      .bottleneck_class = BottleneckClass::kHost,
      .section = ChecklistSection::kInputAndCpu,
      .default_severity = Severity::kLow,
      .severity_logic = "recoverable share of step",
      .title_template = "{slow} of {steps} steps take >= {factor:.1f}x the median step: "
                        "{ms:.1f} ms per step lost to periodic stalls",
      .recoverable_logic = "excess of the slow steps over the median, averaged over all steps, "
                           "capped by step_boundary then host_busy idle time",
      .params = {{"slow_factor", 1.5, "ratio", "gpuwhy: a step >= 1.5x the median is a stall",
                  "a step this much slower than the median is slow"},
                 {"max_slow_share_pct", 34, "%",
                  "gpuwhy: stalls hit a few steps; when more are slow the job is just slow",
                  "fires only when at most this share of steps is slow"},
                 {"min_step_pct", 3, "%", "gpuwhy: excess >= 3% of the mean step",
                  "the slow steps' excess, averaged per step, above this share fires"},
                 {"long_gap_ms", 500, "ms", "field rule: idle gaps > 500 ms",
                  "an idle gap longer than this is a stall even with few steps"}},
      .fixes = {{"Move checkpoint saving to a background thread or process",
                 "torch.distributed.checkpoint.async_save(...)  # or a thread writing a CPU "
                 "state_dict copy"},
                {"Log and upload asynchronously and less often",
                 "if step % 100 == 0: wandb.log(metrics)  # metrics kept on GPU until then"},
                {"Evaluate outside the training loop or in another process", ""}},
      .verify = "step.time_max_ms approaches step.time_median_ms",
      .needs = "at least 3 ProfilerSteps, including a slow one (longer active window)",
      .capture_command = kCaptureProfilerLongSchedule,
      .checklist = {{Checklist::kTrace, "periodic stalls and long gaps"}},
  });
  rules.push_back(RuleSpec{
      .id = "host.dataparallel",
      .bottleneck_class = BottleneckClass::kHost,
      .section = ChecklistSection::kInputAndCpu,
      .default_severity = Severity::kMedium,
      .severity_logic = "fixed at medium: the cost is spread over host and idle causes",
      .title_template = "torch.nn.DataParallel drives {devices} GPUs from one process",
      .recoverable_logic = "not estimated: its cost shows as host_busy and launch_bound idle, "
                           "counted by those findings",
      .params = {{"min_devices", 2, "count",
                  "PyTorch docs: DistributedDataParallel is recommended over DataParallel",
                  "fires when one process drives at least this many GPUs with DataParallel"}},
      .fixes = {{"Use one process per GPU with DistributedDataParallel",
                 "torchrun --nproc_per_node=N train.py; model = DDP(model.to(rank), "
                 "device_ids=[rank])"}},
      .verify = "util.kernel_pct rises on every device; one trace per rank",
      .needs = "CPU ops of the training process",
      .capture_command = kCaptureProfilerSchedule,
      .checklist = {{Checklist::kTrace, "host-bound gaps"}},
  });
  return rules;
}

}  // namespace gpuwhy
