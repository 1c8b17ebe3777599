// libFuzzer target for the JSON report reader (gpuwhy diff). Built only with clang and
// -DGPUWHY_BUILD_FUZZERS=ON:
//   CXX=clang++-14 CC=clang-14 cmake -S . -B build/fuzz -G Ninja -DGPUWHY_BUILD_FUZZERS=ON
//   cmake --build build/fuzz --target fuzz_json_report
//   build/fuzz/src/report/fuzz_json_report -max_total_time=600 SCRATCH_CORPUS_DIR
// (libFuzzer writes new inputs into the first folder: never ../shared/data)
#include <cstdint>
#include <cstdlib>

#include "report/json_report_reader_fuzz_body.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!gpuwhy::FuzzJsonReportReader(std::string_view(reinterpret_cast<const char*>(data), size))) {
    std::abort();  // libFuzzer saves the input that broke the contract
  }
  return 0;
}
