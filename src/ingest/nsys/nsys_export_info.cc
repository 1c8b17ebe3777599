#include "ingest/nsys/nsys_export_info.h"

#include <charconv>
#include <optional>
#include <utility>

#include "base/checked_math.h"

namespace gpuwhy {
namespace {

constexpr std::string_view kCountedTables[] = {
    "CUPTI_ACTIVITY_KIND_KERNEL",
    "CUPTI_ACTIVITY_KIND_MEMCPY",
    "CUPTI_ACTIVITY_KIND_MEMSET",
    "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
    "CUPTI_ACTIVITY_KIND_RUNTIME",
    "CUPTI_ACTIVITY_KIND_DRIVER",
    "NVTX_EVENTS",
    "OSRT_API",
    "CUDA_GPU_MEMORY_USAGE_EVENTS",
    "GPU_METRICS",
};

std::optional<int64_t> ParseInt(std::string_view text) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

Status ReadMetaData(NsysContext& ctx, ExportInfo& info) {
  if (ctx.reader.HasColumn("EXPORT_META_DATA", "name") &&
      ctx.reader.HasColumn("EXPORT_META_DATA", "value")) {
    ASSIGN_OR_RETURN(SqliteStatement q,
                     ctx.reader.Prepare("SELECT name, value FROM EXPORT_META_DATA"));
    while (q.Step()) {
      std::string_view name = q.Text(0);
      if (name == "EXPORT_PRODUCT_VERSION") info.extra["nsys_version"] = q.Text(1);
      if (name == "EXPORT_SCHEMA_VERSION") info.extra["nsys_export_schema"] = q.Text(1);
    }
    RETURN_IF_ERROR(q.status());
  }
  if (ctx.reader.HasColumn("TARGET_INFO_SESSION_START_TIME", "utcEpochNs")) {
    ASSIGN_OR_RETURN(SqliteStatement q,
                     ctx.reader.Prepare("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME"));
    if (q.Step() && !q.IsNull(0)) info.session_start_utc_ns = q.Int(0);
    RETURN_IF_ERROR(q.status());
  }
  if (ctx.reader.HasColumn("TARGET_INFO_SYSTEM_ENV", "name") &&
      ctx.reader.HasColumn("TARGET_INFO_SYSTEM_ENV", "value")) {
    ASSIGN_OR_RETURN(SqliteStatement q,
                     ctx.reader.Prepare("SELECT name, value FROM TARGET_INFO_SYSTEM_ENV"));
    while (q.Step()) {
      std::string_view name = q.Text(0);
      if (name == "CudaDriverVersion") info.extra["cuda_driver_version"] = q.Text(1);
      if (name == "Hostname") info.extra["hostname"] = q.Text(1);
    }
    RETURN_IF_ERROR(q.status());
  }
  return Status::Ok();
}

Status ReadNames(NsysContext& ctx, ExportInfo& info) {
  if (ctx.reader.HasColumn("PROCESSES", "globalPid") && ctx.reader.HasColumn("PROCESSES", "name")) {
    ASSIGN_OR_RETURN(SqliteStatement q,
                     ctx.reader.Prepare("SELECT globalPid, name FROM PROCESSES"));
    while (q.Step()) {
      if (!q.IsNull(0)) info.process_names[NsysProcessKey(q.Int(0))] = q.Text(1);
    }
    RETURN_IF_ERROR(q.status());
  }
  if (ctx.reader.HasColumn("ThreadNames", "globalTid") &&
      ctx.reader.HasColumn("ThreadNames", "nameId")) {
    ASSIGN_OR_RETURN(SqliteStatement q,
                     ctx.reader.Prepare("SELECT globalTid, nameId FROM ThreadNames"));
    while (q.Step()) {
      if (q.IsNull(0)) continue;
      int64_t global = q.Int(0);
      info.thread_names[{NsysProcessKey(global), DecodeNsysGlobalId(global).tid}] =
          std::string(ctx.strings.Get(ctx.strings.Id(q.Int(1))));
    }
    RETURN_IF_ERROR(q.status());
  }
  return Status::Ok();
}

// TARGET_INFO_GPU (every version) and, where present, TARGET_INFO_CUDA_DEVICE (2023+).
// Activity rows name devices by their CUDA ordinal: cuDevice / cudaId, else id.
Status ReadDevices(NsysContext& ctx, ExportInfo& info) {
  const std::string_view t = "TARGET_INFO_GPU";
  if (ctx.reader.HasTable(t)) {
    std::string id = ctx.reader.FirstColumn(t, {"cuDevice", "id"});
    if (id.empty()) return Status::Ok();
    std::string sql = fmt::format("SELECT {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {} FROM {}", id,
                                  ctx.Column(t, "name"), ctx.Column(t, "totalMemory"),
                                  ctx.Column(t, "smCount"), ctx.Column(t, "computeMajor"),
                                  ctx.Column(t, "computeMinor"), ctx.Column(t, "maxRegistersPerSm"),
                                  ctx.Column(t, "maxShmemPerSm"), ctx.Column(t, "threadsPerWarp"),
                                  ctx.Column(t, "maxWarpsPerSm"), ctx.Column(t, "id"), t);
    ASSIGN_OR_RETURN(SqliteStatement q, ctx.reader.Prepare(sql));
    while (q.Step()) {
      DeviceTable::Row row;
      row.id = static_cast<int32_t>(q.IsNull(0) ? q.IntOr(10, 0) : q.Int(0));
      row.total_memory_bytes = q.IntOr(2, kNoValue);
      row.sm_count = static_cast<int32_t>(q.IntOr(3, -1));
      row.compute_major = static_cast<int32_t>(q.IntOr(4, -1));
      row.compute_minor = static_cast<int32_t>(q.IntOr(5, -1));
      row.registers_per_sm = static_cast<int32_t>(q.IntOr(6, -1));
      row.shared_memory_per_sm = q.IntOr(7, kNoValue);
      row.warp_size = static_cast<int32_t>(q.IntOr(8, -1));
      if (!q.IsNull(8) && !q.IsNull(9)) {
        // Checked: two wild columns' product is no thread count.
        std::optional<int64_t> threads = CheckedMul(q.Int(8), q.Int(9));
        if (threads && std::in_range<int32_t>(*threads))
          row.max_threads_per_sm = static_cast<int32_t>(*threads);
      }
      bool seen = false;
      for (const DeviceTable::Row& d : info.devices) seen |= d.id == row.id;
      if (seen) continue;  // one row per GPU and VM; the first wins
      info.devices.push_back(row);
      info.device_names[row.id] = q.Text(1);
    }
    RETURN_IF_ERROR(q.status());
  }
  const std::string_view cuda = "TARGET_INFO_CUDA_DEVICE";
  std::string cuda_id = ctx.reader.FirstColumn(cuda, {"cudaId", "cuDevice", "id"});
  if (!cuda_id.empty() && ctx.reader.HasColumn(cuda, "name")) {
    ASSIGN_OR_RETURN(SqliteStatement q,
                     ctx.reader.Prepare(fmt::format("SELECT {}, name, {} FROM {}", cuda_id,
                                                    ctx.Column(cuda, "totalGlobalMem"), cuda)));
    while (q.Step()) {
      int32_t id = static_cast<int32_t>(q.Int(0));
      bool seen = false;
      for (const DeviceTable::Row& d : info.devices) seen |= d.id == id;
      if (seen) continue;
      DeviceTable::Row row;
      row.id = id;
      row.total_memory_bytes = q.IntOr(2, kNoValue);
      info.devices.push_back(row);
      info.device_names[id] = q.Text(1);
    }
    RETURN_IF_ERROR(q.status());
  }
  return Status::Ok();
}

// Ranks, from whichever of these the export has: MPI_RANKS(globalTid, rank) (--trace=mpi),
// or a per-process environment table (a table whose name ends in ENV with globalPid or
// globalTid, name and value columns) holding RANK, OMPI_COMM_WORLD_RANK, ...
Status ReadRanks(NsysContext& ctx, ExportInfo& info) {
  std::map<int64_t, int> precedence;
  for (const std::string& table : ctx.reader.tables()) {
    std::string global = ctx.reader.FirstColumn(table, {"globalPid", "globalTid"});
    if (global.empty()) continue;
    std::string sql;
    if (table == "MPI_RANKS" && ctx.reader.HasColumn(table, "rank")) {
      sql = fmt::format("SELECT {}, 'RANK', rank FROM {}", global, table);
    } else if (table.size() >= 3 && table.compare(table.size() - 3, 3, "ENV") == 0 &&
               ctx.reader.HasColumn(table, "name") && ctx.reader.HasColumn(table, "value")) {
      sql = fmt::format("SELECT {}, name, value FROM \"{}\"", global, table);
    } else {
      continue;
    }
    ASSIGN_OR_RETURN(SqliteStatement q, ctx.reader.Prepare(sql));
    while (q.Step()) {
      int order = RankVariablePrecedence(q.Text(1));
      if (order < 0 || q.IsNull(0)) continue;
      std::optional<int64_t> rank = ParseInt(q.Text(2));
      if (!rank || *rank < 0) continue;
      int64_t key = NsysProcessKey(q.Int(0));
      auto [it, inserted] = precedence.try_emplace(key, order);
      if (!inserted && it->second <= order) continue;
      it->second = order;
      info.ranks[key] = *rank;
    }
    RETURN_IF_ERROR(q.status());
  }
  return Status::Ok();
}

}  // namespace

int RankVariablePrecedence(std::string_view name) {
  constexpr std::string_view kOrder[] = {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID",
                                         "LOCAL_RANK"};
  for (size_t i = 0; i < std::size(kOrder); ++i) {
    if (name == kOrder[i]) return static_cast<int>(i);
  }
  return -1;
}

StatusOr<ExportInfo> ReadExportInfo(NsysContext& ctx) {
  ExportInfo info;
  RETURN_IF_ERROR(ReadMetaData(ctx, info));
  RETURN_IF_ERROR(ReadNames(ctx, info));
  RETURN_IF_ERROR(ReadDevices(ctx, info));
  RETURN_IF_ERROR(ReadRanks(ctx, info));
  for (std::string_view table : kCountedTables) {
    if (!ctx.reader.HasTable(table)) continue;
    ASSIGN_OR_RETURN(int64_t rows, ctx.reader.CountRows(table));
    info.table_rows[fmt::format("nsys/{}", table)] = rows;
  }
  return info;
}

}  // namespace gpuwhy
