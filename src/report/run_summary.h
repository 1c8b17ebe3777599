// What `gpuwhy diff` compares about one run, read either from a trace's analyses (src/diff)
// or back from a `gpuwhy analyze --format json` report (report_reader.h). Plain data with
// names instead of enums, so this level needs no analysis types.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace gpuwhy {

struct RunStep {
  int64_t number = 0;
  double total_ms = 0;
  std::vector<double> category_ms;  // in RunSummary::categories order
};

struct RunFinding {
  std::string id;
  std::string severity;
  std::string title;
  double recoverable_ms_per_step = 0;
};

struct RunKernel {
  std::string name;
  int64_t count = 0;
  double total_ms = 0;
};

struct RunNamedValue {
  std::string name;
  double value = 0;
};

struct RunSummary {
  std::string path;
  std::string source;                   // "trace" or "json report"
  int64_t rank = -1;                    // -1: unknown
  size_t ranks_in_input = 1;            // > 1: the first rank is compared
  std::vector<std::string> categories;  // step breakdown categories ("kernel", "dataloader", ...)
  std::vector<RunStep> steps;           // analysed steps, in time order
  double kernel_utilization_pct = NAN;  // kernels only (TensorBoard convention)
  double gpu_op_utilization_pct = NAN;  // kernels + memcpy + memset (HTA convention)
  std::vector<RunNamedValue> idle_ms_per_step;  // by cause ("input_wait", ...)
  std::vector<RunFinding> findings;             // ranked
  std::vector<RunKernel> kernels;               // by total time, descending
  bool kernels_complete = true;                 // false: a report's top-N list only
};

}  // namespace gpuwhy
