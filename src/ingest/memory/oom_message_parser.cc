#include "ingest/memory/oom_message_parser.h"
#include "base/ascii.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

namespace gpuwhy {
namespace {

// A message is one sentence run; logs that wrap it keep it within a few hundred bytes.
constexpr size_t kMessageWindow = 1200;


// The window after a marker as one line: a message a log wrapped keeps going on the next lines,
// behind the same prefix as its first ("[rank1]: "): the part a continuation line shares with
// the marker's line, up to a space, is dropped with the line break. (A prefix that changes from
// line to line, like a timestamp, is only partly dropped.)
std::string Flatten(std::string_view marker_line, std::string_view window) {
  std::string out;
  size_t start = 0;
  while (start <= window.size()) {
    size_t end = window.find('\n', start);
    if (end == std::string_view::npos) end = window.size();
    std::string_view line = window.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (start > 0) {
      size_t common = 0;
      while (common < line.size() && common < marker_line.size() &&
             line[common] == marker_line[common]) {
        ++common;
      }
      while (common > 0 && line[common - 1] != ' ') --common;
      line.remove_prefix(common);
      out += ' ';
    }
    out += line;
    start = end + 1;
  }
  return out;
}

// The size that ends right before |at| ("... 1.95 GiB is reserved"): the two words before it.
std::optional<int64_t> SizeBefore(std::string_view text, size_t at) {
  size_t end = at;
  while (end > 0 && IsAsciiSpace(text[end - 1])) --end;
  size_t unit = end;
  while (unit > 0 && !IsAsciiSpace(text[unit - 1])) --unit;
  size_t number = unit;
  while (number > 0 && IsAsciiSpace(text[number - 1])) --number;
  size_t start = number;
  while (start > 0 && !IsAsciiSpace(text[start - 1]) && text[start - 1] != '(' && text[start - 1] != ';')
    --start;
  if (start == number || unit == end) return std::nullopt;
  return ParseAllocatorSize(text.substr(start, end - start));
}

// The size that starts right after |at| ("of 79.15 GiB of which").
std::optional<int64_t> SizeAfter(std::string_view text, size_t at) {
  size_t start = at;
  while (start < text.size() && IsAsciiSpace(text[start])) ++start;
  size_t number = start;
  while (number < text.size() && !IsAsciiSpace(text[number])) ++number;
  size_t unit = number;
  while (unit < text.size() && IsAsciiSpace(text[unit])) ++unit;
  size_t end = unit;
  while (end < text.size() && std::isalpha(static_cast<unsigned char>(text[end]))) ++end;
  if (number == start || end == unit) return std::nullopt;
  return ParseAllocatorSize(text.substr(start, end - start));
}

std::optional<int64_t> After(std::string_view text, std::string_view key) {
  const size_t at = text.find(key);
  return at == std::string_view::npos ? std::nullopt : SizeAfter(text, at + key.size());
}

std::optional<int64_t> Before(std::string_view text, std::string_view key) {
  const size_t at = text.find(key);
  return at == std::string_view::npos ? std::nullopt : SizeBefore(text, at);
}

int64_t Or(std::optional<int64_t> v) { return v ? *v : kNoValue; }

// "GPU 3" after the request (both forms print the device right after it).
int32_t DeviceOf(std::string_view text) {
  const size_t at = text.find("GPU ");
  if (at == std::string_view::npos || at > 80) return -1;
  int32_t device = -1;
  const char* first = text.data() + at + 4;
  auto [end, ec] = std::from_chars(first, text.data() + text.size(), device);
  return ec == std::errc() && end != first && device >= 0 ? device : -1;
}

OomMessage ReadMessage(std::string_view m) {
  OomMessage out;
  out.requested = Or(SizeAfter(m, 0));
  out.device = DeviceOf(m);
  // 2.1+ ("capacty" is how 2.1 spelt it).
  out.capacity = Or(After(m, "total capacity of "));
  if (out.capacity == kNoValue) out.capacity = Or(After(m, "total capacty of "));
  out.free = Or(Before(m, " is free"));
  out.process_in_use = Or(After(m, "this process has "));
  out.allocated_by_pytorch = Or(Before(m, " is allocated by PyTorch"));
  out.reserved_unallocated = Or(Before(m, " is reserved by PyTorch but unallocated"));
  for (size_t at = m.find("Process "); at != std::string_view::npos;
       at = m.find("Process ", at + 8)) {
    const size_t has = m.find(" has ", at);
    const size_t in_use = m.find(" memory in use", at);
    if (has == std::string_view::npos || in_use == std::string_view::npos || has > at + 30) {
      continue;
    }
    if (std::optional<int64_t> bytes = SizeAfter(m, has + 5)) {
      ++out.other_processes;
      out.other_processes_bytes += *bytes;
    }
  }
  // Older: "(GPU 0; 15.78 GiB total capacity; 14.56 GiB already allocated; 3.75 MiB free;
  // 14.74 GiB reserved in total by PyTorch)".
  if (out.capacity == kNoValue) out.capacity = Or(Before(m, " total capacity"));
  if (out.allocated_by_pytorch == kNoValue) {
    out.allocated_by_pytorch = Or(Before(m, " already allocated"));
  }
  if (out.free == kNoValue) out.free = Or(Before(m, " free;"));
  if (out.reserved_unallocated == kNoValue && out.allocated_by_pytorch != kNoValue) {
    if (std::optional<int64_t> reserved = Before(m, " reserved in total by PyTorch")) {
      out.reserved_unallocated = std::max<int64_t>(0, *reserved - out.allocated_by_pytorch);
    }
  }
  return out;
}

}  // namespace

std::optional<int64_t> ParseAllocatorSize(std::string_view text) {
  const size_t space = text.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const std::string_view number = text.substr(0, space);
  std::string_view unit = text.substr(space + 1);
  while (!unit.empty() && (unit.back() == '.' || unit.back() == ',')) unit.remove_suffix(1);
  if (number.empty() || !std::isdigit(static_cast<unsigned char>(number.front()))) {
    return std::nullopt;
  }
  double value = 0;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || end != number.data() + number.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  double scale = 0;
  if (unit == "bytes" || unit == "B") scale = 1;
  if (unit == "KiB") scale = 1024.0;
  if (unit == "MiB") scale = 1024.0 * 1024;
  if (unit == "GiB") scale = 1024.0 * 1024 * 1024;
  if (unit == "TiB") scale = 1024.0 * 1024 * 1024 * 1024;
  const double bytes = value * scale;
  if (scale == 0 || bytes >= 9.2e18) return std::nullopt;
  return static_cast<int64_t>(std::llround(bytes));
}

std::vector<OomMessage> FindOomMessages(std::string_view text, size_t first_line) {
  std::vector<OomMessage> out;
  size_t line = first_line;
  size_t counted = 0;  // text before this offset has its line breaks counted
  for (size_t at = text.find(kOomMarker); at != std::string_view::npos;
       at = text.find(kOomMarker, at + kOomMarker.size())) {
    line += static_cast<size_t>(std::count(text.begin() + counted, text.begin() + at, '\n'));
    counted = at;
    const size_t start = at + kOomMarker.size();
    // The message ends at its advice ("If reserved ...", "See documentation ..."), or where the
    // next one starts (every rank prints its own).
    std::string_view rest = text.substr(start, kMessageWindow);
    for (std::string_view end :
         {std::string_view("If reserved"), std::string_view("See documentation"), kOomMarker}) {
      rest = rest.substr(0, rest.find(end));
    }
    const size_t line_start =
        text.rfind('\n', at) == std::string_view::npos ? 0 : text.rfind('\n', at) + 1;
    const std::string window = Flatten(text.substr(line_start, at - line_start), rest);
    OomMessage message = ReadMessage(window);
    if (message.requested == kNoValue) continue;  // the marker quoted in prose, not a message
    message.line = line;
    out.push_back(message);
  }
  return out;
}

}  // namespace gpuwhy
