// The PyTorch profiler's memory timeline for one device, as
// torch.profiler.profile(...).export_memory_timeline("x.raw.json") writes it
// (MemoryProfileTimeline.export_memory_timeline_raw in torch/profiler/_memory_profiler.py, the
// file HTA's memory analysis reads): one row per change of a tensor's bytes, with the category
// the profiler inferred for it. Importers fill it (ingest/memory); analyses read it.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/time.h"
#include "model/data_problems.h"
#include "model/tables.h"

namespace gpuwhy {

// _memory_profiler.Action values, as the file writes them.
enum class TimelineAction : uint8_t {
  kPreexisting = 1,  // allocated before profiling began (time -1 in the file)
  kCreate = 2,
  kIncrementVersion = 3,  // the tensor changed category: -bytes in the old, +bytes in the new
  kDestroy = 4,
};
inline constexpr size_t kTimelineActionCount = 4;
std::string_view TimelineActionName(TimelineAction action);  // "preexisting", "create", ...

// The file's category index: the order of _memory_profiler._CATEGORY_TO_COLORS (PyTorch 2.1+),
// index 7 being None (the profiler could not tell).
#define GPUWHY_MEMORY_CATEGORIES(X)     \
  X(kParameter, "parameter")            \
  X(kOptimizerState, "optimizer_state") \
  X(kInput, "input")                    \
  X(kTemporary, "temporary")            \
  X(kActivation, "activation")          \
  X(kGradient, "gradient")              \
  X(kAutogradDetail, "autograd_detail") \
  X(kUnknown, "unknown")

enum class MemoryCategory : uint8_t {
#define GPUWHY_MEMORY_CATEGORY_ENUM(name, id) name,
  GPUWHY_MEMORY_CATEGORIES(GPUWHY_MEMORY_CATEGORY_ENUM)
#undef GPUWHY_MEMORY_CATEGORY_ENUM
};
inline constexpr size_t kMemoryCategoryCount = static_cast<size_t>(MemoryCategory::kUnknown) + 1;
std::string_view MemoryCategoryName(MemoryCategory category);

// Columnar: row i is time[i], action[i], bytes[i], category[i], in file order (the exporter
// writes them in time order).
struct MemoryTimeline {
  std::string path;
  uint64_t file_bytes = 0;   // decompressed bytes read
  std::vector<TimeNs> time;  // ns as the profiler records them; kNoValue: preexisting (-1)
  std::vector<TimelineAction> action;
  std::vector<int64_t> bytes;  // signed: a destroy or a version's old category is negative
  std::vector<MemoryCategory> category;
  DataProblems problems;

  size_t size() const { return time.size(); }
};

}  // namespace gpuwhy
