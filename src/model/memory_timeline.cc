#include "model/memory_timeline.h"

namespace gpuwhy {
namespace {

constexpr std::string_view kCategoryNames[] = {
#define GPUWHY_MEMORY_CATEGORY_NAME(name, id) id,
    GPUWHY_MEMORY_CATEGORIES(GPUWHY_MEMORY_CATEGORY_NAME)
#undef GPUWHY_MEMORY_CATEGORY_NAME
};

}  // namespace

std::string_view TimelineActionName(TimelineAction action) {
  switch (action) {
    case TimelineAction::kPreexisting: return "preexisting";
    case TimelineAction::kCreate: return "create";
    case TimelineAction::kIncrementVersion: return "increment_version";
    case TimelineAction::kDestroy: return "destroy";
  }
  return "unknown";
}

std::string_view MemoryCategoryName(MemoryCategory category) {
  const size_t i = static_cast<size_t>(category);
  return i < kMemoryCategoryCount ? kCategoryNames[i] : "unknown";
}

}  // namespace gpuwhy
