// The opcode table and the protocol-0 text arguments of the pickle decoder: names as pickletools
// prints them, which opcodes name or call code, and the decimal, float and quoted-string forms.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpuwhy::pickle {

// Opcodes that name a global, call one, or reach outside the bytes: refused, never run.
bool IsCodeOpcode(uint8_t opcode);

// Up to 80 bytes of |text| in single quotes, bytes outside printable ASCII as '?' and a
// newline as ' ' (GLOBAL's "module\nname"), so a message is one safe line.
std::string PrintableArgument(std::string_view text);

std::optional<int64_t> ParseTextInt(std::string_view text);
// CPython refuses to read an int of more decimal digits than this (sys.int_info's default
// str_digits_check_threshold); the decoder does too, which bounds the conversion's work.
inline constexpr size_t kMaxIntDigits = 4300;
// A decimal ("-123...", at most kMaxIntDigits digits) as little-endian two's complement bytes,
// the form LONG1/LONG4 carry, so a protocol-0/1 LONG past int64 reads as the binary one does.
std::optional<std::string> DecimalToTwosComplement(std::string_view text);
std::optional<double> ParseTextFloat(std::string_view text);
// STRING's argument: 'text' or "text" with Python escapes (\\, \', \n, \xhh, \ooo, ...).
std::optional<std::string> DecodeQuotedString(std::string_view text);
// UNICODE's argument: bytes are Latin-1 code points, \uXXXX and \UXXXXXXXX escapes; as UTF-8.
std::string DecodeRawUnicodeEscape(std::string_view text);

}  // namespace gpuwhy::pickle
