// Small text helpers every line-oriented importer shares (metric logs, system logs): lines,
// trimming, words, CSV fields, and numbers with the decorations nvidia-smi, DCGM and
// Prometheus put around them. No parser logic here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/time.h"

namespace gpuwhy::text {

struct NumberedLine {
  int64_t number = 0;     // 1-based
  std::string_view text;  // without the line break (and without a trailing '\r')
};

// Splits on '\n', dropping a trailing '\r' from each line; a final line without '\n' is kept.
std::vector<std::string_view> SplitLines(std::string_view text);
// The same lines with their 1-based numbers.
std::vector<NumberedLine> NumberLines(std::string_view text);

// Without leading and trailing ASCII whitespace.
std::string_view Trim(std::string_view text);
bool StartsWith(std::string_view s, std::string_view prefix);
bool Contains(std::string_view s, std::string_view part);
// Splits at runs of ASCII whitespace.
std::vector<std::string_view> SplitWords(std::string_view line);
// One CSV row's fields, trimmed. nvidia-smi and DCGM quote nothing, but a quoted field is
// honoured.
std::vector<std::string> SplitCsv(std::string_view line);
// Removes "\x1b[...m" colour/underline escapes (nvidia-smi prints them in topo -m headers).
std::string StripAnsi(std::string_view s);

// A number at the start of |text| ("631.95 W", "100 %", "42", "0x1F"); nullopt for "-",
// "N/A", "[N/A]", "[Not Supported]", "12abc" and anything else that is not a number.
std::optional<double> ParseNumber(std::string_view text);
// The decimal digits at the start of |s| ("26.562 GB/s" -> 26.562, "12abc" -> 12); nullopt when
// none.
std::optional<double> LeadingNumber(std::string_view s);
// The whole of |s| as an integer (decimal, or hex with 0x); nullopt otherwise.
std::optional<int64_t> ParseInt(std::string_view s);

// "20230815" + "10:43:21" or "2026/07/14 08:12:53.353" (read as UTC) to epoch ns.
std::optional<TimeNs> ParseDateTime(std::string_view date, std::string_view time);
// "HH:MM:SS[.fff]" to ns since midnight.
std::optional<TimeNs> ParseTimeOfDay(std::string_view time);

}  // namespace gpuwhy::text
