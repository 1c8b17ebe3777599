// Character classes of the C locale, inline for the parsers' hot loops (std::isdigit and
// std::isspace depend on the locale and take an int that must not be a negative char).
#pragma once

namespace gpuwhy {

constexpr bool IsAsciiDigit(char c) { return static_cast<unsigned char>(c - '0') < 10; }
// ' ', '\t', '\n', '\v', '\f', '\r': what std::isspace accepts in the C locale.
constexpr bool IsAsciiSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

}  // namespace gpuwhy
