// Simulates one training process: a host clock shared by its threads (only one runs
// at a time, as when the main thread blocks in backward()) and a queue per GPU stream.
// Each call advances the simulated clocks and emits the matching Kineto events, so
// launches, flows, copies and waits stay mutually consistent by construction.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/time.h"
#include "synth/kineto_writer.h"
#include "synth/rendezvous.h"
#include "synth/rng.h"

namespace gpuwhy {

inline constexpr int kComputeStream = 7;
inline constexpr int kCommStream = 24;

// Measured facts of one ProfilerStep, for the ground truth.
struct StepStats {
  TimeNs start = 0;
  TimeNs end = 0;
  DurationNs gpu_busy_ns = 0;         // |∪ GPU ops| inside the step
  DurationNs sync_wait_ns = 0;        // host time blocked in cudaStreamSynchronize
  DurationNs idle_after_sync_ns = 0;  // GPU idle from a sync's drain to the next GPU op
  DurationNs gemm_ns = 0;             // GEMM kernel time (filled by the training step)
  DurationNs memory_bound_ns = 0;     // IsMemoryBoundKernel time (filled by the training step)
  DurationNs softmax_ns = 0;          // softmax kernel time (filled by the training step)
  DurationNs kernel_ns = 0;           // all kernel time (filled by the training step)
  DurationNs one_off_ns = 0;          // injected one-off work in the step (filled by the step)
  int captured_launches = 0;          // launches recorded into a graph (graph capture)
  int graph_kernels = 0;              // kernels of one graph replay (decode)
};

class Timeline {
 public:
  Timeline(EventWriter* writer, uint64_t seed, int pid, int main_tid, int device, TimeNs start);

  TimeNs now() const { return now_; }
  Rng& rng() { return rng_; }
  int pid() const { return pid_; }
  int device() const { return device_; }
  void SetThread(int tid) { tid_ = tid; }
  void SetLaunchCost(DurationNs lo, DurationNs hi) {
    launch_lo_ = lo;
    launch_hi_ = hi;
  }

  // Multi-rank coupling (synth --slow-rank): collective kernels end when every rank has
  // arrived; this rank's clock reads true time + clock_offset.
  void CoupleRanks(CollectiveRendezvous* rendezvous, int rank, TimeNs clock_offset) {
    rendezvous_ = rendezvous;
    rank_ = rank;
    clock_offset_ = clock_offset;
  }
  // Compute-stream kernels take `scale` times their drawn duration (a slow GPU).
  void SetComputeScale(double scale) { compute_scale_ = scale; }

  // Host-only time: Python, the CPU side of an operator.
  void Advance(DurationNs ns) { now_ += ns; }
  // Opens a host span; `name` and `extra_args` must outlive the matching End().
  void Begin(std::string_view name, EventCat cat = EventCat::kCpuOp,
             std::string_view extra_args = {});
  void End();

  // cudaLaunchKernel on the host, the kernel on `stream` once the stream is free.
  void Launch(const KernelSpec& kernel, DurationNs kernel_ns, int stream = kComputeStream,
              std::string_view kernel_extra_args = {});
  // cuLaunchKernel (driver API): how TorchScript/nvFuser/Triton launch the kernels they compiled.
  void DriverLaunch(const KernelSpec& kernel, DurationNs kernel_ns);
  // cudaLaunchKernel while the stream captures a graph: recorded, not run (no GPU op).
  void CapturedLaunch();
  // cudaGraphLaunch: one call, the graph's kernels back to back on the compute stream, all
  // with the call's correlation. `upload_ns` > 0: the first kernel starts that long after the
  // call returned (a graph's first replay uploads it). Returns the kernels' summed time.
  DurationNs GraphLaunch(std::span<const std::pair<const KernelSpec*, DurationNs>> kernels,
                         DurationNs upload_ns);
  // cudaDeviceSynchronize: the host waits for every stream.
  void DeviceSynchronize();
  // A driver call that queues no GPU work (cuModuleUnload, cuMemUnmap), `ns` long.
  void DriverCall(std::string_view name, int cbid, DurationNs ns);
  // cudaMemcpyAsync; `host_blocks` for pageable or synchronous copies, where the call
  // returns only when the copy is done.
  void MemcpyAsync(std::string_view name, int64_t bytes, DurationNs copy_ns, bool host_blocks);
  void MemsetAsync(int64_t bytes, DurationNs ns);
  // cudaStreamSynchronize plus its cuda_sync record; the host waits for the stream.
  void StreamSynchronize(int stream);
  // cudaEventRecord on the compute stream, then cudaEventSynchronize: the host waits for
  // the stream's work so far (cudnn.benchmark timing a candidate kernel).
  void EventSynchronize();
  // A runtime call that queues no GPU work (cudaMalloc, cudaFree, context set-up), `ns` long.
  void RuntimeCall(std::string_view name, int cbid, DurationNs ns);
  // The next Launch's call takes `ns` (a lazy module load), then launches cost as set.
  void SetNextLaunchCost(DurationNs ns) { next_launch_ns_ = ns; }
  // cudaEventRecord on `on_stream` + cudaStreamWaitEvent on `waiting_stream`.
  void StreamWaitStream(int waiting_stream, int on_stream);
  // A caching-allocator `[memory]` instant (negative bytes free).
  void Allocate(int64_t bytes);

