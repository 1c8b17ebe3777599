#include "analyze/sync_copies.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

namespace gpuwhy {
namespace {

bool IsScalarRead(std::string_view name) {
  return name == "aten::item" || name == "aten::_local_scalar_dense";
}

// The CPU op that issued |call| (nearest enclosing op, else the nearest annotation that is
// not a ProfilerStep) and whether a scalar read (.item()) encloses it.
void FindIssuer(const Trace& trace, size_t call, BlockingCall& b) {
  const CpuSliceTable& s = trace.cpu_slices;
  std::string_view annotation;
  for (CpuSliceId p = s.parent[call]; p.valid(); p = s.parent[p.value]) {
    std::string_view name = trace.Str(s.name[p.value]);
    if (IsScalarRead(name)) b.scalar_read = true;
    if (s.kind[p.value] == CpuSliceKind::kOp && b.issuer.empty()) b.issuer = std::string(name);
    if (s.kind[p.value] == CpuSliceKind::kUserAnnotation && annotation.empty() &&
        name.substr(0, 12) != "ProfilerStep") {
      annotation = name;
    }
  }
  if (b.issuer.empty()) b.issuer = std::string(annotation);
}

// A cudaMemcpyAsync/hipMemcpyAsync that copies to the host and makes the host wait.
bool IsDtohStall(const Trace& trace, size_t call, bool scalar_read) {
  std::string_view name = trace.Str(trace.cpu_slices.name[call]);
  if (name.find("MemcpyAsync") == std::string_view::npos) return false;
  for (const CorrelatedGpuOp& op : trace.FindGpuOps(trace.cpu_slices.correlation[call])) {
    size_t o = op.op.value;
    if (trace.gpu_ops.copy_direction(o) != CopyDirection::kDeviceToHost) continue;
    if (scalar_read || trace.gpu_ops.dst_kind(o) == MemoryKind::kPageable) return true;
  }
  return false;
}

std::optional<BlockingKind> BlockingKindOf(RuntimeCallKind kind) {
  switch (kind) {
    case RuntimeCallKind::kDeviceSync: return BlockingKind::kDeviceSync;
    case RuntimeCallKind::kStreamSync: return BlockingKind::kStreamSync;
    case RuntimeCallKind::kEventSync: return BlockingKind::kEventSync;
    case RuntimeCallKind::kSyncMemcpy: return BlockingKind::kSyncMemcpy;
    default: return std::nullopt;
  }
}

void CollectBlocking(const AnalysisInput& input, SyncCopiesResult& r) {
  const Trace& trace = input.trace;
  const CpuSliceTable& s = trace.cpu_slices;
  std::vector<RuntimeCallKind> kinds = ClassifyRuntimeCalls(trace);
  for (size_t i = 0; i < s.size(); ++i) {
    std::optional<BlockingKind> kind = BlockingKindOf(kinds[i]);
    if (!kind && kinds[i] != RuntimeCallKind::kLaunch) continue;
    BlockingCall b;
    FindIssuer(trace, i, b);
    if (!kind) {
      if (!IsDtohStall(trace, i, b.scalar_read)) continue;
      kind = BlockingKind::kDtohStall;
    }
    b.call = CpuSliceId(static_cast<uint32_t>(i));
    b.kind = *kind;
    b.start = s.start[i];
    b.end = s.end[i];
    int64_t step = StepIndexAt(trace.steps, b.start);
    b.step = step < 0 ? -1 : trace.steps.rows[step].number;
    r.blocking.push_back(std::move(b));
  }
  std::sort(r.blocking.begin(), r.blocking.end(), [](const BlockingCall& a, const BlockingCall& b) {
    return a.start != b.start ? a.start < b.start : a.call.value < b.call.value;
  });
}

void SummarizeBlocking(const AnalysisInput& input, SyncCopiesResult& r) {
  std::map<std::string, BlockingIssuer> issuers;
  std::map<int64_t, BlockingStepCount> steps;
  for (const StepTable::Row& row : input.trace.steps.rows) {
    if (!input.trace.steps.synthesized) steps[row.number].step = row.number;
  }
  for (const BlockingCall& b : r.blocking) {
    DurationNs d = b.end - b.start;
    size_t k = static_cast<size_t>(b.kind);
    ++r.count_by_kind[k];
    r.time_by_kind[k] += d;
    ++r.blocking_count;
    r.blocking_total += d;
    if (b.scalar_read) ++r.scalar_reads;
    BlockingIssuer& issuer = issuers[b.issuer.empty() ? "(no enclosing op)" : b.issuer];
    ++issuer.count;
    issuer.total += d;
    if (b.step >= 0) {
      ++steps[b.step].count;
      steps[b.step].total += d;
    }
  }
  for (auto& [name, issuer] : issuers) {
    issuer.name = name;
    r.issuers.push_back(issuer);
  }
  std::sort(r.issuers.begin(), r.issuers.end(),
            [](const BlockingIssuer& a, const BlockingIssuer& b) {
              return a.total != b.total ? a.total > b.total : a.name < b.name;
            });
  for (const auto& [step, count] : steps) r.per_step.push_back(count);
  std::vector<const BlockingCall*> longest;
  for (const BlockingCall& b : r.blocking) longest.push_back(&b);
  std::sort(longest.begin(), longest.end(), [](const BlockingCall* a, const BlockingCall* b) {
    DurationNs da = a->end - a->start, db = b->end - b->start;
    return da != db ? da > db : a->start < b->start;
  });
  if (longest.size() > input.options.top_n) longest.resize(input.options.top_n);
  for (const BlockingCall* b : longest) {
    std::string label(input.trace.Str(input.trace.cpu_slices.name[b->call.value]));
    if (!b->issuer.empty()) label += " under " + b->issuer;
    r.top_blocking.push_back({"sync", -1, -1, b->start, b->end, std::move(label)});
  }
}

void CollectGpuWaits(const Trace& trace, SyncCopiesResult& r) {
  std::map<int32_t, GpuWaitStats> by_device;
  for (const GpuSyncTable::Row& row : trace.gpu_syncs.rows) {
    GpuWaitStats& w = by_device[row.device];
    w.device = row.device;
    ++w.count;
    w.total += row.end - row.start;
  }
  for (const auto& [device, w] : by_device) r.gpu_waits.push_back(w);
}

void CollectCopies(const Trace& trace, SyncCopiesResult& r) {
  std::map<std::pair<int32_t, CopyDirection>, CopyStats> by_key;
  const GpuOpTable& ops = trace.gpu_ops;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops.kind[i] != GpuOpKind::kMemcpy) continue;
    CopyStats& c = by_key[{ops.device[i], ops.copy_direction(i)}];
    c.device = ops.device[i];
    c.direction = ops.copy_direction(i);
    DurationNs d = ops.end[i] - ops.start[i];
    ++c.count;
    c.duration += d;
    int64_t bytes = ops.bytes(i) > 0 ? ops.bytes(i) : 0;
    if (ops.bytes(i) >= 0) {
      c.bytes += bytes;
      c.sized_duration += d;
    }
    if (ops.src_kind(i) == MemoryKind::kPageable || ops.dst_kind(i) == MemoryKind::kPageable) {
      ++c.pageable_count;
      c.pageable_bytes += bytes;
    }
  }
  for (auto& [key, c] : by_key) {
    // bytes per ns is GB/s (1e9 bytes per second).
    if (c.sized_duration > 0)
      c.gbps = static_cast<double>(c.bytes) / static_cast<double>(c.sized_duration);
    r.copies.push_back(c);
  }
}

