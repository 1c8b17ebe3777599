#include "synth/kineto_writer.h"

#include <fmt/compile.h>

#include <algorithm>

namespace gpuwhy {
namespace {

// Wraps ns so that fmt prints it as exact µs with three decimals.
struct Micros {
  int64_t ns;
};

constexpr std::array<std::string_view, kNumEventCats> kCatNames = {
    "cpu_op",
    "user_annotation",
    "cuda_runtime",
    "kernel",
    "gpu_memcpy",
    "gpu_memset",
    "cuda_sync",
    "ac2g",
    "cpu_instant_event",
    "gpu_user_annotation",
    "Trace",
    "python_function",
    "cuda_driver",
};

}  // namespace
}  // namespace gpuwhy

template <>
struct fmt::formatter<gpuwhy::Micros> {
  constexpr auto parse(format_parse_context& ctx) { return ctx.begin(); }
  auto format(gpuwhy::Micros m, format_context& ctx) const {
    gpuwhy::AppendMicros(ctx.out(), m.ns);
    return ctx.out();
  }
};

namespace gpuwhy {

std::string JsonEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      out += fmt::format("\\u{:04x}", u);
    } else {
      out += c;
    }
  }
  return out;
}

std::string_view EventCatName(EventCat cat) { return kCatNames[static_cast<int>(cat)]; }

KernelSpec MakeKernelSpec(std::string_view name, int grid_x, int block_x, int registers,
                          int shared_memory, double blocks_per_sm, double warps_per_sm,
                          int occupancy_pct) {
  KernelSpec spec;
  spec.name = name;
  spec.grid_x = grid_x;
  spec.block_x = block_x;
  spec.registers = registers;
  spec.shared_memory = shared_memory;
  spec.args_tail = fmt::format(
      R"("registers per thread":{},"shared memory":{},"blocks per SM":{:.6f},)"
      R"("warps per SM":{:.6f},"grid":[{},1,1],"block":[{},1,1],"est. achieved occupancy %":{})",
      registers, shared_memory, blocks_per_sm, warps_per_sm, grid_x, block_x, occupancy_pct);
  return spec;
}

void KinetoWriter::Begin(const DocumentInfo& info) {
  trace_name_ = JsonEscape(info.trace_name);
  base_time_ns_ = info.base_time_ns;
  args_113_ = info.args_113;
  auto out = fmt::appender(buf_);
  fmt::format_to(out, "{{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [");
  for (int d = 0; d < info.num_devices; ++d) {
    fmt::format_to(out,
                   "{}\n    {{\"id\": {}, \"name\": \"NVIDIA H100 80GB HBM3\", "
                   "\"totalGlobalMem\": 85018279936, \"computeMajor\": 9, \"computeMinor\": 0, "
                   "\"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048, "
                   "\"regsPerBlock\": 65536, \"warpSize\": 32, \"sharedMemPerBlock\": 49152, "
                   "\"numSms\": {}, \"regsPerMultiprocessor\": 65536, "
                   "\"sharedMemPerBlockOptin\": 232448, \"sharedMemPerMultiprocessor\": 233472}}",
                   d == 0 ? "" : ",", d, kSynthDeviceSms);
  }
  fmt::format_to(out, "\n  ],\n");
  if (info.distributed) {
    fmt::format_to(out,
                   "  \"distributedInfo\": {{\"backend\": \"nccl\", \"rank\": {}, "
                   "\"world_size\": {}, \"pg_count\": 1, \"pg_config\": [{{\"pg_name\": \"0\", "
                   "\"pg_desc\": \"default_pg\", \"backend_config\": \"cuda:nccl\", "
                   "\"pg_size\": {}, \"ranks\": [",
                   info.rank, info.world_size, info.world_size);
    for (int r = 0; r < info.world_size; ++r) fmt::format_to(out, "{}{}", r == 0 ? "" : ", ", r);
    fmt::format_to(out, "]}}], \"nccl_version\": \"2.21.5\"}},\n");
  }
  fmt::format_to(out,
                 "  \"cupti_version\": 24,\n  \"cuda_runtime_version\": 12040,\n"
                 "  \"cuda_driver_version\": 12040,\n  \"profile_memory\": 1,\n"
                 "  \"trace_id\": \"5F0D1A6C3B2E4F7A9C8D0E1F2A3B4C{:02X}\",\n"
                 "  \"traceEvents\": [",
                 info.rank & 0xff);
}

