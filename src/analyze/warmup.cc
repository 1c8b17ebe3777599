#include "analyze/warmup.h"

#include <algorithm>
#include <limits>
#include <span>
#include <unordered_map>
#include <unordered_set>

#include "analyze/host_activity.h"
#include "analyze/runtime_calls.h"
#include "analyze/step_breakdown.h"

namespace gpuwhy {
namespace {

// Calls whose first invocation creates the context or per-process objects. Names after the
// runtime prefix ("cudaStreamCreateWithFlags" -> "StreamCreateWithFlags").
bool IsSetupCall(std::string_view name) {
  for (std::string_view prefix : {"cuda", "hip", "cu"}) {
    if (!name.starts_with(prefix)) continue;
    std::string_view rest = name.substr(prefix.size());
    for (std::string_view setup :
         {"DeviceGetStreamPriorityRange", "GetDeviceProperties", "SetDevice", "GetDeviceCount",
          "StreamCreate", "EventCreate", "Init", "CtxCreate", "DevicePrimaryCtxRetain",
          "ModuleLoad", "LibraryLoad", "ModuleGetFunction", "FuncGetAttributes"}) {
      if (rest.starts_with(setup)) return true;
    }
    return false;
  }
  return false;
}

DurationNs Median(std::vector<DurationNs> values) {
  if (values.empty()) return 0;
  auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  return *mid;
}

struct Call {
  TimeNs start;  // sorted on from the element, not through the slice table
  size_t row;
};

// Kernel launch calls far slower than the median launch, on the first launch of their kernel:
// the driver loaded the kernel's module. (An async copy or memset call that blocks is waiting
// for pageable memory or the GPU, and a later launch of a known kernel that blocks is waiting
// for room in the launch queue: neither is loading anything.)
void FindModuleLoads(const Trace& trace, const std::vector<RuntimeCallKind>& kinds,
                     const WarmupThresholds& t, std::vector<OneOffEvent>& out) {
  const CpuSliceTable& s = trace.cpu_slices;
  // The kernel is looked up once per launch, and the sort reads the start from the element
  // instead of from the slice table (same comparisons, so the same order as sorting rows).
  struct Launch {
    TimeNs start;
    uint32_t row;
    uint32_t kernel;  // name of the kernel it launched
  };
  std::vector<Launch> launches;
  std::vector<DurationNs> durations;
  for (size_t i = 0; i < s.size(); ++i) {
    if (kinds[i] != RuntimeCallKind::kLaunch) continue;
    std::span<const CorrelatedGpuOp> ops = trace.FindGpuOps(s.correlation[i]);
    if (ops.empty() || trace.gpu_ops.kind[ops.front().op.value] != GpuOpKind::kKernel) continue;
    launches.push_back(
        {s.start[i], static_cast<uint32_t>(i), trace.gpu_ops.name[ops.front().op.value].value});
    durations.push_back(s.end[i] - s.start[i]);
  }
  DurationNs median = Median(durations);
  double floor =
      std::max(static_cast<double>(t.min_call_ns),
               t.module_load_ratio * static_cast<double>(std::max<DurationNs>(median, 1)));
  std::sort(launches.begin(), launches.end(),
            [](const Launch& a, const Launch& b) { return a.start < b.start; });
  std::unordered_set<uint32_t> launched;  // kernel names seen
  for (const Launch& l : launches) {
    size_t i = l.row;
    uint32_t kernel = l.kernel;
    bool first = launched.insert(kernel).second;
    if (!first || static_cast<double>(s.end[i] - s.start[i]) < floor) continue;
    out.push_back(
        {WarmupCause::kModuleLoad, std::string(trace.Str(s.name[i])), {s.start[i], s.end[i]}});
  }
}

// Where the first iteration ends: the first ProfilerStep's end, or the first optimizer step's
// when the capture has no ProfilerStep but repeats one. Setup and allocation calls after it are
// the steady state's own cost (allocator churn), not warm-up.
TimeNs FirstIterationEnd(const Trace& trace) {
  if (!trace.steps.synthesized && !trace.steps.rows.empty())
    return trace.steps.rows.front().host_end;
  const CpuSliceTable& s = trace.cpu_slices;
  TimeNs first_end = std::numeric_limits<TimeNs>::max();
  int optimizer_steps = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!trace.Str(s.name[i]).starts_with("Optimizer.step#")) continue;
    ++optimizer_steps;
    first_end = std::min(first_end, s.end[i]);
  }
  return optimizer_steps >= 2 ? first_end : std::numeric_limits<TimeNs>::max();
}

