#include "model/trace.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <span>
#include <thread>
#include <type_traits>

#include "base/huge_pages.h"
#include "model/correlation_range.h"

namespace gpuwhy {
namespace {

// Reorders |column| by |order| through one reused scratch buffer: allocating a fresh
// vector per column would fault in new pages for every column of a multi-GB trace.
template <typename T>
void Permute(std::vector<T>& column, const std::vector<uint32_t>& order,
             std::vector<std::byte>& scratch) {
  static_assert(std::is_trivially_copyable_v<T>);
  size_t bytes = column.size() * sizeof(T);
  if (bytes == 0) return;  // memcpy must not see the null data() of an empty vector
  if (scratch.size() < bytes) {
    scratch.clear();
    scratch.shrink_to_fit();
    scratch.reserve(bytes);
    AdviseHugePages(scratch.data(), bytes);
    scratch.resize(bytes);
  }
  T* sorted = reinterpret_cast<T*>(scratch.data());
  for (size_t i = 0; i < order.size(); ++i) sorted[i] = column[order[i]];
  std::memcpy(column.data(), sorted, bytes);
}

// A compact column moves its storage, and has nothing to move while it is uniform.
template <typename T, typename Narrow>
void Permute(CompactColumn<T, Narrow>& column, const std::vector<uint32_t>& order,
             std::vector<std::byte>& scratch) {
  column.VisitStorage([&](auto& values) { Permute(values, order, scratch); });
}

// Reorders every one of |columns| by |order|, widest first so the scratch is sized once.
template <typename... Columns>
void PermuteAll(const std::vector<uint32_t>& order, Columns&... columns) {
  std::vector<std::byte> scratch;
  (Permute(columns, order, scratch), ...);
}

// Stable sort of |order[begin, end)| that uses the order already there: importers append
// tables that are each in time order (kernels, then copies, then memsets), so the range is a
// few ascending runs, merged in a pass or two instead of a full merge sort.
template <typename Less>
void SortRuns(std::vector<uint32_t>& order, size_t begin, size_t end, Less less) {
  // Merging R runs takes log2(R) passes: worth it while runs are long (a merge sort's bottom
  // passes build runs of 7 anyway).
  const size_t max_runs = std::max<size_t>(16, (end - begin) / 32);
  std::vector<size_t> run_starts{begin};
  for (size_t i = begin + 1; i < end; ++i) {
    if (!less(order[i], order[i - 1])) continue;
    run_starts.push_back(i);
    if (run_starts.size() > max_runs) {
      std::stable_sort(order.begin() + begin, order.begin() + end, less);
      return;
    }
  }
  // Merge neighbours pairwise until one run is left (each round halves the runs).
  while (run_starts.size() > 1) {
    std::vector<size_t> merged;
    for (size_t r = 0; r < run_starts.size(); r += 2) {
      merged.push_back(run_starts[r]);
      if (r + 1 == run_starts.size()) break;
      size_t stop = r + 2 < run_starts.size() ? run_starts[r + 2] : end;
      std::inplace_merge(order.begin() + run_starts[r], order.begin() + run_starts[r + 1],
                         order.begin() + stop, less);
    }
    run_starts = std::move(merged);
  }
}

// The row order that sorts rows by |less| (on row indexes), stable; empty when the rows are
// already in order. An index vector sorted through the columns touches less fresh memory than
// a copy of the keys, and fresh pages are what large imports pay for most. |group_of| (a
// small dense id per row, or nullptr) groups rows first with a counting sort: |less| must
// order by group first.
template <typename Less>
std::vector<uint32_t> SortOrder(size_t n, Less less,
                                const std::vector<ThreadId>* group_of = nullptr) {
  bool sorted = true;
  for (size_t i = 1; i < n && sorted; ++i)
    sorted = !less(static_cast<uint32_t>(i), static_cast<uint32_t>(i - 1));
  if (sorted) return {};
  std::vector<uint32_t> order;
  ReserveWithHugePages(order, n);  // fresh 4 KiB pages cost a fault each
  order.resize(n);
  if (group_of == nullptr) {
    std::iota(order.begin(), order.end(), 0u);
    SortRuns(order, 0, n, less);
    return order;
  }
  uint32_t groups = 0;
  for (ThreadId g : *group_of) {
    if (!g.valid() || g.value >= n) {  // not a small dense id: sort everything at once
      std::iota(order.begin(), order.end(), 0u);
      SortRuns(order, 0, n, less);
      return order;
    }
    groups = std::max(groups, g.value + 1);
  }
  std::vector<size_t> group_start(size_t{groups} + 1, 0);
  for (ThreadId g : *group_of) ++group_start[g.value + 1];
  for (size_t g = 1; g < group_start.size(); ++g) group_start[g] += group_start[g - 1];
  std::vector<size_t> next(group_start.begin(), group_start.end() - 1);
  for (uint32_t i = 0; i < n; ++i) order[next[(*group_of)[i].value]++] = i;  // stable
  for (size_t g = 0; g < groups; ++g) SortRuns(order, group_start[g], group_start[g + 1], less);
  return order;
}

// Traces with at least this many rows sort and index their big tables on two threads.
constexpr size_t kParallelRows = 500'000;

// Runs |a| and |b|, on two threads when |parallel|.
template <typename A, typename B>
void RunBoth(bool parallel, A a, B b) {
  if (!parallel) {
    a();
    b();
    return;
  }
  std::thread other(a);
  b();
  other.join();
}

uint32_t RowOf(const CorrelatedGpuOp& p) { return p.op.value; }

// The (correlation, row) pairs of the rows |keep| accepts, sorted by correlation with the
// rows of one correlation in row order. Correlation ids are small dense counters (CUPTI,
// Kineto), so the pairs are placed straight into their sorted position by a counting sort
// over the id range; already sorted ids are copied as they come; sparse ids use std::sort.
template <typename Pair, typename Id, typename Keep>
std::vector<Pair> IndexByCorrelation(const IntColumn& correlation, Keep keep) {
  const CorrelationRange ids = ScanCorrelations(correlation, keep);
  const size_t kept = ids.kept;
  const bool sorted = ids.sorted;
  std::vector<Pair> pairs;
  if (kept == 0) return pairs;
  // The counting sort's table is bounded by the rows: ids spread wider than that (up to the
  // whole int64 range) are sorted instead.
  const uint64_t range = ids.span();
  if (sorted || range > 4 * uint64_t{kept} + 1024) {
    ReserveWithHugePages(pairs, kept);
    for (size_t i = 0; i < correlation.size(); ++i) {
      if (correlation[i] != kNoValue && keep(i))
        pairs.push_back({correlation[i], Id(static_cast<uint32_t>(i))});
    }
    if (!sorted) {
      std::sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) {
        return a.correlation != b.correlation ? a.correlation < b.correlation : RowOf(a) < RowOf(b);
      });
    }
    return pairs;
  }
  std::vector<uint32_t> next;
  ReserveWithHugePages(next, range + 1);
  next.assign(range + 1, 0);
  for (size_t i = 0; i < correlation.size(); ++i) {
    if (correlation[i] != kNoValue && keep(i))
      ++next[static_cast<size_t>(ids.Offset(correlation[i])) + 1];
  }
  for (size_t i = 1; i < next.size(); ++i) next[i] += next[i - 1];
  ReserveWithHugePages(pairs, kept);
  pairs.resize(kept);
  for (size_t i = 0; i < correlation.size(); ++i) {  // in row order: stable
    if (correlation[i] != kNoValue && keep(i)) {
      pairs[next[static_cast<size_t>(ids.Offset(correlation[i]))]++] = {
          correlation[i], Id(static_cast<uint32_t>(i))};
    }
  }
  return pairs;
}

