// Per-collective message size and bandwidth, from the collective metadata that PyTorch
// records on NCCL kernels (or on the record_param_comms op that launched them).
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "analyze/collective_sizes.h"

namespace gpuwhy {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  out.erase(std::remove(out.begin(), out.end(), '_'), out.end());
  return out;
}

// The communication kernel launched inside CPU slice |slice| (its subtree on the same
// thread follows it in ThreadRows order), or an invalid id.
GpuOpId FindLaunchedCommOp(const Trace& trace, const DeviceTimelines& timelines, size_t slice) {
  const CpuSliceTable& s = trace.cpu_slices;
  size_t end = trace.ThreadRows(s.thread[slice]).second;
  for (size_t i = slice + 1; i < end && s.start[i] < s.end[slice]; ++i) {
    if (s.kind[i] != CpuSliceKind::kRuntime && s.kind[i] != CpuSliceKind::kDriver) continue;
    for (const CorrelatedGpuOp& op : trace.FindGpuOps(s.correlation[i])) {
      if (timelines.hta_type[op.op.value] == HtaKernelType::kCommunication) return op.op;
    }
  }
  return GpuOpId();
}

}  // namespace

double BusBandwidthFactor(std::string_view collective, int64_t group_size) {
  if (group_size <= 0) return 0;
  double n = static_cast<double>(group_size);
  std::string c = Lower(collective);
  if (c.find("allreduce") != std::string::npos) return 2.0 * (n - 1) / n;
  if (c.find("allgather") != std::string::npos || c.find("reducescatter") != std::string::npos ||
      c.find("alltoall") != std::string::npos) {
    return (n - 1) / n;
  }
  if (c.find("broadcast") != std::string::npos || c.find("reduce") != std::string::npos ||
      c.find("send") != std::string::npos || c.find("recv") != std::string::npos) {
    return 1.0;
  }
  return 0;
}

int64_t DtypeBytes(std::string_view dtype) {
  std::string d = Lower(dtype);
  if (d.rfind("c10::", 0) == 0) d = d.substr(5);
  static const std::map<std::string, int64_t> kSizes = {
      {"float", 4},         {"float32", 4},      {"double", 8},       {"float64", 8},
      {"half", 2},          {"float16", 2},      {"bfloat16", 2},     {"long", 8},
      {"int64", 8},         {"int", 4},          {"int32", 4},        {"short", 2},
      {"int16", 2},         {"byte", 1},         {"uint8", 1},        {"char", 1},
      {"int8", 1},          {"bool", 1},         {"complexfloat", 8}, {"complexdouble", 16},
      {"complexhalf", 4},   {"float8e4m3fn", 1}, {"float8e5m2", 1},   {"float8e4m3fnuz", 1},
      {"float8e5m2fnuz", 1}};
  auto it = kSizes.find(d);
  return it == kSizes.end() ? 0 : it->second;
}

std::vector<CollectiveRecord> BuildCollectiveRecords(const Trace& trace,
                                                     const DeviceTimelines& timelines,
                                                     const std::vector<bool>& op_kept) {
  std::vector<CollectiveRecord> records;
  std::set<uint32_t> seen;
  auto add = [&](const CollectiveTable::Row& row, GpuOpId op) {
    if (!op.valid() || !op_kept[op.value] || !seen.insert(op.value).second) return;
    std::string_view name = trace.Str(row.collective_name);
    if (name == "wait" || name.empty())
      return;  // "wait" rows are work-handle waits, not collectives
    CollectiveRecord r;
    r.name = std::string(name);
    r.op = op;
    r.device = trace.gpu_ops.device[op.value];
    r.start = trace.gpu_ops.start[op.value];
    r.end = trace.gpu_ops.end[op.value];
    r.group_size = row.group_size;
    int64_t elements = std::max(row.in_nelems, row.out_nelems);
    int64_t size = DtypeBytes(trace.Str(row.dtype));
    if (elements >= 0 && size > 0) r.bytes = elements * size;
    DurationNs d = r.end - r.start;
    r.busbw_factor = BusBandwidthFactor(name, row.group_size);
    if (r.bytes >= 0 && d > 0) {
      r.algbw_gbps = static_cast<double>(r.bytes) / static_cast<double>(d);  // bytes/ns = GB/s
      r.busbw_gbps = r.algbw_gbps * r.busbw_factor;
    }
    records.push_back(std::move(r));
  };
  // Kernel rows first: they name their own op. CPU-op rows fill in the rest.
  for (const CollectiveTable::Row& row : trace.collectives.rows) add(row, row.gpu_op);
  for (const CollectiveTable::Row& row : trace.collectives.rows) {
    if (row.gpu_op.valid() || !row.cpu_slice.valid()) continue;
    add(row, FindLaunchedCommOp(trace, timelines, row.cpu_slice.value));
  }
  std::sort(records.begin(), records.end(),
            [](const CollectiveRecord& a, const CollectiveRecord& b) {
              return a.start != b.start ? a.start < b.start : a.op.value < b.op.value;
            });
  return records;
}

std::vector<CollectiveSummary> SummarizeCollectives(const std::vector<CollectiveRecord>& records) {
  std::map<std::string, CollectiveSummary> by_name;
  std::map<std::string, double> bus_bytes;
  for (const CollectiveRecord& r : records) {
    CollectiveSummary& s = by_name[r.name];
    s.name = r.name;
    ++s.count;
    if (r.bytes < 0) continue;
    s.bytes += r.bytes;
    s.time += r.end - r.start;
    bus_bytes[r.name] += static_cast<double>(r.bytes) * r.busbw_factor;
  }
  std::vector<CollectiveSummary> out;
  for (auto& [name, s] : by_name) {
    if (s.time > 0) {
      s.algbw_gbps = static_cast<double>(s.bytes) / static_cast<double>(s.time);
      s.busbw_gbps = bus_bytes[name] / static_cast<double>(s.time);
    }
    out.push_back(s);
  }
  std::sort(out.begin(), out.end(), [](const CollectiveSummary& a, const CollectiveSummary& b) {
    return a.time != b.time ? a.time > b.time : a.name < b.name;
  });
  return out;
}

}  // namespace gpuwhy
