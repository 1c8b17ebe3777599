// Busy-time facts the compute, memory and copy rules need, in one pass over the GPU ops of
// the analysed window. Kernel names are examined once per distinct name.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <unordered_map>

#include "analyze/kernel_class.h"
#include "analyze/kernel_table.h"
#include "diagnose/trace_rules/rule_context.h"

namespace gpuwhy {
namespace {

// Blocks / SMs of one launch: from the grid and the device's SM count, else from Kineto's
// "blocks per SM" (CUPTI's same ratio) where the trace lacks device properties; -1 unknown.
double GridFill(const DeviceTable::Row* device, const LaunchConfig& launch) {
  if (device != nullptr && device->sm_count > 0 && launch.grid[0] > 0) {
    double blocks =
        double{1} * launch.grid[0] * std::max(1, launch.grid[1]) * std::max(1, launch.grid[2]);
    return blocks / device->sm_count;
  }
  if (!std::isnan(launch.blocks_per_sm) && launch.blocks_per_sm > 0) return launch.blocks_per_sm;
  return -1;
}

struct NameFacts {
  // The kernel table says fp32 on the SIMT cores (sgemm, scudnn, ffma): what tensor cores could
  // speed up. A GEMM the table cannot read is not counted: unknown is not fp32.
  bool fp32_simt = false;
  bool softmax = false;
};

bool ContainsLower(std::string_view haystack, std::string_view needle) {
  auto it = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(),
                        [](char a, char b) { return std::tolower(a) == b; });
  return it != haystack.end();
}

std::vector<std::string> TopNames(const Trace& trace,
                                  const std::unordered_map<uint32_t, DurationNs>& by_name,
                                  size_t top_n) {
  std::vector<std::pair<std::string, DurationNs>> rows;
  rows.reserve(by_name.size());
  for (const auto& [id, ns] : by_name) rows.emplace_back(std::string(trace.Str(StringId(id))), ns);
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  std::vector<std::string> out;
  for (size_t i = 0; i < rows.size() && i < top_n; ++i) out.push_back(rows[i].first);
  return out;
}

// |copies| minus computation and communication on their device, summed over devices.
DurationNs ExposedCopyTime(const TraceAnalysis& analysis,
                           const std::map<int32_t, std::vector<Interval>>& copies) {
  DurationNs total = 0;
  for (const auto& [device, intervals] : copies) {
    IntervalSet set = IntervalSet::FromUnsorted(intervals);
    auto it = analysis.timelines.by_device.find(device);
    if (it != analysis.timelines.by_device.end()) {
      set = set.Subtract(it->second.computation).Subtract(it->second.communication);
    }
    total += set.TotalLength();
  }
  return total;
}

void KeepLongest(std::vector<EvidenceRange>& ranges, size_t top_n) {
  std::stable_sort(ranges.begin(), ranges.end(),
                   [](const auto& a, const auto& b) { return a.end - a.start > b.end - b.start; });
  if (ranges.size() > top_n) ranges.resize(top_n);
}

}  // namespace

BusyStats ComputeBusyStats(const Trace& trace, const TraceAnalysis& analysis, Interval window,
                           size_t top_n) {
  BusyStats s;
  if (window.length() <= 0) return s;
  const GpuOpTable& ops = trace.gpu_ops;
  const std::vector<KernelClass>& classes = analysis.timelines.kernel_class;
  std::unordered_map<uint32_t, NameFacts> facts;
  std::unordered_map<uint32_t, DurationNs> fp32_names, elementwise_names, softmax_names,
      underfilled_names;
  std::map<int32_t, std::vector<Interval>> pageable, pinned;
  for (size_t i = 0; i < ops.size(); ++i) {
    TimeNs start = std::max(ops.start[i], window.start);
    TimeNs end = std::min(ops.end[i], window.end);
    if (end <= start) continue;
    DurationNs ns = end - start;
    if (ops.kind[i] == GpuOpKind::kMemcpy) {
      if (ops.copy_direction(i) != CopyDirection::kHostToDevice) continue;
      bool is_pageable = ops.src_kind(i) == MemoryKind::kPageable;
      (is_pageable ? pageable : pinned)[ops.device[i]].push_back({start, end});
      std::string name(trace.Str(ops.name[i]));
      (is_pageable ? s.pageable_ranges : s.pinned_ranges)
          .push_back({"copy", ops.device[i], ops.stream[i], start, end, std::move(name)});
      if (is_pageable && ops.bytes(i) > 0) s.pageable_h2d_bytes += ops.bytes(i);
      continue;
    }
    if (ops.kind[i] != GpuOpKind::kKernel) continue;
    s.kernel_ns += ns;
    ++s.kernel_count;
    uint32_t name_id = ops.name[i].value;
    auto [fit, inserted] = facts.try_emplace(name_id);
    if (inserted) {
      std::string_view name = trace.Str(ops.name[i]);
      fit->second.fp32_simt = IsFp32SimtMatmul(DescribeKernel(GpuOpKind::kKernel, name));
      fit->second.softmax = ContainsLower(name, "softmax");
    }
    const NameFacts& nf = fit->second;
    KernelClass c = i < classes.size() ? classes[i] : KernelClass::kOther;
    if (nf.softmax && c != KernelClass::kAttention) {
      s.softmax_ns += ns;
      softmax_names[name_id] += ns;
      continue;
    }
    switch (c) {
      case KernelClass::kGemm:
      case KernelClass::kConvolution: {
        s.gemm_conv_ns += ns;
        if (nf.fp32_simt) {
          s.fp32_gemm_conv_ns += ns;
          fp32_names[name_id] += ns;
        }
        double fill = GridFill(trace.devices.Find(ops.device[i]), ops.launch(i));
        if (fill < 0) break;
        s.grids_known = true;
        if (fill >= 1) break;
        s.underfilled_gemm_ns += ns;
        s.underfilled_saving_ns += ns * (1.0 - fill);
        underfilled_names[name_id] += ns;
        break;
      }
      case KernelClass::kAttention: s.attention_ns += ns; break;
      case KernelClass::kElementwise:
      case KernelClass::kNormalization:
      case KernelClass::kReduction:
        s.elementwise_ns += ns;
        elementwise_names[name_id] += ns;
        break;
      default: break;
    }
  }
  s.pageable_h2d_exposed_ns = ExposedCopyTime(analysis, pageable);
  s.pinned_h2d_exposed_ns = ExposedCopyTime(analysis, pinned);
  KeepLongest(s.pageable_ranges, top_n);
  KeepLongest(s.pinned_ranges, top_n);
  s.top_fp32_names = TopNames(trace, fp32_names, top_n);
  s.top_elementwise_names = TopNames(trace, elementwise_names, top_n);
  s.top_softmax_names = TopNames(trace, softmax_names, top_n);
  s.top_underfilled_names = TopNames(trace, underfilled_names, top_n);
  return s;
}

}  // namespace gpuwhy
