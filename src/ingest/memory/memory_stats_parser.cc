#include "ingest/memory/memory_stats_parser.h"

#include <algorithm>
#include <charconv>
#include <string>

#include <fmt/format.h>

namespace gpuwhy {
namespace {

// The longest documented key is "inactive_split_bytes.large_pool.allocated" (41 bytes): a quote
// further away than this closes no key, so a stray apostrophe costs a bounded look.
constexpr size_t kMaxKeyBytes = 48;
// Between two documented keys of one dict there is punctuation, whitespace, a log prefix per
// line and the keys PyTorch may add later (a family of 20 runs to ~700 bytes): past this the dict
// ended and the log went on.
constexpr size_t kMaxGapBytes = 4096;

PoolStats* StatOf(AllocatorStats& s, std::string_view name) {
  if (name == "allocated_bytes") return &s.allocated_bytes;
  if (name == "active_bytes") return &s.active_bytes;
  if (name == "inactive_split_bytes") return &s.non_releasable_bytes;
  if (name == "reserved_bytes") return &s.reserved_bytes;
  if (name == "requested_bytes") return &s.requested_bytes;
  if (name == "allocation") return &s.allocations;
  if (name == "active") return &s.active_allocations;
  if (name == "inactive_split") return &s.non_releasable_allocations;
  if (name == "segment") return &s.segments;
  return nullptr;
}

int64_t* MetricOf(StatValues& v, std::string_view name) {
  if (name == "current") return &v.current;
  if (name == "peak") return &v.peak;
  if (name == "allocated") return &v.allocated;
  if (name == "freed") return &v.freed;
  return nullptr;
}

int64_t* ScalarOf(AllocatorStats& s, std::string_view name) {
  if (name == "num_alloc_retries") return &s.num_alloc_retries;
  if (name == "num_ooms") return &s.num_ooms;
  if (name == "num_sync_all_streams") return &s.num_sync_all_streams;
  if (name == "num_device_alloc") return &s.num_device_alloc;
  if (name == "num_device_free") return &s.num_device_free;
  if (name == "max_split_size") return &s.max_split_size;
  return nullptr;
}

// The field a documented key fills; nullptr for any other string.
int64_t* FieldOf(AllocatorStats& s, std::string_view key) {
  const size_t dot = key.find('.');
  if (dot == std::string_view::npos) return ScalarOf(s, key);
  const std::string_view head = key.substr(0, dot);
  const std::string_view rest = key.substr(dot + 1);
  if (head == "oversize_allocations") return MetricOf(s.oversize_allocations, rest);
  if (head == "oversize_segments") return MetricOf(s.oversize_segments, rest);
  PoolStats* stat = StatOf(s, head);
  const size_t dot2 = rest.find('.');
  if (!stat || dot2 == std::string_view::npos) return nullptr;
  const std::string_view pool = rest.substr(0, dot2);
  StatPool p = StatPool::kAll;
  if (pool == "large_pool") {
    p = StatPool::kLarge;
  } else if (pool == "small_pool") {
    p = StatPool::kSmall;
  } else if (pool != "all") {
    return nullptr;
  }
  return MetricOf((*stat)[static_cast<size_t>(p)], rest.substr(dot2 + 1));
}

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// Text between two values that closes a dict: its brace, an OrderedDict's "])", or too much
// else (the dict ended and the log went on).
bool ClosesDict(std::string_view gap) {
  return gap.size() > kMaxGapBytes || gap.find('}') != std::string_view::npos ||
         gap.find("])") != std::string_view::npos;
}

class StatsScanner {
 public:
  StatsScanner(std::string_view text, DataProblems& problems) : text_(text), problems_(problems) {}

  const std::vector<size_t>& offsets() const { return offsets_; }