Status KinetoWriter::Finish(TimeNs trace_start, TimeNs trace_end) {
  auto out = Open(EventCat::kTrace);
  fmt::format_to(
      out,
      R"({{"ph":"X","cat":"Trace","ts":{},"dur":{},"pid":"Spans",)"
      R"j("tid":"PyTorch Profiler","name":"PyTorch Profiler (0)","args":{{"Op count":0}}}})j",
      Micros{trace_start}, Micros{trace_end - trace_start});
  fmt::format_to(fmt::appender(buf_),
                 ",\n  {{\"name\":\"Record Window End\",\"ph\":\"i\",\"s\":\"g\",\"pid\":\"\","
                 "\"tid\":\"\",\"ts\":{}}}\n  ],\n  \"traceName\": \"{}\",\n"
                 "  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": {}\n}}\n",
                 Micros{trace_end + 2 * kNsPerMs}, trace_name_, base_time_ns_);
  Flush();
  return status_;
}

fmt::appender KinetoWriter::Open(EventCat cat) {
  ++counts_[static_cast<int>(cat)];
  MaybeFlush();
  auto out = fmt::appender(buf_);
  if (first_event_) {
    first_event_ = false;
    fmt::format_to(out, "\n  ");
  } else {
    fmt::format_to(out, ",\n  ");
  }
  return out;
}

void KinetoWriter::MaybeFlush() {
  if (buf_.size() >= kFlushBytes) Flush();
}

void KinetoWriter::Flush() {
  peak_buffer_ = std::max(peak_buffer_, buf_.size());
  if (status_.ok()) status_ = sink_->Write(std::string_view(buf_.data(), buf_.size()));
  buf_.clear();
}

void KinetoWriter::Span(EventCat cat, std::string_view name, int pid, int tid, TimeNs ts,
                        DurationNs dur, int64_t external_id, std::string_view extra_args) {
  auto out = Open(cat);
  if (args_113_) {
    fmt::format_to(
        out,
        FMT_COMPILE(R"({{"ph":"X","cat":"{}","name":"{}","pid":{},"tid":{},"ts":{},"dur":{},)"
                    R"("args":{{"Trace name":"PyTorch Profiler","Trace iteration":0,)"
                    R"("External id":{},"Profiler Event Index":{}{}}}}})"),
        EventCatName(cat), name, pid, tid, Micros{ts}, Micros{dur}, external_id, ev_idx_++,
        extra_args);
    return;
  }
  fmt::format_to(
      out,
      FMT_COMPILE(R"({{"ph":"X","cat":"{}","name":"{}","pid":{},"tid":{},"ts":{},"dur":{},)"
                  R"("args":{{"External id":{},"Record function id":0{},"Ev Idx":{}}}}})"),
      EventCatName(cat), name, pid, tid, Micros{ts}, Micros{dur}, external_id, extra_args,
      ev_idx_++);
}

void KinetoWriter::Runtime(std::string_view name, int cbid, int pid, int tid, TimeNs ts,
                           DurationNs dur, int64_t external_id, int64_t correlation) {
  ApiCall(EventCat::kCudaRuntime, name, cbid, pid, tid, ts, dur, external_id, correlation);
}

void KinetoWriter::Driver(std::string_view name, int cbid, int pid, int tid, TimeNs ts,
                          DurationNs dur, int64_t external_id, int64_t correlation) {
  ApiCall(EventCat::kCudaDriver, name, cbid, pid, tid, ts, dur, external_id, correlation);
}

void KinetoWriter::ApiCall(EventCat cat, std::string_view name, int cbid, int pid, int tid,
                           TimeNs ts, DurationNs dur, int64_t external_id, int64_t correlation) {
  auto out = Open(cat);
  fmt::format_to(
      out,
      FMT_COMPILE(R"({{"ph":"X","cat":"{}","name":"{}","pid":{},"tid":{},"ts":{},)"
                  R"("dur":{},"args":{{"External id":{},"cbid":{},"correlation":{}}}}})"),
      EventCatName(cat), name, pid, tid, Micros{ts}, Micros{dur}, external_id, cbid, correlation);
}

void KinetoWriter::FlowStart(int pid, int tid, TimeNs ts, int64_t correlation) {
  auto out = Open(EventCat::kAc2g);
  fmt::format_to(
      out,
      FMT_COMPILE(R"({{"ph":"s","id":{},"pid":{},"tid":{},"ts":{},"cat":"ac2g","name":"ac2g"}})"),
      correlation, pid, tid, Micros{ts});
}

