// libFuzzer target for the Kineto importer. Built only with clang and -DGPUWHY_BUILD_FUZZERS=ON:
//   CXX=clang++-14 CC=clang-14 cmake -S . -B build/fuzz -G Ninja -DGPUWHY_BUILD_FUZZERS=ON
//   cmake --build build/fuzz --target fuzz_kineto
//   mkdir -p /tmp/corpus && build/fuzz/src/ingest/kineto/fuzz_kineto -max_total_time=600 \
//     -max_len=65536 /tmp/corpus ../shared/data/kineto/hta
// libFuzzer writes new inputs into the FIRST folder: a scratch one, never ../shared/data.
#include <cstdint>
#include <cstdlib>

#include "ingest/kineto/kineto_fuzz_body.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!gpuwhy::FuzzKinetoImporter(std::string_view(reinterpret_cast<const char*>(data), size))) {
    std::abort();  // libFuzzer saves the input that broke the contract
  }
  return 0;
}
