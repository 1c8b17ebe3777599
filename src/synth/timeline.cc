#include "synth/timeline.h"

#include <fmt/format.h>

#include <algorithm>

namespace gpuwhy {
namespace {

// CUPTI callback ids of the runtime calls we emit (cupti_runtime_cbid.h).
constexpr int kCbidLaunchKernel = 211;
constexpr int kCbidMemcpyAsync = 41;
constexpr int kCbidMemsetAsync = 51;
constexpr int kCbidStreamSynchronize = 131;
constexpr int kCbidEventRecord = 135;
constexpr int kCbidStreamWaitEvent = 147;
constexpr int kCbidEventSynchronize = 137;
constexpr int kCbidDeviceSynchronize = 165;
constexpr int kCbidGraphLaunch = 311;
// CUPTI driver callback id (cupti_driver_cbid.h).
constexpr int kCbidCuLaunchKernel = 307;

// A queued op starts a little after the previous one on its stream ends: real
// back-to-back kernels show 1-2 µs of front-end gap.
constexpr DurationNs kMinQueueGap = 800;
constexpr DurationNs kMaxQueueGap = 1800;

}  // namespace

Timeline::Timeline(EventWriter* writer, uint64_t seed, int pid, int main_tid, int device,
                   TimeNs start)
    : writer_(writer),
      rng_(seed),
      pid_(pid),
      main_tid_(main_tid),
      tid_(main_tid),
      device_(device),
      now_(start),
      compute_free_(start),
      comm_free_(start) {}

void Timeline::Begin(std::string_view name, EventCat cat, std::string_view extra_args) {
  stack_.push_back({name, cat, now_, next_external_id_++, extra_args});
}

void Timeline::End() {
  const OpenSpan& span = stack_.back();
  writer_->Span(span.cat, span.name, pid_, tid_, span.start, now_ - span.start, span.external_id,
                span.extra_args);
  stack_.pop_back();
}

int64_t Timeline::CurrentExternalId() const {
  return stack_.empty() ? 0 : stack_.back().external_id;
}

void Timeline::RecordGpuOp(TimeNs start, TimeNs end) {
  step_gpu_ops_.emplace_back(start, end);
  if (drained_at_ >= 0) {
    step_idle_after_sync_ += std::max<DurationNs>(0, start - drained_at_);
    drained_at_ = -1;
  }
}

void Timeline::Launch(const KernelSpec& kernel, DurationNs kernel_ns, int stream,
                      std::string_view kernel_extra_args) {
  LaunchVia(false, kernel, kernel_ns, stream, kernel_extra_args);
}

void Timeline::DriverLaunch(const KernelSpec& kernel, DurationNs kernel_ns) {
  LaunchVia(true, kernel, kernel_ns, kComputeStream, {});
}

void Timeline::CapturedLaunch() {
  DurationNs call_ns = rng_.Uniform(launch_lo_, launch_hi_);
  int64_t correlation = next_correlation_++;
  writer_->Runtime("cudaLaunchKernel", kCbidLaunchKernel, pid_, tid_, now_, call_ns,
                   CurrentExternalId(), correlation);
  // Kineto writes the flow's start; nothing ever runs at its end.
  writer_->FlowStart(pid_, tid_, now_, correlation);
  now_ += call_ns;
}

DurationNs Timeline::GraphLaunch(std::span<const std::pair<const KernelSpec*, DurationNs>> kernels,
                                 DurationNs upload_ns) {
  const TimeNs call_start = now_;
  // Launching a graph costs a few µs plus a little per node.
  const DurationNs call_ns =
      rng_.Uniform(8000, 12000) + 20 * static_cast<DurationNs>(kernels.size());
  const int64_t correlation = next_correlation_++;
  const int64_t external_id = CurrentExternalId();
  writer_->Runtime("cudaGraphLaunch", kCbidGraphLaunch, pid_, tid_, call_start, call_ns,
                   external_id, correlation);
  writer_->FlowStart(pid_, tid_, call_start, correlation);
  TimeNs& free = StreamFree(kComputeStream);
  TimeNs start = upload_ns > 0 ? call_start + call_ns + upload_ns
                               : std::max(call_start + call_ns / 2,
                                          free + rng_.Uniform(kMinQueueGap, kMaxQueueGap));
  start = std::max(start, free + kMinQueueGap);
  DurationNs total = 0;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const auto& [spec, ns] = kernels[i];
    // A graph's nodes follow each other with less front-end gap than separate launches.
    if (i > 0) start = free + rng_.Uniform(400, 900);
    writer_->Kernel(*spec, device_, kComputeStream, start, ns, external_id, correlation);
    if (i == 0) writer_->FlowEnd(device_, kComputeStream, start, correlation);
    free = start + ns;
    step_kernel_ns_[spec] += ns;
    RecordGpuOp(start, free);
    total += ns;
  }
  now_ = call_start + call_ns;
  return total;
}

