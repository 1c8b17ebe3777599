#include "ingest/nsys/nsys_importer.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <thread>

#include "ingest/nsys/nsys_context.h"
#include "ingest/nsys/nsys_export_info.h"

namespace gpuwhy {
namespace {


std::string ListTables(const SqliteReader& reader) {
  constexpr size_t kMaxListed = 8;
  std::vector<std::string> names(reader.tables().begin(), reader.tables().end());
  std::string out;
  for (size_t i = 0; i < names.size() && i < kMaxListed; ++i) {
    if (i > 0) out += ", ";
    out += names[i];
  }
  if (names.size() > kMaxListed) out += fmt::format(" and {} more", names.size() - kMaxListed);
  return out.empty() ? "no tables" : out;
}

// Names what is missing, in one line, before anything is read.
Status CheckIsNsysExport(const SqliteReader& reader) {
  bool cupti = false;
  bool target_info = false;
  for (const std::string& table : reader.tables()) {
    cupti |= table.starts_with("CUPTI_ACTIVITY_KIND_");
    target_info |= table.starts_with("TARGET_INFO_");
  }
  if (!reader.HasTable("StringIds") ||
      !(reader.HasTable("EXPORT_META_DATA") || target_info || cupti)) {
    return InvalidArgument(
        "{}: SQLite, but not an Nsight Systems export: no StringIds table with "
        "EXPORT_META_DATA, TARGET_INFO_* or CUPTI_ACTIVITY_KIND_* tables (it has {})",
        reader.path(), ListTables(reader));
  }
  if (!cupti) {
    return InvalidArgument(
        "{}: this Nsight Systems export captured no CUDA activity (no CUPTI_ACTIVITY_KIND_* "
        "tables; it has {}); capture CUDA with: {}",
        reader.path(), ListTables(reader), kNsysProfileHint);
  }
  if (!reader.HasTable(kKernelTable)) {
    return InvalidArgument(
        "{}: no {} table: the capture recorded CUDA calls but no GPU kernels; capture them "
        "with: {}",
        reader.path(), kKernelTable, kNsysProfileHint);
  }
  return Status::Ok();
}

Status LoadEnums(NsysContext& ctx) {
  struct EnumTable {
    std::string_view table;
    void (NsysEnums::*adopt)(const std::vector<std::pair<int64_t, std::string_view>>&);
  };
  for (const EnumTable& e : {EnumTable{"ENUM_CUDA_MEMCPY_OPER", &NsysEnums::AdoptCopyKindNames},
                             EnumTable{"ENUM_CUDA_MEM_KIND", &NsysEnums::AdoptMemoryKindNames}}) {
    if (!ctx.reader.HasColumn(e.table, "id") || !ctx.reader.HasColumn(e.table, "name")) continue;
    ASSIGN_OR_RETURN(SqliteStatement q,
                     ctx.reader.Prepare(fmt::format("SELECT id, name FROM {}", e.table)));
    std::vector<std::string> storage;
    std::vector<std::pair<int64_t, int64_t>> rows;
    while (q.Step()) {
      rows.emplace_back(q.Int(0), static_cast<int64_t>(storage.size()));
      storage.emplace_back(q.Text(1));
    }
    RETURN_IF_ERROR(q.status());
    std::vector<std::pair<int64_t, std::string_view>> names;
    for (const auto& [id, index] : rows) names.emplace_back(id, storage[index]);
    (ctx.enums.*e.adopt)(names);
  }
  return Status::Ok();
}

void NameThreads(NsysProcess& p, const ExportInfo& info) {
  Trace& trace = p.trace;
  for (size_t i = 0; i < trace.threads.size(); ++i) {
    auto it = info.thread_names.find({p.key, trace.threads.tid[i]});
    if (it != info.thread_names.end()) trace.threads.name[i] = trace.strings.Intern(it->second);
  }
}

void FillMetadata(NsysProcess& p, const ExportInfo& info, const std::string& path) {
  TraceMetadata& m = p.trace.metadata;
  m.path = path;
  m.format = "nsys-sqlite";
  std::error_code ec;
  m.file_size_bytes = std::filesystem::file_size(path, ec);
  if (ec) m.file_size_bytes = 0;
  m.content_bytes = m.file_size_bytes;
  m.vendor = GpuVendor::kNvidia;
  if (info.session_start_utc_ns) m.base_time_ns = info.session_start_utc_ns;
  // Merged: the table readers have already put their own keys (GPU metrics' bin width) here.
  for (const auto& [key, value] : info.extra) m.extra[key] = value;
  auto process = info.process_names.find(p.key);
  m.trace_name = process != info.process_names.end() ? process->second : "";
  m.extra["pid"] = fmt::format("{}", DecodeNsysGlobalId(p.key << 24).pid);
  m.raw_event_counts = info.table_rows;
  for (const DeviceTable::Row& device : info.devices) {
    DeviceTable::Row row = device;
    auto name = info.device_names.find(device.id);
    if (name != info.device_names.end()) row.name = p.trace.strings.Intern(name->second);
    p.trace.devices.rows.push_back(row);
  }
}

// Row counts first: the process's columns are reserved once instead of growing (page faults
// and copies were half of the import time before).
StatusOr<size_t> CountRows(const SqliteReader& reader,
                           std::initializer_list<std::string_view> tables) {
  size_t rows = 0;
  for (std::string_view table : tables) {
    ASSIGN_OR_RETURN(int64_t n, reader.CountRows(table));
    rows += static_cast<size_t>(n);
  }
  return rows;
}

Status ReadGpuSide(NsysContext& ctx) {
  ASSIGN_OR_RETURN(ctx.gpu_rows_hint, CountRows(ctx.reader, {"CUPTI_ACTIVITY_KIND_KERNEL",
                                                             "CUPTI_ACTIVITY_KIND_MEMCPY",
                                                             "CUPTI_ACTIVITY_KIND_MEMSET"}));
  return ReadGpuTables(ctx);
}

Status ReadHostSide(NsysContext& ctx) {
  ASSIGN_OR_RETURN(ctx.host_rows_hint, CountRows(ctx.reader, {"CUPTI_ACTIVITY_KIND_RUNTIME",
                                                              "CUPTI_ACTIVITY_KIND_DRIVER",
                                                              "NVTX_EVENTS", "OSRT_API"}));
  return ReadHostTables(ctx);
}

}  // namespace

Status NsysStrings::Load(const SqliteReader& reader) {
  if (!reader.HasColumn("StringIds", "id") || !reader.HasColumn("StringIds", "value")) {
    return InvalidArgument(
        "{}: table StringIds has no id/value columns (unknown Nsight Systems schema)",
        reader.path());
  }
  ASSIGN_OR_RETURN(TableRows q, reader.ReadColumns("StringIds", {"id", "value"}));
  uint64_t rows = 0;
  while (q.Step()) {
    int64_t id = q.Int(0);
    ++rows;
    if (id < 0) continue;
    const StringId value = pool_.Intern(q.Text(1));
    // Ids are small and dense in every export we know (the primary key, read in order): a
    // vector, but never longer than twice the rows read so far. A wild id (2^31 once sized an
    // 8 GB vector from one row) goes to a map, also one entry per row.
    if (static_cast<uint64_t>(id) >= 2 * rows + 1024) {
      sparse_by_id_[id] = value;
      continue;
    }
    if (static_cast<size_t>(id) >= by_id_.size()) by_id_.resize(static_cast<size_t>(id) + 1);
    by_id_[static_cast<size_t>(id)] = value;
  }
  return q.status();
}

StatusOr<std::vector<Trace>> ImportNsysSqlite(const std::string& path,
                                              const NsysImportOptions& options) {
  ASSIGN_OR_RETURN(SqliteReader reader, SqliteReader::Open(path));
  RETURN_IF_ERROR(CheckIsNsysExport(reader));
  NsysContext ctx(std::move(reader), options);
  RETURN_IF_ERROR(ctx.strings.Load(ctx.reader));
  RETURN_IF_ERROR(LoadEnums(ctx));
  // The host tables (API calls, NVTX, OS runtime) are read on a second thread into a context
  // of their own (connection, strings, one trace per process), joined per process afterwards:
  // the two halves share nothing while they run.
  ASSIGN_OR_RETURN(SqliteReader host_reader, ctx.reader.OpenAnother());
  NsysContext host(std::move(host_reader), options);
  RETURN_IF_ERROR(host.strings.Load(host.reader));
  Status host_status;
  {
    std::jthread host_thread([&host, &host_status] { host_status = ReadHostSide(host); });
    RETURN_IF_ERROR(ReadGpuSide(ctx));
  }
  RETURN_IF_ERROR(host_status);
  for (auto& p : host.processes) ctx.ProcessByKey(p->key).trace.AbsorbCpuSide(std::move(p->trace));
  ctx.unknown_string_ids += host.unknown_string_ids;
  RETURN_IF_ERROR(ReadExtraTables(ctx));
  ASSIGN_OR_RETURN(ExportInfo info, ReadExportInfo(ctx));

  // One trace per process that ran GPU work; host-only processes (launchers, nsys itself)
  // have nothing to diagnose.
  std::vector<NsysProcess*> kept;
  for (auto& p : ctx.processes) {
    if (p->trace.gpu_ops.size() > 0) kept.push_back(p.get());
  }
  if (kept.empty()) {
    return InvalidArgument(
        "{}: {} is empty: the capture recorded no GPU kernels; capture them with: {}", path,
        kKernelTable, kNsysProfileHint);
  }
  std::sort(kept.begin(), kept.end(),
            [](const NsysProcess* a, const NsysProcess* b) { return a->key < b->key; });
  for (size_t i = 0; i < kept.size(); ++i) {
    NsysProcess& p = *kept[i];
    auto rank = info.ranks.find(p.key);
    if (rank != info.ranks.end()) {
      p.trace.rank.rank = rank->second;
      p.trace.rank.source = RankSource::kDistributedInfo;
    } else if (kept.size() > 1) {
      p.trace.rank.rank = static_cast<int64_t>(i);  // process order, when nothing says more
    }
    if (kept.size() > 1) p.trace.rank.world_size = static_cast<int64_t>(kept.size());
    FillMetadata(p, info, path);
    NameThreads(p, info);
    if (ctx.unknown_string_ids > 0) {
      p.trace.problems.Add(
          DataProblem::kMalformedEvent,
          fmt::format("{} rows name a string id missing from StringIds", ctx.unknown_string_ids),
          ctx.unknown_string_ids);
    }
    RETURN_IF_ERROR(SelectSteps(ctx, p));
    p.trace.Finalize();
  }
  std::vector<Trace> traces;
  traces.reserve(kept.size());
  for (NsysProcess* p : kept) traces.push_back(std::move(p->trace));
  std::stable_sort(traces.begin(), traces.end(),
                   [](const Trace& a, const Trace& b) { return a.rank.rank < b.rank.rank; });
  return traces;
}

}  // namespace gpuwhy
