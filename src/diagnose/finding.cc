#include "diagnose/finding.h"

#include <array>

namespace gpuwhy {

std::string_view BottleneckClassName(BottleneckClass c) {
  static constexpr std::array<std::string_view, 8> kNames = {
      "input", "host", "memory", "communication", "launch", "compute", "platform", "quality"};
  return kNames[static_cast<size_t>(c)];
}

std::string_view SeverityName(Severity s) {
  static constexpr std::array<std::string_view, 5> kNames = {"info", "low", "medium", "high",
                                                             "critical"};
  return kNames[static_cast<size_t>(s)];
}

std::string_view ConfidenceName(Confidence c) {
  static constexpr std::array<std::string_view, 3> kNames = {"low", "medium", "high"};
  return kNames[static_cast<size_t>(c)];
}

}  // namespace gpuwhy