void KinetoWriter::FlowEnd(int device, int stream, TimeNs ts, int64_t correlation) {
  auto out = Open(EventCat::kAc2g);
  fmt::format_to(
      out,
      FMT_COMPILE(
          R"({{"ph":"f","id":{},"pid":{},"tid":{},"ts":{},"cat":"ac2g","name":"ac2g","bp":"e"}})"),
      correlation, device, stream, Micros{ts});
}

void KinetoWriter::Kernel(const KernelSpec& spec, int device, int stream, TimeNs ts, DurationNs dur,
                          int64_t external_id, int64_t correlation, std::string_view extra_args) {
  auto out = Open(EventCat::kKernel);
  fmt::format_to(
      out,
      FMT_COMPILE(R"({{"ph":"X","cat":"kernel","name":"{}","pid":{},"tid":{},"ts":{},"dur":{},)"
                  R"("args":{{"External id":{},"queued":0,"device":{},"context":1,"stream":{},)"
                  R"("correlation":{},{}{}}}}})"),
      spec.name, device, stream, Micros{ts}, Micros{dur}, external_id, device, stream, correlation,
      spec.args_tail, extra_args);
}

void KinetoWriter::Copy(EventCat cat, std::string_view name, int device, int stream, TimeNs ts,
                        DurationNs dur, int64_t external_id, int64_t correlation, int64_t bytes) {
  auto out = Open(cat);
  // bytes per ns is GB/s.
  double bandwidth = static_cast<double>(bytes) / static_cast<double>(std::max<int64_t>(dur, 1));
  fmt::format_to(
      out,
      FMT_COMPILE(R"({{"ph":"X","cat":"{}","name":"{}","pid":{},"tid":{},"ts":{},"dur":{},)"
                  R"("args":{{"External id":{},"device":{},"context":1,"stream":{},)"
                  R"j("correlation":{},"bytes":{},"memory bandwidth (GB/s)":{}}}}})j"),
      EventCatName(cat), name, device, stream, Micros{ts}, Micros{dur}, external_id, device, stream,
      correlation, bytes, bandwidth);
}

void KinetoWriter::CudaSync(int device, int stream, TimeNs ts, DurationNs dur, int64_t external_id,
                            int64_t correlation) {
  auto out = Open(EventCat::kCudaSync);
  fmt::format_to(out,
                 R"({{"ph":"X","cat":"cuda_sync","name":"Stream Sync","pid":{},"tid":{},)"
                 R"("ts":{},"dur":{},"args":{{"External id":{},"cuda_sync_kind":"Stream Sync",)"
                 R"("stream":{},"correlation":{},"device":{},"context":1}}}})",
                 device, stream, Micros{ts}, Micros{dur}, external_id, stream, correlation, device);
}

void KinetoWriter::MemoryInstant(int pid, int tid, TimeNs ts, int device, uint64_t addr,
                                 int64_t bytes, int64_t total_allocated, int64_t total_reserved) {
  auto out = Open(EventCat::kCpuInstant);
  fmt::format_to(
      out,
      FMT_COMPILE(R"({{"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]","pid":{},)"
                  R"("tid":{},"ts":{},"args":{{"Total Reserved":{},"Total Allocated":{},)"
                  R"("Bytes":{},"Addr":{},"Device Id":{},"Device Type":1,"Ev Idx":{}}}}})"),
      pid, tid, Micros{ts}, total_reserved, total_allocated, bytes, addr, device, ev_idx_++);
}

void KinetoWriter::GpuAnnotation(std::string_view name, int device, int stream, TimeNs ts,
                                 DurationNs dur, int64_t external_id) {
  auto out = Open(EventCat::kGpuUserAnnotation);
  fmt::format_to(out,
                 R"({{"ph":"X","cat":"gpu_user_annotation","name":"{}","pid":{},"tid":{},)"
                 R"("ts":{},"dur":{},"args":{{"External id":{}}}}})",
                 name, device, stream, Micros{ts}, Micros{dur}, external_id);
}

void KinetoWriter::Metadata(std::string_view kind, int pid, int tid, TimeNs ts,
                            std::string_view key, std::string_view value_json) {
  MaybeFlush();
  auto out = fmt::appender(buf_);
  fmt::format_to(out, "{}", first_event_ ? "\n  " : ",\n  ");
  first_event_ = false;
  fmt::format_to(out, R"({{"name":"{}","ph":"M","ts":{},"pid":{},"tid":{},"args":{{"{}":{}}}}})",
                 kind, Micros{ts}, pid, tid, key, value_json);
}

}  // namespace gpuwhy