// The first call of an op (or DataLoader __next__) that is many times its later calls.
void FindFirstCalls(const Trace& trace, const WarmupThresholds& t, std::vector<OneOffEvent>& out) {
  const CpuSliceTable& s = trace.cpu_slices;
  auto counted = [&s](size_t i) {
    return s.kind[i] == CpuSliceKind::kOp || s.kind[i] == CpuSliceKind::kUserAnnotation;
  };
  // Each name's calls, in one array: counted first, then placed in row order. Per-name
  // vectors grown by doubling held up to twice the 16 bytes a call (1 GB trace: tens of MB).
  struct Group {
    size_t begin = 0;
    size_t end = 0;  // a count, then the fill position
  };
  std::unordered_map<uint32_t, Group> by_name;  // the names in the same order as ever
  for (size_t i = 0; i < s.size(); ++i) {
    if (counted(i)) ++by_name[s.name[i].value].end;
  }
  size_t placed = 0;
  for (auto& [name, g] : by_name) {
    g.begin = placed;
    placed += g.end;
    g.end = g.begin;
  }
  std::vector<Call> all(placed);
  for (size_t i = 0; i < s.size(); ++i) {
    if (counted(i)) all[by_name[s.name[i].value].end++] = {s.start[i], i};
  }
  for (auto& [name, g] : by_name) {
    std::span<Call> rows(all.data() + g.begin, g.end - g.begin);
    if (rows.size() < 3) continue;  // a first call needs later calls to compare with
    // The same comparisons as on the rows' starts, so the same order (ties included).
    std::sort(rows.begin(), rows.end(),
              [](const Call& a, const Call& b) { return a.start < b.start; });
    size_t first = rows.front().row;
    std::string_view text = trace.Str(s.name[first]);
    if (text.starts_with("ProfilerStep")) continue;
    bool dataloader = IsDataLoaderName(text);
    std::vector<DurationNs> later;
    later.reserve(rows.size() - 1);
    for (size_t k = 1; k < rows.size(); ++k) {
      later.push_back(s.end[rows[k].row] - rows[k].start);
    }
    DurationNs first_ns = s.end[first] - s.start[first];
    DurationNs min_ns = dataloader ? t.min_dataloader_start_ns : t.min_first_call_ns;
    if (first_ns < min_ns) continue;
    if (static_cast<double>(first_ns) <
        t.first_call_ratio * static_cast<double>(std::max<DurationNs>(Median(later), 1))) {
      continue;
    }
    out.push_back({dataloader ? WarmupCause::kDataLoaderStart : WarmupCause::kFirstCall,
                   std::string(text),
                   {s.start[first], s.end[first]}});
  }
}

// A launch through the driver API: the kernel's module was loaded at run time (JIT compiled by
// TorchScript/nvFuser/NNC, Triton or NVRTC), where library kernels go through the runtime's
// cudaLaunchKernel. hipModuleLaunchKernel and hipExtModuleLaunchKernel are HIP's equivalents.
bool IsModuleLaunch(const CpuSliceTable& s, size_t i, std::string_view name) {
  return s.kind[i] == CpuSliceKind::kDriver || name.find("ModuleLaunchKernel") != name.npos;
}

