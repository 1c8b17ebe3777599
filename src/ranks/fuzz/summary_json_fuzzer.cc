// libFuzzer target for the rank summary reader (--summary files). Built only with clang and
// -DGPUWHY_BUILD_FUZZERS=ON:
//   CXX=clang++-14 CC=clang-14 cmake -S . -B build/fuzz -G Ninja -DGPUWHY_BUILD_FUZZERS=ON
//   cmake --build build/fuzz --target fuzz_rank_summary
//   build/fuzz/src/ranks/fuzz_rank_summary -max_total_time=600 SCRATCH_CORPUS_DIR
// (libFuzzer writes new inputs into the first folder: never ../shared/data)
#include <cstdint>
#include <cstdlib>

#include "ranks/summary_json_fuzz_body.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!gpuwhy::FuzzRankSummaryReader(std::string_view(reinterpret_cast<const char*>(data), size))) {
    std::abort();  // libFuzzer saves the input that broke the contract
  }
  return 0;
}