void Timeline::DeviceSynchronize() {
  TimeNs call_start = now_;
  TimeNs drained = std::max(compute_free_, comm_free_);
  DurationNs wait_ns = std::max<DurationNs>(0, drained - call_start);
  DurationNs call_ns = wait_ns + rng_.Uniform(2000, 4000);
  writer_->Runtime("cudaDeviceSynchronize", kCbidDeviceSynchronize, pid_, tid_, call_start, call_ns,
                   CurrentExternalId(), next_correlation_++);
  step_sync_wait_ += wait_ns;
  drained_at_ = drained;
  now_ = call_start + call_ns;
}

void Timeline::DriverCall(std::string_view name, int cbid, DurationNs ns) {
  writer_->Driver(name, cbid, pid_, tid_, now_, ns, CurrentExternalId(), next_correlation_++);
  now_ += ns;
}

void Timeline::LaunchVia(bool driver, const KernelSpec& kernel, DurationNs kernel_ns, int stream,
                         std::string_view kernel_extra_args) {
  TimeNs call_start = now_;
  DurationNs call_ns = rng_.Uniform(launch_lo_, launch_hi_);
  if (next_launch_ns_ > 0) {
    call_ns = next_launch_ns_;
    next_launch_ns_ = 0;
  }
  int64_t correlation = next_correlation_++;
  int64_t external_id = CurrentExternalId();
  if (driver) {
    writer_->Driver("cuLaunchKernel", kCbidCuLaunchKernel, pid_, tid_, call_start, call_ns,
                    external_id, correlation);
  } else {
    writer_->Runtime("cudaLaunchKernel", kCbidLaunchKernel, pid_, tid_, call_start, call_ns,
                     external_id, correlation);
  }
  writer_->FlowStart(pid_, tid_, call_start, correlation);
  // The kernel can start once the driver has pushed it, before the call returns.
  TimeNs ready = call_start + call_ns * 2 / 3;
  TimeNs& free = StreamFree(stream);
  TimeNs start = std::max(ready, free + rng_.Uniform(kMinQueueGap, kMaxQueueGap));
  if (stream != kCommStream && compute_scale_ != 1.0) {
    kernel_ns = static_cast<DurationNs>(static_cast<double>(kernel_ns) * compute_scale_ + 0.5);
  }
  if (stream == kCommStream && rendezvous_ != nullptr) {
    // NCCL: the kernel runs from this rank's arrival until the last rank's data is through;
    // ends differ by a few hundred ns across ranks, as completion polling does.
    TimeNs end = rendezvous_->Arrive(rank_, start - clock_offset_, kernel_ns) + clock_offset_ +
                 (rank_ % 3) * 400;
    kernel_ns = end - start;
  }
  writer_->Kernel(kernel, device_, stream, start, kernel_ns, external_id, correlation,
                  kernel_extra_args);
  writer_->FlowEnd(device_, stream, start, correlation);
  free = start + kernel_ns;
  step_kernel_ns_[&kernel] += kernel_ns;
  RecordGpuOp(start, free);
  now_ = call_start + call_ns;
}