// The host time before launch |i| in which its thread recorded nothing: the last event start or
// end before it, skipping the ancestors that began within kDispatchNs of it (the op that issues
// the launch). The scan is bounded (kMaxScan rows back): only first launches are scanned.
TimeNs LastHostEventBefore(const CpuSliceTable& s, size_t begin, size_t i, bool& inside_op) {
  constexpr DurationNs kDispatchNs = kNsPerMs;
  constexpr size_t kMaxScan = 4096;
  const TimeNs at = s.start[i];
  TimeNs last = std::numeric_limits<TimeNs>::min();
  inside_op = false;
  size_t scanned = 0;
  for (size_t j = i; j > begin && scanned < kMaxScan; ++scanned) {
    --j;
    if (s.end[j] <= at) {
      last = std::max(last, s.end[j]);
    } else if (at - s.start[j] >= kDispatchNs) {  // an enclosing op that began earlier
      last = std::max(last, s.start[j]);
      inside_op = true;
    }
  }
  return last;
}

// Compilation before a JIT kernel's first launch (WarmupCause::kCompile).
void FindCompiles(const Trace& trace, const std::vector<RuntimeCallKind>& kinds,
                  const WarmupThresholds& t, std::vector<OneOffEvent>& out) {
  const CpuSliceTable& s = trace.cpu_slices;
  std::unordered_set<uint32_t> launched;  // kernel names seen
  for (size_t th = 0; th < trace.threads.size(); ++th) {
    auto [begin, end] = trace.ThreadRows(ThreadId(static_cast<uint32_t>(th)));
    for (size_t i = begin; i < end; ++i) {
      if (kinds[i] != RuntimeCallKind::kLaunch) continue;
      std::span<const CorrelatedGpuOp> ops = trace.FindGpuOps(s.correlation[i]);
      if (ops.empty() || trace.gpu_ops.kind[ops.front().op.value] != GpuOpKind::kKernel) continue;
      if (!launched.insert(trace.gpu_ops.name[ops.front().op.value].value).second) continue;
      if (!IsModuleLaunch(s, i, trace.Str(s.name[i]))) continue;
      bool inside_op = false;
      TimeNs last = LastHostEventBefore(s, begin, i, inside_op);
      if (!inside_op || last == std::numeric_limits<TimeNs>::min()) continue;
      if (s.start[i] - last < t.min_compile_ns) continue;
      out.push_back({WarmupCause::kCompile,
                     std::string(trace.Str(trace.gpu_ops.name[ops.front().op.value])),
                     {last, s.start[i]}});
    }
  }
}

bool NameHas(std::string_view name, std::string_view part) { return name.find(part) != name.npos; }

// Graph capture (WarmupCause::kGraphCapture): each Begin..EndCapture on a thread, the device
// synchronize torch.cuda.graph() makes before it (then gc.collect, empty_cache's frees and the
// RNG state's tiny launches: a sync ending within kCaptureSetupNs of the capture), and
// instantiation.
void FindGraphCaptures(const Trace& trace, const std::vector<RuntimeCallKind>& kinds,
                       std::vector<OneOffEvent>& out) {
  constexpr DurationNs kCaptureSetupNs = 20 * kNsPerMs;
  const CpuSliceTable& s = trace.cpu_slices;
  for (size_t th = 0; th < trace.threads.size(); ++th) {
    auto [begin, end] = trace.ThreadRows(ThreadId(static_cast<uint32_t>(th)));
    TimeNs open = -1;
    Interval last_sync{-1, -1};  // the latest blocking call outside a capture
    for (size_t i = begin; i < end; ++i) {
      if (s.kind[i] != CpuSliceKind::kRuntime && s.kind[i] != CpuSliceKind::kDriver) continue;
      std::string_view name = trace.Str(s.name[i]);
      if (IsBlockingCallKind(kinds[i]) && open < 0) last_sync = {s.start[i], s.end[i]};
      if (NameHas(name, "StreamBeginCapture")) {
        bool setup = last_sync.start >= 0 && s.start[i] - last_sync.end <= kCaptureSetupNs;
        if (open < 0) open = setup ? last_sync.start : s.start[i];
      } else if (NameHas(name, "StreamEndCapture") && open >= 0) {
        out.push_back({WarmupCause::kGraphCapture, "graph capture", {open, s.end[i]}});
        open = -1;
        last_sync = {-1, -1};
      } else if (NameHas(name, "GraphInstantiate") || NameHas(name, "GraphUpload")) {
        out.push_back({WarmupCause::kGraphCapture, std::string(name), {s.start[i], s.end[i]}});
      }
    }
  }
}