std::vector<uint32_t> Inverse(const std::vector<uint32_t>& order) {
  std::vector<uint32_t> inverse(order.size());
  for (uint32_t i = 0; i < order.size(); ++i) inverse[order[i]] = i;
  return inverse;
}

}  // namespace

ThreadId Trace::GetOrCreateThread(int64_t pid, int64_t tid) {
  auto [it, inserted] = thread_index_.try_emplace({pid, tid});
  if (inserted) it->second = threads.Append({pid, tid, StringId()});
  return it->second;
}

void Trace::AbsorbCpuSide(Trace&& other) {
  std::vector<StringId> remap(other.strings.size());
  auto local = [&](StringId id) {
    if (!id.valid() || id.value >= remap.size()) return StringId();
    StringId& mapped = remap[id.value];
    if (!mapped.valid()) mapped = strings.Intern(other.strings.Get(id));
    return mapped;
  };
  CpuSliceTable& from = other.cpu_slices;
  if (threads.size() == 0 && cpu_slices.size() == 0) {
    threads = std::move(other.threads);
    thread_index_ = std::move(other.thread_index_);
    for (StringId& name : threads.name) name = local(name);
    cpu_slices = std::move(from);
    for (StringId& name : cpu_slices.name) name = local(name);
    cpu_slices.input_dims.Transform(local);
    cpu_slices.input_types.Transform(local);
    cpu_slices.concrete_inputs.Transform(local);
  } else {
    std::vector<ThreadId> thread_of(other.threads.size());
    for (size_t t = 0; t < other.threads.size(); ++t) {
      thread_of[t] = GetOrCreateThread(other.threads.pid[t], other.threads.tid[t]);
      if (!threads.name[thread_of[t].value].valid())
        threads.name[thread_of[t].value] = local(other.threads.name[t]);
    }
    for (size_t i = 0; i < from.size(); ++i) {
      CpuSliceTable::Row row = from.Get(i);
      row.thread = thread_of[row.thread.value];
      row.name = local(row.name);
      row.input_dims = local(row.input_dims);
      row.input_types = local(row.input_types);
      row.concrete_inputs = local(row.concrete_inputs);
      cpu_slices.Append(row);
    }
  }
  problems.MergeFrom(other.problems);
  other = Trace();
}

