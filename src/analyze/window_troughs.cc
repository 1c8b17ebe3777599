#include "analyze/window_troughs.h"

#include <algorithm>

#include "model/tables.h"

namespace gpuwhy {

std::vector<WindowLevels> WindowLevelsOf(std::span<const TimeNs> times,
                                         std::span<const int64_t> deltas, int64_t start_level,
                                         TimeNs first, TimeNs last, int64_t windows) {
  if (first == kNoValue || last <= first || windows <= 0 || times.size() != deltas.size())
    return {};
  std::vector<WindowLevels> out(static_cast<size_t>(windows));
  const auto see = [&](int64_t k, int64_t level) {
    out[k].low = std::min(out[k].low, level);
    out[k].high = std::max(out[k].high, level);
  };
  const double width = static_cast<double>(last - first) / static_cast<double>(windows);
  int64_t level = start_level;
  int64_t open = 0;  // the window last opened; those before it are complete
  for (size_t i = 0; i < times.size();) {
    const TimeNs time = times[i];
    int64_t w = open;
    if (time != kNoValue && time >= first) {
      w = std::min<int64_t>(windows - 1,
                            static_cast<int64_t>(static_cast<double>(time - first) / width));
    }
    w = std::max(w, open);
    // Windows this change jumps into open at the level before it.
    for (int64_t k = open; k <= w; ++k) see(k, level);
    open = w;
    for (; i < times.size() && times[i] == time; ++i) SaturatingAdd(level, deltas[i]);
    see(w, level);
  }
  for (int64_t k = open + 1; k < windows; ++k) see(k, level);
  return out;
}

std::vector<int64_t> CyclingTroughs(const std::vector<WindowLevels>& windows, double min_drop) {
  std::vector<int64_t> out;
  for (size_t k = 1; k < windows.size(); ++k) {
    const WindowLevels& w = windows[k];
    const double drop = static_cast<double>(w.high) - static_cast<double>(w.low);
    if (w.high <= 0 || drop < min_drop * static_cast<double>(w.high)) return {};
    out.push_back(w.low);
  }
  return out;
}

}  // namespace gpuwhy
