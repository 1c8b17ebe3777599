// `gpuwhy watch` drawing: pure functions from the latest samples (and, for the screen, the
// terminal width) to text. Hints come from the signal analyses over the window shown.
#pragma once

#include <string>
#include <vector>

#include "model/metric_series.h"

namespace gpuwhy {

// One line per sample for pipes and logs: "HH:MM:SS gpu0 util 93% sm 1980 MHz mem 41% ...
// | cpu 37% iowait 1%". Fields a machine lacks are left out, never printed as 0.
std::string RenderWatchLine(const MetricSeriesSet& latest);

// The full screen: per GPU util, SM clock vs max, memory, power vs limit, temperature,
// throttle reasons and PCIe; the host's CPU and iowait; the busiest threads; then hints.
std::string RenderWatchScreen(const MetricSeriesSet& window, size_t width);

// Live hints from the window: sawtooth, throttling, pinned thread, link below max...
std::vector<std::string> WatchHints(const MetricSeriesSet& window);

}  // namespace gpuwhy
