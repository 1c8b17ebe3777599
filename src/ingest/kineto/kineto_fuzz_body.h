// The body shared by the deterministic mutation fuzzer (kineto_fuzz_test.cc, in ctest) and the
// libFuzzer target (fuzz/, clang only): import |data| as a Kineto trace and check the contract:
// no crash, no exception, no undefined behaviour (under the sanitizers), and an error names the
// input ("NAME: ...").
#pragma once

#include <string_view>

#include "ingest/kineto/kineto_importer.h"

namespace gpuwhy {

inline constexpr std::string_view kKinetoFuzzName = "fuzz.json";

// Returns false when the contract is broken (the caller reports or aborts).
inline bool FuzzKinetoImporter(std::string_view data) {
  KinetoImportOptions options;
  options.chunk_bytes = 4096;  // small chunks: every element crosses buffer boundaries
  StatusOr<Trace> trace = ImportKinetoBytes(data, std::string(kKinetoFuzzName), options);
  if (!trace.ok()) return trace.status().message().starts_with(kKinetoFuzzName);
  // Whatever was imported is a consistent model: no op or slice ends before it starts
  // (negative durations are counted and skipped, overflowing times are bad_timestamp).
  for (size_t i = 0; i < trace->gpu_ops.size(); ++i) {
    if (trace->gpu_ops.end[i] < trace->gpu_ops.start[i]) return false;
  }
  for (size_t i = 0; i < trace->cpu_slices.size(); ++i) {
    if (trace->cpu_slices.end[i] < trace->cpu_slices.start[i]) return false;
  }
  return true;
}

}  // namespace gpuwhy
