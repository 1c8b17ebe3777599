// GPU_METRICS(timestamp, typeId, metricId, value) with names from
// TARGET_INFO_GPU_METRICS(typeId, [sourceId,] metricId, metricName), `nsys profile
// --gpu-metrics-devices=...` captures, into per-device series binned at import
// (model/gpu_metric_bins.h, docs/nsys.md "GPU metrics"). The samples belong to a GPU, not a
// process: every trace with GPU work gets them.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "ingest/nsys/nsys_context.h"
#include "model/gpu_metric_bins.h"

namespace gpuwhy {
namespace {

// Names as Nsight Systems spells them, without the "[Throughput %]" unit newer versions add
// (older ones: "SMs Active", "Tensor Active / FP16 Active"); other units ("[Avg]", "[MHz]",
// "[Avg Warps per Cycle]") are other quantities and stay unmapped.
struct KnownMetric {
  std::string_view name;
  std::string_view metric;
};
constexpr KnownMetric kKnownMetrics[] = {
    {"SM Active", gpu_metric::kSmActive},
    {"SMs Active", gpu_metric::kSmActive},
    {"SM Issue", gpu_metric::kSmIssue},
    {"Tensor Active", gpu_metric::kTensorActive},
    {"Tensor Active / FP16 Active", gpu_metric::kTensorActive},
    {"GR Active", gpu_metric::kGrActive},
    {"DRAM Read Bandwidth", gpu_metric::kDramReadBw},
    {"DRAM Write Bandwidth", gpu_metric::kDramWriteBw},
    {"Compute Warps in Flight", gpu_metric::kComputeWarps},
    {"PCIe Read Throughput", gpu_metric::kPcieReadBw},
    {"PCIe Write Throughput", gpu_metric::kPcieWriteBw},
};

std::optional<std::string_view> MetricIdOf(std::string_view name) {
  constexpr std::string_view kPercentUnit = " [Throughput %]";
  if (name.size() > kPercentUnit.size() &&
      name.substr(name.size() - kPercentUnit.size()) == kPercentUnit) {
    name.remove_suffix(kPercentUnit.size());
  } else if (name.find('[') != std::string_view::npos) {
    return std::nullopt;
  }
  for (const KnownMetric& m : kKnownMetrics) {
    if (m.name == name) return m.metric;
  }
  return std::nullopt;
}

struct SeriesKey {
  std::string_view metric;
  int32_t device;
  auto operator<=>(const SeriesKey&) const = default;
};
struct Sample {
  TimeNs at;  // end of the sampled interval
  double value;
};
using Key = std::pair<int64_t, int64_t>;  // (typeId, metricId)
constexpr TimeNs kLatestSampleNs = TimeNs{1} << 62;

struct NameTable {
  bool present = false;
  std::map<Key, std::string> names;
  std::map<int64_t, int32_t> device_of_type;  // typeId -> sourceId, when the column exists
};

StatusOr<NameTable> ReadNames(NsysContext& ctx) {
  const std::string_view t = "TARGET_INFO_GPU_METRICS";
  NameTable table;
  if (!ctx.reader.HasTable(t)) return table;
  for (std::string_view column : {"typeId", "metricId", "metricName"}) {
    if (!ctx.reader.HasColumn(t, column)) return table;
  }
  table.present = true;
  const bool has_source = ctx.reader.HasColumn(t, "sourceId");
  ASSIGN_OR_RETURN(SqliteStatement q,
                   ctx.reader.Prepare(fmt::format("SELECT typeId, metricId, metricName, {} FROM {}",
                                                  has_source ? "sourceId" : "NULL", t)));
  while (q.Step()) {
    table.names[{q.Int(0), q.Int(1)}] = std::string(q.Text(2));
    if (!q.IsNull(3)) table.device_of_type[q.Int(0)] = static_cast<int32_t>(q.Int(3));
  }
  RETURN_IF_ERROR(q.status());
  return table;
}

// In time order (the query orders by typeId first: two typeIds of one GPU interleave), one
// sample per timestamp: a repeat is counted and dropped.
void KeepFirstAtEachTime(std::string_view metric, std::vector<Sample>& s, DataProblems& problems) {
  std::stable_sort(s.begin(), s.end(),
                   [](const Sample& a, const Sample& b) { return a.at < b.at; });
  size_t kept = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (kept > 0 && s[kept - 1].at == s[i].at) {
      problems.Add(DataProblem::kBadTimestamp,
                   fmt::format("GPU_METRICS: {} repeats timestamp {} ns; the first sample is kept",
                               metric, s[i].at));
      continue;
    }
    s[kept++] = s[i];
  }
  s.resize(kept);
}

// The typical spacing of a series' samples: the median gap (one bin for a single sample).
DurationNs MedianGap(const std::vector<Sample>& s) {
  std::vector<DurationNs> gaps;
  for (size_t i = 1; i < s.size(); ++i) {
    if (s[i].at > s[i - 1].at) gaps.push_back(s[i].at - s[i - 1].at);
  }
  if (gaps.empty()) return kGpuMetricBinNs;
  std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
  return gaps[gaps.size() / 2];
}

// Each sample stands for the interval since the previous one (the first, and one after a
// pause longer than 4 typical gaps, for one typical gap), spread over the bins it overlaps.
std::map<int64_t, std::pair<double, double>> Bin(const std::vector<Sample>& s, DurationNs bin_ns) {
  std::map<int64_t, std::pair<double, double>> bins;  // bin -> (Σ value × ns, Σ ns)
  const DurationNs gap = MedianGap(s);
  for (size_t i = 0; i < s.size(); ++i) {
    TimeNs from = s[i].at - gap;
    if (i > 0 && (s[i].at - s[i - 1].at) / 4 <= gap) from = s[i - 1].at;
    for (TimeNs b = from >= 0 ? from / bin_ns : (from - bin_ns + 1) / bin_ns; b * bin_ns < s[i].at;
         ++b) {
      const double overlap =
          static_cast<double>(std::min(s[i].at, (b + 1) * bin_ns) - std::max(from, b * bin_ns));
      if (overlap <= 0) continue;
      auto& [weighted, covered] = bins[b];
      weighted += s[i].value * overlap;
      covered += overlap;
    }
  }
  return bins;
}

// 100 µs bins, wider in 100 µs steps when the capture (from one typical gap before each
// series' first sample, which that sample covers) would need more than kMaxGpuMetricBins.
DurationNs BinWidth(const std::map<SeriesKey, std::vector<Sample>>& series) {
  TimeNs first = 0;
  TimeNs last = 0;
  bool any = false;
  for (const auto& [key, s] : series) {
    if (s.empty()) continue;
    const TimeNs from = s.front().at - MedianGap(s);
    first = any ? std::min(first, from) : from;
    last = any ? std::max(last, s.back().at) : s.back().at;
    any = true;
  }
  const DurationNs span = last - first + kGpuMetricBinNs;  // + one bin for the alignment
  const int64_t steps = (span / kMaxGpuMetricBins + kGpuMetricBinNs - 1) / kGpuMetricBinNs;
  return std::max<int64_t>(1, steps) * kGpuMetricBinNs;
}

}  // namespace