  // Reads every dict; stops after the first when |first_only|.
  std::vector<AllocatorStats> Scan(bool first_only) {
    size_t pos = 0;
    while (pos < text_.size() && !(first_only && keys_.size() >= kMinMemoryStatsKeys)) {
      const size_t quote = text_.find_first_of("'\"", pos);
      if (quote == std::string_view::npos) break;
      pos = Entry(quote);
    }
    Commit();
    return std::move(out_);
  }

 private:
  // Reads the key opening at |quote| and its value; returns where to look on.
  size_t Entry(size_t quote) {
    const std::string_view window = text_.substr(quote + 1, kMaxKeyBytes + 1);
    const size_t close = window.find(text_[quote]);
    if (close == std::string_view::npos) return quote + 1;
    const std::string_view key = window.substr(0, close);
    AllocatorStats probe;
    if (!FieldOf(probe, key)) return quote + 1;
    size_t v = quote + close + 2;
    while (v < text_.size() && IsBlank(text_[v])) ++v;
    // "key": value (JSON, a dict literal) or ('key', value) (an OrderedDict's pairs).
    if (v >= text_.size() || (text_[v] != ':' && text_[v] != ',')) return quote + 1;
    ++v;
    while (v < text_.size() && IsBlank(text_[v])) ++v;
    if (open_ && (ClosesDict(text_.substr(end_, quote - end_)) ||
                  std::find(keys_.begin(), keys_.end(), key) != keys_.end())) {
      Commit();
    }
    if (!open_) start_ = quote;
    open_ = true;
    keys_.push_back(key);
    end_ = Value(v, key, *FieldOf(pending_, key));
    return end_;
  }

  // Parses the integer at |v| into |field|; returns the byte after what was read.
  size_t Value(size_t v, std::string_view key, int64_t& field) {
    const char* begin = text_.data() + v;
    const char* last = text_.data() + text_.size();
    int64_t value = 0;
    auto [end, ec] = std::from_chars(begin, last, value);
    const bool more =
        end < last && (*end == '.' || *end == 'e' || *end == 'E' || (*end >= '0' && *end <= '9'));
    const bool sign_ok = value >= 0 || key == "max_split_size";
    if (ec == std::errc() && !more && sign_ok) {
      field = value;
      return static_cast<size_t>(end - text_.data());
    }
    bad_.push_back(fmt::format("byte {}: '{}' is not a {}integer: '{}'", v, key,
                               sign_ok ? "" : "non-negative ", std::string(text_.substr(v, 24))));
    size_t skip = v;
    while (skip < text_.size() && !IsBlank(text_[skip]) && text_[skip] != ',' &&
           text_[skip] != ')' && text_[skip] != '}')
      ++skip;
    return skip;
  }

  void Commit() {
    if (keys_.size() >= kMinMemoryStatsKeys) {
      out_.push_back(pending_);
      offsets_.push_back(start_);
      for (std::string& detail : bad_) problems_.Add(DataProblem::kBadValue, std::move(detail));
    }
    pending_ = AllocatorStats{};
    keys_.clear();
    bad_.clear();
    open_ = false;
  }

  std::string_view text_;
  DataProblems& problems_;
  std::vector<AllocatorStats> out_;
  std::vector<size_t> offsets_;  // of each dict in out_
  AllocatorStats pending_;
  std::vector<std::string_view> keys_;  // of the dict being read: a repeat starts the next
  std::vector<std::string> bad_;        // its bad values, counted only if it is a dict
  size_t end_ = 0;                      // after its last value
  size_t start_ = 0;                    // its first key's byte
  bool open_ = false;
};

}  // namespace

std::vector<AllocatorStats> FindMemoryStats(std::string_view text, DataProblems& problems,
                                            std::vector<size_t>* offsets) {
  StatsScanner scanner(text, problems);
  std::vector<AllocatorStats> out = scanner.Scan(false);
  if (offsets) *offsets = scanner.offsets();
  return out;
}

bool HoldsMemoryStats(std::string_view text) {
  DataProblems ignored;
  return !StatsScanner(text, ignored).Scan(true).empty();
}

}  // namespace gpuwhy
