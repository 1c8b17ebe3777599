// Allocator-snapshot rules: what memory pressure costs, from torch.cuda.memory._dump_snapshot().
//   memory.fragmentation: cached free bytes the allocator holds but that no peak in the trace
//     needed (or no trace to say), split into blocks smaller than what is cached;
//   memory.empty_cache_churn: segments released and reallocated while the job runs
//     (segment_free in the trace: the allocator hit its limit and flushed, or empty_cache());
//   memory.leak: allocated bytes rising at every one of a log's memory_summary()/memory_stats()
//     prints (tensors kept across steps);
//   memory.oom_retries: OOM entries in the trace (the request against the largest free block),
//     CUDA OOMs / cudaMalloc retries in a torch.cuda.memory_summary(), or a log's CUDA
//     out-of-memory messages (what the allocator said was free, cached and held by others).
// A reservation the trace's own peak needed is the caching allocator working: no finding, a note.
#include "base/bytes.h"
#include "diagnose/snapshot_rules/snapshot_rules.h"

#include <fmt/format.h>

#include <array>

#include "diagnose/finding_builder.h"
#include "diagnose/outcome_recorder.h"

namespace gpuwhy {
namespace {

constexpr const char* kFragmentation = "memory.fragmentation";
constexpr const char* kChurn = "memory.empty_cache_churn";
constexpr const char* kOom = "memory.oom_retries";
constexpr const char* kNearCapacity = "memory.near_capacity";
constexpr const char* kLeak = "memory.leak";

constexpr ParamRef kFragMinPct{kFragmentation, "min_cached_free_pct"};
constexpr ParamRef kFragMinGiB{kFragmentation, "min_cached_free_gib"};
constexpr ParamRef kChurnMinFrees{kChurn, "min_segment_frees"};
constexpr ParamRef kLeakMinPrints{kLeak, "min_prints"};
constexpr ParamRef kLeakMinMiB{kLeak, "min_growth_mib"};
constexpr ParamRef kLeakMinPct{kLeak, "min_growth_pct"};
constexpr std::array<const ParamRef*, 6> kSnapshotRulesParams = {&kFragMinPct,    &kFragMinGiB, &kChurnMinFrees,
                                                    &kLeakMinPrints, &kLeakMinMiB, &kLeakMinPct};

constexpr const char* kExpandable = "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True";

class SnapshotRuleContext {
 public:
  SnapshotRuleContext(const AllocatorState& s, const DiagnoseOptions& o, Diagnosis& d)
      : s_(s), catalog_(o.catalog), d_(d) {}

  const RuleParam& P(const ParamRef& ref) const { return catalog_.Get(ref); }
  Finding Start(const char* id, Confidence confidence) const {
    return StartFinding(catalog_.Spec(id), confidence);
  }
  static void Evidence(Finding& f, const char* id, double value, const char* unit, const char* cmp,
                       double threshold, const RuleParam* param) {
    AddEvidence(f, Metric{id, MetricScope::Rank(), value, unit}, cmp, threshold, param);
  }
  void Emit(Finding f, std::initializer_list<TitleArg> args) {
    f.title =
        FormatTitle(catalog_.Spec(f.id), std::span<const TitleArg>(args.begin(), args.size()));
    // A fix that cannot apply is never printed: expandable segments already on in the
    // snapshot's allocator settings (decided here until fix preconditions live in the catalog).
    if (s_.expandable_segments.value_or(false)) {
      std::erase_if(f.fixes, [](const Fix& fix) {
        return fix.code.find("expandable_segments") != std::string::npos ||
               fix.action.find("expandable_segments") != std::string::npos;
      });
    }
    Outcome(f.id, AssessStatus::kAssessed, true);
    d_.findings.push_back(std::move(f));
  }
  void Outcome(std::string_view id, AssessStatus status, bool fired, std::string note = "") {
    RecordOutcome(d_.outcomes, OutcomeMerge::kLatest, id, status, fired, std::move(note));
  }
  void Note(std::string note) { d_.notes.push_back(std::move(note)); }

