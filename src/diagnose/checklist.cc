#include "diagnose/checklist.h"

#include <fmt/format.h>

#include <algorithm>

#include "diagnose/capture.h"

namespace gpuwhy {
namespace {

void AppendUnique(std::string& text, const std::string& part) {
  if (part.empty() || text.find(part) != std::string::npos) return;
  if (!text.empty()) text += "; ";
  text += part;
}

// An item backed by the catalog rules that name it: its status and text come from their
// outcomes.
ChecklistItem FromRules(ChecklistSection section, std::string title, const Catalog& catalog,
                        const Diagnosis& d) {
  std::vector<std::string> rule_ids = catalog.ChecklistRules(Checklist::kTrace, title);
  ChecklistItem item{section, std::move(title),   AssessStatus::kAssessed, "", "",
                     "",      std::move(rule_ids)};
  int assessed = 0, not_assessed = 0;
  std::string found;
  for (const std::string& id : item.rule_ids) {
    auto it = std::find_if(d.outcomes.begin(), d.outcomes.end(),
                           [&](const RuleOutcome& o) { return o.rule_id == id; });
    if (it == d.outcomes.end()) continue;
    if (it->fired) AppendUnique(found, id);
    if (it->status == AssessStatus::kAssessed) {
      ++assessed;
      continue;
    }
    it->status == AssessStatus::kNotAssessed ? ++not_assessed : ++assessed;
    AppendUnique(item.missing, it->note);
    if (const RuleSpec* spec = catalog.Find(id)) AppendUnique(item.command, spec->capture_command);
  }
  if (not_assessed > 0) {
    item.status = assessed > 0 ? AssessStatus::kPartly : AssessStatus::kNotAssessed;
  }
  if (!item.missing.empty() && item.status == AssessStatus::kAssessed) {
    item.status = AssessStatus::kPartly;
  }
  if (!found.empty()) {
    item.detail = "findings: " + found;
  } else if (item.status == AssessStatus::kNotAssessed) {
    item.detail = "not assessed: see what is missing";
  } else {
    item.detail = item.status == AssessStatus::kPartly ? "nothing found in what could be checked"
                                                       : "nothing found";
  }
  return item;
}

ChecklistItem Baseline(const Trace& trace, const Diagnosis& d) {
  ChecklistItem item{ChecklistSection::kBaseline,
                     "device, steps and step time",
                     AssessStatus::kAssessed,
                     "",
                     "",
                     "",
                     {}};
  std::string device = "unknown GPU";
  if (!trace.devices.rows.empty()) device = std::string(trace.Str(trace.devices.rows[0].name));
  if (device.empty()) device = "unknown GPU";
  item.detail = fmt::format("{} analysed step(s), mean {:.2f} ms, {} device(s): {}", d.step_count,
                            NsToMs(d.step_ns), trace.active_devices().size(), device);
  if (d.step_ns == 0 || trace.active_devices().empty()) {
    item.status = AssessStatus::kNotAssessed;
    item.missing = "GPU activity (the trace has no GPU op)";
    item.command = kCaptureProfilerSchedule;
    return item;
  }
  if (d.steps_synthesized) {
    item.status = AssessStatus::kPartly;
    item.missing = "ProfilerStep markers (prof.step() each iteration)";
    item.command = kCaptureProfilerSchedule;
  } else if (trace.devices.rows.empty()) {
    item.status = AssessStatus::kPartly;
    item.missing = "device properties (GPU model, memory, SMs)";
    item.command =
        "a recent PyTorch (>= 1.13) records deviceProperties; " + std::string(kCaptureDoctor);
  }
  return item;
}

ChecklistItem Timeline(const TraceAnalysis& a, const Diagnosis& d) {
  ChecklistItem item{ChecklistSection::kTimeline,
                     "GPU idle time and what fills the gaps",
                     AssessStatus::kAssessed,
                     "",
                     "",
                     "",
                     {}};
  if (!a.utilization.valid || d.step_ns == 0) {
    item.status = AssessStatus::kNotAssessed;
    item.missing = "GPU activity (the trace has no GPU op)";
    item.command = kCaptureProfilerSchedule;
    return item;
  }
  item.detail = fmt::format("kernel utilization {:.1f}%, GPU idle {:.2f} ms per step ({:.1f}%)",
                            a.utilization.rank.kernel_pct, NsToMs(d.idle_ns_per_step),
                            100.0 * d.idle_ns_per_step / d.step_ns);
  item.missing = "live utilization and SM activity over the whole run";
  item.command = kCaptureLiveMetrics;
  item.status = AssessStatus::kPartly;
  return item;
}

// Which efficiency sources the trace had, their numbers, and how to capture the others.
void AddEfficiencySources(const TraceAnalysis& a, ChecklistItem& item) {
  std::vector<std::string> seen;
  if (a.sm_efficiency.valid && a.sm_efficiency.est_sm_efficiency_pct) {
    seen.push_back(fmt::format("est. SM efficiency {:.1f}% (launch arguments)",
                               *a.sm_efficiency.est_sm_efficiency_pct));
  }
  if (a.flops.mfu_pct) {
    seen.push_back(
        fmt::format("MFU {:.1f}% ({})", *a.flops.mfu_pct, PrecisionName(*a.flops.precision)));
  } else if (a.flops.valid) {
    seen.push_back("FLOPs without a device peak");
  } else {
    AppendUnique(item.missing, "op shapes or with_flops (FLOPs, MFU)");
    AppendUnique(item.command, kCaptureFlops);
  }
  if (a.profiled_kernels.profiles > 0) {
    seen.push_back(fmt::format("Nsight Compute classes for {:.0f}% of kernel time",
                               a.profiled_kernels.classified_time_pct));
  } else {
    AppendUnique(item.missing, "measured per-kernel throughput (Nsight Compute)");
    AppendUnique(item.command, kCaptureNcu);
  }
  if (a.gpu_metrics.valid && a.gpu_metrics.rank.sm_active_pct) {
    seen.push_back(fmt::format("SM active {:.1f}% ({})", *a.gpu_metrics.rank.sm_active_pct,
                               a.gpu_metrics.source));
  } else {
    AppendUnique(item.missing,
                 "sampled SM activity (Nsight Systems GPU_METRICS, or a timestamped DCGM log "
                 "beside the trace)");
    AppendUnique(item.command, kCaptureGpuMetrics);
  }
  if (!seen.empty()) {
    item.detail += fmt::format("; sources: {}", fmt::join(seen, ", "));
  }
  if (!item.missing.empty() && item.status == AssessStatus::kAssessed) {
    item.status = AssessStatus::kPartly;
  }
}

bool HasPython(const Trace& trace) {
  return std::find(trace.cpu_slices.kind.begin(), trace.cpu_slices.kind.end(),
                   CpuSliceKind::kPython) != trace.cpu_slices.kind.end();
}

}  // namespace

std::vector<ChecklistItem> BuildChecklist(const Trace& trace, const TraceAnalysis& analysis,
                                          const Catalog& catalog, const Diagnosis& d) {
  std::vector<ChecklistItem> items;
  items.push_back(Baseline(trace, d));
  items.push_back(
      FromRules(ChecklistSection::kBaseline, "capture covers the steady state", catalog, d));
  items.push_back(Timeline(analysis, d));
  items.push_back(
      FromRules(ChecklistSection::kTimeline, "periodic stalls and long gaps", catalog, d));
  items.push_back(
      FromRules(ChecklistSection::kInputAndCpu, "DataLoader wait and input copies", catalog, d));
  ChecklistItem host = FromRules(ChecklistSection::kInputAndCpu, "host-bound gaps", catalog, d);
  if (!HasPython(trace) && d.step_ns > 0) {
    host.status = AssessStatus::kPartly;
    AppendUnique(host.missing, "Python frames naming the host hot spots");
    AppendUnique(host.command, kCaptureWithStack);
  }
  items.push_back(std::move(host));
  ChecklistItem comm = FromRules(ChecklistSection::kCommunication,
                                 "exposed communication, overlap and bus bandwidth", catalog, d);
  if (trace.rank.world_size > 1 && comm.status == AssessStatus::kAssessed) {
    comm.status = AssessStatus::kPartly;
    AppendUnique(comm.missing, "the other ranks' traces (stragglers, late arrivals)");
    AppendUnique(comm.command, kCaptureEveryRank);
  }
  items.push_back(std::move(comm));
  items.push_back(
      FromRules(ChecklistSection::kKernelsAndSync, "launch overhead and sync points", catalog, d));
  ChecklistItem efficiency =
      FromRules(ChecklistSection::kKernelsAndSync, "kernel efficiency", catalog, d);
  if (analysis.utilization.valid) AddEfficiencySources(analysis, efficiency);
  items.push_back(std::move(efficiency));
  items.push_back(
      FromRules(ChecklistSection::kMemoryAndModel, "memory capacity and allocator", catalog, d));
  items.push_back(FromRules(ChecklistSection::kMemoryAndModel, "GEMM sizes and batch", catalog, d));
  items.push_back(FromRules(ChecklistSection::kPlatform, kPlatformChecklistItem, catalog, d));
  std::stable_sort(items.begin(), items.end(),
                   [](const auto& a, const auto& b) { return a.section < b.section; });
  return items;
}

}  // namespace gpuwhy
