// libFuzzer target of the whole path (e2e_fuzz_body.h): classify, import, analyse, diagnose and
// render every format, the JSON validated against docs/report-schema.json. Built only with clang
// and -DGPUWHY_BUILD_FUZZERS=ON; scripts/fuzz.sh fuzz_e2e seeds it with every kind of input
// of ../shared/data (cut to 64 KiB) and runs it.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "e2e_fuzz/e2e_fuzz_body.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // One scratch folder per process (libFuzzer's -jobs run several).
  static gpuwhy::EndToEndFuzzer fuzzer(GPUWHY_REPORT_SCHEMA,
                                       "/tmp/gpuwhy_fuzz_e2e." + std::to_string(getpid()));
  std::string broken = fuzzer.Run(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!broken.empty()) {
    std::fprintf(stderr, "fuzz_e2e: contract broken: %s\n", broken.c_str());
    std::abort();  // libFuzzer saves the input that broke the contract
  }
  return 0;
}
