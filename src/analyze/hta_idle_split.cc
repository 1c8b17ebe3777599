#include "analyze/hta_idle_split.h"

#include <map>

namespace gpuwhy {
namespace {

constexpr std::array<HtaIdleCategory, kHtaIdleCategories> kCategories = {
    HtaIdleCategory::kHostWait, HtaIdleCategory::kKernelWait, HtaIdleCategory::kOther};

double Ratio(DurationNs part, DurationNs whole) {
  return whole != 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

HtaStreamIdle SplitOneStream(std::span<const ViewOp> ops, const std::vector<uint32_t>& members,
                             DurationNs kernel_wait_ns) {
  HtaStreamIdle s;
  s.device = ops[members.front()].device;
  s.stream = ops[members.front()].stream;
  s.op_count = static_cast<int64_t>(members.size());
  std::array<std::vector<double>, kHtaIdleCategories> gaps_us;
  DurationNs longest = std::numeric_limits<DurationNs>::min();
  for (size_t k = 1; k < members.size(); ++k) {
    const ViewOp& prev = ops[members[k - 1]];
    const ViewOp& op = ops[members[k]];
    // HTA compares with the previous op's own end (not the running maximum).
    DurationNs gap = op.start - prev.end;
    HtaIdleCategory c = HtaIdleCategory::kOther;
    if (op.launch_start != kNoLaunch && op.launch_start > prev.end) {
      c = HtaIdleCategory::kHostWait;
    } else if (gap < kernel_wait_ns) {
      c = HtaIdleCategory::kKernelWait;
    }
    auto ci = static_cast<size_t>(c);
    s.categories[ci].total_ns += gap;
    gaps_us[ci].push_back(NsToUs(gap));
    s.total_idle_ns += gap;
    if (gap > longest) {
      longest = gap;
      s.longest_gap = {"idle_gap", s.device, s.stream,
                       prev.end,   op.start, std::string(HtaIdleCategoryName(c))};
    }
  }
  for (size_t ci = 0; ci < kHtaIdleCategories; ++ci) {
    s.categories[ci].ratio = Ratio(s.categories[ci].total_ns, s.total_idle_ns);
    s.categories[ci].intervals = Summarize(gaps_us[ci]);
  }
  return s;
}

}  // namespace

std::string_view HtaIdleCategoryName(HtaIdleCategory c) {
  switch (c) {
    case HtaIdleCategory::kHostWait: return "host_wait";
    case HtaIdleCategory::kKernelWait: return "kernel_wait";
    case HtaIdleCategory::kOther: return "other";
  }
  return "?";
}

std::vector<HtaStreamIdle> SplitIdleByStream(std::span<const ViewOp> ops,
                                             DurationNs kernel_wait_ns) {
  std::map<std::pair<int32_t, int64_t>, std::vector<uint32_t>> by_stream;  // ordered: deterministic
  for (size_t i = 0; i < ops.size(); ++i)
    by_stream[{ops[i].device, ops[i].stream}].push_back(static_cast<uint32_t>(i));
  std::vector<HtaStreamIdle> result;
  result.reserve(by_stream.size());
  for (const auto& [key, members] : by_stream)
    result.push_back(SplitOneStream(ops, members, kernel_wait_ns));
  return result;
}

HtaIdleSplitResult ComputeHtaIdleSplit(const AnalysisInput& input, MetricSet& metrics) {
  HtaIdleSplitResult result;
  HtaView scratch;
  const HtaView& view = SharedHtaView(input, ViewOptionsFor(input.options), scratch);
  if (view.ops.empty()) {
    result.not_applicable.push_back(
        "HTA idle split: the trace has no GPU kernels, memcpy or memset");
    return result;
  }
  result.streams = SplitIdleByStream(view.ops, input.options.hta_kernel_wait_ns);
  DurationNs rank_total = 0;
  for (const HtaStreamIdle& s : result.streams) {
    MetricScope scope = MetricScope::Stream(s.device, s.stream);
    for (HtaIdleCategory c : kCategories) {
      auto ci = static_cast<size_t>(c);
      std::string name(HtaIdleCategoryName(c));
      const HtaIdleCategoryStats& st = s.categories[ci];
      metrics.Add(metric::kHtaIdleUs, name, scope, NsToUs(st.total_ns));
      metrics.Add(metric::kHtaIdleRatio, name, scope, st.ratio);
      metrics.Add(metric::kHtaIdleCount, name, scope, static_cast<double>(st.intervals.count));
      result.rank_total_ns[ci] += st.total_ns;
    }
    rank_total += s.total_idle_ns;
  }
  for (HtaIdleCategory c : kCategories) {
    auto ci = static_cast<size_t>(c);
    std::string name(HtaIdleCategoryName(c));
    result.rank_ratio[ci] = Ratio(result.rank_total_ns[ci], rank_total);
    metrics.Add(metric::kHtaIdleUs, name, MetricScope::Rank(), NsToUs(result.rank_total_ns[ci]));
    metrics.Add(metric::kHtaIdleRatio, name, MetricScope::Rank(), result.rank_ratio[ci]);
  }
  return result;
}

}  // namespace gpuwhy