void Trace::Finalize() {
  if (finalized_) return;
  // The GPU and the CPU side sort and index independently (disjoint columns; of a collective
  // row one writes gpu_op, the other cpu_slice; only the nesting counts a stat): on large
  // traces two threads share the work in three rounds.
  const bool parallel = gpu_ops.size() + cpu_slices.size() >= kParallelRows &&
                        std::thread::hardware_concurrency() > 1;
  std::vector<uint32_t> cpu_order;
  RunBoth(
      parallel, [this] { SortGpuOps(); }, [this, &cpu_order] { cpu_order = CpuSliceOrder(); });
  PermuteCpuSlices(cpu_order, parallel);
  std::vector<uint32_t>().swap(cpu_order);  // frees it (= {} would keep the capacity)
  // The correlation indexes come after the permutation: built before it, the GPU ops' pairs
  // (16 bytes per op) were live beside the CPU slices' order and permute scratch, the
  // import's peak (heaptrack, 2.5M-slice Nsight export).
  RunBoth(
      parallel, [this] { NestCpuSlices(); },
      [this] {
        ops_by_correlation_ = IndexByCorrelation<CorrelatedGpuOp, GpuOpId>(
            gpu_ops.correlation, [](size_t) { return true; });
        launches_.Build(cpu_slices.correlation, [this](size_t i) {
          return cpu_slices.kind[i] == CpuSliceKind::kRuntime ||
                 cpu_slices.kind[i] == CpuSliceKind::kDriver;
        });
      });
  CheckCorrelations();
  CountStreamOverlaps();
  ComputeSpan();
  BuildSteps();
  std::sort(memory_events.rows.begin(), memory_events.rows.end(),
            [](const auto& a, const auto& b) { return a.ts < b.ts; });
  std::stable_sort(counters.rows.begin(), counters.rows.end(),
                   [](const auto& a, const auto& b) { return a.ts < b.ts; });
  auto by_start = [](const auto& a, const auto& b) { return a.start < b.start; };
  std::stable_sort(gpu_syncs.rows.begin(), gpu_syncs.rows.end(), by_start);
  std::stable_sort(gpu_annotations.rows.begin(), gpu_annotations.rows.end(), by_start);
  finalized_ = true;
}

