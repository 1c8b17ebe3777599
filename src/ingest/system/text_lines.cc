#include "ingest/system/text_lines.h"

#include <charconv>
#include <cstdlib>

#include <fmt/format.h>

namespace gpuwhy::system {

std::vector<TextLine> SplitLines(std::string_view text) {
  std::vector<TextLine> lines;
  int64_t number = 1;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back({number++, line});
    pos = end + 1;
  }
  return lines;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

bool StartsWith(std::string_view s, std::string_view prefix) { return s.starts_with(prefix); }

bool Contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

std::vector<std::string_view> SplitWords(std::string_view s) {
  std::vector<std::string_view> words;
  size_t pos = 0;
  while (pos < s.size()) {
    while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t')) ++pos;
    size_t start = pos;
    while (pos < s.size() && s[pos] != ' ' && s[pos] != '\t') ++pos;
    if (pos > start) words.push_back(s.substr(start, pos - start));
  }
  return words;
}

std::string StripAnsi(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
      size_t j = i + 2;
      while (j < s.size() && !(s[j] >= '@' && s[j] <= '~')) ++j;
      i = j;  // skips the final byte too
      continue;
    }
    out += s[i];
  }
  return out;
}

std::optional<double> LeadingNumber(std::string_view s) {
  s = Trim(s);
  size_t n = 0;
  while (n < s.size() && ((s[n] >= '0' && s[n] <= '9') || s[n] == '.' || (n == 0 && s[n] == '-'))) {
    ++n;
  }
  if (n == 0 || (n == 1 && (s[0] == '-' || s[0] == '.'))) return std::nullopt;
  // strtod needs a terminated string; the prefix is short.
  std::string digits(s.substr(0, n));
  char* end = nullptr;
  double value = std::strtod(digits.c_str(), &end);
  if (end == digits.c_str()) return std::nullopt;
  return value;
}

std::optional<int64_t> ParseInt(std::string_view s) {
  s = Trim(s);
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  if (s.empty()) return std::nullopt;
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value, base);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return value;
}

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
