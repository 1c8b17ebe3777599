#include "ingest/memory/memory_timeline_importer.h"

#include <array>
#include <memory>

#include <fmt/format.h>

#include "base/file_input.h"
#include "base/input_limits.h"
#include "base/ascii.h"

namespace gpuwhy {
namespace {

constexpr size_t kRowValues = 4;  // time, action, bytes, category
constexpr size_t kChunkBytes = 1 << 20;


// One value of a row: an integer being read, or a reason it is none.
struct Number {
  bool started = false;  // a digit or the sign was seen
  bool digits = false;
  bool ended = false;  // whitespace after it: another digit is a second token
  bool negative = false;
  uint64_t magnitude = 0;
  bool overflow = false;

  void Digit(char c) {
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (magnitude > (uint64_t{INT64_MAX} - d) / 10) overflow = true;
    magnitude = magnitude * 10 + d;
    started = digits = true;
  }
  int64_t Value() const {
    return negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
  }
};

// A byte-at-a-time machine: chunks may cut a row or a number anywhere.
class TimelineParser {
 public:
  TimelineParser(MemoryTimeline& out, std::string_view name) : out_(out), name_(name) {}

  // An error only when the first byte that is not whitespace opens no list.
  Status Feed(std::string_view chunk) {
    for (char c : chunk) {
      if (state_ == State::kStart) {
        if (IsAsciiSpace(c) || (offset_ < 3 && c == "\xEF\xBB\xBF"[offset_])) {
          ++offset_;
          continue;
        }
        if (c != '[') {
          return InvalidArgument(
              "{}: byte {}: not a memory timeline (expected the JSON list of [time, action, "
              "bytes, category] rows that export_memory_timeline writes)",
              name_, offset_);
        }
        state_ = State::kList;
      } else if (state_ == State::kList) {
        ListChar(c);
      } else if (state_ == State::kRow) {
        RowChar(c);
      } else if (state_ == State::kSkip) {
        SkipChar(c);
      }
      ++offset_;
    }
    return Status::Ok();
  }

  void Finish() {
    // A stream that failed or hit the limit was flagged where it stopped.
    if (state_ == State::kDone || out_.problems.Get(DataProblem::kTruncated) > 0) return;
    out_.problems.Add(DataProblem::kTruncated,
                      fmt::format("{}: byte {}: the list ends before its ']' (entry {}); {} "
                                  "rows read are kept",
                                  name_, offset_, entry_, out_.size()));
  }

 private:
  enum class State { kStart, kList, kRow, kSkip, kDone };

  void ListChar(char c) {
    if (IsAsciiSpace(c) || c == ',') return;
    if (c == ']') {
      state_ = State::kDone;
      return;
    }
    if (c == '[') {
      StartRow();
      return;
    }
    // An object, a string or a scalar where a row should be: skip it whole.
    Bad(DataProblem::kMalformedEvent, "not a [time, action, bytes, category] row");
    StartSkip(c, /*in_row=*/false);
  }

  void StartRow() {
    state_ = State::kRow;
    values_ = 0;
    row_bad_ = false;
    number_ = Number{};
  }

  void RowChar(char c) {
    if (IsAsciiDigit(c) && !number_.ended) {
      number_.Digit(c);
    } else if (c == '-' && !number_.started) {
      number_.started = number_.negative = true;
    } else if (IsAsciiSpace(c)) {
      if (number_.started) number_.ended = true;
    } else if (c == ',') {
      EndValue();
    } else if (c == ']') {
      if (number_.started || values_ > 0) EndValue();
      EndRow();
    } else {
      // A float, a string, a nested list, true/false/null: the row is no timeline row.
      row_bad_ = true;
      if (c == '[' || c == '{' || c == '"') StartSkip(c, /*in_row=*/true);
      number_.ended = true;
    }
  }

  void EndValue() {
    if (!number_.digits || number_.overflow) row_bad_ = true;
    if (values_ < kRowValues && !row_bad_) row_[values_] = number_.Value();
    ++values_;
    number_ = Number{};
  }

  void EndRow() {
    state_ = State::kList;
    const size_t entry = entry_++;
    if (row_bad_ || values_ != kRowValues) {
      BadAt(entry, DataProblem::kMalformedEvent,
            values_ != kRowValues ? fmt::format("{} values, not 4", values_)
                                  : std::string("a value is not an integer within int64"));
      return;
    }
    const auto [time, action, bytes, category] = row_;
    if (time < -1) {
      BadAt(entry, DataProblem::kBadTimestamp, fmt::format("time {}", time));
      return;
    }
    if (action < 1 || action > static_cast<int64_t>(kTimelineActionCount)) {
      BadAt(entry, DataProblem::kMalformedEvent, fmt::format("action {} is not 1 to 4", action));
      return;
    }
    MemoryCategory cat = MemoryCategory::kUnknown;
    if (category >= 0 && category < static_cast<int64_t>(kMemoryCategoryCount)) {
      cat = static_cast<MemoryCategory>(category);
    } else {
      BadAt(entry, DataProblem::kUnknownCategory,
            fmt::format("category {} kept as unknown", category));
    }
    out_.time.push_back(time == -1 ? kNoValue : time);
    out_.action.push_back(static_cast<TimelineAction>(action));
    out_.bytes.push_back(bytes);
    out_.category.push_back(cat);
  }

