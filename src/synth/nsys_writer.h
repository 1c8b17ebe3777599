// Writes the synthetic run as an Nsight Systems SQLite export (schema 2.9 layout, the subset
// gpuwhy reads; docs/nsys.md): CUPTI kernel/memcpy/memset/runtime/synchronization rows,
// NVTX push/pop ranges for every host span (as emit_nvtx() and record_function give),
// cudaMalloc-level memory usage, StringIds, PROCESSES, ThreadNames, TARGET_INFO_GPU; on request
// GPU_METRICS + TARGET_INFO_GPU_METRICS sampled from the kernels (synth_gpu_metrics.h).
// One transaction, prepared statements, no journal: millions of rows per second.
#pragma once

#include <sqlite3.h>

#include <array>
#include <memory>
#include <string>
#include <unordered_map>

#include "synth/event_writer.h"
#include "synth/synth_gpu_metrics.h"

namespace gpuwhy {

class NsysWriter final : public EventWriter {
 public:
  // Replaces any file at |path|.
  enum class GpuMetrics { kOff, kOn };
  explicit NsysWriter(std::string path, GpuMetrics gpu_metrics = GpuMetrics::kOff)
      : path_(std::move(path)) {
    if (gpu_metrics == GpuMetrics::kOn) gpu_metrics_ = std::make_unique<SynthGpuMetrics>();
  }
  ~NsysWriter() override;

  void Begin(const DocumentInfo& info) override;
  Status Finish(TimeNs trace_start, TimeNs trace_end) override;
  void Span(EventCat cat, std::string_view name, int pid, int tid, TimeNs ts, DurationNs dur,
            int64_t external_id, std::string_view extra_args = {}) override;
  void Runtime(std::string_view name, int cbid, int pid, int tid, TimeNs ts, DurationNs dur,
               int64_t external_id, int64_t correlation) override;
  void Driver(std::string_view name, int cbid, int pid, int tid, TimeNs ts, DurationNs dur,
              int64_t external_id, int64_t correlation) override;
  void FlowStart(int pid, int tid, TimeNs ts, int64_t correlation) override;
  void FlowEnd(int device, int stream, TimeNs ts, int64_t correlation) override;
  void Kernel(const KernelSpec& spec, int device, int stream, TimeNs ts, DurationNs dur,
              int64_t external_id, int64_t correlation, std::string_view extra_args = {}) override;
  void Copy(EventCat cat, std::string_view name, int device, int stream, TimeNs ts, DurationNs dur,
            int64_t external_id, int64_t correlation, int64_t bytes) override;
  void CudaSync(int device, int stream, TimeNs ts, DurationNs dur, int64_t external_id,
                int64_t correlation) override;
  void MemoryInstant(int pid, int tid, TimeNs ts, int device, uint64_t addr, int64_t bytes,
                     int64_t total_allocated, int64_t total_reserved) override;
  void GpuAnnotation(std::string_view name, int device, int stream, TimeNs ts, DurationNs dur,
                     int64_t external_id) override;
  void Metadata(std::string_view kind, int pid, int tid, TimeNs ts, std::string_view key,
                std::string_view value_json) override;

  const Status& status() const override { return status_; }
  int64_t count(EventCat cat) const override { return counts_[static_cast<int>(cat)]; }

 private:
  enum Insert {
    kKernel,
    kMemcpy,
    kMemset,
    kRuntime,
    kDriver,
    kSync,
    kNvtx,
    kMemory,
    kThreadName,
    kInsertCount
  };

  void Exec(const char* sql);
  // The StringIds id of |text|, added on first use.
  int64_t StringIdOf(std::string_view text);
  // Binds |values| to statement |which| and runs it.
  void Row(Insert which, std::initializer_list<int64_t> values);
  void Fail(std::string_view what);
  int64_t GlobalTid(int pid, int tid) const;

  std::string path_;
  sqlite3* db_ = nullptr;
  std::array<sqlite3_stmt*, kInsertCount> insert_{};
  Status status_;
  std::array<int64_t, kNumEventCats> counts_{};
  DocumentInfo info_;
  std::unordered_map<std::string, int64_t> string_ids_;
  std::unordered_map<const char*, int64_t> kernel_names_;  // by KernelSpec::name data
  std::unordered_map<const char*, int64_t> kernel_short_names_;
  int64_t reserved_ = -1;  // last total_reserved seen: growth is a cudaMalloc
  uint64_t next_segment_ = 0x7f0000000000ull;
  std::unique_ptr<SynthGpuMetrics> gpu_metrics_;  // null: no --gpu-metrics-devices capture
};

}  // namespace gpuwhy
