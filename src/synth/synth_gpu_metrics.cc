#include "synth/synth_gpu_metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gpuwhy {
namespace {

constexpr std::string_view kNames[] = {"GR Active [Throughput %]",
                                       "SM Active [Throughput %]",
                                       "SM Issue [Throughput %]",
                                       "Tensor Active [Throughput %]",
                                       "DRAM Read Bandwidth [Throughput %]",
                                       "DRAM Write Bandwidth [Throughput %]",
                                       "Compute Warps in Flight [Throughput %]"};
static_assert(std::size(kNames) == kSynthGpuMetricCount);

// Tensor-core kernels of the catalog: cuBLAS sm90 GEMMs and FlashAttention.
bool UsesTensorCores(std::string_view name) {
  return name.find("gemm") != std::string_view::npos ||
         name.find("flash") != std::string_view::npos;
}

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

}  // namespace

std::string_view SynthGpuMetricName(SynthGpuMetric metric) {
  return kNames[static_cast<int>(metric)];
}

std::array<double, kSynthGpuMetricCount> SynthGpuMetricLoad(const KernelSpec& spec) {
  const double fill = std::clamp(static_cast<double>(spec.grid_x) / kSynthDeviceSms, 0.0, 1.0);
  const bool tensor = UsesTensorCores(spec.name);
  std::array<double, kSynthGpuMetricCount> load{};
  load[static_cast<int>(SynthGpuMetric::kGrActive)] = 1;
  load[static_cast<int>(SynthGpuMetric::kSmActive)] = fill;
  // Memory-bound kernels keep their warps resident but stalled on loads: they issue less.
  load[static_cast<int>(SynthGpuMetric::kSmIssue)] = fill * (tensor ? 0.5 : 0.25);
  load[static_cast<int>(SynthGpuMetric::kTensorActive)] = tensor ? fill * 0.8 : 0;
  load[static_cast<int>(SynthGpuMetric::kDramRead)] = tensor ? 0.2 : 0.6;
  load[static_cast<int>(SynthGpuMetric::kDramWrite)] = tensor ? 0.1 : 0.3;
  load[static_cast<int>(SynthGpuMetric::kComputeWarps)] = fill * 0.5;
  return load;
}

void SynthGpuMetrics::AddKernel(const KernelSpec& spec, int device, TimeNs ts, DurationNs dur) {
  if (dur <= 0) return;
  const auto load = SynthGpuMetricLoad(spec);
  std::map<int64_t, Bin>& bins = bins_[device];
  for (int64_t b = FloorDiv(ts, kSampleNs); b * kSampleNs < ts + dur; ++b) {
    const DurationNs overlap =
        std::min(ts + dur, (b + 1) * kSampleNs) - std::max(ts, b * kSampleNs);
    Bin& bin = bins[b];
    for (int m = 0; m < kSynthGpuMetricCount; ++m) bin[m] += load[m] * static_cast<double>(overlap);
  }
}

Status SynthGpuMetrics::Write(sqlite3* db, TimeNs start, TimeNs end) const {
  // Nsight Systems 2023+ layout: samples carry the end of their interval in `timestamp`.
  std::string sql =
      "CREATE TABLE TARGET_INFO_GPU_METRICS (typeId INTEGER NOT NULL, sourceId INTEGER NOT NULL, "
      "typeName TEXT NOT NULL, metricId INTEGER NOT NULL, metricName TEXT NOT NULL);"
      "CREATE TABLE GPU_METRICS (rawTimestamp INTEGER NOT NULL, timestamp INTEGER NOT NULL, "
      "typeId INTEGER NOT NULL, metricId INTEGER NOT NULL, value INTEGER NOT NULL);";
  for (const auto& [device, bins] : bins_) {
    for (int m = 0; m < kSynthGpuMetricCount; ++m) {
      sql += fmt::format("INSERT INTO TARGET_INFO_GPU_METRICS VALUES ({}, {}, 'GPU', {}, '{}');",
                         device, device, m, kNames[m]);
    }
  }
  char* error = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    Status status = IoError("sqlite: GPU_METRICS: {}", error ? error : "exec failed");
    sqlite3_free(error);
    return status;
  }
  sqlite3_stmt* insert = nullptr;
  if (sqlite3_prepare_v2(db, "INSERT INTO GPU_METRICS VALUES (?, ?, ?, ?, ?)", -1, &insert,
                         nullptr) != SQLITE_OK) {
    return IoError("sqlite: GPU_METRICS: {}", sqlite3_errmsg(db));
  }
  Status status;
  const Bin idle{};
  for (const auto& [device, bins] : bins_) {
    for (int64_t b = FloorDiv(start, kSampleNs); b * kSampleNs < end && status.ok(); ++b) {
      auto it = bins.find(b);
      const Bin& bin = it != bins.end() ? it->second : idle;
      const TimeNs at = (b + 1) * kSampleNs;
      for (int m = 0; m < kSynthGpuMetricCount; ++m) {
        double pct = std::min(100.0, 100.0 * bin[m] / static_cast<double>(kSampleNs));
        sqlite3_bind_int64(insert, 1, at);
        sqlite3_bind_int64(insert, 2, at);
        sqlite3_bind_int64(insert, 3, device);
        sqlite3_bind_int64(insert, 4, m);
        sqlite3_bind_int64(insert, 5, std::llround(pct));
        if (sqlite3_step(insert) != SQLITE_DONE) {
          status = IoError("sqlite: GPU_METRICS: {}", sqlite3_errmsg(db));
          break;
        }
        sqlite3_reset(insert);
      }
    }
  }
  sqlite3_finalize(insert);
  return status;
}

}  // namespace gpuwhy
