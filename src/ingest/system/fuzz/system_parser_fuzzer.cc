// libFuzzer target for one system-log parser, chosen at compile time by GPUWHY_FUZZ_FORMAT
// (a SystemFormat value). Built only with clang and -DGPUWHY_BUILD_FUZZERS=ON, e.g.:
//   CXX=clang++ CC=clang cmake -S . -B build/fuzz -G Ninja -DGPUWHY_BUILD_FUZZERS=ON
//   cmake --build build/fuzz --target fuzz_kernel_log
// libFuzzer writes new inputs into the FIRST folder: a scratch one, never ../shared/data.
//   mkdir -p /tmp/corpus_kernel_log
//   build/fuzz/src/ingest/system/fuzz_kernel_log -max_total_time=180 \
//     /tmp/corpus_kernel_log ../shared/data/logs/dmesg
#include <cstdint>
#include <cstdlib>

#include "ingest/system/system_fuzz_body.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (!gpuwhy::FuzzSystemParser(static_cast<gpuwhy::SystemFormat>(GPUWHY_FUZZ_FORMAT), text)) {
    std::abort();  // libFuzzer saves the input that broke the contract
  }
  return 0;
}
