#include "analyze/memory_oom_replay.h"

#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>

namespace gpuwhy {
namespace {

// PyTorch's caching allocator: requests round up to 512 bytes; a large-pool block keeps a
// remainder under 1 MiB unsplit, and a block past max_split_size is never split (a request may
// take one up to 20 MiB larger, kLargeBuffer).
constexpr int64_t kRound = 512;
constexpr int64_t kUnsplitTail = int64_t{1} << 20;
constexpr int64_t kOversizeTail = int64_t{20} << 20;
constexpr int64_t kSmallSegment = int64_t{2} << 20;

struct Segment {
  int64_t size = 0;
  SegmentPool pool = SegmentPool::kUnknown;
  int64_t stream = kNoValue;
  bool expandable = false;
};

struct Live {
  int64_t extent = 0;
  int64_t tail = 0;  // bytes behind |extent| the block may also hold (unknown split)
};

int64_t RoundUp(int64_t size) {
  return size <= kRound ? kRound : (size + kRound - 1) / kRound * kRound;
}

class Replay {
 public:
  Replay(const MemorySnapshot& s, int32_t device) : s_(s), device_(device) {
    if (s.settings.max_split_size && *s.settings.max_split_size > 0) {
      max_split_ = *s.settings.max_split_size;
    }
    power2_rounding_ = s.settings.alloc_conf.find("roundup_power2_divisions") != std::string::npos;
  }

  // The end state; false (with why) when a segment or live block has no address.
  bool Load();
  // Undoes entry |i|; false (with why) when the entry names what the state does not hold.
  bool Undo(size_t i);
  void Summarize(FreeBlocksAt& out) const;
  const std::string& why() const { return why_; }

 private:
  bool Fail(std::string why) {
    why_ = std::move(why);
    return false;
  }
  // The segment holding [address, address + size), or end.
  std::map<int64_t, Segment>::iterator Holding(int64_t address, int64_t size);
  bool LiveInside(int64_t begin, int64_t end) const;
  bool UndoFree(size_t i, const MemoryTraceEntry& e);
  bool UndoSegmentAlloc(size_t i, const MemoryTraceEntry& e);
  bool UndoSegmentFree(size_t i, const MemoryTraceEntry& e);
  bool UndoMap(size_t i, const MemoryTraceEntry& e);
  bool UndoUnmap(size_t i, const MemoryTraceEntry& e);

