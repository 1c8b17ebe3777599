// Tiny hand-built traces for the step breakdown and idle-gap tests.
#pragma once

#include <string>

#include "model/trace.h"

namespace gpuwhy::step_idle_test {

class TinyTrace {
 public:
  // Every time passed in is multiplied by |unit| (ns by default).
  explicit TinyTrace(TimeNs unit = 1) : main_(trace_.GetOrCreateThread(1, 1)), unit_(unit) {}

  ThreadId main() const { return main_; }
  ThreadId Thread(int64_t tid) { return trace_.GetOrCreateThread(1, tid); }

  void Step(int64_t number, TimeNs start, TimeNs end) {
    std::string name = "ProfilerStep#" + std::to_string(number);
    Slice(main_, name, CpuSliceKind::kUserAnnotation, start, end);
    start *= unit_;
    end *= unit_;
    trace_.steps.rows.push_back({number, trace_.strings.Intern(name), start, end, start, end, 0});
  }
  void Slice(ThreadId thread, const std::string& name, CpuSliceKind kind, TimeNs start, TimeNs end,
             int64_t correlation = kNoValue) {
    CpuSliceTable::Row row;
    row.thread = thread;
    row.name = trace_.strings.Intern(name);
    row.kind = kind;
    row.start = start * unit_;
    row.end = end * unit_;
    row.correlation = correlation;
    trace_.cpu_slices.Append(row);
  }
  void Op(const std::string& name, TimeNs start, TimeNs end) {
    Slice(main_, name, CpuSliceKind::kOp, start, end);
  }
  // A runtime call on |thread| that runs one GPU op.
  void Launch(ThreadId thread, const std::string& call, TimeNs call_start, TimeNs call_end,
              GpuOpKind kind, const std::string& op_name, TimeNs op_start, TimeNs op_end,
              int32_t device = 0) {
    int64_t correlation = next_correlation_++;
    Slice(thread, call, CpuSliceKind::kRuntime, call_start, call_end, correlation);
    GpuOpTable::Row row;
    row.kind = kind;
    row.device = device;
    row.stream = 7;
    row.name = trace_.strings.Intern(op_name);
    row.start = op_start * unit_;
    row.end = op_end * unit_;
    row.correlation = correlation;
    trace_.gpu_ops.Append(row);
  }
  void Kernel(TimeNs call_start, TimeNs call_end, TimeNs op_start, TimeNs op_end,
              int32_t device = 0) {
    Launch(main_, "cudaLaunchKernel", call_start, call_end, GpuOpKind::kKernel,
           "void gemm_kernel<float>", op_start, op_end, device);
  }
  Trace& trace() { return trace_; }
  const Trace& Finish() {
    trace_.Finalize();
    return trace_;
  }

 private:
  Trace trace_;
  ThreadId main_;
  TimeNs unit_;
  int64_t next_correlation_ = 1;
};

}  // namespace gpuwhy::step_idle_test
