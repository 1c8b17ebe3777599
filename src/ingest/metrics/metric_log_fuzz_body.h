// The body shared by the deterministic mutation fuzzer (metric_log_fuzz_test.cc, in ctest) and
// the libFuzzer targets (fuzz/, clang only): parse |data| as one metric-log format and check the
// contract: no crash, no exception, no undefined behaviour (under the sanitizers), an error names
// the input ("NAME: ..."), and every series is well formed (as many times as values, times
// non-decreasing, no NaN time).
#pragma once

#include <string>
#include <string_view>

#include <fmt/format.h>

#include "ingest/metrics/metric_log.h"

namespace gpuwhy {

inline constexpr std::string_view kMetricLogFuzzName = "fuzz.log";

// The text formats (recordings have their own fuzzer).
enum class MetricLogFuzzFormat {
  kDmon,
  kPmon,
  kQueryGpuCsv,
  kDcgmPrometheus,
  kDcgmCsv,
  kDcgmiDmon,
  kSniffed
};

inline StatusOr<MetricSeriesSet> ParseForFuzz(MetricLogFuzzFormat format, std::string_view data) {
  const std::string_view name = kMetricLogFuzzName;
  switch (format) {
    case MetricLogFuzzFormat::kDmon: return ParseDmonText(data, name);
    case MetricLogFuzzFormat::kPmon: return ParsePmonText(data, name);
    case MetricLogFuzzFormat::kQueryGpuCsv: return ParseQueryGpuCsv(data, name);
    case MetricLogFuzzFormat::kDcgmPrometheus: return ParseDcgmPrometheus(data, name);
    case MetricLogFuzzFormat::kDcgmCsv: return ParseDcgmCsv(data, name);
    case MetricLogFuzzFormat::kDcgmiDmon: return ParseDcgmiDmon(data, name);
    case MetricLogFuzzFormat::kSniffed: break;
  }
  // The front door: sniffed, then parsed as whatever it looks like (a recording excepted).
  if (SniffMetricLog(data.substr(0, 16 << 10)) == MetricLogFormat::kRecording) {
    return InvalidArgument("{}: skipped", name);
  }
  return ParseMetricLogText(data, name);
}

// What broke the contract; "" when it holds (the caller reports or aborts).
inline std::string FuzzMetricLogParser(MetricLogFuzzFormat format, std::string_view data) {
  StatusOr<MetricSeriesSet> set = ParseForFuzz(format, data);
  if (!set.ok()) {
    return set.status().message().starts_with(kMetricLogFuzzName)
               ? ""
               : "error without the name: " + set.status().message();
  }
  OrderSamplesByTime(*set);  // what the front door does after each parser
  for (const auto& [key, series] : set->all()) {
    if (series.time.size() != series.value.size()) return key.metric + ": times and values differ";
    for (size_t i = 1; i < series.time.size(); ++i) {
      if (series.time[i] < series.time[i - 1]) {
        return fmt::format("{} of device {}: sample {} at {} ns before sample {} at {} ns",
                           key.metric, key.device, i, series.time[i], i - 1, series.time[i - 1]);
      }
    }
  }
  return "";
}

}  // namespace gpuwhy
