// libFuzzer target for the recording reader (decompressed bytes). Built only with clang and
// -DGPUWHY_BUILD_FUZZERS=ON, e.g.:
//   CXX=clang++ CC=clang cmake -S . -B build/fuzz -G Ninja -DGPUWHY_BUILD_FUZZERS=ON
//   cmake --build build/fuzz --target fuzz_recording
//   build/fuzz/src/ingest/fuzz_recording -max_total_time=600 CORPUS_DIR
// A corpus: `zcat` of any recording (gpuwhy record -o x.rec --duration 2; zcat x.rec > c/1).
#include <cstdint>
#include <cstdlib>

#include "ingest/recording_fuzz_body.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (!gpuwhy::FuzzRecordingReader(bytes)) std::abort();  // libFuzzer saves the input
  return 0;
}
