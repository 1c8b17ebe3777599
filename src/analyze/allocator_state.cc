#include "analyze/allocator_state.h"

#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

#include "analyze/window_troughs.h"

namespace gpuwhy {
namespace {

// A peak never fills its reservation: requests round up to 512 B / 2 MiB and large segments are
// split, so 85% is "the peak needed it" (silmont2000_mem_snapshot's cached 3.5 GiB peak reaches
// 87%, magma27's 98%; set from those two real snapshots).
constexpr double kPeakFillsReservation = 0.85;
// Windows of a trace for the leak's troughs: as many as a memory timeline's.
constexpr int64_t kTraceWindows = 8;

bool IsTorchInternal(std::string_view file) {
  return file.find("/torch/") != std::string_view::npos ||
         file.find("site-packages") != std::string_view::npos;
}

// Allocation sites by frame, each stack's site worked out once.
class SiteTable {
 public:
  explicit SiteTable(const MemorySnapshot& s) : site_of_stack_(s.stack_count()) {
    for (StackId id = 0; id < site_of_stack_.size(); ++id)
      site_of_stack_[id] = AllocationSiteOf(s, id);
  }
  AllocationSite& Of(StackId stack) {
    static const std::string kNone;
    return sites_[stack < site_of_stack_.size() ? site_of_stack_[stack] : kNone];
  }
  std::unordered_map<std::string, AllocationSite>& sites() { return sites_; }

