// Tiny hand-built traces for the launch, sync, communication, memory and quality tests.
#pragma once

#include <string>

#include "analyze/analysis_input.h"
#include "analyze/device_timeline.h"
#include "model/trace.h"

namespace gpuwhy::testing_util {

class TinyTrace {
 public:
  TinyTrace() { thread_ = trace.GetOrCreateThread(1, 1); }

  CpuSliceId Slice(CpuSliceKind kind, const std::string& name, TimeNs start, TimeNs end,
                   int64_t correlation = kNoValue) {
    CpuSliceTable::Row row;
    row.thread = thread_;
    row.kind = kind;
    row.name = trace.strings.Intern(name);
    row.start = start;
    row.end = end;
    row.correlation = correlation;
    return trace.cpu_slices.Append(row);
  }
  CpuSliceId Op(const std::string& name, TimeNs start, TimeNs end) {
    return Slice(CpuSliceKind::kOp, name, start, end);
  }
  CpuSliceId Runtime(const std::string& name, TimeNs start, TimeNs end,
                     int64_t correlation = kNoValue) {
    return Slice(CpuSliceKind::kRuntime, name, start, end, correlation);
  }
  void Step(int64_t number, TimeNs start, TimeNs end) {
    Slice(CpuSliceKind::kUserAnnotation, "ProfilerStep#" + std::to_string(number), start, end);
    trace.steps.rows.push_back({number,
                                trace.strings.Intern("ProfilerStep#" + std::to_string(number)),
                                start, end, start, end, 0});
  }
  GpuOpId Gpu(GpuOpKind kind, const std::string& name, TimeNs start, TimeNs end,
              int64_t correlation = kNoValue, int64_t stream = 7, int32_t device = 0) {
    GpuOpTable::Row row;
    row.kind = kind;
    row.name = trace.strings.Intern(name);
    row.start = start;
    row.end = end;
    row.correlation = correlation;
    row.stream = stream;
    row.device = device;
    return trace.gpu_ops.Append(row);
  }
  GpuOpId Kernel(const std::string& name, TimeNs start, TimeNs end, int64_t correlation = kNoValue,
                 int64_t stream = 7) {
    return Gpu(GpuOpKind::kKernel, name, start, end, correlation, stream);
  }
  GpuOpId Copy(CopyDirection direction, MemoryKind src, MemoryKind dst, int64_t bytes, TimeNs start,
               TimeNs end, int64_t correlation = kNoValue) {
    GpuOpTable::Row row;
    row.kind = GpuOpKind::kMemcpy;
    row.name = trace.strings.Intern("Memcpy");
    row.start = start;
    row.end = end;
    row.correlation = correlation;
    row.stream = 7;
    row.bytes = bytes;
    row.copy_direction = direction;
    row.src_kind = src;
    row.dst_kind = dst;
    return trace.gpu_ops.Append(row);
  }

  // Finalizes the trace and builds the timelines; call once, after the last row.
  AnalysisInput Input() {
    trace.Finalize();
    timelines = BuildDeviceTimelines(trace);
    return AnalysisInput{trace, timelines, options};
  }

  Trace trace;
  DeviceTimelines timelines;
  AnalysisOptions options;

 private:
  ThreadId thread_;
};

}  // namespace gpuwhy::testing_util
