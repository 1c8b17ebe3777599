#include "ingest/kineto/kineto_trace_builder.h"

#include <algorithm>
#include <cctype>

#include "base/checked_math.h"
#include "base/time.h"
#include "ingest/kineto/legacy_profiler_form.h"
#include "base/ascii.h"

namespace gpuwhy {
namespace {


// "stream 7" → 7, "4093687616" → 4093687616; false when there is no trailing integer.
bool TrailingInteger(std::string_view text, int64_t& out) {
  size_t end = text.size();
  size_t begin = end;
  while (begin > 0 && IsAsciiDigit(text[begin - 1])) --begin;
  if (begin == end || end - begin > 18) return false;
  out = 0;
  for (size_t i = begin; i < end; ++i) out = out * 10 + (text[i] - '0');
  return true;
}

// More than this outside the trace span is not a real event time (Record Window End).
constexpr DurationNs kClockAnomalyMargin = 60 * kNsPerSec;

}  // namespace

void KinetoTraceBuilder::CountRaw(char ph, std::string_view cat) {
  if (last_raw_ < raw_counts_.size() && raw_counts_[last_raw_].ph == ph &&
      raw_counts_[last_raw_].cat == cat) {
    ++raw_counts_[last_raw_].count;
    return;
  }
  for (size_t i = 0; i < raw_counts_.size(); ++i) {
    if (raw_counts_[i].ph == ph && raw_counts_[i].cat == cat) {
      ++raw_counts_[i].count;
      last_raw_ = i;
      return;
    }
  }
  raw_counts_.push_back({ph, std::string(cat), 1});
  last_raw_ = raw_counts_.size() - 1;
}

void KinetoTraceBuilder::CountMalformed(uint64_t offset) {
  // One detail: where the first one is (the count says how many follow).
  if (trace_.problems.Get(DataProblem::kMalformedEvent) == 0) {
    trace_.problems.Add(DataProblem::kMalformedEvent, "first at byte " + std::to_string(offset));
    return;
  }
  trace_.problems.Increment(DataProblem::kMalformedEvent);
}

int64_t KinetoTraceBuilder::IdNumber(const KinetoId& id) {
  if (!id.present) return 0;
  if (id.is_number) return id.number;
  int64_t n = 0;
  if (TrailingInteger(id.text, n)) return n;
  // Named tracks ("Spans", "Traces") get stable negative ids.
  return -1 - static_cast<int64_t>(trace_.strings.Intern(id.text).value);
}

// GPU events carry pid = device and tid = stream; args say it explicitly when present.
int32_t KinetoTraceBuilder::DeviceOf(const KinetoEvent& event) {
  return static_cast<int32_t>(event.args.device != kNoValue ? event.args.device
                                                            : IdNumber(event.pid));
}

int64_t KinetoTraceBuilder::StreamOf(const KinetoEvent& event) {
  return event.args.stream != kNoValue ? event.args.stream : IdNumber(event.tid);
}

bool KinetoTraceBuilder::ReadTimes(const KinetoEvent& event, bool need_duration, TimeNs& start,
                                   TimeNs& end) {
  if (event.ts.empty() || (need_duration && event.dur.empty())) {
    trace_.problems.Increment(DataProblem::kMissingField);
    return false;
  }
  std::optional<TimeNs> ts =
      event.ts_ns_known ? std::optional<TimeNs>(event.ts_ns) : ParseMicrosecondsToNs(event.ts);
  std::optional<TimeNs> dur = TimeNs{0};
  if (need_duration) {
    dur =
        event.dur_ns_known ? std::optional<TimeNs>(event.dur_ns) : ParseMicrosecondsToNs(event.dur);
  }
  if (!ts || !dur) {
    trace_.problems.Increment(DataProblem::kBadTimestamp);
    return false;
  }
  if (*dur < 0) {
    trace_.problems.Increment(DataProblem::kNegativeDuration);
    return false;
  }
  // ts + dur past int64 (a wild dur) wrapped to an end before the start: the event's time
  // cannot be known, like an unparsable one.
  const std::optional<TimeNs> last = CheckedAdd(*ts, *dur);
  if (!last) {
    trace_.problems.Increment(DataProblem::kBadTimestamp);
    return false;
  }
  start = *ts;
  end = *last;
  return true;
}

void KinetoTraceBuilder::AddEvent(const KinetoEvent& event) {
  CountRaw(event.ph, event.cat);
  switch (event.ph) {
    case 'X': AddComplete(event); return;
    case 'i':
    case 'I': AddInstant(event); return;
    case 'M': AddMetadata(event); return;
    case 'C': AddCounter(event); return;
    case 's':
    case 'f':
    case 't':
      // Flows duplicate the correlation ids already carried in args; counted only.
      return;
    default: trace_.problems.Increment(DataProblem::kUnknownPhase); return;
  }
}

void KinetoTraceBuilder::AddComplete(const KinetoEvent& event) {
  CategoryInfo info = ClassifyCategory(event.cat);
  if (info.category == KinetoCategory::kUnknown && IsLegacyProfilerEvent(event)) {
    AddLegacyProfilerEvent(event);
    return;
  }
  if (info.category == KinetoCategory::kUnknown) {
    trace_.problems.Increment(DataProblem::kUnknownCategory);
    return;
  }
  (info.legacy_spelling ? legacy_categories_ : modern_categories_)++;
  if (event.cat.substr(0, 5) == "mtia_") ++mtia_events_;
  TimeNs start = 0;
  TimeNs end = 0;
  if (!ReadTimes(event, /*need_duration=*/true, start, end)) return;
  switch (info.category) {
    case KinetoCategory::kKernel:
    case KinetoCategory::kMemcpy:
    case KinetoCategory::kMemset: AddGpuOp(event, info.category, start, end); return;
    case KinetoCategory::kCudaSync: {
      const KinetoArgs& a = event.args;
      GpuSyncTable::Row row;
      row.device = DeviceOf(event);
      row.stream = StreamOf(event);
      row.start = start;
      row.end = end;
      row.name = trace_.strings.Intern(event.name);
      row.correlation = a.correlation;
      row.wait_on_stream = a.wait_on_stream;
      row.wait_on_event_correlation = a.wait_on_event_correlation;
      trace_.gpu_syncs.rows.push_back(row);
      return;
    }
    case KinetoCategory::kGpuUserAnnotation: {
      GpuAnnotationTable::Row row;
      row.device = DeviceOf(event);
      row.stream = IdNumber(event.tid);
      row.start = start;
      row.end = end;
      row.name = trace_.strings.Intern(event.name);
      row.external_id = event.args.external_id;
      trace_.gpu_annotations.rows.push_back(row);
      return;
    }
    default: AddCpuSlice(event, CpuSliceKindOf(info.category), start, end); return;
  }
}

// The legacy (non-Kineto) export has no categories: host slices whose kind follows the name.
void KinetoTraceBuilder::AddLegacyProfilerEvent(const KinetoEvent& event) {
  ++legacy_profiler_events_;
  TimeNs start = 0;
  TimeNs end = 0;
  if (!ReadTimes(event, /*need_duration=*/true, start, end)) return;
  AddCpuSlice(event, LegacyProfilerSliceKind(event.name), start, end);
}

void KinetoTraceBuilder::AddGpuOp(const KinetoEvent& event, KinetoCategory category, TimeNs start,
                                  TimeNs end) {
  const KinetoArgs& a = event.args;
  GpuOpTable::Row row;
  row.kind = category == KinetoCategory::kKernel   ? GpuOpKind::kKernel
             : category == KinetoCategory::kMemcpy ? GpuOpKind::kMemcpy
                                                   : GpuOpKind::kMemset;
  row.device = DeviceOf(event);
  row.stream = StreamOf(event);
  row.start = start;
  row.end = end;
  row.name = trace_.strings.Intern(event.name);
  row.correlation = a.correlation;
  row.external_id = a.external_id;
  row.bytes = a.bytes;
  row.launch = a.launch;
  if (row.kind == GpuOpKind::kMemcpy) {
    ParseMemcpyName(event.name, row.copy_direction, row.src_kind, row.dst_kind);
  }
  GpuOpId id = trace_.gpu_ops.Append(row);
  AddCollective(a, id, CpuSliceId());
}

void KinetoTraceBuilder::AddCpuSlice(const KinetoEvent& event, CpuSliceKind kind, TimeNs start,
                                     TimeNs end) {
  const KinetoArgs& a = event.args;
  CpuSliceTable::Row row;
  row.thread = trace_.GetOrCreateThread(IdNumber(event.pid), IdNumber(event.tid));
  row.start = start;
  row.end = end;
  row.name = trace_.strings.Intern(event.name);
  row.kind = kind;
  row.correlation = a.correlation;
  row.external_id = a.external_id;
  if (!a.input_dims.empty()) row.input_dims = trace_.strings.Intern(a.input_dims);
  if (!a.input_types.empty()) row.input_types = trace_.strings.Intern(a.input_types);
  if (!a.concrete_inputs.empty()) row.concrete_inputs = trace_.strings.Intern(a.concrete_inputs);
  row.flops = a.flops;
  CpuSliceId id = trace_.cpu_slices.Append(row);
  AddCollective(a, GpuOpId(), id);
  int64_t step = 0;
  if (kind != CpuSliceKind::kOther && ParseProfilerStep(event.name, step)) {
    trace_.steps.rows.push_back({step, row.name, start, end, start, end, 0});
  }
}

void KinetoTraceBuilder::AddCollective(const KinetoArgs& a, GpuOpId op, CpuSliceId slice) {
  if (a.collective_name.empty() && a.in_nelems == kNoValue && a.group_size == kNoValue) return;
  CollectiveTable::Row row;
  row.gpu_op = op;
  row.cpu_slice = slice;
  row.collective_name = trace_.strings.Intern(a.collective_name);
  row.in_nelems = a.in_nelems;
  row.out_nelems = a.out_nelems;
  row.group_size = a.group_size;
  row.dtype = trace_.strings.Intern(a.dtype);
  row.process_group_name = trace_.strings.Intern(a.process_group_name);
  row.process_group_desc = trace_.strings.Intern(a.process_group_desc);
  row.in_split_sizes = trace_.strings.Intern(a.in_split_sizes);
  row.out_split_sizes = trace_.strings.Intern(a.out_split_sizes);
  row.sequence = a.sequence;
  trace_.collectives.rows.push_back(row);
}

void KinetoTraceBuilder::AddInstant(const KinetoEvent& event) {
  TimeNs ts = 0;
  TimeNs unused = 0;
  if (!ReadTimes(event, /*need_duration=*/false, ts, unused)) return;
  if (event.name == "[memory]") {
    const KinetoArgs& a = event.args;
    MemoryEventTable::Row row;
    row.ts = ts;
    row.device_type = static_cast<int32_t>(a.device_type);
    row.device_id = static_cast<int32_t>(a.device_id);
    row.addr = static_cast<uint64_t>(a.addr);
    row.bytes = a.bytes == kNoValue ? 0 : a.bytes;
    row.total_allocated = a.total_allocated;
    row.total_reserved = a.total_reserved;
    row.thread = trace_.GetOrCreateThread(IdNumber(event.pid), IdNumber(event.tid));
    trace_.memory_events.rows.push_back(row);
    return;
  }
  window_instants_.push_back(ts);
}

void KinetoTraceBuilder::AddMetadata(const KinetoEvent& event) {
  if (event.name != "thread_name" || event.args.name.empty()) return;
  if (!event.pid.present || !event.tid.present) return;
  ThreadId thread = trace_.GetOrCreateThread(IdNumber(event.pid), IdNumber(event.tid));
  trace_.threads.name[thread.value] = trace_.strings.Intern(event.args.name);
}

void KinetoTraceBuilder::AddCounter(const KinetoEvent& event) {
  TimeNs ts = 0;
  TimeNs unused = 0;
  if (!ReadTimes(event, /*need_duration=*/false, ts, unused)) return;
  for (const auto& [key, value] : event.args.counter_values) {
    std::string name(event.name);
    if (event.args.counter_values.size() > 1) name += "." + std::string(key);
    trace_.counters.rows.push_back({trace_.strings.Intern(name), IdNumber(event.pid), ts, value});
  }
}

void KinetoTraceBuilder::Finish() {
  TraceMetadata& m = trace_.metadata;
  for (const RawCount& raw : raw_counts_) {
    std::string key(1, raw.ph ? raw.ph : '?');
    key += "/" + raw.cat;
    m.raw_event_counts[key] += raw.count;
  }
  if (m.schema == SchemaGeneration::kUnknown &&
      legacy_profiler_events_ > legacy_categories_ + modern_categories_) {
    m.schema = SchemaGeneration::kLegacyProfiler;
  }
  if (m.schema == SchemaGeneration::kUnknown) {
    m.schema = legacy_categories_ > modern_categories_ ? SchemaGeneration::kLegacy
                                                       : SchemaGeneration::kModern;
  }
  if (mtia_events_ > 0) {
    m.vendor = GpuVendor::kMtia;
  } else if (vendor_hint_ != GpuVendor::kUnknown) {
    m.vendor = vendor_hint_;
  } else if (trace_.gpu_ops.size() == 0) {
    m.vendor = GpuVendor::kNone;
  } else {
    m.vendor = GpuVendor::kNvidia;
  }
  trace_.Finalize();
  Interval span = trace_.span();
  int64_t anomalies = 0;
  for (TimeNs ts : window_instants_) {
    if (span.end > span.start &&
        (ts > span.end + kClockAnomalyMargin || ts < span.start - kClockAnomalyMargin)) {
      ++anomalies;
    }
  }
  if (anomalies > 0) trace_.problems.Increment(DataProblem::kClockAnomaly, anomalies);
}

}  // namespace gpuwhy
