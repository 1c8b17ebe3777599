#include "ingest/memory/pickle_text.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <vector>

#include "ingest/memory/pickle_decoder.h"

namespace gpuwhy::pickle {
namespace {

struct OpcodeEntry {
  uint8_t code;
  std::string_view name;
  bool code_like;
};

constexpr OpcodeEntry kOpcodes[] = {
    {'(', "MARK", false},
    {'.', "STOP", false},
    {'0', "POP", false},
    {'1', "POP_MARK", false},
    {'2', "DUP", false},
    {'F', "FLOAT", false},
    {'I', "INT", false},
    {'J', "BININT", false},
    {'K', "BININT1", false},
    {'L', "LONG", false},
    {'M', "BININT2", false},
    {'N', "NONE", false},
    {'P', "PERSID", true},
    {'Q', "BINPERSID", true},
    {'R', "REDUCE", true},
    {'S', "STRING", false},
    {'T', "BINSTRING", false},
    {'U', "SHORT_BINSTRING", false},
    {'V', "UNICODE", false},
    {'X', "BINUNICODE", false},
    {'a', "APPEND", false},
    {'b', "BUILD", true},
    {'c', "GLOBAL", true},
    {'d', "DICT", false},
    {'}', "EMPTY_DICT", false},
    {'e', "APPENDS", false},
    {'g', "GET", false},
    {'h', "BINGET", false},
    {'i', "INST", true},
    {'j', "LONG_BINGET", false},
    {'l', "LIST", false},
    {']', "EMPTY_LIST", false},
    {'o', "OBJ", true},
    {'p', "PUT", false},
    {'q', "BINPUT", false},
    {'r', "LONG_BINPUT", false},
    {'s', "SETITEM", false},
    {'t', "TUPLE", false},
    {')', "EMPTY_TUPLE", false},
    {'u', "SETITEMS", false},
    {'G', "BINFLOAT", false},
    {0x80, "PROTO", false},
    {0x81, "NEWOBJ", true},
    {0x82, "EXT1", true},
    {0x83, "EXT2", true},
    {0x84, "EXT4", true},
    {0x85, "TUPLE1", false},
    {0x86, "TUPLE2", false},
    {0x87, "TUPLE3", false},
    {0x88, "NEWTRUE", false},
    {0x89, "NEWFALSE", false},
    {0x8a, "LONG1", false},
    {0x8b, "LONG4", false},
    {'B', "BINBYTES", false},
    {'C', "SHORT_BINBYTES", false},
    {0x8c, "SHORT_BINUNICODE", false},
    {0x8d, "BINUNICODE8", false},
    {0x8e, "BINBYTES8", false},
    {0x8f, "EMPTY_SET", false},
    {0x90, "ADDITEMS", false},
    {0x91, "FROZENSET", false},
    {0x92, "NEWOBJ_EX", true},
    {0x93, "STACK_GLOBAL", true},
    {0x94, "MEMOIZE", false},
    {0x95, "FRAME", false},
    {0x96, "BYTEARRAY8", false},
    {0x97, "NEXT_BUFFER", true},
    {0x98, "READONLY_BUFFER", true},
};

const OpcodeEntry* FindOpcode(uint8_t opcode) {
  for (const OpcodeEntry& entry : kOpcodes) {
    if (entry.code == opcode) return &entry;
  }
  return nullptr;
}

void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out.push_back(static_cast<char>(0xf0 | ((cp >> 18) & 0x07)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

std::optional<uint32_t> ParseHex(std::string_view text) {
  uint32_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

std::string_view OpcodeName(uint8_t opcode) {
  const OpcodeEntry* entry = FindOpcode(opcode);
  return entry ? entry->name : std::string_view();
}

bool IsCodeOpcode(uint8_t opcode) {
  const OpcodeEntry* entry = FindOpcode(opcode);
  return entry != nullptr && entry->code_like;
}

std::string PrintableArgument(std::string_view text) {
  std::string out = "'";
  for (char c : text.substr(0, 80)) {
    if (c == '\n') {
      out.push_back(' ');
    } else {
      out.push_back(c >= 0x20 && c < 0x7f && c != '\'' ? c : '?');
    }
  }
  while (out.size() > 1 && out.back() == ' ') out.pop_back();
  return out + "'";
}

std::optional<int64_t> ParseTextInt(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<std::string> DecimalToTwosComplement(std::string_view text) {
  const bool negative = !text.empty() && text.front() == '-';
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) text.remove_prefix(1);
  if (text.empty() || text.size() > kMaxIntDigits) return std::nullopt;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  // Base 2^32 limbs, little-endian, fed nine decimal digits at a time: O(digits^2 / 81).
  std::vector<uint32_t> limbs;
  for (size_t i = 0; i < text.size();) {
    const size_t n = std::min<size_t>(9, text.size() - i);
    uint64_t chunk = 0, scale = 1;
    for (size_t k = 0; k < n; ++k, ++i) {
      chunk = chunk * 10 + static_cast<uint64_t>(text[i] - '0');
      scale *= 10;
    }
    uint64_t carry = chunk;
    for (uint32_t& limb : limbs) {
      const uint64_t v = uint64_t{limb} * scale + carry;
      limb = static_cast<uint32_t>(v);
      carry = v >> 32;
    }
    if (carry != 0) limbs.push_back(static_cast<uint32_t>(carry));
  }
  std::string out;
  for (uint32_t limb : limbs) {
    for (int b = 0; b < 4; ++b) out.push_back(static_cast<char>((limb >> (8 * b)) & 0xff));
  }
  while (!out.empty() && out.back() == 0) out.pop_back();
  // A sign byte when the top bit is taken: the magnitude is positive.
  if (out.empty() || (static_cast<uint8_t>(out.back()) & 0x80) != 0) out.push_back(0);
  if (negative) {
    // Two's complement: invert and add one.
    bool carry = true;
    for (char& c : out) {
      uint32_t v = static_cast<uint8_t>(~static_cast<uint8_t>(c)) + (carry ? 1u : 0u);
      carry = v > 0xff;
      c = static_cast<char>(v & 0xff);
    }
  }
  // The shortest form, as pickle's encode_long writes it: a top 0xff that only repeats the sign.
  while (out.size() > 1 && static_cast<uint8_t>(out.back()) == 0xff &&
         (static_cast<uint8_t>(out[out.size() - 2]) & 0x80) != 0) {
    out.pop_back();
  }
  return out;
}

std::optional<double> ParseTextFloat(std::string_view text) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<std::string> DecodeQuotedString(std::string_view text) {
  if (text.size() < 2 || (text.front() != '\'' && text.front() != '"') ||
      text.back() != text.front()) {
    return std::nullopt;
  }
  text = text.substr(1, text.size() - 2);
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 == text.size()) {
      out.push_back(text[i]);
      continue;
    }
    const char c = text[++i];
    switch (c) {
      case 'n': out.push_back('\n'); break;
      case 't': out.push_back('\t'); break;
      case 'r': out.push_back('\r'); break;
      case 'x':
        if (auto v = ParseHex(text.substr(i + 1, 2)); v && i + 2 < text.size()) {
          out.push_back(static_cast<char>(*v));
          i += 2;
        } else {
          out += "\\x";
        }
        break;
      default:
        if (c >= '0' && c <= '7') {
          uint32_t v = 0;
          size_t digits = 0;
          for (; digits < 3 && i < text.size() && text[i] >= '0' && text[i] <= '7'; ++digits)
            v = v * 8 + static_cast<uint32_t>(text[i++] - '0');
          --i;
          out.push_back(static_cast<char>(v & 0xff));
        } else {
          out.push_back(c);  // \\, \', \" and unknown escapes keep the character
        }
    }
  }
  return out;
}

std::string DecodeRawUnicodeEscape(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<uint8_t>(text[i]);
    if (byte == '\\' && i + 1 < text.size() && (text[i + 1] == 'u' || text[i + 1] == 'U')) {
      const size_t digits = text[i + 1] == 'u' ? 4 : 8;
      std::optional<uint32_t> cp = ParseHex(text.substr(i + 2, digits));
      if (cp && i + 2 + digits <= text.size() && *cp <= 0x10ffff) {
        AppendUtf8(out, *cp);
        i += 1 + digits;
        continue;
      }
    }
    AppendUtf8(out, byte);
  }
  return out;
}

}  // namespace gpuwhy::pickle
