// libFuzzer target for the Kineto importer. Built only with clang and -DGPUWHY_BUILD_FUZZERS=ON:
//   CXX=clang++-14 CC=clang-14 cmake -S . -B build/fuzz -G Ninja -DGPUWHY_BUILD_FUZZERS=ON
//   cmake --build build/fuzz --target fuzz_kineto
//   build/fuzz/src/ingest/kineto/fuzz_kineto -max_total_time=600 -max_len=65536 CORPUS_DIR
#include <cstdint>
#include <cstdlib>

#include "ingest/kineto/kineto_fuzz_body.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!gpuwhy::FuzzKinetoImporter(std::string_view(reinterpret_cast<const char*>(data), size))) {
    std::abort();  // libFuzzer saves the input that broke the contract
  }
  return 0;
}
