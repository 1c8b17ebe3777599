#include "base/input_limits.h"

#include <charconv>
#include <cstdlib>

namespace gpuwhy {
namespace {

struct LimitInfo {
  std::string_view id;
  std::string_view what;
  uint64_t bytes;
};

constexpr LimitInfo kLimits[] = {
#define GPUWHY_LIMIT_INFO(name, id, what, bytes) {id, what, bytes},
    GPUWHY_INPUT_LIMITS(GPUWHY_LIMIT_INFO)
#undef GPUWHY_LIMIT_INFO
};

const LimitInfo& Info(InputLimit kind) { return kLimits[static_cast<size_t>(kind)]; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

StatusOr<uint64_t> ParseSize(std::string_view text) {
  text = Trim(text);
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  std::string_view suffix(end, text.data() + text.size() - end);
  int shift = 0;
  if (suffix == "K" || suffix == "k") shift = 10;
  if (suffix == "M" || suffix == "m") shift = 20;
  if (suffix == "G" || suffix == "g") shift = 30;
  if (ec != std::errc() || end == text.data() || (shift == 0 && !suffix.empty()) ||
      value > (UINT64_MAX >> shift)) {
    return InvalidArgument("{}: '{}' is not a size (bytes, or a number with K, M or G)",
                           kInputLimitsEnv, text);
  }
  return value << shift;
}

}  // namespace

std::string_view InputLimitId(InputLimit kind) { return Info(kind).id; }
std::string_view InputLimitWhat(InputLimit kind) { return Info(kind).what; }
uint64_t DefaultInputLimit(InputLimit kind) { return Info(kind).bytes; }

StatusOr<uint64_t> MaxInputBytes(InputLimit kind, std::string_view override_text) {
  uint64_t limit = Info(kind).bytes;
  // Entries apply left to right, so "1G,node_log=2G" raises one kind above the rest.
  while (!Trim(override_text).empty()) {
    size_t comma = override_text.find(',');
    std::string_view entry = Trim(override_text.substr(0, comma));
    override_text = comma == std::string_view::npos ? "" : override_text.substr(comma + 1);
    size_t equals = entry.find('=');
    if (equals == std::string_view::npos) {
      ASSIGN_OR_RETURN(limit, ParseSize(entry));
      continue;
    }
    std::string_view id = Trim(entry.substr(0, equals));
    bool known = false;
    for (const LimitInfo& info : kLimits) known = known || info.id == id;
    if (!known) {
      std::string ids;
      for (const LimitInfo& info : kLimits) ids += (ids.empty() ? "" : ", ") + std::string(info.id);
      return InvalidArgument("{}: unknown input kind '{}' (known: {})", kInputLimitsEnv, id, ids);
    }
    ASSIGN_OR_RETURN(uint64_t bytes, ParseSize(entry.substr(equals + 1)));
    if (id == Info(kind).id) limit = bytes;
  }
  return limit;
}

StatusOr<uint64_t> MaxInputBytes(InputLimit kind) {
  const char* text = std::getenv(kInputLimitsEnv);
  return MaxInputBytes(kind, text == nullptr ? "" : text);
}

std::string DescribeInputLimit(InputLimit kind, uint64_t limit) {
  std::string size;
  if (limit % (1u << 30) == 0) {
    size = fmt::format("{} GiB", limit >> 30);
  } else if (limit % (1u << 20) == 0) {
    size = fmt::format("{} MiB", limit >> 20);
  } else if (limit % (1u << 10) == 0) {
    size = fmt::format("{} KiB", limit >> 10);
  } else {
    size = fmt::format("{} bytes", limit);
  }
  return fmt::format("over the {} limit for a {} ({}={}=SIZE raises it)", size, Info(kind).what,
                     kInputLimitsEnv, Info(kind).id);
}

}  // namespace gpuwhy
