// Input rules: the GPU waits for data (DataLoader) or for host-to-device copies.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "analyze/host_activity.h"
#include "diagnose/capture.h"
#include "diagnose/trace_rules/trace_rules.h"

namespace gpuwhy {
namespace {

constexpr const char* kDataLoader = "input.dataloader_wait";
constexpr const char* kPageable = "input.pageable_copies";
constexpr const char* kH2d = "input.h2d_in_critical_path";

constexpr ParamRef kDataLoaderMinStepPct{kDataLoader, "min_step_pct"};
constexpr ParamRef kDataLoaderHighPct{kDataLoader, "high_pct"};
constexpr ParamRef kPageableMinStepPct{kPageable, "min_step_pct"};
constexpr ParamRef kH2dMinStepPct{kH2d, "min_step_pct"};
constexpr std::array<const ParamRef*, 4> kInputRulesParams = {&kDataLoaderMinStepPct, &kDataLoaderHighPct,
                                                    &kPageableMinStepPct, &kH2dMinStepPct};

bool NoGpuWork(RuleContext& ctx, const char* id) {
  if (ctx.step_ns > 0 && !ctx.trace.active_devices().empty()) return false;
  ctx.Outcome(id, AssessStatus::kNotAssessed, false, "no GPU ops inside analysed steps");
  return true;
}

// A trace without GPU work (a CPU-only PyTorch, the legacy profiler's export) still has the
// host's steps: a DataLoader that holds most of each one is the finding, GPU or not. What
// workers give back is the DataLoader's share of the host step (no GPU idle to measure).
void HostOnlyDataLoaderWait(RuleContext& ctx) {
  if (ctx.step_ns <= 0 || ctx.analysis.steps.extents.synthesized) {
    ctx.Outcome(kDataLoader, AssessStatus::kNotAssessed, false,
                "no GPU ops and no ProfilerStep: no host step to assess");
    return;
  }
  const RuleParam& min_pct = ctx.catalog.Get(kDataLoaderMinStepPct);
  const RuleParam& high_pct = ctx.catalog.Get(kDataLoaderHighPct);
  double dataloader_pct = ctx.metrics.ValueOr("step.dataloader_pct", 0);
  if (dataloader_pct <= min_pct.value) {
    ctx.Outcome(kDataLoader, AssessStatus::kAssessed, false,
                "host side only: the trace has no GPU ops");
    return;
  }
  Finding f = ctx.Start(ctx.catalog.Spec(kDataLoader));
  f.recoverable_ns_per_step =
      static_cast<DurationNs>(dataloader_pct / 100 * static_cast<double>(ctx.step_ns));
  f.confidence = Confidence::kMedium;  // workers hide loading only behind the step's own work
  ctx.AddMetricEvidence(f, "step.dataloader_pct", ">", min_pct.value, &min_pct);
  ctx.AddMetricEvidence(f, "step.time_ms", ">", 0, nullptr);
  Severity floor = dataloader_pct >= high_pct.value ? Severity::kHigh : Severity::kInfo;
  ctx.Emit(std::move(f), {}, floor);
  // The catalog's title speaks of GPU idle, which a host-only trace cannot show.
  ctx.out.findings.back().title = fmt::format(
      "The DataLoader takes {:.1f} ms per step ({:.0f}%) of the host's step (no GPU work in "
      "the trace)",
      NsToMs(ctx.out.findings.back().recoverable_ns_per_step), dataloader_pct);
}

// The main thread waits on worker processes (_MultiProcessingDataLoaderIter): the loader has
// workers already, and they cannot keep up.
bool WaitsOnWorkers(const Trace& trace) {
  for (size_t i = 0; i < trace.cpu_slices.size(); ++i) {
    std::string_view name = trace.Str(trace.cpu_slices.name[i]);
    if (IsDataLoaderName(name) && name.find("MultiProcessing") != std::string_view::npos)
      return true;
  }
  return false;
}

void DataLoaderWait(RuleContext& ctx) {
  if (ctx.trace.active_devices().empty()) {
    HostOnlyDataLoaderWait(ctx);
    return;
  }
  if (NoGpuWork(ctx, kDataLoader)) return;
  const RuleSpec& spec = ctx.catalog.Spec(kDataLoader);
  const RuleParam& min_pct = ctx.catalog.Get(kDataLoaderMinStepPct);
  const RuleParam& high_pct = ctx.catalog.Get(kDataLoaderHighPct);
  double dataloader_pct = ctx.metrics.ValueOr("step.dataloader_pct", 0);
  double idle_pct = ctx.PctOfStep(ctx.IdleLeft(IdleCause::kInputWait));
  if (std::max(dataloader_pct, idle_pct) <= min_pct.value) {
    ctx.Outcome(kDataLoader, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = ctx.Start(spec);
  f.recoverable_ns_per_step = static_cast<DurationNs>(
      ctx.ClaimIdle(IdleCause::kInputWait, ctx.IdleLeft(IdleCause::kInputWait)));
  ctx.AddMetricEvidence(f, "step.dataloader_pct", ">", min_pct.value, &min_pct);
  ctx.AddMetricEvidence(f, "idle.input_wait_pct", ">", min_pct.value, &min_pct);
  ctx.AddMetricEvidence(f, "idle.input_wait_ms_per_step", ">", 0, nullptr);
  ctx.AddIdleEvidence(f, IdleCause::kInputWait);
  // DataLoader time that does not leave the GPU idle is not recoverable by this fix.
  if (f.recoverable_ns_per_step == 0) f.confidence = Confidence::kLow;
  if (!f.fixes.empty() && WaitsOnWorkers(ctx.trace)) {
    f.fixes.front().action =
        "The loader already has workers (_MultiProcessingDataLoaderIter) and they cannot keep "
        "up: raise num_workers toward the cores per GPU, prefetch deeper, keep them alive, "
        "and time one worker's __getitem__ (decode, augment) to make it cheaper";
    f.fixes.front().code =
        "DataLoader(ds, batch_size=..., num_workers=<more>, pin_memory=True, "
        "persistent_workers=True, prefetch_factor=4)";
  }
  if (f.recoverable_ns_per_step == 0) {
    // The loader's time overlaps GPU work (workers, prefetch): step.dataloader_pct and the
    // input-wait idle disagree because nothing waits on it. Say so; claim nothing.
    ctx.Emit(std::move(f), {});
    Finding& out = ctx.out.findings.back();
    out.severity = Severity::kLow;
    out.title = fmt::format(
        "The DataLoader takes {:.0f}% of the host's step, but the GPU keeps working meanwhile: "
        "no GPU idle waits on it (idle.input_wait_pct {:.1f}%)",
        dataloader_pct, idle_pct);
    return;
  }
  Severity floor =
      std::max(dataloader_pct, ctx.PctOfStep(f.recoverable_ns_per_step)) >= high_pct.value
          ? Severity::kHigh
          : Severity::kInfo;
  ctx.Emit(std::move(f), {}, floor);
}

// Host-to-device copies not hidden under kernels: pageable ones (pinning fixes them) and the
// rest (prefetching fixes them). The two sets are disjoint, so their times add up.
void CopyRule(RuleContext& ctx, const char* id, const ParamRef& min_step_pct,
              DurationNs exposed_total, const std::vector<EvidenceRange>& ranges, bool pageable) {
  if (NoGpuWork(ctx, id)) return;
  if (ctx.analysis.sync_copies.copies.empty()) {
    ctx.Outcome(id, AssessStatus::kAssessed, false, "no GPU copies in the trace");
    return;
  }
  const RuleSpec& spec = ctx.catalog.Spec(id);
  const RuleParam& min_pct = ctx.catalog.Get(min_step_pct);
  double per_step = ctx.PerStep(static_cast<double>(exposed_total));
  double pct = ctx.PctOfStep(per_step);
  if (pct < min_pct.value || per_step <= 0) {
    ctx.Outcome(id, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = ctx.Start(spec);
  f.recoverable_ns_per_step = static_cast<DurationNs>(per_step);
  RuleContext::AddEvidence(
      f, pageable ? "diagnose.pageable_h2d_exposed_step_pct" : "diagnose.h2d_exposed_step_pct", pct,
      unit::kPercent, ">=", min_pct.value, &min_pct);
  if (pageable) {
    ctx.AddMetricEvidence(f, "copy.pageable_bytes", ">", 0, nullptr);
    ctx.AddMetricEvidence(f, "copy.pageable_count", ">", 0, nullptr);
  }
  for (const CopyStats& c : ctx.analysis.sync_copies.copies) {
    if (c.direction != CopyDirection::kHostToDevice || c.gbps <= 0) continue;
    RuleContext::AddEvidence(f, "copy.htod_gbps", c.gbps, unit::kGBps, ">", 0, nullptr);
    f.evidence.back().metric.scope = MetricScope::Device(c.device);
  }
  f.ranges = ranges;
  for (const EvidenceRange& r : ranges) {
    if (std::find(f.top_events.begin(), f.top_events.end(), r.label) == f.top_events.end()) {
      f.top_events.push_back(r.label);
    }
  }
  ctx.Emit(std::move(f), {});
}

}  // namespace

void EvaluateInputRules(RuleContext& ctx) {
  DataLoaderWait(ctx);
  CopyRule(ctx, kPageable, kPageableMinStepPct, ctx.busy.pageable_h2d_exposed_ns,
           ctx.busy.pageable_ranges, true);
  CopyRule(ctx, kH2d, kH2dMinStepPct, ctx.busy.pinned_h2d_exposed_ns, ctx.busy.pinned_ranges,
           false);
}

std::span<const ParamRef* const> InputRuleParams() { return kInputRulesParams; }

// input.*: the GPU waits for data. Texts follow docs/knowledge.md §1; thresholds name their source.
std::vector<RuleSpec> InputRuleSpecs() {
  std::vector<RuleSpec> rules;
  rules.push_back(RuleSpec{
      .id = "input.dataloader_wait",
      .bottleneck_class = BottleneckClass::kInput,
      .section = ChecklistSection::kInputAndCpu,
      .default_severity = Severity::kMedium,
      .severity_logic = "recoverable share of step; at least high when the DataLoader takes "
                        ">= high_pct of the step",
      .title_template = "GPU idles {ms:.1f} ms per step ({pct:.0f}%) waiting for the DataLoader",
      .recoverable_logic = "idle time attributed to input_wait (idle.input_wait_*)",
      .params = {{"min_step_pct", 5, "%", "TensorBoard plugin: DataLoader > 5% of step",
                  "DataLoader time or input-wait idle above this share of step fires"},
                 {"high_pct", 20, "%",
                  "TensorFlow profiler: input >= 20% of step is highly input-bound",
                  "severity is at least high above this share"}},
      .fixes =
          {{"Load batches in worker processes (4-8 per GPU; never 0), keep them alive and "
            "prefetching",
            "DataLoader(ds, batch_size=..., num_workers=8, pin_memory=True, "
            "persistent_workers=True, prefetch_factor=4)"},
           {"Copy pinned batches asynchronously",
            "x = x.to(device, non_blocking=True); y = y.to(device, non_blocking=True)"},
           {"Move decoding/tokenization/resizing offline, into workers or onto the GPU",
            "pre-tokenize to id files; NVIDIA DALI or torchvision.transforms.v2 on GPU tensors"},
           {"Pack small files into large sequential shards or cache on local NVMe",
            "WebDataset / TFRecord shards, numpy.memmap; read each rank's shard from local "
            "disk"}},
      .verify = "idle.input_wait_pct and step.dataloader_pct fall toward 0; util.kernel_pct and "
                "step.time_ms improve",
      .needs = "ProfilerStep markers and the DataLoader's __next__ spans (default torch.profiler)",
      .capture_command = kCaptureProfilerSchedule,
      .checklist = {{Checklist::kTrace, "DataLoader wait and input copies"}},
  });
  rules.push_back(RuleSpec{
      .id = "input.pageable_copies",
      .bottleneck_class = BottleneckClass::kInput,
      .section = ChecklistSection::kInputAndCpu,
      .default_severity = Severity::kLow,
      .severity_logic = "recoverable share of step",
      .title_template = "{ms:.1f} ms per step ({pct:.0f}%) of host-to-device copies from pageable "
                        "memory, not overlapped with compute",
      .recoverable_logic = "host-to-device copies from pageable memory not overlapped with "
                           "computation or communication kernels, per step",
      .params = {{"min_step_pct", 1, "%",
                  "gpuwhy: exposed pageable copies >= 1% of step (pageable async copies are "
                  "synchronous, docs/knowledge.md §1)",
                  "exposed pageable copy time above this share of step fires"}},
      .fixes = {{"Pin host buffers so copies run asynchronously at full PCIe speed",
                 "DataLoader(..., pin_memory=True)  # or tensor.pin_memory()"},
                {"Issue the copy without blocking and overlap it with the previous step",
                 "x = x.to(device, non_blocking=True)"},
                {"Prefetch the next batch on a side stream",
                 "with torch.cuda.stream(copy_stream): nxt = next(it).to(device, "
                 "non_blocking=True)"}},
      .verify = "copy.htod_pageable_bytes falls to 0 and copy.htod_gbps rises",
      .needs = "GPU memcpy records with their memory kinds (default torch.profiler, CUDA)",
      .capture_command = kCaptureProfilerSchedule,
      .checklist = {{Checklist::kTrace, "DataLoader wait and input copies"}},
  });
  rules.push_back(RuleSpec{
      .id = "input.h2d_in_critical_path",
      .bottleneck_class = BottleneckClass::kInput,
      .section = ChecklistSection::kInputAndCpu,
      .default_severity = Severity::kLow,
      .severity_logic = "recoverable share of step",
      .title_template = "{ms:.1f} ms per step ({pct:.0f}%) of host-to-device copies run while no "
                        "kernel does",
      .recoverable_logic = "pinned (or unknown-kind) host-to-device copies not overlapped with "
                           "computation or communication kernels, per step",
      .params = {{"min_step_pct", 2, "%", "gpuwhy: exposed host-to-device copies >= 2% of step",
                  "exposed copy time above this share of step fires"}},
      .fixes = {{"Overlap the copy with compute: copy the next batch while this one trains",
                 "with torch.cuda.stream(copy_stream): nxt = batch.to(device, non_blocking=True)"},
                {"Send less: keep data uint8/bf16 on the host and convert on the GPU",
                 "x = x_uint8.to(device, non_blocking=True).float().div_(255)"},
                {"Keep static tensors (embeddings tables, masks) resident on the GPU", ""}},
      .verify = "copy.htod_ms inside steps stays, but idle and step.memcpy_pct fall",
      .needs = "GPU memcpy records (default torch.profiler)",
      .capture_command = kCaptureProfilerSchedule,
      .checklist = {{Checklist::kTrace, "DataLoader wait and input copies"}},
  });
  return rules;
}

}  // namespace gpuwhy
