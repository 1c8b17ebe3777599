// Formats Kineto (PyTorch profiler) Chrome-trace events straight into a reusable buffer
// that is handed to an OutputSink every few MB. Numbers go through fmt (no iostreams,
// no per-event allocation); timestamps are exact integer ns printed as µs with three
// decimals, as PyTorch 2.x writes them.
#pragma once

#include <fmt/compile.h>
#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/output_sink.h"
#include "base/status.h"
#include "base/time.h"
#include "synth/event_writer.h"

namespace gpuwhy {

KernelSpec MakeKernelSpec(std::string_view name, int grid_x, int block_x, int registers,
                          int shared_memory, double blocks_per_sm, double warps_per_sm,
                          int occupancy_pct);

class KinetoWriter final : public EventWriter {
 public:
  explicit KinetoWriter(OutputSink* sink) : sink_(sink) {}

  void Begin(const DocumentInfo& info) override;
  // Writes the profiler span and the document tail, then flushes everything.
  Status Finish(TimeNs trace_start, TimeNs trace_end) override;

  // Host spans (cpu_op, user_annotation): `extra_args` is raw JSON starting with ','.
  void Span(EventCat cat, std::string_view name, int pid, int tid, TimeNs ts, DurationNs dur,
            int64_t external_id, std::string_view extra_args = {}) override;
  void Runtime(std::string_view name, int cbid, int pid, int tid, TimeNs ts, DurationNs dur,
               int64_t external_id, int64_t correlation) override;
  void Driver(std::string_view name, int cbid, int pid, int tid, TimeNs ts, DurationNs dur,
              int64_t external_id, int64_t correlation) override;
  // `ac2g` flow: start on the launching thread, end ("bp":"e") on the GPU stream.
  void FlowStart(int pid, int tid, TimeNs ts, int64_t correlation) override;
  void FlowEnd(int device, int stream, TimeNs ts, int64_t correlation) override;
  void Kernel(const KernelSpec& spec, int device, int stream, TimeNs ts, DurationNs dur,
              int64_t external_id, int64_t correlation, std::string_view extra_args = {}) override;
  // gpu_memcpy or gpu_memset.
  void Copy(EventCat cat, std::string_view name, int device, int stream, TimeNs ts, DurationNs dur,
            int64_t external_id, int64_t correlation, int64_t bytes) override;
  void CudaSync(int device, int stream, TimeNs ts, DurationNs dur, int64_t external_id,
                int64_t correlation) override;
  void MemoryInstant(int pid, int tid, TimeNs ts, int device, uint64_t addr, int64_t bytes,
                     int64_t total_allocated, int64_t total_reserved) override;
  void GpuAnnotation(std::string_view name, int device, int stream, TimeNs ts, DurationNs dur,
                     int64_t external_id) override;
  // "M" metadata: {"name":kind,...,"args":{key:value_json}}.
  void Metadata(std::string_view kind, int pid, int tid, TimeNs ts, std::string_view key,
                std::string_view value_json) override;

  // The first write error, if any; event calls after an error are cheap no-ops on disk.
  const Status& status() const override { return status_; }
  int64_t count(EventCat cat) const override { return counts_[static_cast<int>(cat)]; }
  uint64_t bytes() const { return sink_->bytes_written() + buf_.size(); }
  // Largest buffer ever held: proves memory stays flat however large the trace.
  size_t peak_buffer_bytes() const { return peak_buffer_; }

 private:
  // Starts an event: separator plus the buffer to format into.
  fmt::appender Open(EventCat cat);
  void MaybeFlush();
  void Flush();
  // A cuda_runtime or cuda_driver call.
  void ApiCall(EventCat cat, std::string_view name, int cbid, int pid, int tid, TimeNs ts,
               DurationNs dur, int64_t external_id, int64_t correlation);

  static constexpr size_t kFlushBytes = size_t{4} << 20;

  OutputSink* sink_;
  fmt::memory_buffer buf_;
  Status status_;
  std::array<int64_t, kNumEventCats> counts_{};
  bool first_event_ = true;
  int64_t ev_idx_ = 0;
  size_t peak_buffer_ = 0;
  std::string trace_name_;
  TimeNs base_time_ns_ = 0;
  bool args_113_ = false;
};

// Escapes text for a JSON string (file names, descriptions; not the hot path).
std::string JsonEscape(std::string_view text);

// Appends exact ns as µs with three decimals: 1234567891 -> "1234567.891".
inline void AppendMicros(fmt::appender out, int64_t ns) {
  if (ns < 0) {
    *out++ = '-';
    ns = -ns;
  }
  fmt::format_to(out, FMT_COMPILE("{}.{:03}"), ns / 1000, ns % 1000);
}

}  // namespace gpuwhy