void Trace::SortGpuOps() {
  GpuOpTable& t = gpu_ops;
  std::vector<uint32_t> order = SortOrder(t.size(), [&t](uint32_t a, uint32_t b) {
    if (t.start[a] != t.start[b]) return t.start[a] < t.start[b];
    return t.end[a] < t.end[b];
  });
  if (!order.empty()) {
    PermuteAll(order, t.start, t.end, t.stream, t.correlation, t.external_id, t.device, t.name,
               t.detail, t.kind);
    if (!collectives.rows.empty()) {  // only collectives point at rows by index
      std::vector<uint32_t> new_index = Inverse(order);
      for (auto& row : collectives.rows) {
        if (row.gpu_op.valid()) row.gpu_op = GpuOpId(new_index[row.gpu_op.value]);
      }
    }
  }
  t.detail_pool.DropIndex();  // the table is complete: only reads from here
  std::vector<int32_t> devices_seen;
  if (t.device.storage() == CompactColumn<int32_t>::Storage::kUniform) {
    if (!t.device.empty()) devices_seen.push_back(t.device[0]);
  } else {
    devices_seen.reserve(t.size());
    for (size_t i = 0; i < t.size(); ++i) devices_seen.push_back(t.device[i]);
  }
  std::sort(devices_seen.begin(), devices_seen.end());
  devices_seen.erase(std::unique(devices_seen.begin(), devices_seen.end()), devices_seen.end());
  active_devices_ = std::move(devices_seen);
}

std::vector<uint32_t> Trace::CpuSliceOrder() const {
  const CpuSliceTable& t = cpu_slices;
  return SortOrder(
      t.size(),
      [&t](uint32_t a, uint32_t b) {
        if (t.thread[a] != t.thread[b]) return t.thread[a] < t.thread[b];
        if (t.start[a] != t.start[b]) return t.start[a] < t.start[b];
        return t.end[a] > t.end[b];  // parents before children
      },
      &t.thread);
}

void Trace::PermuteCpuSlices(const std::vector<uint32_t>& order, bool parallel) {
  if (order.empty()) return;
  CpuSliceTable& t = cpu_slices;
  // Two halves of the columns (by bytes), one per thread.
  RunBoth(
      parallel, [&t, &order] { PermuteAll(order, t.start, t.end, t.kind, t.input_dims, t.flops); },
      [&t, &order] {
        PermuteAll(order, t.correlation, t.external_id, t.thread, t.name, t.input_types,
                   t.concrete_inputs);
      });
  if (!collectives.rows.empty()) {
    std::vector<uint32_t> new_index = Inverse(order);
    for (auto& row : collectives.rows) {
      if (row.cpu_slice.valid()) row.cpu_slice = CpuSliceId(new_index[row.cpu_slice.value]);
    }
  }
}

void Trace::NestCpuSlices() {
  CpuSliceTable& t = cpu_slices;
  ReserveWithHugePages(t.depth, t.size());
  ReserveWithHugePages(t.parent, t.size());
  t.depth.assign(t.size(), 0);
  t.parent.assign(t.size(), CpuSliceId());
  thread_rows_.assign(threads.size(), {0, 0});
  std::vector<uint32_t> stack;
  size_t begin = 0;
  int64_t improper = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    if (i == 0 || t.thread[i] != t.thread[i - 1]) {
      if (i > 0) thread_rows_[t.thread[i - 1].value] = {begin, i};
      begin = i;
      stack.clear();
    }
    while (!stack.empty() && t.end[stack.back()] <= t.start[i]) stack.pop_back();
    // A slice that starts inside its parent but ends after it is improperly nested:
    // keep it as a child (its start decides) and count it.
    if (!stack.empty() && t.end[i] > t.end[stack.back()]) ++improper;
    if (!stack.empty()) t.parent[i] = CpuSliceId(stack.back());
    t.depth[i] = static_cast<uint16_t>(std::min<size_t>(stack.size(), 0xffff));
    stack.push_back(static_cast<uint32_t>(i));
  }
  if (t.size() > 0) thread_rows_[t.thread[t.size() - 1].value] = {begin, t.size()};
  if (improper > 0) problems.Increment(DataProblem::kImproperNesting, improper);
}