// The first replay of a graph uploads it: the capture's first graph launch whose first GPU op
// starts kGraphUploadNs or more after the call returned, with its device running nothing in
// between, waited on the upload (WarmupCause::kGraphCapture). Later replays start at once;
// a capture of one replay cannot tell, and the finding built on it says so.
void FindFirstGraphReplay(const Trace& trace, const std::vector<RuntimeCallKind>& kinds,
                          std::vector<OneOffEvent>& out) {
  constexpr DurationNs kGraphUploadNs = kNsPerMs;
  const CpuSliceTable& s = trace.cpu_slices;
  size_t first = s.size();
  for (size_t i = 0; i < s.size(); ++i) {
    if (kinds[i] == RuntimeCallKind::kGraphLaunch &&
        (first == s.size() || s.start[i] < s.start[first]))
      first = i;
  }
  if (first == s.size()) return;
  std::span<const CorrelatedGpuOp> ops = trace.FindGpuOps(s.correlation[first]);
  if (ops.empty()) return;
  const GpuOpTable& g = trace.gpu_ops;
  size_t op0 = ops.front().op.value;
  for (const CorrelatedGpuOp& op : ops) {
    if (g.start[op.op.value] < g.start[op0]) op0 = op.op.value;
  }
  const TimeNs from = s.end[first], to = g.start[op0];
  if (to - from < kGraphUploadNs) return;
  for (size_t k = 0; k < g.size(); ++k) {  // the device ran nothing else meanwhile
    if (g.device[k] == g.device[op0] && g.start[k] < to && g.end[k] > from) return;
  }
  out.push_back(
      {WarmupCause::kGraphCapture, "first replay of a graph (upload)", {s.start[first], to}});
}

// Resource release after the capture's last launch (WarmupCause::kTeardown).
void FindTeardown(const Trace& trace, const std::vector<RuntimeCallKind>& kinds,
                  std::vector<OneOffEvent>& out) {
  const CpuSliceTable& s = trace.cpu_slices;
  TimeNs last_launch = std::numeric_limits<TimeNs>::min();
  for (size_t i = 0; i < s.size(); ++i) {
    if (kinds[i] == RuntimeCallKind::kLaunch || kinds[i] == RuntimeCallKind::kGraphLaunch)
      last_launch = std::max(last_launch, s.end[i]);
  }
  if (last_launch == std::numeric_limits<TimeNs>::min()) return;
  std::vector<Interval> calls;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.kind[i] != CpuSliceKind::kRuntime && s.kind[i] != CpuSliceKind::kDriver) continue;
    if (s.start[i] < last_launch) continue;
    std::string_view name = trace.Str(s.name[i]);
    bool release = kinds[i] == RuntimeCallKind::kFree || NameHas(name, "Unload") ||
                   NameHas(name, "Destroy") || NameHas(name, "Unmap") ||
                   NameHas(name, "MemRelease") || NameHas(name, "PrimaryCtxRelease");
    if (release) calls.push_back({s.start[i], s.end[i]});
  }
  if (calls.empty()) return;
  // One event for the whole tail: thousands of unload calls are one cause.
  IntervalSet set = IntervalSet::FromUnsorted(std::move(calls));
  out.push_back({WarmupCause::kTeardown,
                 "teardown after the last launch",
                 {set.intervals().front().start, set.intervals().back().end}});
}

// GPU op time inside a step's host range over its length (overlaps counted twice, capped at 1):
// enough to tell a busy step from one whose GPU idles through it.
double GpuBusyShare(const Trace& trace, const StepTable::Row& r) {
  const DurationNs length = r.host_end - r.host_start;
  if (length <= 0) return 0;
  const GpuOpTable& g = trace.gpu_ops;
  DurationNs busy = 0;
  for (size_t k = 0; k < g.size(); ++k) {
    TimeNs a = std::max(g.start[k], r.host_start), b = std::min(g.end[k], r.host_end);
    if (b > a) busy += b - a;
  }
  return std::min(1.0, static_cast<double>(busy) / static_cast<double>(length));
}

