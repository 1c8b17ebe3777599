// libFuzzer target for the profiler memory-timeline importer. Built only with clang and
// -DGPUWHY_BUILD_FUZZERS=ON:
//   CXX=clang++-14 CC=clang-14 cmake -S . -B build/fuzz -G Ninja -DGPUWHY_BUILD_FUZZERS=ON
//   cmake --build build/fuzz --target fuzz_memory_timeline
//   mkdir -p /tmp/corpus_memtl && build/fuzz/src/ingest/memory/fuzz_memory_timeline \
//     -max_total_time=600 -max_len=65536 /tmp/corpus_memtl ../shared/data/memory
// libFuzzer writes new inputs into the FIRST folder: a scratch one, never ../shared/data.
#include <cstdint>
#include <cstdlib>

#include "ingest/memory/memory_timeline_fuzz_body.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (!gpuwhy::FuzzMemoryTimelineParser(bytes).empty()) std::abort();
  return 0;
}