void Timeline::MemcpyAsync(std::string_view name, int64_t bytes, DurationNs copy_ns,
                           bool host_blocks) {
  TimeNs call_start = now_;
  int64_t correlation = next_correlation_++;
  int64_t external_id = CurrentExternalId();
  TimeNs& free = StreamFree(kComputeStream);
  TimeNs start = std::max(call_start + rng_.Uniform(3000, 5000),
                          free + rng_.Uniform(kMinQueueGap, kMaxQueueGap));
  free = start + copy_ns;
  // A pageable copy is staged through a driver buffer: the call returns after the copy.
  DurationNs call_ns =
      host_blocks ? free - call_start + rng_.Uniform(4000, 8000) : rng_.Uniform(5000, 9000);
  writer_->Runtime("cudaMemcpyAsync", kCbidMemcpyAsync, pid_, tid_, call_start, call_ns,
                   external_id, correlation);
  writer_->FlowStart(pid_, tid_, call_start, correlation);
  writer_->Copy(EventCat::kGpuMemcpy, name, device_, kComputeStream, start, copy_ns, external_id,
                correlation, bytes);
  writer_->FlowEnd(device_, kComputeStream, start, correlation);
  RecordGpuOp(start, free);
  now_ = call_start + call_ns;
}

void Timeline::MemsetAsync(int64_t bytes, DurationNs ns) {
  TimeNs call_start = now_;
  DurationNs call_ns = rng_.Uniform(4000, 6000);
  int64_t correlation = next_correlation_++;
  int64_t external_id = CurrentExternalId();
  writer_->Runtime("cudaMemsetAsync", kCbidMemsetAsync, pid_, tid_, call_start, call_ns,
                   external_id, correlation);
  writer_->FlowStart(pid_, tid_, call_start, correlation);
  TimeNs& free = StreamFree(kComputeStream);
  TimeNs start =
      std::max(call_start + call_ns / 2, free + rng_.Uniform(kMinQueueGap, kMaxQueueGap));
  writer_->Copy(EventCat::kGpuMemset, "Memset (Device)", device_, kComputeStream, start, ns,
                external_id, correlation, bytes);
  writer_->FlowEnd(device_, kComputeStream, start, correlation);
  free = start + ns;
  RecordGpuOp(start, free);
  now_ = call_start + call_ns;
}

void Timeline::StreamSynchronize(int stream) {
  TimeNs call_start = now_;
  TimeNs drained = StreamFree(stream);
  DurationNs wait_ns = std::max<DurationNs>(0, drained - call_start);
  DurationNs call_ns = wait_ns + rng_.Uniform(2000, 4000);
  int64_t correlation = next_correlation_++;
  int64_t external_id = CurrentExternalId();
  writer_->Runtime("cudaStreamSynchronize", kCbidStreamSynchronize, pid_, tid_, call_start, call_ns,
                   external_id, correlation);
  writer_->FlowStart(pid_, tid_, call_start, correlation);
  // CUPTI reports the wait itself, on the host clock, as a record on the stream's row.
  TimeNs sync_start = call_start + 600;
  writer_->CudaSync(device_, stream, sync_start, call_ns - 1200, external_id, correlation);
  writer_->FlowEnd(device_, stream, sync_start, correlation);
  step_sync_wait_ += wait_ns;
  drained_at_ = std::max(drained, compute_free_);
  now_ = call_start + call_ns;
}

