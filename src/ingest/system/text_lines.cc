#include "ingest/system/text_lines.h"

#include <algorithm>

#include <fmt/format.h>

namespace gpuwhy::system {

SourceQuote Quote(std::string_view file, const TextLine& line) {
  std::string_view text = Trim(line.text);
  constexpr size_t kMax = 300;
  // Cut where a character starts: half a UTF-8 sequence would print as "\xe2" escapes.
  size_t end = std::min(text.size(), kMax);
  while (end < text.size() && end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) {
    --end;
  }
  std::string cut(text.substr(0, end));
  if (text.size() > end) cut += "…";
  return {std::string(file), line.number, std::move(cut)};
}

std::string LineError(std::string_view file, int64_t line, std::string_view why) {
  return fmt::format("{}: line {}: {}", file, line, why);
}

}  // namespace gpuwhy::system