 private:
  std::vector<std::string> site_of_stack_;
  std::unordered_map<std::string, AllocationSite> sites_;
};

void AddTrace(const MemorySnapshot& s, AllocatorState& out, SiteTable& sites) {
  out.has_trace = !s.trace.empty();
  int64_t current = 0;
  int64_t peak = 0;
  bool in_free_run = false;
  // At the first OOM entry: live bytes (relative) and segment bytes mapped and released so far.
  std::optional<int64_t> oom_current, oom_seg_alloc, oom_seg_free;
  std::optional<int64_t> burst_current;  // live bytes (relative) at the fullest run's start
  std::optional<size_t> oom_index;
  for (size_t index = 0; index < s.trace.size(); ++index) {
    const MemoryTraceEntry& e = s.trace[index];
    if (e.action == MemoryAction::kAlloc) in_free_run = false;
    switch (e.action) {
      case MemoryAction::kAlloc: {
        ++out.allocs;
        current += e.size;
        peak = std::max(peak, current);
        AllocationSite& site = sites.Of(e.stack);
        site.allocated_bytes += e.size;
        ++site.allocations;
        break;
      }
      case MemoryAction::kFreeCompleted:
        ++out.frees;
        current -= e.size;
        break;
      case MemoryAction::kSegmentAlloc:
      case MemoryAction::kSegmentMap:
        ++out.segment_allocs;
        out.segment_alloc_bytes += e.size;
        break;
      case MemoryAction::kSegmentFree:
      case MemoryAction::kSegmentUnmap:
        ++out.segment_frees;
        out.segment_free_bytes += e.size;
        if (!in_free_run) {
          ++out.segment_free_bursts;
          burst_current = std::max(burst_current.value_or(current), current);
        }
        in_free_run = true;
        break;
      case MemoryAction::kOom:
        ++out.ooms;
        out.largest_oom_request = std::max(out.largest_oom_request, e.size);
        if (!oom_current) {
          oom_index = index;
          oom_current = current;
          oom_seg_alloc = out.segment_alloc_bytes;
          oom_seg_free = out.segment_free_bytes;
          out.oom_request = e.size;
        }
        break;
      default: break;
    }
  }
  if (!out.has_trace) return;
  // The replay starts at an unknown level; the snapshot's allocated total anchors its end.
  out.peak_allocated = out.allocated - current + peak;
  out.reserved_explained_by_peak = out.reserved > 0 && static_cast<double>(out.peak_allocated) >=
                                                           kPeakFillsReservation * out.reserved;
  if (burst_current) out.segment_free_burst_live = out.allocated - current + *burst_current;
  if (oom_current) {
    // Back from the end state: what was allocated and mapped after the OOM was not there yet,
    // what was freed and released after it still was.
    out.oom_live = out.allocated - current + *oom_current;
    out.oom_reserved = out.reserved - (out.segment_alloc_bytes - *oom_seg_alloc) +
                       (out.segment_free_bytes - *oom_seg_free);
    out.oom_cached_free = std::max<int64_t>(0, out.oom_reserved - out.oom_live);
    const MemoryTraceEntry& oom = s.trace[*oom_index];
    out.oom_blocks = ReplayFreeBlocks(s, oom.device, *oom_index, oom.size, oom.stream);
    out.oom_device_free = oom.device_free;
  }
}

int64_t Known(int64_t v) { return v == kNoValue ? 0 : v; }

int64_t Negated(int64_t v) { return v == INT64_MIN ? INT64_MAX : -v; }

// The troughs of the trace's windows (analyze/window_troughs.h) for the device with the most
// timed alloc/free entries (devices' traces are each in their own time order), its level
// anchored at the device's allocated bytes at the snapshot; none unless every window but the
// first shows a step's churn.
void AddTraceTroughs(const MemorySnapshot& s, AllocatorState& out) {
  const auto counted = [](const MemoryTraceEntry& e) {
    return e.time != kNoValue &&
           (e.action == MemoryAction::kAlloc || e.action == MemoryAction::kFreeCompleted);
  };
  std::unordered_map<int32_t, int64_t> entries_of;
  for (const MemoryTraceEntry& e : s.trace) {
    if (counted(e)) ++entries_of[e.device];
  }
  if (entries_of.empty()) return;
  // The most entries, the lowest device on a tie (deterministic whatever the hash order).
  int32_t device = entries_of.begin()->first;
  for (const auto& [d, n] : entries_of) {
    const int64_t best = entries_of.at(device);
    if (n > best || (n == best && d < device)) device = d;
  }
  std::vector<TimeNs> times;
  std::vector<int64_t> deltas;
  int64_t net = 0;
  for (const MemoryTraceEntry& e : s.trace) {
    if (!counted(e) || e.device != device) continue;
    times.push_back(e.time);
    deltas.push_back(e.action == MemoryAction::kAlloc ? e.size : Negated(e.size));
    SaturatingAdd(net, deltas.back());
  }
  if (times.empty() || !std::is_sorted(times.begin(), times.end())) return;
  int64_t allocated = 0;
  for (const MemorySegment& seg : s.segments) {
    if (seg.device == device) allocated += Known(seg.allocated_size);
  }
  SaturatingAdd(allocated, Negated(net));  // the level before the first entry
  out.allocated_by_print = CyclingTroughs(
      WindowLevelsOf(times, deltas, allocated, times.front(), times.back(), kTraceWindows));
  if (out.allocated_by_print.empty()) return;
  out.print_series = "windows of the allocator trace (each one's lowest allocated bytes)";
}

// memory_summary() / memory_stats() counters: the last print of each device (a log prints one
// per epoch). The non-releasable (inactive split) blocks and bytes are the cached free part:
// the rest of the cache could be released, so reserved - allocated would overstate it.
void AddStats(const MemorySnapshot& s, AllocatorState& out) {
  std::vector<const AllocatorStats*> last;
  for (const AllocatorStats& st : s.stats) {
    auto it = std::find_if(last.begin(), last.end(),
                           [&](const AllocatorStats* x) { return x->device == st.device; });
    if (it == last.end()) {
      last.push_back(&st);
    } else {
      *it = &st;
    }
  }
  out.has_stats = !last.empty();
  for (const AllocatorStats* st : last) {
    std::vector<int64_t> series;
    for (const AllocatorStats& print : s.stats) {
      const int64_t v = print.allocated_bytes[static_cast<size_t>(StatPool::kAll)].current;
      if (print.device == st->device && v != kNoValue) series.push_back(v);
    }
    if (series.size() > out.allocated_by_print.size()) out.allocated_by_print = std::move(series);
  }
  for (const AllocatorStats* st : last) {
    const size_t all = static_cast<size_t>(StatPool::kAll);
    out.reserved += Known(st->reserved_bytes[all].current);
    out.allocated += Known(st->allocated_bytes[all].current);
    out.requested += Known(st->requested_bytes[all].current);
    out.cached_free += Known(st->non_releasable_bytes[all].current);
    out.free_blocks += Known(st->non_releasable_allocations[all].current);
    out.segments += Known(st->segments[all].current);
    out.ooms += Known(st->num_ooms);
    out.alloc_retries += Known(st->num_alloc_retries);
    out.peak_allocated = std::max(out.peak_allocated, st->allocated_bytes[all].peak);
    out.peak_reserved = std::max(out.peak_reserved, st->reserved_bytes[all].peak);
    // Segments allocated and freed over the run: cudaMalloc/cudaFree calls, as a trace's
    // segment_alloc/segment_free entries count them.
    const int64_t frees =
        st->segments[all].freed != kNoValue ? st->segments[all].freed : st->num_device_free;
    if (frees == kNoValue) continue;
    out.segments_from_counters = true;
    out.segment_frees += frees;
    out.segment_allocs += st->segments[all].allocated != kNoValue ? st->segments[all].allocated
                                                                  : Known(st->num_device_alloc);
    out.segment_free_bytes += Known(st->reserved_bytes[all].freed);
  }
  out.cached_free_pct = out.reserved > 0 ? 100.0 * out.cached_free / out.reserved : 0;
  out.largest_free_block = kNoValue;  // counters give no block sizes
}

// A log's OOM messages: each is one failed allocation; the device's capacity is printed in them.
void AddOomMessages(const MemorySnapshot& s, AllocatorState& out) {
  for (const OomMessage& m : s.oom_messages) {
    ++out.oom_messages;
    out.largest_oom_request = std::max(out.largest_oom_request, m.requested);
    if (!out.largest_oom_message || m.requested > out.largest_oom_message->requested) {
      out.largest_oom_message = m;
    }
    if (m.capacity != kNoValue) out.capacity = m.capacity;
  }
  // A memory_summary() of the same log counts the same failures: the larger count, not the sum.
  out.ooms = std::max(out.ooms, out.oom_messages);
}

}  // namespace

std::string AllocationSiteOf(const MemorySnapshot& s, StackId stack) {
  const std::vector<const MemoryFrame*> frames = s.Stack(stack);
  const MemoryFrame* fallback = nullptr;
  for (const MemoryFrame* f : frames) {
    const std::string_view file = s.Str(f->filename);
    if (file.ends_with(".py") && !IsTorchInternal(file)) {
      return fmt::format("{}:{}:{}", file, f->line, s.Str(f->name));
    }
    if (!fallback && !file.empty() && file != "??") fallback = f;
  }
  if (!fallback) return "";
  return fmt::format("{}:{}:{}", s.Str(fallback->filename), fallback->line, s.Str(fallback->name));
}

AllocatorState AnalyzeAllocatorState(const MemorySnapshot& s) {
  AllocatorState out;
  out.expandable_segments = s.settings.expandable_segments;
  out.segments = static_cast<int64_t>(s.segments.size());
  SiteTable sites(s);
  for (const MemorySegment& seg : s.segments) {
    out.reserved += seg.total_size;
    const int64_t allocated = seg.allocated_size == kNoValue ? 0 : seg.allocated_size;
    out.allocated += allocated;
    out.requested += seg.requested_size == kNoValue ? 0 : seg.requested_size;
    out.empty_segments += allocated == 0;
    for (uint32_t i = seg.first_block; i < seg.first_block + seg.block_count; ++i) {
      const MemoryBlock& b = s.blocks[i];
      if (b.state == BlockState::kInactive) {
        ++out.free_blocks;
        out.largest_free_block = std::max(out.largest_free_block, b.size);
        if (allocated > 0) out.free_in_used_segments += b.size;
      } else if (b.state == BlockState::kActiveAllocated) {
        AllocationSite& site = sites.Of(b.stack);
        site.live_bytes += b.size;
        ++site.live_blocks;
      }
    }
  }
  out.cached_free = out.reserved - out.allocated;
  out.cached_free_pct = out.reserved > 0 ? 100.0 * out.cached_free / out.reserved : 0;
  AddTrace(s, out, sites);
  if (out.has_trace) AddTraceTroughs(s, out);
  if (s.segments.empty() && !s.stats.empty()) AddStats(s, out);
  AddOomMessages(s, out);
  for (auto& [frame, site] : sites.sites()) {
    if (frame.empty()) continue;
    site.frame = frame;
    out.top_sites.push_back(site);
  }
  std::sort(out.top_sites.begin(), out.top_sites.end(),
            [](const AllocationSite& a, const AllocationSite& b) {
              if (a.live_bytes != b.live_bytes) return a.live_bytes > b.live_bytes;
              if (a.allocated_bytes != b.allocated_bytes)
                return a.allocated_bytes > b.allocated_bytes;
              return a.frame < b.frame;
            });
  if (out.top_sites.size() > 10) out.top_sites.resize(10);
  return out;
}

}  // namespace gpuwhy