Status ReadGpuMetrics(NsysContext& ctx) {
  const std::string_view t = "GPU_METRICS";
  if (!ctx.reader.HasTable(t)) return Status::Ok();
  DataProblems problems;
  for (std::string_view column : {"timestamp", "typeId", "metricId", "value"}) {
    if (ctx.reader.HasColumn(t, column)) continue;
    problems.Add(
        DataProblem::kMissingField,
        fmt::format("GPU_METRICS has no column {}: a layout gpuwhy does not read", column));
    for (auto& process : ctx.processes) process->trace.problems.MergeFrom(problems);
    return Status::Ok();
  }
  ASSIGN_OR_RETURN(NameTable names, ReadNames(ctx));
  ASSIGN_OR_RETURN(SqliteStatement q,
                   ctx.reader.Prepare("SELECT timestamp, typeId, metricId, value FROM GPU_METRICS "
                                      "ORDER BY typeId, metricId, timestamp"));
  std::map<Key, std::optional<SeriesKey>> resolved;
  std::map<std::string, int64_t> unmapped;  // name (or "typeId/metricId") -> samples
  std::map<SeriesKey, std::vector<Sample>> series;
  while (q.Step()) {
    const Key key{q.Int(1), q.Int(2)};
    auto [it, inserted] = resolved.try_emplace(key);
    if (inserted) {
      auto name = names.names.find(key);
      std::optional<std::string_view> metric;
      if (name != names.names.end()) metric = MetricIdOf(name->second);
      if (metric) {
        auto device = names.device_of_type.find(key.first);
        // Without sourceId, the GPU is the typeId's low byte (docs/nsys.md).
        it->second = SeriesKey{*metric, device != names.device_of_type.end()
                                            ? device->second
                                            : static_cast<int32_t>(key.first & 0xFF)};
      }
    }
    if (!it->second) {
      auto name = names.names.find(key);
      ++unmapped[name != names.names.end()
                     ? name->second
                     : fmt::format("typeId {} metricId {}", key.first, key.second)];
      continue;
    }
    // nsys times count from the session start; before it (or past 2^62 ns, 146 years) is no
    // time to bin (and would overflow the bin arithmetic).
    if (q.IsNull(0) || q.Int(0) < 0 || q.Int(0) >= kLatestSampleNs) {
      problems.Add(DataProblem::kBadTimestamp,
                   q.IsNull(0)
                       ? std::string("GPU_METRICS: a sample without a timestamp")
                       : fmt::format("GPU_METRICS: timestamp {} ns is out of range", q.Int(0)));
      continue;
    }
    const double value = q.IsNull(3) ? NAN : q.Double(3);
    if (!std::isfinite(value) || value < 0) {
      problems.Add(DataProblem::kBadValue, fmt::format("GPU_METRICS: {} at {} ns: {}",
                                                       it->second->metric, q.Int(0), value));
      continue;
    }
    series[*it->second].push_back({q.Int(0), std::min(value, 100.0)});  // a %, at most 100
  }
  RETURN_IF_ERROR(q.status());
  for (auto& [key, s] : series) KeepFirstAtEachTime(key.metric, s, problems);
  for (const auto& [name, count] : unmapped) {
    problems.Add(DataProblem::kUnmappedMetric,
                 names.present ? fmt::format("GPU_METRICS: {} sample(s) of '{}'", count, name)
                               : fmt::format("GPU_METRICS: {} sample(s) of {} without "
                                             "TARGET_INFO_GPU_METRICS to name them",
                                             count, name),
                 count);
  }
  const DurationNs bin_ns = BinWidth(series);
  std::vector<std::pair<SeriesKey, std::map<int64_t, std::pair<double, double>>>> binned;
  for (const auto& [key, samples] : series) binned.emplace_back(key, Bin(samples, bin_ns));
  for (auto& process : ctx.processes) {
    Trace& trace = process->trace;
    if (trace.gpu_ops.size() == 0) continue;
    trace.problems.MergeFrom(problems);
    if (binned.empty()) continue;
    trace.metadata.extra[std::string(kGpuMetricsBinKey)] = std::to_string(bin_ns);
    trace.metadata.extra[std::string(kGpuMetricsSourceKey)] = std::string(kGpuMetricsSource);
    for (const auto& [key, bins] : binned) {
      const StringId name =
          trace.strings.Intern(fmt::format("{}{}", kGpuMetricCounterPrefix, key.metric));
      for (const auto& [b, sums] : bins) {
        trace.counters.rows.push_back({name, key.device, b * bin_ns, sums.first / sums.second});
      }
    }
  }
  return Status::Ok();
}

}  // namespace gpuwhy
