#include "ingest/memory/memory_summary_parser.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <vector>

#include "base/file_input.h"
#include "ingest/memory/memory_stats_parser.h"
#include "ingest/memory/oom_message_parser.h"

namespace gpuwhy {
namespace {

constexpr std::string_view kTitle = "PyTorch CUDA memory summary, device ID";

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// The cells between '|'s of a table line, or none when the line is not one.
std::vector<std::string_view> Cells(std::string_view line) {
  std::vector<std::string_view> cells;
  const size_t first = line.find('|');
  if (first == std::string_view::npos) return cells;
  line.remove_prefix(first + 1);
  for (size_t bar; (bar = line.find('|')) != std::string_view::npos; line.remove_prefix(bar + 1)) {
    cells.push_back(Trim(line.substr(0, bar)));
  }
  return cells;
}

// Digits only: the summary prints no sign, and "12x" is not 12.
std::optional<int64_t> CellNumber(std::string_view text) {
  int64_t v = 0;
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text.front()))) return std::nullopt;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

// "146836 KB", "4261 MiB", "0 B", "595", and counts as _format_count prints them past 750,000
// ("12345 K", "3 M": powers of 1000): bytes, or the count itself. nullopt for anything else and
// for a value past int64.
std::optional<int64_t> Quantity(std::string_view cell) {
  const size_t space = cell.find(' ');
  std::optional<int64_t> n = CellNumber(cell.substr(0, space));
  if (!n) return std::nullopt;
  if (space == std::string_view::npos) return n;
  const std::string_view unit = Trim(cell.substr(space));
  int64_t scale = 0;
  if (unit == "B") scale = 1;
  if (unit == "KB" || unit == "KiB") scale = int64_t{1} << 10;
  if (unit == "MB" || unit == "MiB") scale = int64_t{1} << 20;
  if (unit == "GB" || unit == "GiB") scale = int64_t{1} << 30;
  if (unit == "TB" || unit == "TiB") scale = int64_t{1} << 40;
  if (unit == "K") scale = 1000;
  if (unit == "M") scale = 1000 * 1000;
  if (scale == 0 || *n > INT64_MAX / scale) return std::nullopt;
  return *n * scale;
}

PoolStats* RowOf(AllocatorStats& s, std::string_view label) {
  if (label == "Allocated memory") return &s.allocated_bytes;
  if (label == "Active memory") return &s.active_bytes;
  if (label == "Requested memory") return &s.requested_bytes;
  if (label == "GPU reserved memory") return &s.reserved_bytes;
  if (label == "Non-releasable memory") return &s.non_releasable_bytes;
  if (label == "Allocations") return &s.allocations;
  if (label == "Active allocs") return &s.active_allocations;
  if (label == "GPU reserved segments") return &s.segments;
  if (label == "Non-releasable allocs") return &s.non_releasable_allocations;
  return nullptr;  // Oversize rows and the header
}

// "CUDA OOMs: 0" -> 0.
std::optional<int64_t> Counter(std::string_view cell, std::string_view name) {
  if (!cell.starts_with(name)) return std::nullopt;
  return CellNumber(Trim(cell.substr(name.size())));
}

class SummaryReader {
 public:
  SummaryReader(MemorySnapshot& out) : out_(out) {}

