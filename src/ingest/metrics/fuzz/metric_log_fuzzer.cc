// libFuzzer target for one metric-log parser, chosen at compile time by GPUWHY_FUZZ_FORMAT (a
// MetricLogFuzzFormat value). Built only with clang and -DGPUWHY_BUILD_FUZZERS=ON, e.g.:
//   CXX=clang++-14 CC=clang-14 cmake -S . -B build/fuzz -G Ninja -DGPUWHY_BUILD_FUZZERS=ON
//   cmake --build build/fuzz --target fuzz_metric_dmon
//   mkdir -p /tmp/corpus && build/fuzz/src/ingest/metrics/fuzz_metric_dmon -max_total_time=600 \
//     /tmp/corpus ../shared/data/logs/dmon
// libFuzzer writes new inputs into the FIRST folder: a scratch one, never ../shared/data.
#include <cstdint>
#include <cstdlib>

#include "ingest/metrics/metric_log_fuzz_body.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (!gpuwhy::FuzzMetricLogParser(static_cast<gpuwhy::MetricLogFuzzFormat>(GPUWHY_FUZZ_FORMAT),
                                   text)
           .empty()) {
    std::abort();  // libFuzzer saves the input that broke the contract
  }
  return 0;
}
