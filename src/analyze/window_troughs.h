// The lowest and highest level of a series of byte-count changes in each of a few equal windows
// of its span: what tells a leak from healthy caching without step markers. Steps that free what
// they make return to one level in every window; tensors kept across steps raise it window after
// window. The windows count only when each shows a step's churn (its level falls by a good part
// of its high), so that a capture of less than a step, a model loading or one forward pass
// (bytes that only grow), is never taken for a leak.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/time.h"

namespace gpuwhy {

// Saturating: hostile inputs may sum past int64.
inline void SaturatingAdd(int64_t& sum, int64_t v) {
  if (__builtin_add_overflow(sum, v, &sum)) sum = v > 0 ? INT64_MAX : INT64_MIN;
}

struct WindowLevels {
  int64_t low = INT64_MAX;  // the level it opens at included
  int64_t high = INT64_MIN;
};

// |times| ascending (kNoValue: before |first|, applied at the start; a time out of order counts in
// the window already open), |deltas| beside them, the changes of one time applied together, from
// |start_level|. Empty when last <= first or the spans differ in length.
std::vector<WindowLevels> WindowLevelsOf(std::span<const TimeNs> times,
                                         std::span<const int64_t> deltas, int64_t start_level,
                                         TimeNs first, TimeNs last, int64_t windows);

// The troughs of every window but the first (warm-up), when each of those windows falls from its
// high by at least |min_drop| of it (a step's churn inside it); empty otherwise.
inline constexpr double kMinStepDrop = 0.25;
std::vector<int64_t> CyclingTroughs(const std::vector<WindowLevels>& windows,
                                    double min_drop = kMinStepDrop);

}  // namespace gpuwhy
