#include "ingest/kineto/json_event_splitter.h"

#include <algorithm>
#include <cstring>

namespace gpuwhy {
namespace {

constexpr size_t kNpos = static_cast<size_t>(-1);

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
bool EndsScalar(char c) { return c == ',' || c == '}' || c == ']' || IsSpace(c); }

// Returns the index just past the closing quote of the string whose opening quote is at
// |open|, or kNpos if the string is not complete within [open, end).
size_t SkipString(const char* data, size_t open, size_t end) {
  size_t p = open + 1;
  while (p < end) {
    const void* hit = std::memchr(data + p, '"', end - p);
    if (hit == nullptr) return kNpos;
    size_t quote = static_cast<const char*>(hit) - data;
    size_t backslashes = 0;
    while (quote - backslashes > open + 1 && data[quote - backslashes - 1] == '\\') ++backslashes;
    if (backslashes % 2 == 0) return quote + 1;
    p = quote + 1;
  }
  return kNpos;
}

}  // namespace

JsonEventSplitter::JsonEventSplitter(ByteSource& source, size_t chunk_bytes)
    : source_(source), chunk_bytes_(std::max<size_t>(chunk_bytes, 4096)) {}

Status JsonEventSplitter::Error(uint64_t offset, std::string_view what) const {
  return InvalidArgument("byte {}: {}", offset, what);
}

void JsonEventSplitter::Compact() {
  brackets_.Invalidate();
  if (begin_ == 0) return;
  std::memmove(buffer_.get(), buffer_.get() + begin_, end_ - begin_);
  base_offset_ += begin_;
  end_ -= begin_;
  begin_ = 0;
}

bool JsonEventSplitter::Fill() {
  if (eof_) return false;
  Compact();
  // Small files get a small buffer; big ones read chunk_bytes_ at a time.
  size_t want = std::min<uint64_t>(chunk_bytes_, std::max<uint64_t>(source_.file_size(), 4096));
  brackets_.Invalidate();
  if (end_ + want + kPadding > capacity_) {
    size_t capacity = std::max(capacity_ * 2, end_ + want + kPadding);
    auto grown = std::make_unique_for_overwrite<char[]>(capacity);
    if (end_ > 0) std::memcpy(grown.get(), buffer_.get(), end_);
    buffer_ = std::move(grown);
    capacity_ = capacity;
  }
  auto n = source_.Read(buffer_.get() + end_, capacity_ - end_ - kPadding);
  if (!n.ok()) {
    read_error_ = n.status();
    eof_ = true;
    return false;
  }
  if (*n == 0) {
    eof_ = true;
    return false;
  }
  end_ += *n;
  result_.bytes += *n;
  std::memset(buffer_.get() + end_, ' ', kPadding);  // deterministic padding for the parser
  return true;
}

void JsonEventSplitter::SkipWhitespace() {
  const char* data = buffer_.get();
  while (begin_ < end_ && IsSpace(data[begin_])) ++begin_;
}

size_t JsonEventSplitter::ScanValue(size_t begin) {
  const char* data = buffer_.get();
  char first = data[begin];
  if (first == '"') return SkipString(data, begin, end_);
  if (first != '{' && first != '[') {
    size_t p = begin;
    while (p < end_ && !EndsScalar(data[p])) ++p;
    return (p == end_ && !eof_) ? kNpos : p;
  }
  size_t close = brackets_.FindEnd(data, begin, end_);
  return close == BracketScanner::kNotFound ? kNpos : close;
}

StatusOr<bool> JsonEventSplitter::Step(Sink& sink) {
  const char* data = buffer_.get();
  while (true) {
    SkipWhitespace();
    if (begin_ == end_) return false;
    uint64_t offset = base_offset_ + begin_;
    char c = data[begin_];
    switch (mode_) {
      case Mode::kStart:
        if (offset == 0 && std::memcmp(data, "\xEF\xBB\xBF", std::min<size_t>(3, end_)) == 0) {
          // A UTF-8 byte order mark, or the start of one: a source may hand over its first
          // bytes in pieces (the two it peeked at for a gzip magic), so wait for all three.
          if (end_ < 3) {
            if (!eof_) return false;
          } else {
            begin_ += 3;
            continue;
          }
        }
        if (c == '{') {
          mode_ = Mode::kObjectKey;
        } else if (c == '[') {
          top_level_is_array_ = true;
          in_events_array_ = true;
          result_.saw_events_array = true;
          mode_ = Mode::kArray;
        } else {
          return Error(offset, "not JSON: a Kineto trace starts with '{' or '['");
        }
        ++begin_;
        continue;
      case Mode::kObjectKey: {
        if (c == '}') {
          mode_ = Mode::kDone;
          ++begin_;
          return true;
        }
        if (c != '"') return Error(offset, "expected a member name in the top-level object");
        size_t close = SkipString(data, begin_, end_);
        if (close == kNpos) return false;
        pending_key_.assign(data + begin_ + 1, close - begin_ - 2);
        key_offset_ = offset;
        begin_ = close;
        mode_ = Mode::kObjectColon;
        continue;
      }
      case Mode::kObjectColon:
        if (c != ':') return Error(offset, "expected ':' after a top-level member name");
        ++begin_;
        mode_ = Mode::kObjectValue;
        continue;
      case Mode::kObjectValue: {
        if (pending_key_ == "traceEvents" && c == '[') {
          in_events_array_ = true;
          result_.saw_events_array = true;
          mode_ = Mode::kArray;
          ++begin_;
          continue;
        }
        size_t close = ScanValue(begin_);
        if (close == kNpos) return false;
        sink.OnTopLevelMember(pending_key_, std::string_view(data + begin_, close - begin_),
                              offset);
        begin_ = close;
        mode_ = Mode::kObjectComma;
        continue;
      }
      case Mode::kObjectComma:
        if (c == ',') {
          mode_ = Mode::kObjectKey;
        } else if (c == '}') {
          mode_ = Mode::kDone;
          ++begin_;
          return true;
        } else {
          return Error(offset, "expected ',' or '}' between top-level members");
        }
        ++begin_;
        continue;
      case Mode::kArray: {
        if (c == ',') {
          ++begin_;
          continue;
        }
        if (c == ']') {
          in_events_array_ = false;
          mode_ = top_level_is_array_ ? Mode::kDone : Mode::kObjectComma;
          ++begin_;
          if (mode_ == Mode::kDone) return true;
          continue;
        }
        if (c == '{') {
          size_t consumed = 0;
          auto fast = sink.TryConsumeEvent(data + begin_, end_ - begin_, &consumed);
          if (fast == Sink::Consumed::kEvent) {
            ++result_.events;
            begin_ += consumed;
            continue;
          }
          if (fast == Sink::Consumed::kNeedMore && !eof_) return false;
        }
        size_t close = ScanValue(begin_);
        if (close == kNpos) return false;
        // A stray '}' is no element at all: reading it as an empty one would never advance.
        if (close == begin_) return Error(offset, "unexpected '}' in the traceEvents array");
        sink.OnEvent(std::string_view(data + begin_, close - begin_), offset);
        ++result_.events;
        begin_ = close;
        continue;
      }
      case Mode::kDone: return true;
    }
  }
}

Status JsonEventSplitter::CheckPieceSize() const {
  // One piece (event, member name or value) waiting for its end holds the whole buffer: past
  // the limit it is refused before more is read, however long the rest of it is.
  if (max_piece_bytes_ == 0 || end_ - begin_ <= max_piece_bytes_) return Status();
  return Error(base_offset_ + begin_,
               fmt::format("one {} is {}", in_events_array_ ? "trace event" : "top-level value",
                           DescribeInputLimit(InputLimit::kTraceEvent, max_piece_bytes_)));
}

void JsonEventSplitter::ReadPastTheEnd() {
  // A gzip member's CRC-32 and length are checked when its trailer is read, after the last
  // byte of the document: without reading it, a corrupt file would pass as a good one.
  if (source_.compression() != Compression::kGzip) return;
  char sink[16 << 10];
  while (true) {
    StatusOr<size_t> n = source_.Read(sink, sizeof(sink));
    if (!n.ok()) {
      result_.check_error = n.status().message();
      return;
    }
    if (*n == 0) return;
  }
}

StatusOr<JsonEventSplitter::Result> JsonEventSplitter::Run(Sink& sink) {
  StatusOr<uint64_t> limit = MaxInputBytes(InputLimit::kTraceEvent);
  if (!limit.ok()) return limit.status();
  max_piece_bytes_ = *limit;
  while (mode_ != Mode::kDone) {
    StatusOr<bool> progressed = Step(sink);
    if (progressed.ok() && !*progressed && mode_ != Mode::kDone) {
      Status size = CheckPieceSize();
      if (!size.ok()) progressed = size;
    }
    if (!progressed.ok()) {
      if (result_.events == 0) return progressed.status();
      // Broken structure after real events: keep them, report where it broke.
      result_.structure_error = progressed.status().message();
      result_.truncated = true;
      result_.truncated_at = base_offset_ + begin_;
      return result_;
    }
    if (mode_ == Mode::kDone) break;
    if (!Fill()) break;
  }
  if (mode_ == Mode::kDone) {
    if (!result_.saw_events_array) {
      return Error(base_offset_ + begin_,
                   "JSON object without a \"traceEvents\" array: not a Kineto trace");
    }
    if (!read_error_.ok()) {
      result_.check_error = read_error_.message();
    } else if (!eof_) {
      ReadPastTheEnd();
    }
    return result_;
  }
  if (mode_ == Mode::kStart) {
    if (!read_error_.ok()) return read_error_;
    return Error(0, "empty file: no JSON document");
  }
  result_.truncated = true;
  result_.truncated_at = base_offset_ + begin_;
  if (!read_error_.ok()) result_.structure_error = read_error_.message();
  return result_;
}

}  // namespace gpuwhy
