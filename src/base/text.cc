#include "base/text.h"

#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace gpuwhy::text {

std::vector<NumberedLine> NumberLines(std::string_view text) {
  std::vector<NumberedLine> lines;
  int64_t number = 1;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back({number++, line});
    start = end + 1;
  }
  return lines;
}

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (const NumberedLine& line : NumberLines(text)) lines.push_back(line.text);
  return lines;
}

std::vector<std::string_view> SplitWords(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) fields.push_back(line.substr(start, i - start));
  }
  return fields;
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

std::vector<std::string> SplitCsv(std::string_view line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  for (std::string& f : fields) f = std::string(Trim(f));
  return fields;
}

std::optional<double> ParseNumber(std::string_view text) {
  text = Trim(text);
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    uint64_t bits = 0;
    auto [end, ec] = std::from_chars(text.data() + 2, text.data() + text.size(), bits, 16);
    if (ec != std::errc() || end == text.data() + 2) return std::nullopt;
    return static_cast<double>(bits);
  }
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data()) return std::nullopt;
  // "12abc" is not a number; "12 MiB" and "12%" are.
  if (end != text.data() + text.size() && std::isalnum(static_cast<unsigned char>(*end)) &&
      *end != 'e') {
    return std::nullopt;
  }
  return value;
}

std::optional<TimeNs> ParseTimeOfDay(std::string_view time) {
  int h = 0, m = 0;
  double s = 0;
  std::string copy(time);
  if (std::sscanf(copy.c_str(), "%d:%d:%lf", &h, &m, &s) != 3) return std::nullopt;
  if (h < 0 || h > 23 || m < 0 || m > 59 || s < 0 || s >= 61) return std::nullopt;
  return (static_cast<TimeNs>(h) * 3600 + m * 60) * kNsPerSec +
         static_cast<TimeNs>(s * static_cast<double>(kNsPerSec) + 0.5);
}

std::optional<TimeNs> ParseDateTime(std::string_view date, std::string_view time) {
  std::string digits;
  for (char c : date) {
    if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
  }
  if (digits.size() != 8) return std::nullopt;
  std::tm tm{};
  tm.tm_year = std::atoi(digits.substr(0, 4).c_str()) - 1900;
  tm.tm_mon = std::atoi(digits.substr(4, 2).c_str()) - 1;
  tm.tm_mday = std::atoi(digits.substr(6, 2).c_str());
  std::optional<TimeNs> of_day = ParseTimeOfDay(time);
  if (!of_day || tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31) {
    return std::nullopt;
  }
  // Epoch nanoseconds in int64 span the years 1678 to 2261: any other year would overflow.
  if (tm.tm_year < 1678 - 1900 || tm.tm_year > 2261 - 1900) return std::nullopt;
  return static_cast<TimeNs>(timegm(&tm)) * kNsPerSec + *of_day;
}

bool StartsWith(std::string_view s, std::string_view prefix) { return s.starts_with(prefix); }

bool Contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
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

}  // namespace gpuwhy::text
