// Small text helpers shared by the metric-log importers: lines, whitespace fields and
// numbers with the decorations nvidia-smi and Prometheus put around them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/time.h"

namespace gpuwhy::metrics_text {

// Splits on '\n', dropping a trailing '\r' from each line.
std::vector<std::string_view> SplitLines(std::string_view text);
std::vector<std::string_view> SplitWhitespace(std::string_view line);
std::string_view Trim(std::string_view text);
// One CSV row's fields, trimmed. nvidia-smi and DCGM quote nothing, but a quoted field is
// honoured.
std::vector<std::string> SplitCsv(std::string_view line);
// A number at the start of |text| ("631.95 W", "100 %", "42", "0x1F"); nullopt for "-",
// "N/A", "[N/A]", "[Not Supported]" and anything else that is not a number.
std::optional<double> ParseNumber(std::string_view text);
// "20230815" + "10:43:21" or "2026/07/14 08:12:53.353" (read as UTC) to epoch ns.
std::optional<TimeNs> ParseDateTime(std::string_view date, std::string_view time);
// "HH:MM:SS[.fff]" to ns since midnight.
std::optional<TimeNs> ParseTimeOfDay(std::string_view time);

}  // namespace gpuwhy::metrics_text
