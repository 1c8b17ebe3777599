// CUDA_GPU_MEMORY_USAGE_EVENTS -> memory_events; GPU_METRICS (nsys_gpu_metrics.cc).
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

}  // namespace

Status ReadExtraTables(NsysContext& ctx) {
  RETURN_IF_ERROR(ReadMemoryUsage(ctx));
  return ReadGpuMetrics(ctx);
}

}  // namespace gpuwhy