std::string DirectionKey(CopyDirection d) {
  std::string key(CopyDirectionName(d));
  std::transform(key.begin(), key.end(), key.begin(),
                 [](unsigned char ch) { return std::tolower(ch); });
  return key;
}

DurationNs StepTimeTotal(const Trace& trace) {
  DurationNs total = 0;
  for (const StepTable::Row& row : trace.steps.rows) total += row.host_end - row.host_start;
  return total;
}

void EmitMetrics(const Trace& trace, const SyncCopiesResult& r, MetricSet& m) {
  MetricScope rank = MetricScope::Rank();
  m.Add(metric::kSyncBlockingCalls, rank, static_cast<double>(r.blocking_count));
  m.Add(metric::kSyncBlockingMs, rank, NsToMs(r.blocking_total));
  DurationNs step_total = StepTimeTotal(trace);
  m.Add(metric::kSyncBlockingPct, rank,
        step_total > 0
            ? 100.0 * static_cast<double>(r.blocking_total) / static_cast<double>(step_total)
            : 0);
  m.Add(metric::kSyncScalarReads, rank, static_cast<double>(r.scalar_reads));
  for (size_t k = 0; k < kBlockingKindCount; ++k) {
    std::string name(BlockingKindName(static_cast<BlockingKind>(k)));
    m.Add(metric::kSyncKindCalls, name, rank, static_cast<double>(r.count_by_kind[k]));
    m.Add(metric::kSyncKindMs, name, rank, NsToMs(r.time_by_kind[k]));
  }
  for (const BlockingStepCount& s : r.per_step) {
    m.Add(metric::kSyncBlockingCalls, MetricScope::Step(s.step), static_cast<double>(s.count));
    m.Add(metric::kSyncBlockingMs, MetricScope::Step(s.step), NsToMs(s.total));
  }
  for (const GpuWaitStats& w : r.gpu_waits) {
    m.Add(metric::kSyncGpuWaitCount, MetricScope::Device(w.device), static_cast<double>(w.count));
    m.Add(metric::kSyncGpuWaitMs, MetricScope::Device(w.device), NsToMs(w.total));
  }
  int64_t pageable_count = 0, pageable_bytes = 0;
  for (const CopyStats& c : r.copies) {
    MetricScope scope = MetricScope::Device(c.device);
    std::string dir = DirectionKey(c.direction);
    m.Add(metric::kCopyDirCount, dir, scope, static_cast<double>(c.count));
    m.Add(metric::kCopyDirBytes, dir, scope, static_cast<double>(c.bytes));
    m.Add(metric::kCopyDirMs, dir, scope, NsToMs(c.duration));
    if (c.sized_duration > 0) m.Add(metric::kCopyDirGbps, dir, scope, c.gbps);
    m.Add(metric::kCopyDirPageableCount, dir, scope, static_cast<double>(c.pageable_count));
    m.Add(metric::kCopyDirPageableBytes, dir, scope, static_cast<double>(c.pageable_bytes));
    pageable_count += c.pageable_count;
    pageable_bytes += c.pageable_bytes;
  }
  if (!r.copies.empty()) {
    m.Add(metric::kCopyPageableCount, rank, static_cast<double>(pageable_count));
    m.Add(metric::kCopyPageableBytes, rank, static_cast<double>(pageable_bytes));
  }
}

}  // namespace