void Timeline::EventSynchronize() {
  int64_t external_id = CurrentExternalId();
  DurationNs record_ns = rng_.Uniform(2000, 3500);
  writer_->Runtime("cudaEventRecord", kCbidEventRecord, pid_, tid_, now_, record_ns, external_id,
                   next_correlation_++);
  now_ += record_ns + rng_.Uniform(500, 1000);
  TimeNs call_start = now_;
  DurationNs wait_ns = std::max<DurationNs>(0, compute_free_ - call_start);
  DurationNs call_ns = wait_ns + rng_.Uniform(2000, 4000);
  int64_t correlation = next_correlation_++;
  writer_->Runtime("cudaEventSynchronize", kCbidEventSynchronize, pid_, tid_, call_start, call_ns,
                   external_id, correlation);
  step_sync_wait_ += wait_ns;
  drained_at_ = compute_free_;
  now_ = call_start + call_ns;
}

void Timeline::RuntimeCall(std::string_view name, int cbid, DurationNs ns) {
  writer_->Runtime(name, cbid, pid_, tid_, now_, ns, CurrentExternalId(), next_correlation_++);
  now_ += ns;
}

void Timeline::StreamWaitStream(int waiting_stream, int on_stream) {
  int64_t external_id = CurrentExternalId();
  DurationNs record_ns = rng_.Uniform(2000, 3500);
  writer_->Runtime("cudaEventRecord", kCbidEventRecord, pid_, tid_, now_, record_ns, external_id,
                   next_correlation_++);
  now_ += record_ns + rng_.Uniform(500, 1000);
  DurationNs wait_ns = rng_.Uniform(1500, 3000);
  writer_->Runtime("cudaStreamWaitEvent", kCbidStreamWaitEvent, pid_, tid_, now_, wait_ns,
                   external_id, next_correlation_++);
  now_ += wait_ns;
  TimeNs& waiting = StreamFree(waiting_stream);
  waiting = std::max(waiting, StreamFree(on_stream));
}

void Timeline::Allocate(int64_t bytes) {
  allocated_ += bytes;
  // The caching allocator grows in 20 MiB-rounded segments and never shrinks here.
  constexpr int64_t kSegment = 20ll << 20;
  reserved_ = std::max(reserved_, (allocated_ + kSegment - 1) / kSegment * kSegment);
  uint64_t addr = next_addr_;
  if (bytes > 0) next_addr_ += static_cast<uint64_t>((bytes + 511) / 512 * 512);
  writer_->MemoryInstant(pid_, tid_, now_, device_, addr, bytes, allocated_, reserved_);
}

void Timeline::BeginStep(int number) {
  step_name_ = fmt::format("ProfilerStep#{}", number);
  step_start_ = now_;
  step_external_id_ = next_external_id_++;
  step_gpu_ops_.clear();
  step_kernel_ns_.clear();
  step_sync_wait_ = 0;
  step_idle_after_sync_ = 0;
  drained_at_ = -1;
}

StepStats Timeline::EndStep() {
  StepStats stats;
  stats.start = step_start_;
  stats.end = now_;
  stats.sync_wait_ns = step_sync_wait_;
  stats.idle_after_sync_ns = step_idle_after_sync_;
  if (step_annotations_) {
    writer_->Span(EventCat::kUserAnnotation, step_name_, pid_, main_tid_, step_start_,
                  now_ - step_start_, step_external_id_);
  }
  if (step_gpu_ops_.empty()) return stats;

  // Union of the GPU ops inside the step; both streams interleave, so sort first.
  std::sort(step_gpu_ops_.begin(), step_gpu_ops_.end());
  TimeNs first = step_gpu_ops_.front().first;
  TimeNs cursor = stats.start;
  TimeNs last = first;
  for (const auto& [start, end] : step_gpu_ops_) {
    TimeNs from = std::max({start, cursor, stats.start});
    TimeNs to = std::min(end, stats.end);
    if (to > from) {
      stats.gpu_busy_ns += to - from;
      cursor = to;
    }
    last = std::max(last, end);
  }
  if (step_annotations_) {
    writer_->GpuAnnotation(step_name_, device_, kComputeStream, first, last - first,
                           step_external_id_);
  }
  return stats;
}

}  // namespace gpuwhy