// Leading steps that are warm-up: mostly one-off time, the job's first iteration, or an
// outlier against the steps after them.
double OneOffShare(const StepTable::Row& r, const IntervalSet& one_off) {
  Interval host{r.host_start, r.host_end};
  return host.length() > 0
             ? static_cast<double>(one_off.CoveredLength(host)) / static_cast<double>(host.length())
             : 0;
}

size_t LeadingWarmupSteps(const Trace& trace, const IntervalSet& one_off,
                          const WarmupThresholds& t) {
  const auto& rows = trace.steps.rows;
  if (trace.steps.synthesized || rows.empty()) return 0;
  size_t n = 0;
  size_t by_number_only = 0;  // trailing warm steps whose only reason is their number
  while (n < rows.size()) {
    const StepTable::Row& r = rows[n];
    Interval host{r.host_start, r.host_end};
    bool warm = OneOffShare(r, one_off) >= t.step_one_off_share;
    // ProfilerStep#0 and #1 are the first iterations the profiler saw: they hold its own
    // start-up and, without a schedule, the job's. Left out while a later step remains; a
    // number alone never makes the capture's last steps warm-up (below).
    bool number_only = !warm && r.number <= 1;
    if (r.number <= 1) warm = true;
    if (!warm && rows.size() - n >= 3) {
      std::vector<DurationNs> later;
      for (size_t k = n + 1; k < rows.size(); ++k) {
        later.push_back(rows[k].host_end - rows[k].host_start);
      }
      warm = static_cast<double>(host.length()) >=
             t.step_outlier_ratio * static_cast<double>(std::max<DurationNs>(Median(later), 1));
    }
    if (!warm) break;
    by_number_only = number_only ? by_number_only + 1 : 0;
    ++n;
  }
  // Every step warm-up: the trailing ones warm by their number alone (no one-off time found,
  // no outlier) are the steady state after all when their GPU is busy most of the step. No
  // verdict rests on a step's number: a single ProfilerStep#1 that is 99% busy is a steady
  // step; one whose GPU idles through it (a 13 s first call of a compiled function before one
  // tiny kernel) shows initialisation the one-off events did not name.
  while (n == rows.size() && by_number_only > 0 &&
         GpuBusyShare(trace, rows[n - 1]) >= t.steady_busy_share) {
    --n;
    --by_number_only;
  }
  return n;
}

}  // namespace

std::string_view WarmupCauseName(WarmupCause cause) {
  switch (cause) {
    case WarmupCause::kContextSetup: return "context_setup";
    case WarmupCause::kAllocation: return "allocation";
    case WarmupCause::kModuleLoad: return "module_load";
    case WarmupCause::kFirstCall: return "first_call";
    case WarmupCause::kDataLoaderStart: return "dataloader_start";
    case WarmupCause::kCompile: return "compile";
    case WarmupCause::kGraphCapture: return "graph_capture";
    case WarmupCause::kTeardown: return "teardown";
  }
  return "?";
}

std::string_view WarmupCauseDescription(WarmupCause cause) {
  switch (cause) {
    case WarmupCause::kContextSetup: return "CUDA/HIP context, stream and event creation";
    case WarmupCause::kAllocation: return "first device and host allocations";
    case WarmupCause::kModuleLoad: return "lazy module loading on first kernel launches";
    case WarmupCause::kFirstCall:
      return "first calls of ops (cuDNN autotuning, cuBLAS handles, compilation)";
    case WarmupCause::kDataLoaderStart: return "DataLoader worker start-up (first __next__)";
    case WarmupCause::kCompile:
      return "kernel compilation before a JIT kernel's first launch (TorchScript, nvFuser, "
             "Triton)";
    case WarmupCause::kGraphCapture: return "CUDA/HIP graph capture and instantiation";
    case WarmupCause::kTeardown: return "teardown after the last launch (unload, unmap, destroy)";
  }
  return "?";
}