  const AllocatorState& s_;
  const Catalog& catalog_;
  Diagnosis& d_;
};

std::string ExpandableText(const AllocatorState& s) {
  if (!s.expandable_segments) return "expandable_segments not recorded";
  return *s.expandable_segments ? "expandable_segments already on" : "expandable_segments off";
}

void Fragmentation(SnapshotRuleContext& r) {
  const AllocatorState& s = r.s_;
  const RuleParam& min_pct = r.P(kFragMinPct);
  const RuleParam& min_gib = r.P(kFragMinGiB);
  const double free_gib = s.cached_free / kGiB;
  if (s.reserved <= 0 || s.cached_free_pct < min_pct.value || free_gib < min_gib.value) {
    r.Outcome(kFragmentation, AssessStatus::kAssessed, false);
    return;
  }
  if (s.reserved_explained_by_peak) {
    // The caching allocator keeps what the step's peak needed: reuse, not fragmentation.
    r.Outcome(kFragmentation, AssessStatus::kAssessed, false);
    r.Note(fmt::format(
        "{:.1f} GiB reserved but {:.1f} GiB allocated at the snapshot: the trace's own peak "
        "reached {:.1f} GiB, so this is the caching allocator keeping the step's peak (normal), "
        "not a leak or fragmentation",
        s.reserved / kGiB, s.allocated / kGiB, s.peak_allocated / kGiB));
    return;
  }
  Finding f = r.Start(kFragmentation, s.has_trace ? Confidence::kMedium : Confidence::kLow);
  f.severity = s.cached_free_pct >= 2 * min_pct.value ? Severity::kHigh : Severity::kMedium;
  SnapshotRuleContext::Evidence(f, "memory.snapshot_cached_free_pct", s.cached_free_pct,
                                unit::kPercent, ">=", min_pct.value, &min_pct);
  SnapshotRuleContext::Evidence(f, "memory.snapshot_cached_free_gib", free_gib, "GiB",
                                ">=", min_gib.value, &min_gib);
  // Counters (a summary, memory_stats()) say how many blocks are free, not how large.
  const bool sized = s.largest_free_block != kNoValue;
  const std::string largest =
      sized ? fmt::format(" (largest {:.0f} MiB)", s.largest_free_block / kMiB) : "";
  if (sized) {
    SnapshotRuleContext::Evidence(f, "memory.snapshot_largest_free_block_mib",
                                  s.largest_free_block / kMiB, "MiB", ">", 0, nullptr);
  }
  SnapshotRuleContext::Evidence(f, "memory.snapshot_free_blocks",
                                static_cast<double>(s.free_blocks), unit::kCount, ">", 0, nullptr);
  if (!s.has_trace) {
    r.Note(
        "no allocator trace in the snapshot (_record_memory_history was off): whether a past "
        "peak needed the cached bytes cannot be told");
  }
  r.Emit(std::move(f), {{"free_gib", free_gib},
                        {"pct", s.cached_free_pct},
                        {"reserved_gib", s.reserved / kGiB},
                        {"blocks", static_cast<double>(s.free_blocks)},
                        {"largest", 0, largest},
                        {"expandable", 0, ExpandableText(s)}});
}

void Churn(SnapshotRuleContext& r) {
  const AllocatorState& s = r.s_;
  if (!s.has_trace && !s.segments_from_counters) {
    r.Outcome(kChurn, AssessStatus::kNotAssessed, false,
              "an allocator trace (torch.cuda.memory._record_memory_history() before the dump), or "
              "the segments freed of a memory_summary() / memory_stats()");
    return;
  }
  const RuleParam& min_frees = r.P(kChurnMinFrees);
  if (static_cast<double>(s.segment_frees) < min_frees.value) {
    r.Outcome(kChurn, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = r.Start(kChurn, Confidence::kMedium);
  f.severity = s.segment_frees >= s.segment_allocs ? Severity::kHigh : Severity::kMedium;
  // empty_cache() releases the whole cache in one run of segment_free entries: a single run in
  // a trace while little was live (under half the trace's peak) is a one-off (a harness
  // clearing the cache at start-up), not churn that repeats every iteration; a run near the
  // peak is the allocator flushing at the device limit (a malloc retry): memory pressure.
  const bool one_off = s.has_trace && s.segment_free_bursts == 1 &&
                       s.segment_free_burst_live != kNoValue && s.peak_allocated != kNoValue &&
                       2 * s.segment_free_burst_live < s.peak_allocated;
  if (one_off) {
    f.severity = Severity::kLow;
    f.confidence = Confidence::kLow;
  }
  SnapshotRuleContext::Evidence(f, "memory.snapshot_segment_frees",
                                static_cast<double>(s.segment_frees), unit::kCount,
                                ">=", min_frees.value, &min_frees);
  SnapshotRuleContext::Evidence(f, "memory.snapshot_segment_allocs",
                                static_cast<double>(s.segment_allocs), unit::kCount, ">", 0,
                                nullptr);
  // num_device_free counts cudaFree calls without their bytes: say none rather than 0 GiB.
  const std::string freed =
      s.segment_free_bytes > 0 ? fmt::format(" ({:.1f} GiB)", s.segment_free_bytes / kGiB) : "";
  if (s.segment_free_bytes > 0) {
    SnapshotRuleContext::Evidence(f, "memory.snapshot_segment_free_gib",
                                  s.segment_free_bytes / kGiB, "GiB", ">", 0, nullptr);
  }
  r.Emit(std::move(f), {{"frees", static_cast<double>(s.segment_frees)},
                        {"freed", 0, freed},
                        {"allocs", static_cast<double>(s.segment_allocs)},
                        {"expandable", 0, ExpandableText(s)}});
  if (one_off) {
    r.d_.findings.back().title +=
        "; all released in one run with no allocation between (a one-off empty_cache(), e.g. "
        "at start-up): not churn that repeats each iteration";
  }
}

std::string Size(int64_t bytes) {
  return bytes >= (int64_t{1} << 30) ? fmt::format("{:.2f} GiB", bytes / kGiB)
                                     : fmt::format("{:.0f} MiB", bytes / kMiB);
}

// What the allocator's own message says about the failure, and which way it points: the cache
// held the request but not in one block (fragmentation), other processes held the device, or
// the job's own tensors filled it.
// What the allocator's own message says about the failure, read literally, and which way it
// points: the device had room for the request (a cap or another allocation at that moment, not
// a full device), the cache held the request but not in one block (fragmentation), other
// processes held the device, or the job's own tensors filled it.
std::string OomMessageDetail(const OomMessage& m, Finding& f, bool expandable_on) {
  SnapshotRuleContext::Evidence(f, "memory.oom_message_request_mib", m.requested / kMiB, "MiB", ">",
                                0, nullptr);
  std::string out = fmt::format("; the log's failure asked for {}", Size(m.requested));
  if (m.device >= 0) out += fmt::format(" on GPU {}", m.device);
  if (m.free != kNoValue && m.capacity != kNoValue) {
    out += fmt::format(" with {} free of {}", Size(m.free), Size(m.capacity));
  }
  if (m.process_in_use != kNoValue) {
    out += fmt::format(", {} in use by this process", Size(m.process_in_use));
  }
  if (m.allocated_by_pytorch != kNoValue) {
    out += fmt::format(", {} in live tensors", Size(m.allocated_by_pytorch));
  }
  if (m.reserved_unallocated != kNoValue) {
    out += fmt::format(", {} cached but unallocated", Size(m.reserved_unallocated));
  }
  if (m.free != kNoValue && m.requested != kNoValue && m.free >= m.requested) {
    SnapshotRuleContext::Evidence(f, "memory.oom_message_free_mib", m.free / kMiB, "MiB",
                                  ">=", m.requested / kMiB, nullptr);
    return out +
           ": the device reported more free than the request, so it was not full: a memory cap "
           "(torch.cuda.set_per_process_memory_fraction, a MIG/vGPU/container limit) or another "
           "allocation at that moment refused it; check the cap and nvidia-smi for other "
           "processes";
  }
  if (m.reserved_unallocated != kNoValue && m.reserved_unallocated >= m.requested) {
    SnapshotRuleContext::Evidence(f, "memory.oom_message_reserved_unallocated_mib",
                                  m.reserved_unallocated / kMiB, "MiB", ">=", m.requested / kMiB,
                                  nullptr);
    // The message gives no block sizes, but the allocator takes any free block of the request's
    // size: that it failed says the largest was smaller.
    return out +
           ": the cache held the bytes but no free block of the request's size (the allocator "
           "found none), so the largest free block was below it (fragmentation" +
           (expandable_on ? ", with expandable segments already on: lower the peak)"
                          : std::string(": ") + kExpandable + " first)");
  }
  if (m.other_processes > 0) {
    SnapshotRuleContext::Evidence(f, "memory.oom_message_other_processes_mib",
                                  m.other_processes_bytes / kMiB, "MiB", ">", 0, nullptr);
    return out + fmt::format(": {} other process(es) held {} of the GPU", m.other_processes,
                             Size(m.other_processes_bytes));
  }
  // Capacity less free less this process: held by something else (another process the message
  // did not list, a driver reservation).
  if (m.capacity != kNoValue && m.free != kNoValue && m.process_in_use != kNoValue) {
    const int64_t elsewhere = m.capacity - m.free - m.process_in_use;
    if (elsewhere > m.capacity / 4) {
      SnapshotRuleContext::Evidence(f, "memory.oom_message_held_elsewhere_mib", elsewhere / kMiB,
                                    "MiB", ">", m.capacity / 4 / kMiB, nullptr);
      return out + fmt::format(
                       ": {} of the device was held outside this process (another "
                       "process or context): check nvidia-smi for other processes",
                       Size(elsewhere));
    }
  }
  return out + ": the job's own memory filled the device (lower the peak)";
}

// "12 MiB", or "between 11 and 12 MiB" where the replay bounds it (a returned block's unsplit
// tail is unknown).
std::string Bounded(int64_t lower, int64_t upper) {
  return lower == upper ? Size(upper) : fmt::format("{} to {}", Size(lower), Size(upper));
}

// The first OOM replayed block by block (analyze/memory_oom_replay.h): the request beside the
// largest free block of its pool, and which way they point. Fragmentation only when the free
// blocks together held the request and the largest did not, each by its sure bound.
std::string OomBlocksDetail(const AllocatorState& s, Finding& f, bool& filled) {
  const FreeBlocksAt& b = *s.oom_blocks;
  const std::string pool =
      fmt::format("{} pool{}", SegmentPoolName(b.pool),
                  b.stream == kNoValue ? std::string() : fmt::format(" of stream {}", b.stream));
  std::string out = fmt::format(
      "; at the first OOM (replayed block by block from the trace) a {} request on GPU {} met a "
      "largest free block of {} in the {}, {} free in {} block(s) of {} segment(s), with {} live "
      "in {} reserved",
      Size(b.request), b.device, Bounded(b.largest_free_block_min, b.largest_free_block), pool,
      Bounded(b.free_bytes_min, b.free_bytes), b.free_blocks, b.segments, Size(b.live),
      Size(b.reserved));
  if (s.oom_device_free != kNoValue) {
    out += fmt::format(" and {} free on the device", Size(s.oom_device_free));
  }
  SnapshotRuleContext::Evidence(f, "memory.oom_request_mib", b.request / kMiB, "MiB", ">", 0,
                                nullptr);
  if (b.largest_free_block < b.request && b.free_bytes_min >= b.request) {
    SnapshotRuleContext::Evidence(f, "memory.oom_largest_free_block_mib",
                                  b.largest_free_block / kMiB, "MiB", "<", b.request / kMiB,
                                  nullptr);
    SnapshotRuleContext::Evidence(f, "memory.oom_pool_free_mib", b.free_bytes_min / kMiB, "MiB",
                                  ">=", b.request / kMiB, nullptr);
    return out + ": the pool held the bytes but in no one block (fragmentation" +
           (s.expandable_segments.value_or(false)
                ? ", with expandable segments already on: lower the peak)"
                : std::string(": ") + kExpandable + " first)");
  }
  if (b.free_bytes < b.request) {
    filled = true;
    SnapshotRuleContext::Evidence(f, "memory.oom_pool_free_mib", b.free_bytes / kMiB, "MiB", "<",
                                  b.request / kMiB, nullptr);
    return out +
           ": not even all free blocks together held the request, so it is not fragmentation: "
           "the live tensors filled what the device gave (lower the peak)";
  }
  SnapshotRuleContext::Evidence(f, "memory.oom_largest_free_block_mib", b.largest_free_block / kMiB,
                                "MiB", "", 0, nullptr);
  if (b.largest_free_block_min >= b.request) {
    return out +
           ": a free block could hold it, so the refusal is not explained by free blocks "
           "(max_split_size's oversize rule, another stream's pool); cannot tell which without "
           "the allocator settings and streams of the failing call";
  }
  return out +
         ": the replay cannot tell whether one block held the request (a returned block's "
         "unsplit tail is not in the trace); a snapshot taken in the OOM observer "
         "(torch._C._cuda_attach_out_of_memory_observer) would decide";
}

void Oom(SnapshotRuleContext& r) {
  const AllocatorState& s = r.s_;
  if (!s.has_trace && !s.has_stats && s.oom_messages == 0) {
    r.Outcome(kOom, AssessStatus::kNotAssessed, false,
              "an allocator trace (torch.cuda.memory._record_memory_history() before the dump), "
              "torch.cuda.memory_summary() or the log's CUDA out-of-memory message");
    return;
  }
  if (s.ooms == 0 && s.alloc_retries == 0) {
    r.Outcome(kOom, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = r.Start(kOom, Confidence::kHigh);
  f.severity = s.ooms > 0 ? Severity::kHigh : Severity::kMedium;
  // The reason lines are the counts that fired (an OOM, or retries alone); a zero is context.
  SnapshotRuleContext::Evidence(f, "memory.snapshot_ooms", static_cast<double>(s.ooms),
                                unit::kCount, s.ooms > 0 ? ">" : "", 0, nullptr);
  // A log's OOM message does not say whether cudaMalloc was retried: no count, not a zero.
  const bool retries_known = s.has_trace || s.has_stats;
  if (retries_known) {
    SnapshotRuleContext::Evidence(f, "memory.alloc_retries", static_cast<double>(s.alloc_retries),
                                  unit::kCount, s.alloc_retries > 0 ? ">" : "", 0, nullptr);
  }
  std::string detail;
  if (s.largest_oom_message) {
    detail = OomMessageDetail(*s.largest_oom_message, f, s.expandable_segments.value_or(false));
  } else if (s.oom_blocks && s.oom_blocks->replayed) {
    bool filled = false;
    detail = OomBlocksDetail(s, f, filled);
    if (filled) {
      // Growing segments cannot help a request the free blocks could not hold together.
      for (auto it = f.fixes.begin(); it != f.fixes.end();) {
        if (it->code.find("expandable_segments") == std::string::npos) {
          ++it;
          continue;
        }
        f.fixes_left_out.push_back(
            {it->action,
             "at the OOM the free blocks together were smaller than the request: not "
             "fragmentation"});
        it = f.fixes.erase(it);
      }
    }
  } else if (s.oom_request != kNoValue && s.oom_reserved != kNoValue) {
    // The state at the OOM, replayed: fragmentation is the cause only when enough cached free
    // bytes were there for the request.
    const bool fragmented = s.oom_cached_free >= s.oom_request;
    detail = fmt::format(
        "; at the first OOM (replayed from the trace) a {:.0f} MiB request failed with {:.2f} GiB "
        "live, {:.2f} GiB reserved and {:.2f} GiB cached free: {}",
        s.oom_request / kMiB, s.oom_live / kGiB, s.oom_reserved / kGiB, s.oom_cached_free / kGiB,
        fragmented ? "the cache held the bytes but not in one block (fragmentation)"
                   : "the live tensors filled what the device gave (lower the peak)");
    SnapshotRuleContext::Evidence(f, "memory.oom_cached_free_mib", s.oom_cached_free / kMiB, "MiB",
                                  fragmented ? ">=" : "<", s.oom_request / kMiB, nullptr);
    if (s.oom_blocks && !s.oom_blocks->disagreement.empty()) {
      detail +=
          fmt::format(" (free blocks not replayed: the trace disagrees with the snapshot, {})",
                      s.oom_blocks->disagreement);
    }
  } else if (s.largest_oom_request > 0) {
    detail = fmt::format(
        "; a {:.0f} MiB request failed while the largest cached free block was "
        "{:.0f} MiB ({:.1f} GiB cached free in all)",
        s.largest_oom_request / kMiB, s.largest_free_block / kMiB, s.cached_free / kGiB);
    SnapshotRuleContext::Evidence(f, "memory.snapshot_largest_oom_request_mib",
                                  s.largest_oom_request / kMiB, "MiB", ">", 0, nullptr);
  } else if (s.peak_allocated != kNoValue && s.peak_reserved != kNoValue) {
    detail = fmt::format("; peak {:.1f} GiB allocated, {:.1f} GiB reserved",
                         s.peak_allocated / kGiB, s.peak_reserved / kGiB);
  }
  const std::string retries =
      retries_known ? fmt::format(" and {} cudaMalloc retr(ies)", s.alloc_retries) : "";
  r.Emit(std::move(f),
         {{"ooms", static_cast<double>(s.ooms)}, {"retries", 0, retries}, {"detail", 0, detail}});
}

// Allocated bytes that rise at every print and never fall back: tensors kept across steps. A
// flat allocated line under a large reservation is the cache keeping its peak, not a leak.
void Leak(SnapshotRuleContext& r) {
  const std::vector<int64_t>& v = r.s_.allocated_by_print;
  const RuleParam& min_prints = r.P(kLeakMinPrints);
  if (static_cast<double>(v.size()) < min_prints.value) {
    r.Outcome(kLeak, AssessStatus::kNotAssessed, false,
              fmt::format("{:.0f} or more torch.cuda.memory_summary() or memory_stats() prints of "
                          "one device (a log printing them every few steps), or an allocator "
                          "trace or memory timeline of several steps (each of its windows "
                          "freeing a quarter of its high)",
                          min_prints.value));
    return;
  }
  bool never_fell = true;
  for (size_t i = 1; i < v.size(); ++i) never_fell = never_fell && v[i] >= v[i - 1];
  const RuleParam& min_mib = r.P(kLeakMinMiB);
  const RuleParam& min_pct = r.P(kLeakMinPct);
  const double growth_mib = (v.back() - v.front()) / kMiB;
  const double growth_pct = v.front() > 0 ? 100.0 * (v.back() - v.front()) / v.front() : 100.0;
  if (!never_fell || growth_mib < min_mib.value || growth_pct < min_pct.value) {
    r.Outcome(kLeak, AssessStatus::kAssessed, false);
    return;
  }
  Finding f = r.Start(kLeak, Confidence::kMedium);
  f.severity = growth_pct >= 50 ? Severity::kHigh : Severity::kMedium;
  SnapshotRuleContext::Evidence(f, "memory.stats_prints", static_cast<double>(v.size()),
                                unit::kCount, ">=", min_prints.value, &min_prints);
  SnapshotRuleContext::Evidence(f, "memory.allocated_growth_mib", growth_mib, "MiB",
                                ">=", min_mib.value, &min_mib);
  SnapshotRuleContext::Evidence(f, "memory.allocated_growth_pct", growth_pct, unit::kPercent,
                                ">=", min_pct.value, &min_pct);
  r.Emit(std::move(f), {{"prints", static_cast<double>(v.size())},
                        {"series", 0, r.s_.print_series},
                        {"first_gib", v.front() / kGiB},
                        {"last_gib", v.back() / kGiB},
                        {"pct", growth_pct}});
}

void NearCapacity(SnapshotRuleContext& r) {
  // A snapshot does not record the device's memory: saying "near capacity" would be a guess.
  if (r.s_.capacity == kNoValue) {
    r.Outcome(kNearCapacity, AssessStatus::kNotAssessed, false,
              "the device capacity (a snapshot does not record it: analyze it with a trace or "
              "nvidia-smi output of the same job)");
  }
}

Fix ExpandableFix() {
  return {"Let segments grow instead of splitting fixed ones",
          std::string(kExpandable) + " python train.py"};
}

}  // namespace

std::vector<const ParamRef*> SnapshotParamRefs() { return {kSnapshotRulesParams.begin(), kSnapshotRulesParams.end()}; }

std::vector<RuleSpec> SnapshotRuleSpecs() {
  const std::vector<ChecklistRef> checklist = {
      {Checklist::kTrace, "memory capacity and allocator"}};
  std::vector<RuleSpec> rules;
  rules.push_back(RuleSpec{
      .id = kFragmentation,
      .bottleneck_class = BottleneckClass::kMemory,
      .section = ChecklistSection::kMemoryAndModel,
      .default_severity = Severity::kMedium,
      .severity_logic = "high when the cached free share is twice min_cached_free_pct, else "
                        "medium; none when the trace's own peak needed the reservation",
      .title_template = "{free_gib:.1f} GiB ({pct:.0f}%) of {reserved_gib:.1f} GiB reserved sits "
                        "in {blocks:.0f} cached free blocks{largest} that no recorded peak "
                        "explains; {expandable}",
      .recoverable_logic = "none per step: the cost is the batch or model size that does not fit",
      .params = {{"min_cached_free_pct", 20, "%",
                  "PyTorch CUDA semantics (memory management): reserved minus allocated is "
                  "cache; gpuwhy flags a fifth",
                  "reserved - allocated, % of reserved, at or above this"},
                 {"min_cached_free_gib", 2, "GiB",
                  "gpuwhy: below this the cache is not worth "
                  "tuning",
                  "reserved - allocated at or above this"}},
      .fixes = {ExpandableFix(),
                {"Cap block splitting so large free blocks are not carved up",
                 "PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:512"},
                {"Free the cache between phases with very different shapes",
                 "torch.cuda.empty_cache()  # once, between phases; never in the step loop"}},
      .verify = "dump a snapshot again: memory.snapshot_cached_free_pct falls and the largest free "
                "block grows",
      .needs = "an allocator snapshot (torch.cuda.memory._dump_snapshot)",
      .capture_command = "torch.cuda.memory._record_memory_history(max_entries=100000); ...; "
                         "torch.cuda.memory._dump_snapshot('snapshot.pickle')",
      .checklist = checklist,
  });
  rules.push_back(RuleSpec{
      .id = kChurn,
      .bottleneck_class = BottleneckClass::kMemory,
      .section = ChecklistSection::kMemoryAndModel,
      .default_severity = Severity::kMedium,
      .severity_logic = "high when segments are freed at least as often as allocated, else medium",
      .title_template = "the allocator released {frees:.0f} segments{freed} and "
                        "allocated {allocs:.0f} while the job ran: cudaFree/cudaMalloc in the "
                        "step (cache flushed at the memory limit, or empty_cache()); {expandable}",
      .recoverable_logic = "not estimated from a snapshot: time cudaFree/cudaMalloc in a trace",
      .params = {{"min_segment_frees", 50, "count",
                  "gpuwhy: a warmed-up caching allocator frees no segment per step",
                  "segment_free entries in the allocator trace at or above this"}},
      .fixes = {{"Remove torch.cuda.empty_cache() from the training loop", ""},
                ExpandableFix(),
                {"Lower the peak so the cache is not flushed: activation checkpointing or bf16",
                 "torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)"}},
      .verify = "memory.snapshot_segment_frees reaches 0 in a new snapshot of the same steps",
      .needs = "an allocator snapshot with its trace",
      .capture_command = "torch.cuda.memory._record_memory_history(max_entries=100000)",
      .checklist = checklist,
  });
  rules.push_back(RuleSpec{
      .id = kOom,
      .bottleneck_class = BottleneckClass::kMemory,
      .section = ChecklistSection::kMemoryAndModel,
      .default_severity = Severity::kHigh,
      .severity_logic = "high when an allocation failed (OOM); medium for cudaMalloc retries "
                        "alone (the allocator freed its cache and retried: at the device limit)",
      .title_template = "{ooms:.0f} out-of-memory event(s){retries}: the allocator ran at the "
                        "device limit{detail}",
      .recoverable_logic = "none: the step failed",
      .params = {},
      .fixes = {ExpandableFix(),
                {"Lower the peak: activation checkpointing, bf16, a smaller micro-batch", ""}},
      .verify = "no oom entry in a new snapshot; CUDA OOMs and cudaMalloc retries 0 in "
                "torch.cuda.memory_summary(); no 'CUDA out of memory' in the log",
      .needs = "an allocator snapshot with its trace, a memory_summary() or the OOM message",
      .capture_command = "torch.cuda.memory._record_memory_history(max_entries=100000)",
      .checklist = checklist,
  });
  rules.push_back(RuleSpec{
      .id = kLeak,
      .bottleneck_class = BottleneckClass::kMemory,
      .section = ChecklistSection::kMemoryAndModel,
      .default_severity = Severity::kMedium,
      .severity_logic = "high when allocated grew by half or more of the first print, else medium",
      .title_template = "allocated memory rose over {prints:.0f} {series} and never fell, "
                        "{first_gib:.2f} to {last_gib:.2f} GiB (+{pct:.0f}%): tensors are kept "
                        "alive across steps (a leak), not cached",
      .recoverable_logic = "none per step until the job runs out of memory; then the step fails",
      .params = {{"min_prints", 4, "count", "gpuwhy: three rises in a row are not one warm-up step",
                  "memory_summary()/memory_stats() prints of one device at or above this"},
                 {"min_growth_mib", 256, "MiB", "gpuwhy: below this the growth is noise",
                  "last print's allocated - first print's at or above this"},
                 {"min_growth_pct", 10, "%", "gpuwhy: a tenth of the first print's allocated bytes",
                  "growth, % of the first print's allocated bytes, at or above this"}},
      .fixes = {{"Keep no graph-attached tensor across steps: log loss.item() or "
                 "loss.detach(), not loss",
                 "running_loss += loss.item()  # not: losses.append(loss)"},
                {"Find what holds the bytes: two snapshots some steps apart, the top allocation "
                 "sites compared",
                 "torch.cuda.memory._record_memory_history(); ...; "
                 "torch.cuda.memory._dump_snapshot('step_N.pickle')"}},
      .verify = "allocated_bytes.all.current is flat from print to print once warmed up",
      .needs = "torch.cuda.memory_summary() or memory_stats() printed every few steps",
      .capture_command = "if step % 100 == 0: print(json.dumps(torch.cuda.memory_stats()))",
      .checklist = checklist,
  });
  return rules;
}

Diagnosis DiagnoseMemoryTimeline(const MemoryTimelineStats& timeline,
                                 const DiagnoseOptions& options) {
  AllocatorState state;
  state.allocated_by_print = timeline.window_troughs;
  state.print_series = "windows of the memory timeline (each one's lowest bytes)";
  Diagnosis d;
  SnapshotRuleContext r(state, options, d);
  Leak(r);
  NearCapacity(r);
  RankFindings(d.findings);
  return d;
}

Diagnosis DiagnoseAllocatorState(const AllocatorState& state, const DiagnoseOptions& options) {
  Diagnosis d;
  SnapshotRuleContext r(state, options, d);
  Fragmentation(r);
  Churn(r);
  Oom(r);
  Leak(r);
  NearCapacity(r);
  RankFindings(d.findings);
  return d;
}

}  // namespace gpuwhy
