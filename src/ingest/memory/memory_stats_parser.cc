#include "ingest/memory/memory_stats_parser.h"
#include "base/ascii.h"

#include <algorithm>
#include <charconv>
#include <optional>
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

// max_split_size is the one optional field (-1, unlimited, is a value): read apart.
bool IsFlatKey(std::string_view key) {
  AllocatorStats probe;
  return key == "max_split_size" || FieldOf(probe, key) != nullptr;
}

// The first part of a memory_stats_as_nested_dict() key: {'allocated_bytes': {'all': {...}}}.
bool IsNestedHead(std::string_view key) {
  AllocatorStats probe;
  return StatOf(probe, key) != nullptr || key == "oversize_allocations" ||
         key == "oversize_segments";
}

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// How far back from a dict's first key a device may be named: its print's own line or two.
constexpr size_t kDeviceLookBack = 512;

// The device named last in |before| (the text just ahead of a dict): memory_stats(device=1),
// memory_stats(1), 'cuda:1', "device 1" / "device=1" / "device: 1"; -1 when none.
int32_t DeviceNamedIn(std::string_view before) {
  int32_t device = -1;
  size_t best = 0;
  const auto number_at = [&](size_t at, size_t where) {
    size_t end = at;
    while (end < before.size() && end - at < 4 && IsAsciiDigit(before[end])) ++end;
    if (end == at || (end < before.size() && IsAsciiDigit(before[end])) || where < best) return;
    int32_t value = 0;
    std::from_chars(before.data() + at, before.data() + end, value);
    device = value;
    best = where;
  };
  for (std::string_view marker : {"cuda:", "memory_stats(", "nested_dict(", "device"}) {
    for (size_t at = before.find(marker); at != std::string_view::npos;
         at = before.find(marker, at + 1)) {
      size_t v = at + marker.size();
      if (marker == "device") {
        while (v < before.size() && (before[v] == ' ' || before[v] == '=' || before[v] == ':')) ++v;
        if (v == at + marker.size()) continue;  // "devices", "device_free": not a name
      }
      number_at(v, at);
    }
  }
  return device;
}

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
  // The key opening at |quote| of at most kMaxKeyBytes; nullopt when it is not closed in time.
  std::optional<std::string_view> KeyAt(size_t quote) const {
    const std::string_view window = text_.substr(quote + 1, kMaxKeyBytes + 1);
    const size_t close = window.find(text_[quote]);
    if (close == std::string_view::npos) return std::nullopt;
    return window.substr(0, close);
  }

  size_t SkipBlanks(size_t v) const {
    while (v < text_.size() && IsBlank(text_[v])) ++v;
    return v;
  }

  // Reads the key opening at |quote| and its value; returns where to look on.
  size_t Entry(size_t quote) {
    const std::optional<std::string_view> key = KeyAt(quote);
    if (!key) return quote + 1;
    const bool flat = IsFlatKey(*key);
    if (!flat && !IsNestedHead(*key)) return quote + 1;
    size_t v = SkipBlanks(quote + key->size() + 2);
    // "key": value (JSON, a dict literal) or ('key', value) (an OrderedDict's pairs); a nested
    // dict's head is followed by its dict.
    if (v >= text_.size() || (text_[v] != ':' && text_[v] != ',')) return quote + 1;
    const bool pair = text_[v] == ',';
    v = SkipBlanks(v + 1);
    if (!flat && (pair || v >= text_.size() || text_[v] != '{')) return quote + 1;
    if (open_ && (ClosesDict(text_.substr(end_, quote - end_)) || Repeats(*key, flat))) Commit();
    if (!open_) Open(quote);
    end_ = flat ? Flat(v, std::string(*key)) : Nested(v + 1, std::string(*key), 1);
    return end_;
  }

  // Whether |key| was read in the open dict already (a nested head: any key under it).
  bool Repeats(std::string_view key, bool flat) const {
    const std::string prefix = std::string(key) + ".";
    return std::any_of(keys_.begin(), keys_.end(), [&](const std::string& k) {
      return flat ? k == key : k.starts_with(prefix);
    });
  }

  void Open(size_t quote) {
    start_ = quote;
    open_ = true;
    const size_t from = std::max(last_end_, quote > kDeviceLookBack ? quote - kDeviceLookBack : 0);
    const int32_t device = DeviceNamedIn(text_.substr(from, quote - from));
    pending_.device = std::max(device, 0);
    pending_.device_assumed = device < 0;
  }

  // A documented flat key's value at |v|.
  size_t Flat(size_t v, std::string key) {
    keys_.push_back(key);
    if (key != "max_split_size") return Value(v, key, *FieldOf(pending_, key));
    int64_t value = INT64_MIN;
    const size_t end = Value(v, key, value);
    if (value != INT64_MIN) pending_.max_split_size = value;
    return end;
  }

  // The inside of a nested dict after its '{' (memory_stats_as_nested_dict()): each inner key
  // joined to |prefix| with '.', as memory_stats() flattens it. Returns after its '}', or where
  // it stopped making sense.
  size_t Nested(size_t v, const std::string& prefix, int depth) {
    for (size_t guard = 0; guard < 64; ++guard) {
      v = SkipBlanks(v);
      if (v >= text_.size()) return v;
      if (text_[v] == '}') return v + 1;
      if (text_[v] != '\'' && text_[v] != '"') return v;
      const std::optional<std::string_view> inner = KeyAt(v);
      if (!inner) return v;
      v = SkipBlanks(v + inner->size() + 2);
      if (v >= text_.size() || text_[v] != ':') return v;
      v = SkipBlanks(v + 1);
      const std::string key = prefix + "." + std::string(*inner);
      if (v < text_.size() && text_[v] == '{') {
        if (depth >= 2) return v;  // <stat>.<pool>.<metric> is as deep as they go
        v = Nested(v + 1, key, depth + 1);
      } else if (IsFlatKey(key)) {
        v = Flat(v, key);
      } else {
        while (v < text_.size() && text_[v] != ',' && text_[v] != '}' && text_[v] != '{') ++v;
      }
      v = SkipBlanks(v);
      if (v < text_.size() && text_[v] == ',') ++v;
    }
    return v;
  }

  // Parses the integer at |v| into |field|; returns the byte after what was read.
  size_t Value(size_t v, const std::string& key, int64_t& field) {
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
      last_end_ = end_;
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
  std::vector<std::string> keys_;  // of the dict being read (flat): a repeat starts the next
  std::vector<std::string> bad_;   // its bad values, counted only if it is a dict
  size_t end_ = 0;                 // after its last value
  size_t start_ = 0;               // its first key's byte
  size_t last_end_ = 0;            // after the last dict read: its device names are its own
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
