// Small text helpers shared by the system-log parsers: line splitting with 1-based numbers,
// trimming, ANSI-escape removal and tolerant number parsing. No parser logic here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/system_facts.h"

namespace gpuwhy::system {

struct TextLine {
  int64_t number = 0;     // 1-based
  std::string_view text;  // without the line break (and without a trailing '\r')
};

// Every line of |text|; a final line without '\n' is kept.
std::vector<TextLine> SplitLines(std::string_view text);

std::string_view Trim(std::string_view s);
bool StartsWith(std::string_view s, std::string_view prefix);
bool Contains(std::string_view s, std::string_view part);
// Splits at runs of spaces and tabs.
std::vector<std::string_view> SplitWords(std::string_view s);
// Removes "\x1b[...m" colour/underline escapes (nvidia-smi prints them in topo -m headers).
std::string StripAnsi(std::string_view s);

// A decimal number at the start of |s| ("26.562 GB/s" -> 26.562); nullopt when none.
std::optional<double> LeadingNumber(std::string_view s);
// The whole of |s| as an integer (decimal, or hex with 0x); nullopt otherwise.
std::optional<int64_t> ParseInt(std::string_view s);

// A quote of |line| in |file|, the text trimmed and cut to 300 characters.
SourceQuote Quote(std::string_view file, const TextLine& line);

// "PATH: line N: why".
std::string LineError(std::string_view file, int64_t line, std::string_view why);

}  // namespace gpuwhy::system
