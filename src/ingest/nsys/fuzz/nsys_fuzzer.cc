// libFuzzer target for the Nsight Systems SQLite importer and the page scanner: each input is
// written to a scratch file and imported. Built only with clang and -DGPUWHY_BUILD_FUZZERS=ON:
//   CXX=clang++-14 CC=clang-14 cmake -S . -B build/fuzz -G Ninja -DGPUWHY_BUILD_FUZZERS=ON
//   cmake --build build/fuzz --target fuzz_nsys
//   mkdir -p /tmp/corpus && build/fuzz/src/ingest/nsys/fuzz_nsys -max_total_time=600 \
//     -max_len=1000000 /tmp/corpus ../shared/data/nsys_sqlite
// libFuzzer writes new inputs into the FIRST folder: a scratch one, never ../shared/data.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>

#include "ingest/nsys/nsys_fuzz_body.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = (std::filesystem::temp_directory_path() /
                                   ("gpuwhy_fuzz_nsys_" + std::to_string(::getpid()) + ".sqlite"))
                                      .string();
  if (!gpuwhy::FuzzNsysFile(path, std::string_view(reinterpret_cast<const char*>(data), size))) {
    std::abort();  // libFuzzer saves the input that broke the contract
  }
  return 0;
}