std::string_view BlockingKindName(BlockingKind kind) {
  switch (kind) {
    case BlockingKind::kDeviceSync: return "device_sync";
    case BlockingKind::kStreamSync: return "stream_sync";
    case BlockingKind::kEventSync: return "event_sync";
    case BlockingKind::kSyncMemcpy: return "sync_memcpy";
    case BlockingKind::kDtohStall: return "dtoh_stall";
  }
  return "?";
}

SyncCopiesResult ComputeSyncCopies(const AnalysisInput& input, MetricSet& metrics) {
  SyncCopiesResult r;
  const Trace& trace = input.trace;
  CollectBlocking(input, r);
  SummarizeBlocking(input, r);
  CollectGpuWaits(trace, r);
  CollectCopies(trace, r);
  bool has_runtime = std::any_of(
      trace.cpu_slices.kind.begin(), trace.cpu_slices.kind.end(),
      [](CpuSliceKind k) { return k == CpuSliceKind::kRuntime || k == CpuSliceKind::kDriver; });
  if (!has_runtime) r.not_applicable.push_back("sync: the trace records no CUDA/HIP runtime calls");
  if (trace.gpu_syncs.size() == 0) {
    r.not_applicable.push_back(
        "sync.gpu_wait: no cuda_sync records (profile with a PyTorch 2.x Kineto build)");
  }
  if (r.copies.empty()) {
    r.not_applicable.push_back("copy: the trace has no memcpy ops");
  } else {
    r.not_applicable.push_back(
        "copy bandwidth vs link: the trace does not record the PCIe/NVLink peak");
  }
  EmitMetrics(trace, r, metrics);
  return r;
}

}  // namespace gpuwhy