  void Line(std::string_view line, size_t number, size_t offset) {
    if (const size_t title = line.find(kTitle); title != std::string_view::npos) {
      out_.stats.push_back({});
      offsets_.push_back(offset);
      current_ = &out_.stats.back();
      current_->device =
          static_cast<int32_t>(CellNumber(Trim(line.substr(title + kTitle.size(), 8))).value_or(0));
      row_ = nullptr;
      return;
    }
    if (!current_) return;
    std::vector<std::string_view> cells = Cells(line);
    if (cells.empty()) {  // the table ended
      current_ = nullptr;
      return;
    }
    for (std::string_view cell : cells) {
      if (auto v = Counter(cell, "CUDA OOMs:")) current_->num_ooms = *v;
      if (auto v = Counter(cell, "cudaMalloc retries:")) current_->num_alloc_retries = *v;
    }
    if (cells.size() != 5) return;
    PoolStats* row = nullptr;
    StatPool pool = StatPool::kAll;
    if (cells[0] == "from large pool" || cells[0] == "from small pool") {
      row = row_;
      pool = cells[0] == "from large pool" ? StatPool::kLarge : StatPool::kSmall;
    } else {
      row = row_ = RowOf(*current_, cells[0]);
    }
    if (!row) return;
    StatValues& v = (*row)[static_cast<size_t>(pool)];
    int64_t* fields[] = {&v.current, &v.peak, &v.allocated, &v.freed};
    for (size_t i = 0; i < 4; ++i) {
      std::optional<int64_t> q = Quantity(cells[i + 1]);
      if (q) {
        *fields[i] = *q;
      } else {
        out_.problems.Add(DataProblem::kUnparsedLine,
                          fmt::format("line {}: '{}' is not a size", number,
                                      std::string(cells[i + 1].substr(0, 20))));
      }
    }
  }

  const std::vector<size_t>& offsets() const { return offsets_; }

 private:
  MemorySnapshot& out_;
  std::vector<size_t> offsets_;        // of each table's title line
  AllocatorStats* current_ = nullptr;  // stats is not resized while a table is read
  PoolStats* row_ = nullptr;           // the last metric row, for its "from ... pool" lines
};

// Tables and dicts as the log printed them: the last print of a device, and the leak's series,
// follow the file.
std::vector<AllocatorStats> InFileOrder(std::vector<AllocatorStats> tables,
                                        const std::vector<size_t>& table_offsets,
                                        std::vector<AllocatorStats> dicts,
                                        const std::vector<size_t>& dict_offsets) {
  std::vector<std::pair<size_t, AllocatorStats*>> all;
  for (size_t i = 0; i < tables.size(); ++i) all.push_back({table_offsets[i], &tables[i]});
  for (size_t i = 0; i < dicts.size(); ++i) all.push_back({dict_offsets[i], &dicts[i]});
  std::stable_sort(all.begin(), all.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<AllocatorStats> out;
  out.reserve(all.size());
  for (const auto& [offset, stats] : all) out.push_back(std::move(*stats));
  return out;
}

}  // namespace

StatusOr<MemorySnapshot> ParseMemorySummaryText(std::string_view text, std::string_view name) {
  MemorySnapshot out;
  out.path = std::string(name);
  out.source = "torch.cuda.memory_summary";
  out.file_bytes = text.size();
  SummaryReader reader(out);
  size_t number = 1;
  for (size_t start = 0; start < text.size(); ++number) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    reader.Line(text.substr(start, end - start), number, start);
    start = end + 1;
  }
  const bool tables = !out.stats.empty();
  std::vector<size_t> dict_offsets;
  std::vector<AllocatorStats> dicts = FindMemoryStats(text, out.problems, &dict_offsets);
  const bool have_dicts = !dicts.empty();
  out.stats = InFileOrder(std::move(out.stats), reader.offsets(), std::move(dicts), dict_offsets);
  out.oom_messages = FindOomMessages(text);
  if (out.stats.empty() && out.oom_messages.empty()) {
    return InvalidArgument(
        "{}: no torch.cuda.memory_summary() table ('{}'), no torch.cuda.memory_stats() dict "
        "(at least {} of its keys) and no CUDA out-of-memory message ('{}')",
        name, kTitle, kMinMemoryStatsKeys, kOomMarker);
  }
  if (!tables) out.source = have_dicts ? "torch.cuda.memory_stats" : "CUDA out-of-memory message";
  return out;
}

StatusOr<MemorySnapshot> ImportMemorySummary(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path, InputLimit::kNodeLog));
  return ParseMemorySummaryText(text, path);
}

}  // namespace gpuwhy
