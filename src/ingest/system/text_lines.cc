#include "ingest/system/text_lines.h"

#include <fmt/format.h>

namespace gpuwhy::system {

SourceQuote Quote(std::string_view file, const TextLine& line) {
  std::string_view text = Trim(line.text);
  constexpr size_t kMax = 300;
  std::string cut(text.substr(0, kMax));
  if (text.size() > kMax) cut += "…";
  return {std::string(file), line.number, std::move(cut)};
}

std::string LineError(std::string_view file, int64_t line, std::string_view why) {
  return fmt::format("{}: line {}: {}", file, line, why);
}

}  // namespace gpuwhy::system