  const MemorySnapshot& s_;
  int32_t device_;
  int64_t max_split_ = kNoValue;
  bool power2_rounding_ = false;
  std::map<int64_t, Segment> segments_;
  std::map<int64_t, Live> live_;
  std::string why_;
};

bool Replay::Load() {
  for (const MemorySegment& seg : s_.segments) {
    if (seg.device != device_) continue;
    if (seg.address == kNoValue) return Fail("a segment of the snapshot has no address");
    segments_[seg.address] = {seg.total_size, seg.pool, seg.stream, seg.expandable};
    for (uint32_t i = seg.first_block; i < seg.first_block + seg.block_count; ++i) {
      const MemoryBlock& b = s_.blocks[i];
      if (b.state == BlockState::kInactive) continue;
      if (b.address == kNoValue) return Fail("a live block of the snapshot has no address");
      live_[b.address] = {b.size, 0};
    }
  }
  return true;
}

std::map<int64_t, Segment>::iterator Replay::Holding(int64_t address, int64_t size) {
  auto it = segments_.upper_bound(address);
  if (it == segments_.begin()) return segments_.end();
  --it;
  if (address - it->first + size > it->second.size) return segments_.end();
  return it;
}

// A live block that starts in [begin, end) or reaches into it from below.
bool Replay::LiveInside(int64_t begin, int64_t end) const {
  auto it = live_.lower_bound(begin);
  if (it != live_.end() && it->first < end) return true;
  if (it == live_.begin()) return false;
  --it;
  return it->first + it->second.extent > begin;
}

bool Replay::UndoFree(size_t i, const MemoryTraceEntry& e) {
  const int64_t extent = RoundUp(e.size);
  auto seg = Holding(e.address, extent);
  if (seg == segments_.end()) {
    return Fail(fmt::format("entry {}: a block freed at {:#x} lies in no segment", i, e.address));
  }
  auto next = live_.lower_bound(e.address);
  if (next != live_.end() && next->first < e.address + extent) {
    return Fail(fmt::format("entry {}: a block freed at {:#x} overlaps a live one", i, e.address));
  }
  if (next != live_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second.extent > e.address) {
      return Fail(
          fmt::format("entry {}: a block freed at {:#x} overlaps a live one", i, e.address));
    }
  }
  int64_t tail = 0;
  if (seg->second.pool != SegmentPool::kSmall) {
    tail = max_split_ != kNoValue && extent >= max_split_ ? kOversizeTail : kUnsplitTail;
  }
  // roundup_power2_divisions rounds a request up by less than its own size.
  if (power2_rounding_) tail += extent;
  live_[e.address] = {extent, tail};
  return true;
}

bool Replay::UndoSegmentAlloc(size_t i, const MemoryTraceEntry& e) {
  auto seg = segments_.find(e.address);
  if (seg == segments_.end() || seg->second.size != e.size) {
    return Fail(
        fmt::format("entry {}: segment {:#x} mapped later is not in the state", i, e.address));
  }
  if (LiveInside(e.address, e.address + e.size)) {
    return Fail(fmt::format("entry {}: segment {:#x} still holds live blocks before it was made", i,
                            e.address));
  }
  segments_.erase(seg);
  return true;
}

bool Replay::UndoSegmentFree(size_t i, const MemoryTraceEntry& e) {
  auto after = segments_.lower_bound(e.address);
  const bool overlaps_next = after != segments_.end() && after->first < e.address + e.size;
  const bool overlaps_prev = after != segments_.begin() &&
                             std::prev(after)->first + std::prev(after)->second.size > e.address;
  if (overlaps_next || overlaps_prev || LiveInside(e.address, e.address + e.size)) {
    return Fail(
        fmt::format("entry {}: segment {:#x} released later overlaps the state", i, e.address));
  }
  // A released segment held nothing: its blocks were all free.
  segments_[e.address] = {
      e.size, e.size == kSmallSegment ? SegmentPool::kSmall : SegmentPool::kLarge, e.stream, false};
  return true;
}

// Expandable segments map and unmap pages at their end: undoing a map cuts the range out.
bool Replay::UndoMap(size_t i, const MemoryTraceEntry& e) {
  auto seg = Holding(e.address, e.size);
  if (seg == segments_.end() || LiveInside(e.address, e.address + e.size)) {
    return Fail(
        fmt::format("entry {}: range {:#x} mapped later is not free in the state", i, e.address));
  }
  const int64_t begin = seg->first;
  const Segment kept = seg->second;
  const int64_t end = begin + kept.size;
  segments_.erase(seg);
  if (e.address > begin) segments_[begin] = {e.address - begin, kept.pool, kept.stream, true};
  if (e.address + e.size < end) {
    segments_[e.address + e.size] = {end - e.address - e.size, kept.pool, kept.stream, true};
  }
  return true;
}

bool Replay::UndoUnmap(size_t i, const MemoryTraceEntry& e) {
  if (Holding(e.address, 1) != segments_.end() ||
      segments_.lower_bound(e.address) != segments_.lower_bound(e.address + e.size)) {
    return Fail(
        fmt::format("entry {}: range {:#x} unmapped later overlaps the state", i, e.address));
  }
  int64_t begin = e.address;
  int64_t size = e.size;
  Segment merged{size, SegmentPool::kLarge, e.stream, true};
  // Joins the expandable neighbours it touches (one mapped run is one segment).
  if (auto next = segments_.find(e.address + e.size);
      next != segments_.end() && next->second.expandable) {
    size += next->second.size;
    merged = next->second;
    segments_.erase(next);
  }
  if (auto prev = segments_.lower_bound(e.address); prev != segments_.begin()) {
    --prev;
    if (prev->second.expandable && prev->first + prev->second.size == e.address) {
      begin = prev->first;
      size += prev->second.size;
      merged = prev->second;
      segments_.erase(prev);
    }
  }
  merged.size = size;
  segments_[begin] = merged;
  return true;
}

bool Replay::Undo(size_t i) {
  const MemoryTraceEntry& e = s_.trace[i];
  const bool addressed =
      e.action == MemoryAction::kAlloc || e.action == MemoryAction::kFreeCompleted ||
      e.action == MemoryAction::kSegmentAlloc || e.action == MemoryAction::kSegmentFree ||
      e.action == MemoryAction::kSegmentMap || e.action == MemoryAction::kSegmentUnmap;
  if (addressed && (e.address == kNoValue || e.size < 0)) {
    return Fail(fmt::format("entry {}: {} without an address", i, MemoryActionName(e.action)));
  }
  switch (e.action) {
    case MemoryAction::kAlloc: {
      auto it = live_.find(e.address);
      if (it == live_.end()) {
        return Fail(fmt::format("entry {}: the block allocated at {:#x} is not live in the state",
                                i, e.address));
      }
      live_.erase(it);
      return true;
    }
    case MemoryAction::kFreeCompleted: return UndoFree(i, e);
    case MemoryAction::kSegmentAlloc: return UndoSegmentAlloc(i, e);
    case MemoryAction::kSegmentFree: return UndoSegmentFree(i, e);
    case MemoryAction::kSegmentMap: return UndoMap(i, e);
    case MemoryAction::kSegmentUnmap: return UndoUnmap(i, e);
    default: return true;  // free_requested, snapshot, oom: no block changes
  }
}

void Replay::Summarize(FreeBlocksAt& out) const {
  for (const auto& [address, seg] : segments_) {
    out.reserved += seg.size;
    const int64_t end = address + seg.size;
    const bool pool_fits = seg.pool == SegmentPool::kUnknown || out.pool == seg.pool;
    const bool stream_fits =
        out.stream == kNoValue || seg.stream == kNoValue || out.stream == seg.stream;
    const bool counted = pool_fits && stream_fits;
    out.segments += counted;
    int64_t cursor = address;
    int64_t tail = 0;
    auto gap = [&](int64_t to) {
      if (!counted || to <= cursor) return;
      const int64_t upper = to - cursor;
      const int64_t lower = std::max<int64_t>(0, upper - tail);
      ++out.free_blocks;
      out.free_bytes += upper;
      out.free_bytes_min += lower;
      out.largest_free_block = std::max(out.largest_free_block, upper);
      out.largest_free_block_min = std::max(out.largest_free_block_min, lower);
    };
    for (auto it = live_.lower_bound(address); it != live_.end() && it->first < end; ++it) {
      gap(it->first);
      out.live += it->second.extent;
      cursor = std::max(cursor, it->first + it->second.extent);
      tail = it->second.tail;
    }
    gap(end);
  }
}

}  // namespace

FreeBlocksAt ReplayFreeBlocks(const MemorySnapshot& s, int32_t device, size_t index,
                              int64_t request, int64_t stream) {
  FreeBlocksAt out;
  out.device = device;
  out.request = request;
  out.stream = stream;
  out.pool = request <= kSmallPoolMaxRequest ? SegmentPool::kSmall : SegmentPool::kLarge;
  Replay replay(s, device);
  if (!replay.Load()) {
    out.disagreement = replay.why();
    return out;
  }
  for (size_t i = s.trace.size(); i > index; --i) {
    if (s.trace[i - 1].device != device) continue;
    if (!replay.Undo(i - 1)) {
      out.disagreement = replay.why();
      return out;
    }
    ++out.entries_undone;
  }
  replay.Summarize(out);
  out.replayed = true;
  return out;
}

}  // namespace gpuwhy