  // Skips one nested value (list, object, string) by depth and quote state, no recursion; a
  // scalar outside a row ends at the next ',' or ']'.
  void StartSkip(char c, bool in_row) {
    skip_in_row_ = in_row;
    state_ = State::kSkip;
    depth_ = 0;
    in_string_ = escape_ = false;
    SkipChar(c);
  }

  void SkipChar(char c) {
    if (in_string_) {
      if (escape_) {
        escape_ = false;
      } else if (c == '\\') {
        escape_ = true;
      } else if (c == '"') {
        in_string_ = false;
        if (depth_ == 0) EndSkip();
      }
      return;
    }
    if (c == '"') {
      in_string_ = true;
    } else if (c == '[' || c == '{') {
      ++depth_;
    } else if ((c == ']' || c == '}') && depth_ > 0) {
      if (--depth_ == 0) EndSkip();
    } else if (depth_ == 0 && (c == ',' || c == ']')) {
      // The end of a bare scalar in the list.
      state_ = State::kList;
      ++entry_;
      ListChar(c);
    }
  }

  void EndSkip() {
    if (skip_in_row_) {
      state_ = State::kRow;
      return;
    }
    state_ = State::kList;
    ++entry_;
  }

  void Bad(DataProblem kind, std::string_view why) { BadAt(entry_, kind, why); }
  void BadAt(size_t entry, DataProblem kind, std::string_view why) {
    out_.problems.Add(kind, fmt::format("{}: entry {}: {}", name_, entry, why));
  }

  MemoryTimeline& out_;
  std::string_view name_;
  State state_ = State::kStart;
  uint64_t offset_ = 0;
  size_t entry_ = 0;
  std::array<int64_t, kRowValues> row_{};
  size_t values_ = 0;
  bool row_bad_ = false;
  Number number_;
  int64_t depth_ = 0;
  bool in_string_ = false;
  bool escape_ = false;
  bool skip_in_row_ = false;
};

}  // namespace

bool LooksLikeMemoryTimeline(std::string_view head) {
  size_t i = 0;
  const auto skip = [&] {
    while (i < head.size() && IsAsciiSpace(head[i])) ++i;
  };
  const auto expect = [&](char c) {
    skip();
    if (i >= head.size() || head[i] != c) return false;
    ++i;
    return true;
  };
  if (!expect('[') || !expect('[')) return false;
  for (size_t v = 0; v < kRowValues; ++v) {
    skip();
    if (i < head.size() && head[i] == '-') ++i;
    const size_t digits = i;
    while (i < head.size() && IsAsciiDigit(head[i])) ++i;
    if (i == digits || i - digits > 19) return false;
    if (!expect(v + 1 < kRowValues ? ',' : ']')) return false;
  }
  return true;
}

StatusOr<MemoryTimeline> ParseMemoryTimeline(std::string_view bytes, std::string_view name) {
  MemoryTimeline out;
  out.path = std::string(name);
  out.file_bytes = bytes.size();
  TimelineParser parser(out, name);
  RETURN_IF_ERROR(parser.Feed(bytes));
  parser.Finish();
  return out;
}

StatusOr<MemoryTimeline> ImportMemoryTimeline(const std::string& path) {
  ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, OpenByteSource(path));
  ASSIGN_OR_RETURN(uint64_t limit, MaxInputBytes(InputLimit::kOther));
  MemoryTimeline out;
  out.path = path;
  TimelineParser parser(out, path);
  std::string chunk(kChunkBytes, '\0');
  while (true) {
    StatusOr<size_t> got = source->Read(chunk.data(), chunk.size());
    if (!got.ok()) {
      out.problems.Add(DataProblem::kTruncated, got.status().message());
      break;
    }
    if (*got == 0) break;
    RETURN_IF_ERROR(parser.Feed(std::string_view(chunk.data(), *got)));
    out.file_bytes += *got;
    if (limit != 0 && out.file_bytes >= limit) {
      out.problems.Add(DataProblem::kTruncated,
                       fmt::format("{}: stopped after {} bytes: {}", path, out.file_bytes,
                                   DescribeInputLimit(InputLimit::kOther, limit)));
      break;
    }
  }
  parser.Finish();
  return out;
}

}  // namespace gpuwhy
