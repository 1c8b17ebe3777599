// Making untrusted bytes (kernel and op names, file names, quoted log lines) safe to write
// where they would otherwise act: on a terminal, in a CSV cell, in UTF-8 output. The one
// place every renderer escapes with; generic, no knowledge of traces.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace gpuwhy::text {

// Length (2..4) of the valid UTF-8 sequence starting at |s[i]|, a byte >= 0x80; 0 when the
// bytes there are not one: stray continuation bytes, overlong forms, surrogates, > U+10FFFF.
size_t Utf8SequenceLength(std::string_view s, size_t i);
bool IsValidUtf8(std::string_view s);
// |s| with each byte that is not part of valid UTF-8 replaced by U+FFFD, as the JSON report
// writes such a byte.
std::string ReplaceInvalidUtf8(std::string_view s);

enum class LineBreaks { kEscape, kKeep };

// |s| with every control character shown as a printable escape, so that text copied from a
// trace or log cannot drive the terminal it is printed on (ESC]52 clipboard writes, ESC[2J,
// OSC 8 links, a '\r' that overwrites the line): C0 controls and DEL as "\x1b" ("\r", "\t"
// and "\n" by name), C1 controls (U+0080-U+009F) as "\u009b", and each byte that is not UTF-8
// as "\xff", which some terminals would read as C1. A tab is kept, and so are line breaks
// when |line_breaks| is kKeep (a whole rendered document). A sequence in |keep| (our own
// styles, exactly as written) is copied as it is.
std::string EscapeControl(std::string_view s, LineBreaks line_breaks = LineBreaks::kEscape,
                          std::span<const std::string_view> keep = {});

// |s| as one CSV field (RFC 4180), its control bytes and line breaks escaped as EscapeControl
// shows them (one record, one line; nothing for a terminal to act on): quoted when it holds a
// comma, a quote or leading or trailing spaces, quotes doubled. A text that a spreadsheet would
// read as a formula (a leading '=', '+', '-', '@', tab or carriage return) is prefixed with "'" and
// quoted, as OWASP's CSV-injection guidance recommends. For text columns only: a number
// written through it would lose its sign.
std::string CsvField(std::string_view s);

}  // namespace gpuwhy::text
