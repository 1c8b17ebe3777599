#include "base/text_escape.h"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

namespace gpuwhy::text {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD in UTF-8

unsigned char Byte(std::string_view s, size_t i) { return static_cast<unsigned char>(s[i]); }

// The escape of one byte below 0x20 (or DEL), named where C has a name for it.
void AppendControlEscape(std::string& out, unsigned char c) {
  switch (c) {
    case '\n': out += "\\n"; return;
    case '\r': out += "\\r"; return;
    case '\t': out += "\\t"; return;
    default: fmt::format_to(std::back_inserter(out), "\\x{:02x}", c);
  }
}

// Whether |s| needs EscapeControl at all: the common case of clean names is one scan.
bool NeedsEscape(std::string_view s, LineBreaks line_breaks) {
  for (size_t i = 0; i < s.size();) {
    unsigned char c = Byte(s, i);
    if (c < 0x80) {
      bool layout = c == '\t' || (c == '\n' && line_breaks == LineBreaks::kKeep);
      if ((c < 0x20 && !layout) || c == 0x7F) return true;
      ++i;
      continue;
    }
    size_t length = Utf8SequenceLength(s, i);
    // U+0080-U+009F is 0xC2 0x80-0x9F.
    if (length == 0 || (c == 0xC2 && Byte(s, i + 1) < 0xA0)) return true;
    i += length;
  }
  return false;
}

}  // namespace

size_t Utf8SequenceLength(std::string_view s, size_t i) {
  unsigned char lead = Byte(s, i);
  size_t length = 0;
  uint32_t min_code = 0;
  uint32_t code = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2, min_code = 0x80, code = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3, min_code = 0x800, code = lead & 0x0F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4, min_code = 0x10000, code = lead & 0x07;
  } else {
    return 0;
  }
  if (i + length > s.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    unsigned char next = Byte(s, i + k);
    if ((next & 0xC0) != 0x80) return 0;
    code = (code << 6) | (next & 0x3F);
  }
  if (code < min_code || code > 0x10FFFF) return 0;
  if (code >= 0xD800 && code <= 0xDFFF) return 0;
  return length;
}

bool IsValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    if (Byte(s, i) < 0x80) {
      ++i;
      continue;
    }
    size_t length = Utf8SequenceLength(s, i);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

std::string ReplaceInvalidUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t length = Byte(s, i) < 0x80 ? 1 : Utf8SequenceLength(s, i);
    if (length == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    out.append(s.substr(i, length));
    i += length;
  }
  return out;
}

std::string EscapeControl(std::string_view s, LineBreaks line_breaks,
                          std::span<const std::string_view> keep) {
  if (!NeedsEscape(s, line_breaks)) return std::string(s);
  std::string out;
  out.reserve(s.size() + 16);
  for (size_t i = 0; i < s.size();) {
    unsigned char c = Byte(s, i);
    if (c == 0x1B) {
      std::string_view rest = s.substr(i);
      auto ours = std::find_if(keep.begin(), keep.end(),
                               [&](std::string_view k) { return rest.starts_with(k); });
      if (ours != keep.end()) {
        out += *ours;
        i += ours->size();
        continue;
      }
    }
    if (c < 0x80) {
      bool layout = c == '\t' || (c == '\n' && line_breaks == LineBreaks::kKeep);
      if ((c < 0x20 && !layout) || c == 0x7F) {
        AppendControlEscape(out, c);
      } else {
        out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    size_t length = Utf8SequenceLength(s, i);
    if (length == 0) {
      fmt::format_to(std::back_inserter(out), "\\x{:02x}", c);
      ++i;
    } else if (c == 0xC2 && Byte(s, i + 1) < 0xA0) {
      fmt::format_to(std::back_inserter(out), "\\u{:04x}", Byte(s, i + 1));
      i += length;
    } else {
      out.append(s.substr(i, length));
      i += length;
    }
  }
  return out;
}

std::string CsvField(std::string_view raw) {
  // Control bytes and line breaks shown escaped first: a process name with ESC sequences must
  // not drive the terminal a CSV is printed on, and one record stays one line.
  const std::string escaped = EscapeControl(raw);
  const std::string_view s = escaped;
  const bool formula = !s.empty() && std::string_view("=+-@\t\r").find(s.front()) != s.npos;
  const bool quote = formula || s.find_first_of(",\"\r\n") != s.npos ||
                     (!s.empty() && (s.front() == ' ' || s.back() == ' '));
  if (!quote) return std::string(s);
  std::string out = formula ? "\"'" : "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace gpuwhy::text
