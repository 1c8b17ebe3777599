// CUDA_GPU_MEMORY_USAGE_EVENTS -> memory_events; GPU_METRICS -> counters.
#include <map>

#include "ingest/nsys/nsys_context.h"

namespace gpuwhy {
namespace {

// cudaMalloc/cudaFree as the driver saw them (nsys --cuda-memory-usage=true). From
// PyTorch's side this is the caching allocator's *reserved* memory, so the running sum per
// device becomes total_reserved; total_allocated (tensor bytes) is not recorded by nsys.
Status ReadMemoryUsage(NsysContext& ctx) {
  const std::string_view t = "CUDA_GPU_MEMORY_USAGE_EVENTS";
  if (!ctx.reader.HasTable(t)) return Status::Ok();
  for (std::string_view column :
       {"start", "globalPid", "deviceId", "bytes", "memoryOperationType"}) {
    if (!ctx.reader.HasColumn(t, column)) return Status::Ok();  // a layout we do not know
  }
  std::string sql = fmt::format(
      "SELECT start, globalPid, deviceId, {}, bytes, memoryOperationType FROM {} ORDER BY start",
      ctx.Column(t, "address"), t);
  ASSIGN_OR_RETURN(SqliteStatement q, ctx.reader.Prepare(sql));
  std::map<std::pair<int64_t, int64_t>, int64_t> live;  // (process, device) -> bytes
  while (q.Step()) {
    NsysProcess& p = ctx.Process(q.IntOr(1, 0));
    MemoryEventTable::Row row;
    row.ts = q.Int(0);
    row.device_type = 1;  // c10::DeviceType CUDA
    row.device_id = static_cast<int32_t>(q.Int(2));
    row.addr = static_cast<uint64_t>(q.IntOr(3, 0));
    // memoryOperationType: 0 allocation, 1 deallocation (ENUM_CUDA_DEV_MEM_EVENT_OPER).
    row.bytes = q.Int(5) == 1 ? -q.Int(4) : q.Int(4);
    int64_t& total = live[{p.key, row.device_id}];
    total += row.bytes;
    row.total_reserved = total;
    row.thread = ctx.Thread(p, p.key << 24);
    p.trace.memory_events.rows.push_back(row);
  }
  return q.status();
}

// GPU_METRICS(timestamp, typeId, metricId, value) with names from
// TARGET_INFO_GPU_METRICS(typeId, metricId, metricName), --gpu-metrics-devices captures.
// The samples belong to a GPU, not a process: every trace gets them, as counters named
// "gpu_metrics/<metric name>" with the GPU's typeId in the pid column.
Status ReadGpuMetrics(NsysContext& ctx) {
  const std::string_view t = "GPU_METRICS";
  const std::string_view names_table = "TARGET_INFO_GPU_METRICS";
  if (!ctx.reader.HasTable(t) || !ctx.reader.HasTable(names_table)) return Status::Ok();
  for (std::string_view column : {"timestamp", "typeId", "metricId", "value"}) {
    if (!ctx.reader.HasColumn(t, column)) return Status::Ok();
  }
  for (std::string_view column : {"typeId", "metricId", "metricName"}) {
    if (!ctx.reader.HasColumn(names_table, column)) return Status::Ok();
  }
  std::map<std::pair<int64_t, int64_t>, std::string> names;
  {
    ASSIGN_OR_RETURN(
        SqliteStatement q,
        ctx.reader.Prepare("SELECT typeId, metricId, metricName FROM TARGET_INFO_GPU_METRICS"));
    while (q.Step()) names[{q.Int(0), q.Int(1)}] = fmt::format("gpu_metrics/{}", q.Text(2));
    RETURN_IF_ERROR(q.status());
  }
  ASSIGN_OR_RETURN(
      SqliteStatement q,
      ctx.reader.Prepare("SELECT timestamp, typeId, metricId, value FROM GPU_METRICS"));
  std::map<std::pair<int64_t, int64_t>, StringId> ids;  // per metric, in the export pool
  struct Sample {
    StringId name;
    int64_t type;
    TimeNs ts;
    double value;
  };
  std::vector<Sample> samples;
  while (q.Step()) {
    std::pair<int64_t, int64_t> key{q.Int(1), q.Int(2)};
    auto [it, inserted] = ids.try_emplace(key);
    if (inserted) {
      auto name = names.find(key);
      it->second = ctx.strings.Add(name != names.end() ? name->second
                                                       : fmt::format("gpu_metrics/{}", key.second));
    }
    samples.push_back({it->second, key.first, q.Int(0), q.Double(3)});
  }
  RETURN_IF_ERROR(q.status());
  for (auto& process : ctx.processes) {
    if (process->trace.gpu_ops.size() == 0) continue;
    for (const Sample& s : samples) {
      process->trace.counters.rows.push_back(
          {ctx.Localize(*process, s.name), s.type, s.ts, s.value});
    }
  }
  return Status::Ok();
}

}  // namespace

Status ReadExtraTables(NsysContext& ctx) {
  RETURN_IF_ERROR(ReadMemoryUsage(ctx));
  return ReadGpuMetrics(ctx);
}

}  // namespace gpuwhy