void Trace::CheckCorrelations() {
  if (launches_.duplicates() > 0)
    problems.Increment(DataProblem::kDuplicateCorrelation, launches_.duplicates());

  if (launches_.size() == 0) return;  // no runtime events recorded at all
  // Ops whose correlation no launch has: both are in id order, so one merge pass.
  int64_t matched = 0;
  auto op = ops_by_correlation_.begin();
  launches_.ForEach(cpu_slices.correlation, [&](int64_t correlation, CpuSliceId) {
    while (op != ops_by_correlation_.end() && op->correlation < correlation) ++op;
    for (; op != ops_by_correlation_.end() && op->correlation == correlation; ++op) ++matched;
  });
  int64_t orphans = static_cast<int64_t>(gpu_ops.size()) - matched;  // with no correlation too
  if (orphans > 0) problems.Increment(DataProblem::kGpuOpWithoutLaunch, orphans);
}

CpuSliceId Trace::FindLaunch(int64_t correlation) const {
  return launches_.Find(cpu_slices.correlation, correlation);
}

std::span<const CorrelatedGpuOp> Trace::FindGpuOps(int64_t correlation) const {
  auto range = std::equal_range(ops_by_correlation_.begin(), ops_by_correlation_.end(),
                                CorrelatedGpuOp{correlation, {}},
                                [](const CorrelatedGpuOp& a, const CorrelatedGpuOp& b) {
                                  return a.correlation < b.correlation;
                                });
  return {range.first, range.second};
}

void Trace::AddOptimizerIterations() {
  // The profiler's record_function("Optimizer.step#SGD.step") may nest in a second one of the
  // same name (the hook and the wrapper): only the outermost spans mark iterations.
  std::vector<Interval> optimizer;
  for (size_t i = 0; i < cpu_slices.size(); ++i) {
    if (Str(cpu_slices.name[i]).starts_with("Optimizer.step#")) {
      optimizer.push_back({cpu_slices.start[i], cpu_slices.end[i]});
    }
  }
  std::sort(optimizer.begin(), optimizer.end(),
            [](const Interval& a, const Interval& b) { return a.start < b.start; });
  std::vector<TimeNs> ends;
  for (const Interval& step : optimizer) {
    if (!ends.empty() && step.start < ends.back()) continue;  // nested in the previous one
    ends.push_back(step.end);
  }
  if (ends.size() < 2) return;
  const StringId name = strings.Intern("iteration (Optimizer.step)");
  TimeNs start = span_.start;
  for (size_t k = 0; k < ends.size(); ++k) {
    steps.rows.push_back({static_cast<int64_t>(k + 1), name, start, ends[k], start, ends[k], 0});
    start = ends[k];
  }
  steps.from_optimizer = true;
}

void Trace::BuildSteps() {
  auto& rows = steps.rows;
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.host_start < b.host_start; });
  if (rows.empty()) AddOptimizerIterations();
  if (rows.empty()) {
    steps.synthesized = true;
    rows.push_back(
        {0, strings.Intern("whole trace"), span_.start, span_.end, span_.start, span_.end, 0});
  }
  std::vector<TimeNs> first(rows.size(), std::numeric_limits<TimeNs>::max());
  std::vector<TimeNs> last(rows.size(), std::numeric_limits<TimeNs>::min());
  // Launches and ops are both sorted by correlation: walk them together.
  auto ops = ops_by_correlation_.begin();
  launches_.ForEach(cpu_slices.correlation, [&](int64_t correlation, CpuSliceId slice) {
    while (ops != ops_by_correlation_.end() && ops->correlation < correlation) ++ops;
    auto ops_end = ops;
    while (ops_end != ops_by_correlation_.end() && ops_end->correlation == correlation) ++ops_end;
    if (ops == ops_end) return;
    TimeNs t = cpu_slices.start[slice.value];
    auto it = std::upper_bound(rows.begin(), rows.end(), t,
                               [](TimeNs v, const StepTable::Row& r) { return v < r.host_start; });
    if (it == rows.begin()) return;
    --it;
    if (t >= it->host_end) return;
    size_t s = it - rows.begin();
    for (const CorrelatedGpuOp& op : std::span<const CorrelatedGpuOp>(ops, ops_end)) {
      first[s] = std::min(first[s], gpu_ops.start[op.op.value]);
      last[s] = std::max(last[s], gpu_ops.end[op.op.value]);
      ++rows[s].gpu_op_count;
    }
  });
  for (size_t s = 0; s < rows.size(); ++s) {
    bool launched = rows[s].gpu_op_count > 0;
    rows[s].device_start = launched ? first[s] : rows[s].host_start;
    rows[s].device_end = launched ? last[s] : rows[s].host_end;
  }
}