WarmupResult ComputeWarmup(const Trace& trace, const WarmupThresholds& t) {
  WarmupResult r;
  r.capture = trace.span();
  const CpuSliceTable& s = trace.cpu_slices;
  std::vector<RuntimeCallKind> kinds = ClassifyRuntimeCalls(trace);
  TimeNs first_iteration_end = FirstIterationEnd(trace);
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.kind[i] != CpuSliceKind::kRuntime && s.kind[i] != CpuSliceKind::kDriver) continue;
    if (s.end[i] - s.start[i] < t.min_call_ns || s.start[i] >= first_iteration_end) continue;
    std::string_view name = trace.Str(s.name[i]);
    if (kinds[i] == RuntimeCallKind::kAlloc || kinds[i] == RuntimeCallKind::kFree) {
      r.events.push_back({WarmupCause::kAllocation, std::string(name), {s.start[i], s.end[i]}});
    } else if (IsSetupCall(name)) {
      r.events.push_back({WarmupCause::kContextSetup, std::string(name), {s.start[i], s.end[i]}});
    }
  }
  FindModuleLoads(trace, kinds, t, r.events);
  FindFirstCalls(trace, t, r.events);
  FindCompiles(trace, kinds, t, r.events);
  FindGraphCaptures(trace, kinds, r.events);
  FindFirstGraphReplay(trace, kinds, r.events);
  FindTeardown(trace, kinds, r.events);
  std::stable_sort(r.events.begin(), r.events.end(),
                   [](const OneOffEvent& a, const OneOffEvent& b) {
                     return a.range.length() > b.range.length();
                   });
  std::array<std::vector<Interval>, kWarmupCauseCount> by_cause;
  std::vector<Interval> all;
  for (const OneOffEvent& e : r.events) {
    by_cause[static_cast<size_t>(e.cause)].push_back(e.range);
    all.push_back(e.range);
  }
  for (size_t c = 0; c < kWarmupCauseCount; ++c) {
    r.ns_by_cause[c] = IntervalSet::FromUnsorted(std::move(by_cause[c])).TotalLength();
  }
  r.one_off = IntervalSet::FromUnsorted(std::move(all));
  r.one_off_ns = r.one_off.TotalLength();
  r.leading_warmup_steps = LeadingWarmupSteps(trace, r.one_off, t);
  // The same test after the warm-up: one-off work that fills a later step (a recompile in step
  // 6, a teardown inside the last step) makes it no more a steady step than a warm-up one.
  if (!trace.steps.synthesized) {
    for (size_t i = r.leading_warmup_steps; i < trace.steps.rows.size(); ++i) {
      const StepTable::Row& row = trace.steps.rows[i];
      if (OneOffShare(row, r.one_off) >= t.step_one_off_share)
        r.one_off_steps.push_back({row.host_start, row.host_end});
    }
  }
  return r;
}

void AddWarmupMetrics(const WarmupResult& w, const StepExtents& e, MetricSet& metrics) {
  metrics.Add(metric::kWarmupOneOffMs, {}, NsToMs(w.one_off_ns));
  for (size_t c = 0; c < kWarmupCauseCount; ++c) {
    if (w.ns_by_cause[c] <= 0) continue;
    metrics.Add(metric::kWarmupCauseMs, WarmupCauseName(static_cast<WarmupCause>(c)), {},
                NsToMs(w.ns_by_cause[c]));
  }
  DurationNs capture = w.capture.length();
  metrics.Add(metric::kWarmupCaptureMs, {}, NsToMs(capture));
  DurationNs warm = 0;
  if (!e.warmup.empty() && !e.steps.empty()) {
    // The warm-up steps' span, and one-off work after them (a mid-run recompile, teardown).
    Interval after{e.steps.front().window.start, w.capture.end};
    warm = after.start - w.capture.start + w.one_off.CoveredLength(after);
  } else {
    warm = w.one_off_ns;
    if (!e.steady_state && !e.synthesized && !e.steps.empty()) {
      warm = std::max(warm, e.Window().length());
    }
  }
  double share = capture > 0
                     ? 100.0 * static_cast<double>(std::clamp<DurationNs>(warm, 0, capture)) /
                           static_cast<double>(capture)
                     : 0;
  metrics.Add(metric::kWarmupSharePct, {}, share);
  metrics.Add(metric::kWarmupStepsExcluded, {}, static_cast<double>(e.warmup.size()));
}

}  // namespace gpuwhy
