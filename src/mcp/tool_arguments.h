// Reading a tool's arguments: each failure is a message naming the argument, returned to the
// agent as a tool error so it can fix the call.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "base/status.h"

namespace gpuwhy::mcp {

// |key|: a non-empty array of non-empty strings, or one string. At most |max| entries.
StatusOr<std::vector<std::string>> ReadPaths(simdjson::dom::object arguments, std::string_view key,
                                             size_t max = 256);
// |key|: a string; nullopt when absent, an error when |required| or of another type.
StatusOr<std::optional<std::string>> ReadString(simdjson::dom::object arguments,
                                                std::string_view key, bool required);
// |key|: an integer in [min, max]; nullopt when absent.
StatusOr<std::optional<int64_t>> ReadInteger(simdjson::dom::object arguments, std::string_view key,
                                             int64_t min, int64_t max);
// An error naming the first argument that is not one of |known| (a misspelt name is not
// silently ignored).
Status CheckKnownArguments(simdjson::dom::object arguments,
                           std::initializer_list<std::string_view> known);

}  // namespace gpuwhy::mcp
