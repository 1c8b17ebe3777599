// KernelProfile: what an Nsight Compute export measured, one ProfiledKernel per profiled launch
// with every metric it printed (section, name, unit, value). The importer (src/ingest/ncu)
// fills it from either CSV layout; the analyses (src/analyze/roofline.h) read metrics by the
// names ncu gives them in either layout, so nothing above the importer knows which it was.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/data_problems.h"

namespace gpuwhy {

// The two `ncu --csv` pages gpuwhy reads.
enum class NcuLayout : uint8_t {
  kDetails,  // --page details (the default): one row per metric, Section/Metric Name/Unit/Value
  kRaw,      // --page raw: one row per kernel, one column per metric, a units row under the header
};
std::string_view NcuLayoutName(NcuLayout layout);  // "details", "raw"

struct KernelMetric {
  std::string section;  // "Occupancy", "GPU Speed Of Light Throughput"; "" on the raw page
  std::string name;     // "Achieved Occupancy", "sm__throughput.avg.pct_of_peak_sustained_elapsed"
  std::string unit;     // as printed: "%", "byte", "Kbyte", "usecond", "" ...
  std::string text;     // the value as printed, thousands separators and all
  // The value as a number in the unit's base (bytes, nanoseconds, bytes per second, hertz);
  // nullopt for text values ("cudaFuncCachePreferNone") and "n/a".
  std::optional<double> value;
};

struct ProfiledKernel {
  int64_t id = -1;  // ncu's "ID": the launch's index in the profile
  int64_t pid = -1;
  std::string name;    // "Kernel Name" as ncu printed it (demangled by default)
  std::string device;  // the "Device" column or device__attribute_display_name; "" if absent
  // Launch shape: total blocks and threads per block, from the Grid/Block Size columns
  // ("(768, 1, 1)") or the Launch Statistics metrics; -1 when neither says.
  int64_t grid_blocks = -1;
  int64_t block_threads = -1;
  std::vector<KernelMetric> metrics;  // in file order

  // The first metric called |name| (in any section), or nullptr.
  const KernelMetric* Find(std::string_view name) const;
  // Its numeric value, trying each name in turn (a details-page name, then a raw metric id).
  std::optional<double> Value(std::initializer_list<std::string_view> names) const;
};

struct KernelProfile {
  std::string path;
  NcuLayout layout = NcuLayout::kDetails;
  std::vector<ProfiledKernel> kernels;  // in ID order
  int64_t metric_count = 0;             // metric values read, over every kernel
  DataProblems problems;
};

}  // namespace gpuwhy
