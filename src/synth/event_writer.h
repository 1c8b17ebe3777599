// The one interface scenarios write events through (Timeline, TrainingStep, synth.cc):
// KinetoWriter formats PyTorch profiler JSON, NsysWriter fills an Nsight Systems SQLite
// export. Same calls, same simulated timeline, so both files describe the same run.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "base/time.h"

namespace gpuwhy {

// Event categories ("cat") the writers emit; the truth file counts events by these.
enum class EventCat {
  kCpuOp,
  kUserAnnotation,
  kCudaRuntime,
  kKernel,
  kGpuMemcpy,
  kGpuMemset,
  kCudaSync,
  kAc2g,
  kCpuInstant,
  kGpuUserAnnotation,
  kTrace,
  kPythonFunction,  // with_stack=True frames
  kCudaDriver,      // driver API calls: cuLaunchKernel of JIT-compiled kernels, cuModuleUnload
};
inline constexpr int kNumEventCats = 13;
std::string_view EventCatName(EventCat cat);

// A kernel's name and launch shape. `args_tail` is the constant part of its Kineto args,
// pre-formatted once ("registers per thread":…,"grid":[…],…); the numbers are kept too.
// The simulated GPU: an H100 SXM (both writers describe it; launch shapes are sized to it).
inline constexpr int kSynthDeviceSms = 132;

struct KernelSpec {
  std::string_view name;  // must not need JSON escaping
  std::string args_tail;
  int grid_x = 1;
  int block_x = 1;
  int registers = 0;
  int shared_memory = 0;
};

struct DocumentInfo {
  int pid = 0;
  int device = 0;
  int num_devices = 1;
  bool distributed = false;
  int rank = 0;
  int world_size = 1;
  TimeNs base_time_ns = 0;
  std::string trace_name;
  bool args_113 = false;  // host spans in PyTorch 1.13's args form (Recipe::args_113)
};

class EventWriter {
 public:
  virtual ~EventWriter() = default;

  virtual void Begin(const DocumentInfo& info) = 0;
  // Writes the document tail, then flushes everything.
  virtual Status Finish(TimeNs trace_start, TimeNs trace_end) = 0;

  // Host spans (cpu_op, user_annotation): `extra_args` is raw JSON starting with ','.
  virtual void Span(EventCat cat, std::string_view name, int pid, int tid, TimeNs ts,
                    DurationNs dur, int64_t external_id, std::string_view extra_args = {}) = 0;
  virtual void Runtime(std::string_view name, int cbid, int pid, int tid, TimeNs ts, DurationNs dur,
                       int64_t external_id, int64_t correlation) = 0;
  // The same for a driver API call (Kineto's "cuda_driver", nsys's DRIVER table).
  virtual void Driver(std::string_view name, int cbid, int pid, int tid, TimeNs ts, DurationNs dur,
                      int64_t external_id, int64_t correlation) = 0;
  // `ac2g` flow: start on the launching thread, end on the GPU stream.
  virtual void FlowStart(int pid, int tid, TimeNs ts, int64_t correlation) = 0;
  virtual void FlowEnd(int device, int stream, TimeNs ts, int64_t correlation) = 0;
  virtual void Kernel(const KernelSpec& spec, int device, int stream, TimeNs ts, DurationNs dur,
                      int64_t external_id, int64_t correlation,
                      std::string_view extra_args = {}) = 0;
  // gpu_memcpy or gpu_memset; memcpy names follow Kineto: "Memcpy HtoD (Pageable -> Device)".
  virtual void Copy(EventCat cat, std::string_view name, int device, int stream, TimeNs ts,
                    DurationNs dur, int64_t external_id, int64_t correlation, int64_t bytes) = 0;
  virtual void CudaSync(int device, int stream, TimeNs ts, DurationNs dur, int64_t external_id,
                        int64_t correlation) = 0;
  virtual void MemoryInstant(int pid, int tid, TimeNs ts, int device, uint64_t addr, int64_t bytes,
                             int64_t total_allocated, int64_t total_reserved) = 0;
  virtual void GpuAnnotation(std::string_view name, int device, int stream, TimeNs ts,
                             DurationNs dur, int64_t external_id) = 0;
  // "M" metadata: {"name":kind,...,"args":{key:value_json}}.
  virtual void Metadata(std::string_view kind, int pid, int tid, TimeNs ts, std::string_view key,
                        std::string_view value_json) = 0;

  // The first write error, if any; event calls after an error are cheap no-ops on disk.
  virtual const Status& status() const = 0;
  virtual int64_t count(EventCat cat) const = 0;
};

}  // namespace gpuwhy
