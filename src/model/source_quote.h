// A line of an input quoted as evidence for a finding: "dmesg.txt:12: NVRM: Xid …".
#pragma once

#include <cstdint>
#include <string>

namespace gpuwhy {

struct SourceQuote {
  std::string file;
  int64_t line = 0;  // 1-based; 0 when the fact came from a command or a single value
  std::string text;
};

}  // namespace gpuwhy