  // Off: steps are measured but no ProfilerStep span is written (a capture without
  // torch.profiler.schedule/prof.step(): an engine's start-up, a serving loop).
  void SetStepAnnotations(bool on) { step_annotations_ = on; }
  void BeginStep(int number);
  StepStats EndStep();
  // Kernel time of the step so far, of the kernels `pick` selects.
  template <typename Pick>
  DurationNs StepKernelNs(Pick pick) const {
    DurationNs ns = 0;
    for (const auto& [spec, spec_ns] : step_kernel_ns_) ns += pick(spec) ? spec_ns : 0;
    return ns;
  }

 private:
  struct OpenSpan {
    std::string_view name;
    EventCat cat;
    TimeNs start;
    int64_t external_id;
    std::string_view extra_args;
  };

  // Launch through the runtime or the driver API.
  void LaunchVia(bool driver, const KernelSpec& kernel, DurationNs kernel_ns, int stream,
                 std::string_view kernel_extra_args);
  TimeNs& StreamFree(int stream) { return stream == kCommStream ? comm_free_ : compute_free_; }
  int64_t CurrentExternalId() const;
  // Books a GPU op for the step's busy time and closes an open post-sync drain.
  void RecordGpuOp(TimeNs start, TimeNs end);

  EventWriter* writer_;
  Rng rng_;
  int pid_;
  int main_tid_;
  int tid_;
  int device_;
  TimeNs now_;
  TimeNs compute_free_;
  TimeNs comm_free_;
  DurationNs launch_lo_ = 4 * kNsPerUs;
  DurationNs launch_hi_ = 6 * kNsPerUs;
  DurationNs next_launch_ns_ = 0;
  int64_t next_external_id_ = 1;
  int64_t next_correlation_ = 1;
  std::vector<OpenSpan> stack_;

  // Step state.
  bool step_annotations_ = true;
  std::string step_name_;
  TimeNs step_start_ = 0;
  int64_t step_external_id_ = 0;
  std::vector<std::pair<TimeNs, TimeNs>> step_gpu_ops_;
  std::map<const KernelSpec*, DurationNs> step_kernel_ns_;
  DurationNs step_sync_wait_ = 0;
  DurationNs step_idle_after_sync_ = 0;
  TimeNs drained_at_ = -1;  // >= 0 while the GPU sits drained after a sync

  CollectiveRendezvous* rendezvous_ = nullptr;
  int rank_ = 0;
  TimeNs clock_offset_ = 0;
  double compute_scale_ = 1.0;

  // Allocator state.
  int64_t allocated_ = 512ll << 20;
  int64_t reserved_ = 1024ll << 20;
  uint64_t next_addr_ = 0x7f3a40000000ull;
};

// Host-only time of a length drawn in [lo, hi]: Python, the CPU side of an operator.
inline void HostWork(Timeline& t, DurationNs lo, DurationNs hi) {
  t.Advance(t.rng().Uniform(lo, hi));
}

}  // namespace gpuwhy
