#include "mcp/tool_arguments.h"

#include <algorithm>

namespace gpuwhy::mcp {
namespace {

namespace dom = simdjson::dom;

}  // namespace

StatusOr<std::vector<std::string>> ReadPaths(dom::object arguments, std::string_view key,
                                             size_t max) {
  dom::element value;
  if (arguments[key].get(value) != simdjson::SUCCESS) {
    return InvalidArgument("argument '{}' is required: a list of files or folders", key);
  }
  std::vector<std::string> paths;
  std::string_view one;
  if (value.get_string().get(one) == simdjson::SUCCESS) {
    paths.emplace_back(one);
  } else if (dom::array list; value.get_array().get(list) == simdjson::SUCCESS) {
    for (dom::element item : list) {
      if (item.get_string().get(one) != simdjson::SUCCESS) {
        return InvalidArgument("argument '{}': every entry is a path (a string)", key);
      }
      if (paths.size() == max) {
        return InvalidArgument("argument '{}': more than {} paths (give a folder)", key, max);
      }
      paths.emplace_back(one);
    }
  } else {
    return InvalidArgument("argument '{}' must be a list of paths", key);
  }
  if (paths.empty()) return InvalidArgument("argument '{}' is empty: give a file or folder", key);
  for (const std::string& path : paths) {
    if (path.empty()) return InvalidArgument("argument '{}': a path is empty", key);
  }
  return paths;
}

StatusOr<std::optional<std::string>> ReadString(dom::object arguments, std::string_view key,
                                                bool required) {
  dom::element value;
  if (arguments[key].get(value) != simdjson::SUCCESS) {
    if (required) return InvalidArgument("argument '{}' is required", key);
    return std::optional<std::string>();
  }
  std::string_view text;
  if (value.get_string().get(text) != simdjson::SUCCESS) {
    return InvalidArgument("argument '{}' must be a string", key);
  }
  return std::optional<std::string>(std::string(text));
}

StatusOr<std::optional<int64_t>> ReadInteger(dom::object arguments, std::string_view key,
                                             int64_t min, int64_t max) {
  dom::element value;
  if (arguments[key].get(value) != simdjson::SUCCESS) return std::optional<int64_t>();
  int64_t number = 0;
  if (value.get_int64().get(number) != simdjson::SUCCESS || number < min || number > max) {
    return InvalidArgument("argument '{}' must be an integer from {} to {}", key, min, max);
  }
  return std::optional<int64_t>(number);
}

Status CheckKnownArguments(dom::object arguments, std::initializer_list<std::string_view> known) {
  for (dom::key_value_pair field : arguments) {
    if (std::find(known.begin(), known.end(), field.key) != known.end()) continue;
    std::string names;
    for (std::string_view name : known) names += (names.empty() ? "" : ", ") + std::string(name);
    return InvalidArgument("unknown argument '{}' (this tool takes: {})", field.key, names);
  }
  return Status::Ok();
}

}  // namespace gpuwhy::mcp
