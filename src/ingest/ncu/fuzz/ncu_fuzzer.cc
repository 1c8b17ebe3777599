// libFuzzer target for the Nsight Compute CSV importer. Built only with clang and
// -DGPUWHY_BUILD_FUZZERS=ON:
//   CXX=clang++-14 CC=clang-14 cmake -S . -B build/fuzz -G Ninja -DGPUWHY_BUILD_FUZZERS=ON
//   cmake --build build/fuzz --target fuzz_ncu
//   mkdir -p /tmp/corpus_ncu && build/fuzz/src/ingest/ncu/fuzz_ncu -max_total_time=600 \
//     -max_len=65536 /tmp/corpus_ncu ../shared/data/ncu tests/data/ncu
// libFuzzer writes new inputs into the FIRST folder: a scratch one, never ../shared/data.
#include <cstdint>
#include <cstdlib>

#include "ingest/ncu/ncu_fuzz_body.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!gpuwhy::FuzzNcuImporter(std::string_view(reinterpret_cast<const char*>(data), size))
           .empty()) {
    std::abort();  // libFuzzer saves the input that broke the contract
  }
  return 0;
}
