// The system-log parsers' view of base/text: numbered lines (TextLine), the shared helpers by
// their short names, and the two things only these parsers need: a quote of a line for a
// finding's evidence and the "PATH: line N: why" error text. No parser logic here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/text.h"
#include "model/system_facts.h"

namespace gpuwhy::system {

using TextLine = text::NumberedLine;
using text::Contains;
using text::LeadingNumber;
using text::ParseInt;
using text::SplitWords;
using text::StartsWith;
using text::StripAnsi;
using text::Trim;

// Every line of |text| with its number; a final line without '\n' is kept.
inline std::vector<TextLine> SplitLines(std::string_view text) { return text::NumberLines(text); }

// A quote of |line| in |file|, the text trimmed and cut to 300 bytes where a character starts.
// The text is kept as read (JSON keeps it exactly); each renderer escapes it for its format.
SourceQuote Quote(std::string_view file, const TextLine& line);

// "PATH: line N: why".
std::string LineError(std::string_view file, int64_t line, std::string_view why);

}  // namespace gpuwhy::system
