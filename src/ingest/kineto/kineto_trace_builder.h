// Gives parsed Kineto events their meaning and appends them to the Trace tables
// (Perfetto's "tracker" role). Knows both schema generations; never computes findings.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ingest/kineto/kineto_categories.h"
#include "ingest/kineto/kineto_event.h"
#include "model/trace.h"

namespace gpuwhy {

class KinetoTraceBuilder {
 public:
  explicit KinetoTraceBuilder(Trace& trace) : trace_(trace) {}

  void AddEvent(const KinetoEvent& event);
  void CountMalformed(uint64_t offset);
  // Called once all events are in: schema generation, vendor, raw counts, clock checks.
  void Finish();

  // Kept public for the top-level member reader, which sets these flags.
  void NoteVendorHint(GpuVendor vendor) { vendor_hint_ = vendor; }

 private:
  struct RawCount {
    char ph;
    std::string cat;
    int64_t count;
  };

  void CountRaw(char ph, std::string_view cat);
  bool ReadTimes(const KinetoEvent& event, bool need_duration, TimeNs& start, TimeNs& end);
  int64_t IdNumber(const KinetoId& id);
  int32_t DeviceOf(const KinetoEvent& event);
  int64_t StreamOf(const KinetoEvent& event);
  void AddComplete(const KinetoEvent& event);
  void AddLegacyProfilerEvent(const KinetoEvent& event);
  void AddGpuOp(const KinetoEvent& event, KinetoCategory category, TimeNs start, TimeNs end);
  void AddCpuSlice(const KinetoEvent& event, CpuSliceKind kind, TimeNs start, TimeNs end);
  void AddCollective(const KinetoArgs& args, GpuOpId op, CpuSliceId slice);
  void AddInstant(const KinetoEvent& event);
  void AddMetadata(const KinetoEvent& event);
  void AddCounter(const KinetoEvent& event);

  Trace& trace_;
  std::vector<RawCount> raw_counts_;
  size_t last_raw_ = 0;
  int64_t legacy_categories_ = 0;
  int64_t modern_categories_ = 0;
  int64_t mtia_events_ = 0;
  int64_t legacy_profiler_events_ = 0;  // legacy_profiler_form.h: no cat, pid "CPU functions"
  GpuVendor vendor_hint_ = GpuVendor::kUnknown;
  std::vector<TimeNs> window_instants_;  // "Record Window End" etc., checked against the span
};

}  // namespace gpuwhy
