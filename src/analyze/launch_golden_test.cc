// Golden tests of the launch statistics, launch queue and comm/compute overlap against
// HolisticTraceAnalysis' own outputs (../shared/data/reference/hta, HTA commit f4d0062,
// default settings: last ProfilerStep dropped, µs). Agreement: within 1% or 0.5 µs / 0.5
// percentage points. Every real trace also runs through the five analyses without crashing.
// Skipped when the data is absent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "analyze/communication.h"
#include "analyze/data_quality.h"
#include "analyze/launch_stats.h"
#include "analyze/memory_usage.h"
#include "analyze/runtime_calls.h"
#include "analyze/sync_copies.h"
#include "ingest/importer.h"

namespace gpuwhy {
namespace launch_golden_test {

namespace fs = std::filesystem;
using Row = std::map<std::string, std::string>;

std::vector<Row> ReadSimpleCsv(const fs::path& path) {  // HTA's numeric CSVs: no quoting
  std::vector<Row> rows;
  std::ifstream in(path);
  std::string line;
  std::vector<std::string> header;
  auto split = [](const std::string& l) {
    std::vector<std::string> out;
    std::stringstream ss(l);
    std::string f;
    while (std::getline(ss, f, ',')) out.push_back(f);
    if (!l.empty() && l.back() == ',') out.emplace_back();
    return out;
  };
  if (!std::getline(in, line)) return rows;
  header = split(line);
  while (std::getline(in, line)) {
    std::vector<std::string> f = split(line);
    Row row;
    for (size_t i = 0; i < header.size() && i < f.size(); ++i) row[header[i]] = f[i];
    rows.push_back(std::move(row));
  }
  return rows;
}

double Num(const Row& row, const std::string& key) {
  auto it = row.find(key);
  return it == row.end() || it->second.empty() ? std::nan("") : std::stod(it->second);
}

bool Close(double ours, double ref, double abs_tolerance) {
  return std::fabs(ours - ref) <= std::max(0.01 * std::fabs(ref), abs_tolerance) + 1e-9;
}

struct RefFile {
  std::string set;
  std::string file;
  int64_t rank;
};

const std::vector<RefFile>& RefFiles() {
  static const std::vector<RefFile> files = {
      {"trace_filter", "trace_filter_sampled_rank-0.json.gz", 0},
      {"trace_filter", "trace_filter_sampled_rank-1.json.gz", 1},
      {"ns_resolution_trace", "ns_resolution_trace_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
       0},
      {"nccl_parser_config", "nccl_parser_config_nccl_data.json.gz", 0},
      {"amd_trace", "amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz", 0},
      {"critical_path_alexnet",
       "critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz", 0},
  };
  return files;
}

fs::path DataRoot() { return fs::path(GPUWHY_SHARED_DATA); }

// HTA's loader rounds fractional-µs timestamps: ceil(ts) and floor(ts + dur).
struct HtaTimes {
  double start, end;
};
HtaTimes HtaRound(TimeNs start, TimeNs end, bool fractional) {
  if (!fractional) return {static_cast<double>(start) / 1000.0, static_cast<double>(end) / 1000.0};
  return {std::ceil(static_cast<double>(start) / 1000.0),
          std::floor(static_cast<double>(end) / 1000.0)};
}

struct LaunchAggregates {
  double count = 0, cpu_mean = 0, gpu_mean = 0, delay_mean = 0;
  double runtime_outliers = 0, delay_outliers = 0, short_kernels = 0;
};

LaunchAggregates FromReference(const std::vector<Row>& rows, int64_t rank) {
  LaunchAggregates a;
  for (const Row& r : rows) {
    if (static_cast<int64_t>(Num(r, "rank")) != rank) continue;
    double cpu = Num(r, "cpu_duration"), gpu = Num(r, "gpu_duration"),
           delay = Num(r, "launch_delay");
    ++a.count;
    a.cpu_mean += cpu;
    a.gpu_mean += gpu;
    a.delay_mean += delay;
    a.runtime_outliers += cpu > 50;
    a.delay_outliers += delay > 100;
    a.short_kernels += gpu < cpu;
  }
  if (a.count > 0) {
    a.cpu_mean /= a.count;
    a.gpu_mean /= a.count;
    a.delay_mean /= a.count;
  }
  return a;
}

// HTA rounds every timestamp of a rank once any of them is fractional.
bool HasFractionalTimes(const Trace& trace) {
  for (size_t i = 0; i < trace.gpu_ops.size(); ++i) {
    if (trace.gpu_ops.start[i] % 1000 != 0 || trace.gpu_ops.end[i] % 1000 != 0) return true;
  }
  for (size_t i = 0; i < trace.cpu_slices.size(); ++i) {
    if (trace.cpu_slices.start[i] % 1000 != 0 || trace.cpu_slices.end[i] % 1000 != 0) return true;
  }
  return false;
}

// comm/compute overlap as `analyze --hta-compat` computes it (HTA's loader: last step
// dropped, µs rounding): the production path, checked against HTA's own output.
double HtaRoundedOverlapPct(const Trace& trace, const DeviceTimelines& timelines) {
  AnalysisOptions options;
  options.drop_last_step = true;
  options.hta_compat = true;
  MetricSet metrics;
  return ComputeCommunication({trace, timelines, options}, metrics).rank.overlap_pct;
}

// Our records restricted to HTA's call names, in µs with HTA's rounding.
LaunchAggregates FromOurs(const Trace& trace, const LaunchStatsResult& r) {
  bool fractional = HasFractionalTimes(trace);
  LaunchAggregates a;
  for (const LaunchRecord& l : r.launches) {
    size_t c = l.call.value;
    if (!IsHtaLaunchStatsCall(trace.Str(trace.cpu_slices.name[c]))) continue;
    HtaTimes call = HtaRound(trace.cpu_slices.start[c], trace.cpu_slices.end[c], fractional);
    size_t o = l.first_op.value;
    HtaTimes op = HtaRound(trace.gpu_ops.start[o], trace.gpu_ops.end[o], fractional);
    double cpu = call.end - call.start, gpu = op.end - op.start;
    double delay = std::max(0.0, op.start - call.end);
    ++a.count;
    a.cpu_mean += cpu;
    a.gpu_mean += gpu;
    a.delay_mean += delay;
    a.runtime_outliers += cpu > 50;
    a.delay_outliers += delay > 100;
    a.short_kernels += gpu < cpu;
  }
  if (a.count > 0) {
    a.cpu_mean /= a.count;
    a.gpu_mean /= a.count;
    a.delay_mean /= a.count;
  }
  return a;
}

struct Analyzed {
  Trace trace;
  DeviceTimelines timelines;
  LaunchStatsResult launch;
  CommunicationResult comm;
};

std::optional<Analyzed> Analyze(const fs::path& path, bool drop_last_step) {
  auto imported = ImportTraceFile(path.string());
  if (!imported.ok()) return std::nullopt;
  Analyzed a{std::move(*imported), {}, {}, {}};
  a.timelines = BuildDeviceTimelines(a.trace);
  AnalysisOptions options;
  options.drop_last_step = drop_last_step;
  AnalysisInput input{a.trace, a.timelines, options};
  MetricSet metrics;
  a.launch = ComputeLaunchStats(input, metrics);
  a.comm = ComputeCommunication(input, metrics);
  return a;
}

TEST(LaunchGoldenTest, LaunchStatsQueueAndOverlapMatchHta) {
  fs::path ref_root = DataRoot() / "reference" / "hta";
  if (!fs::exists(ref_root))
    GTEST_SKIP() << "../shared/data/reference/hta is absent: golden tests skipped";
  for (const RefFile& f : RefFiles()) {
    SCOPED_TRACE(f.set + " rank " + std::to_string(f.rank));
    std::optional<Analyzed> a =
        Analyze(DataRoot() / "kineto" / "hta" / f.file, /*drop_last_step=*/true);
    ASSERT_TRUE(a.has_value());
    fs::path dir = ref_root / f.set;

    LaunchAggregates ref =
        FromReference(ReadSimpleCsv(dir / "cuda_kernel_launch_stats.csv"), f.rank);
    LaunchAggregates ours = FromOurs(a->trace, a->launch);
    std::cout << f.set << " r" << f.rank << " launches ours/ref: n " << ours.count << "/"
              << ref.count << " cpu " << ours.cpu_mean << "/" << ref.cpu_mean << " gpu "
              << ours.gpu_mean << "/" << ref.gpu_mean << " delay " << ours.delay_mean << "/"
              << ref.delay_mean << " rt_out " << ours.runtime_outliers << "/"
              << ref.runtime_outliers << " delay_out " << ours.delay_outliers << "/"
              << ref.delay_outliers << " short " << ours.short_kernels << "/" << ref.short_kernels
              << "\n";
    EXPECT_TRUE(Close(ours.count, ref.count, 0)) << ours.count << " vs " << ref.count;
    EXPECT_TRUE(Close(ours.cpu_mean, ref.cpu_mean, 0.5)) << ours.cpu_mean << " vs " << ref.cpu_mean;
    EXPECT_TRUE(Close(ours.gpu_mean, ref.gpu_mean, 0.5)) << ours.gpu_mean << " vs " << ref.gpu_mean;
    EXPECT_TRUE(Close(ours.delay_mean, ref.delay_mean, 0.5))
        << ours.delay_mean << " vs " << ref.delay_mean;
    EXPECT_TRUE(Close(ours.runtime_outliers, ref.runtime_outliers, 0))
        << ours.runtime_outliers << " vs " << ref.runtime_outliers;
    EXPECT_TRUE(Close(ours.delay_outliers, ref.delay_outliers, 0))
        << ours.delay_outliers << " vs " << ref.delay_outliers;
    EXPECT_TRUE(Close(ours.short_kernels, ref.short_kernels, 0))
        << ours.short_kernels << " vs " << ref.short_kernels;

    // Queue length summary: one row per stream of this rank.
    std::map<int64_t, Row> ref_queues;
    for (const Row& r : ReadSimpleCsv(dir / "queue_length_summary.csv")) {
      if (static_cast<int64_t>(Num(r, "rank")) == f.rank)
        ref_queues[static_cast<int64_t>(Num(r, "stream"))] = r;
    }
    ASSERT_EQ(a->launch.queues.size(), ref_queues.size());
    for (const StreamQueue& q : a->launch.queues) {
      SCOPED_TRACE("stream " + std::to_string(q.stream));
      ASSERT_TRUE(ref_queues.count(q.stream));
      const Row& r = ref_queues[q.stream];
      std::cout << "  stream " << q.stream << " queue ours/ref: n " << q.samples.count << "/"
                << Num(r, "queue_length.count") << " mean " << q.samples.mean << "/"
                << Num(r, "queue_length.mean") << " p50 " << q.samples.median << "/"
                << Num(r, "queue_length.50%") << " max " << q.samples.max << "/"
                << Num(r, "queue_length.max") << "\n";
      EXPECT_EQ(q.samples.count, static_cast<int64_t>(Num(r, "queue_length.count")));
      EXPECT_TRUE(Close(q.samples.mean, Num(r, "queue_length.mean"), 0.5)) << q.samples.mean;
      EXPECT_TRUE(Close(q.samples.median, Num(r, "queue_length.50%"), 0.5)) << q.samples.median;
      EXPECT_TRUE(Close(q.samples.max, Num(r, "queue_length.max"), 0.5)) << q.samples.max;
      EXPECT_TRUE(Close(q.samples.min, Num(r, "queue_length.min"), 0.5)) << q.samples.min;
    }
    // time_blocked_on_full_queue.csv lists no stream in any reference set.
    EXPECT_EQ(ReadSimpleCsv(dir / "time_blocked_on_full_queue.csv").size(), 0u);
    for (const StreamQueue& q : a->launch.queues) EXPECT_EQ(q.full_time, 0) << q.stream;

    // comm_comp_overlap.csv: empty value when the rank has no communication kernels.
    for (const Row& r : ReadSimpleCsv(dir / "comm_comp_overlap.csv")) {
      if (static_cast<int64_t>(Num(r, "rank")) != f.rank) continue;
      double ref_pct = Num(r, "comp_comm_overlap_pctg");
      if (std::isnan(ref_pct)) {
        EXPECT_EQ(a->comm.rank.kernel_count, 0);
      } else {
        double rounded = HtaRoundedOverlapPct(a->trace, a->timelines);
        std::cout << "  overlap ours/hta-rounded/ref " << a->comm.rank.overlap_pct << "/" << rounded
                  << "/" << ref_pct << "\n";
        EXPECT_NEAR(a->comm.rank.overlap_pct, ref_pct, 0.5);  // exact ns: rounding residual only
        EXPECT_NEAR(rounded, ref_pct, 0.01);  // HTA's printed value has two decimals
      }
    }
  }
}

std::vector<fs::path> RealTraces() {
  std::vector<fs::path> files;
  fs::path root = DataRoot() / "kineto";
  if (!fs::exists(root)) return files;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file()) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(LaunchGoldenTest, EveryRealTraceAnalyzes) {
  std::vector<fs::path> files = RealTraces();
  if (files.empty()) GTEST_SKIP() << "../shared/data/kineto is absent: real-trace tests skipped";
  for (const fs::path& path : files) {
    SCOPED_TRACE(path.string());
    auto imported = ImportTraceFile(path.string());
    ASSERT_TRUE(imported.ok()) << imported.status().message();
    const Trace& trace = *imported;
    DeviceTimelines timelines = BuildDeviceTimelines(trace);
    AnalysisOptions options;
    AnalysisInput input{trace, timelines, options};
    MetricSet metrics;
    LaunchStatsResult launch = ComputeLaunchStats(input, metrics);
    SyncCopiesResult sync = ComputeSyncCopies(input, metrics);
    CommunicationResult comm = ComputeCommunication(input, metrics);
    MemoryUsageResult memory = ComputeMemoryUsage(input, metrics);
    DataQualityResult quality = ComputeDataQuality(input, metrics);
    // What does not apply says so; what applies is consistent.
    if (trace.gpu_ops.size() == 0) {
      EXPECT_FALSE(launch.not_applicable.empty());
      EXPECT_FALSE(comm.not_applicable.empty());
    }
    EXPECT_LE(launch.delay_outliers, launch.calls);
    EXPECT_GE(comm.rank.overlap_pct, 0);
    EXPECT_LE(comm.rank.overlap_pct, 100.0 + 1e-9);
    EXPECT_EQ(comm.rank.comm_time, comm.rank.overlapped + comm.rank.exposed);
    EXPECT_GE(sync.blocking_total, 0);
    if (trace.memory_events.size() == 0) {
      EXPECT_FALSE(memory.not_applicable.empty());
    }
    EXPECT_NE(metrics.Find("quality.issues"), nullptr);
    for (const Metric& m : metrics.all()) EXPECT_TRUE(std::isfinite(m.value)) << m.id;
  }
}

}  // namespace launch_golden_test
}  // namespace gpuwhy
