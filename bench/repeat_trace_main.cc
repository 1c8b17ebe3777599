// Writes a big trace from copies of a real one (synth/repeat_trace.h): step numbers repeat in
// every copy, as in concatenated captures. For the benchmarks.
//
//   repeat_trace IN.json[.gz] OUT.json [--copies N] [--size-mb M]
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "synth/repeat_trace.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    fmt::print(stderr, "usage: repeat_trace IN.json[.gz] OUT.json [--copies N] [--size-mb M]\n");
    return 2;
  }
  gpuwhy::RepeatTraceOptions options;
  for (int i = 3; i + 1 < argc; i += 2) {
    std::string arg = argv[i];
    if (arg == "--copies") {
      options.copies = std::atoi(argv[i + 1]);
    } else if (arg == "--size-mb") {
      options.min_bytes = std::strtoull(argv[i + 1], nullptr, 10) * 1'000'000;
    } else {
      fmt::print(stderr, "unknown option {}\n", arg);
      return 2;
    }
  }
  gpuwhy::RepeatTraceSummary summary;
  gpuwhy::Status status = gpuwhy::WriteRepeatedTrace(argv[1], argv[2], options, &summary);
  if (!status.ok()) {
    fmt::print(stderr, "{}\n", status.message());
    return 1;
  }
  fmt::print(stderr, "{}: {} copies, {:.1f} MB, each {} us after the one before\n", argv[2],
             summary.copies, summary.bytes / 1e6, summary.shift_us);
  return 0;
}