void Trace::CountStreamOverlaps() {
  // Ops are sorted by start; track the latest end per (device, stream).
  std::map<std::pair<int32_t, int64_t>, TimeNs> last_end;
  int64_t overlaps = 0;
  for (size_t i = 0; i < gpu_ops.size(); ++i) {
    auto [it, inserted] =
        last_end.try_emplace({gpu_ops.device[i], gpu_ops.stream[i]}, gpu_ops.end[i]);
    if (inserted) continue;
    if (gpu_ops.start[i] < it->second) ++overlaps;
    it->second = std::max(it->second, gpu_ops.end[i]);
  }
  if (overlaps > 0) problems.Increment(DataProblem::kOverlappingStreamOps, overlaps);
}

void Trace::ComputeSpan() {
  TimeNs first = std::numeric_limits<TimeNs>::max();
  TimeNs last = std::numeric_limits<TimeNs>::min();
  auto extend = [&](TimeNs s, TimeNs e) {
    first = std::min(first, s);
    last = std::max(last, e);
  };
  for (size_t i = 0; i < gpu_ops.size(); ++i) extend(gpu_ops.start[i], gpu_ops.end[i]);
  for (size_t i = 0; i < cpu_slices.size(); ++i) {
    if (cpu_slices.kind[i] == CpuSliceKind::kOther) continue;  // profiler spans over-reach
    extend(cpu_slices.start[i], cpu_slices.end[i]);
  }
  if (first > last) {
    for (size_t i = 0; i < cpu_slices.size(); ++i) extend(cpu_slices.start[i], cpu_slices.end[i]);
  }
  span_ = first > last ? Interval{0, 0} : Interval{first, last};
}

std::string_view GpuOpKindName(GpuOpKind kind) {
  switch (kind) {
    case GpuOpKind::kKernel: return "kernel";
    case GpuOpKind::kMemcpy: return "memcpy";
    case GpuOpKind::kMemset: return "memset";
  }
  return "?";
}

std::string_view CopyDirectionName(CopyDirection direction) {
  switch (direction) {
    case CopyDirection::kUnknown: return "unknown";
    case CopyDirection::kHostToDevice: return "HtoD";
    case CopyDirection::kDeviceToHost: return "DtoH";
    case CopyDirection::kDeviceToDevice: return "DtoD";
    case CopyDirection::kHostToHost: return "HtoH";
    case CopyDirection::kPeerToPeer: return "PtoP";
  }
  return "?";
}

std::string_view MemoryKindName(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::kUnknown: return "unknown";
    case MemoryKind::kPageable: return "pageable";
    case MemoryKind::kPinned: return "pinned";
    case MemoryKind::kDevice: return "device";
    case MemoryKind::kArray: return "array";
    case MemoryKind::kManaged: return "managed";
  }
  return "?";
}

std::string_view CpuSliceKindName(CpuSliceKind kind) {
  switch (kind) {
    case CpuSliceKind::kOp: return "op";
    case CpuSliceKind::kRuntime: return "runtime";
    case CpuSliceKind::kDriver: return "driver";
    case CpuSliceKind::kPython: return "python";
    case CpuSliceKind::kUserAnnotation: return "user_annotation";
    case CpuSliceKind::kOther: return "other";
  }
  return "?";
}

std::string_view SchemaGenerationName(SchemaGeneration schema) {
  switch (schema) {
    case SchemaGeneration::kUnknown: return "unknown";
    case SchemaGeneration::kModern: return "modern (PyTorch 2.x)";
    case SchemaGeneration::kLegacy: return "2021-era (PyTorch 1.8-1.9)";
    case SchemaGeneration::kLegacyProfiler: return "legacy profiler (PyTorch without Kineto)";
  }
  return "?";
}

std::string_view GpuVendorName(GpuVendor vendor) {
  switch (vendor) {
    case GpuVendor::kUnknown: return "unknown";
    case GpuVendor::kNvidia: return "nvidia";
    case GpuVendor::kAmd: return "amd";
    case GpuVendor::kMtia: return "mtia";
    case GpuVendor::kNone: return "none";
  }
  return "?";
}

}  // namespace gpuwhy
