// CUPTI_ACTIVITY_KIND_{KERNEL,MEMCPY,MEMSET,SYNCHRONIZATION} -> gpu_ops and gpu_syncs.
#include <array>
#include <memory>
#include <unordered_map>
#include <vector>

#include "ingest/nsys/nsys_context.h"

namespace gpuwhy {
namespace {

constexpr std::string_view kMemcpyTable = "CUPTI_ACTIVITY_KIND_MEMCPY";
constexpr std::string_view kMemsetTable = "CUPTI_ACTIVITY_KIND_MEMSET";
constexpr std::string_view kSyncTable = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";

int32_t Int32(int64_t v) { return static_cast<int32_t>(v); }

// Appends one GPU op; rows with end < start are counted and skipped, as in Kineto.
bool CheckTimes(NsysProcess& p, int64_t start, int64_t end) {
  if (end >= start) return true;
  p.trace.problems.Increment(DataProblem::kNegativeDuration);
  return false;
}

// Columns 0-5 of every GPU activity SELECT here: start, end, deviceId, streamId,
// correlationId, globalPid. Returns the row's process, or nullptr for a skipped row.
NsysProcess* ReadActivityColumns(NsysContext& ctx, const TableRows& q, GpuOpTable::Row& row) {
  NsysProcess& p = ctx.Process(q.IntOr(5, 0));
  row.start = q.Int(0);
  row.end = q.Int(1);
  if (!CheckTimes(p, row.start, row.end)) return nullptr;
  row.device = Int32(q.Int(2));
  row.stream = q.Int(3);
  row.correlation = q.IntOr(4, kNoValue);
  return &p;
}

// One GPU activity table being read, a row at a time. Each table comes in start order in
// the exports we know, so ReadGpuTables merges the three by (start, end) while reading: the
// GPU ops arrive sorted and Trace::Finalize has nothing to reorder (out-of-order rows are
// still sorted there, only slower).
class GpuTableReader {
 public:
  GpuTableReader(TableRows rows, GpuOpKind kind) : rows_(std::move(rows)) { row_.kind = kind; }
  virtual ~GpuTableReader() = default;
  bool Next() { return rows_.Step(); }
  const Status& status() const { return rows_.status(); }
  // The current row's (start, end): the merge order.
  std::pair<int64_t, int64_t> key() const { return {rows_.Int(0), rows_.Int(1)}; }
  // Appends the current row to its process's trace (or counts why it cannot).
  void Append(NsysContext& ctx) {
    NsysProcess* process = ReadActivityColumns(ctx, rows_, row_);
    if (process == nullptr) return;
    ReadOwnColumns(ctx, *process, rows_, row_);
    process->trace.gpu_ops.Append(row_);
  }

 protected:
  // Columns 6 on, which only this table has.
  virtual void ReadOwnColumns(NsysContext& ctx, NsysProcess& p, const TableRows& q,
                              GpuOpTable::Row& row) = 0;

 private:
  TableRows rows_;
  GpuOpTable::Row row_;
};

class KernelReader : public GpuTableReader {
 public:
  explicit KernelReader(TableRows rows) : GpuTableReader(std::move(rows), GpuOpKind::kKernel) {}

 protected:
  void ReadOwnColumns(NsysContext& ctx, NsysProcess& p, const TableRows& q,
                      GpuOpTable::Row& row) override {
    row.name = ctx.Intern(p, q.Int(6));
    LaunchConfig& l = row.launch;
    for (int i = 0; i < 3; ++i) {
      l.grid[i] = Int32(q.IntOr(7 + i, -1));
      l.block[i] = Int32(q.IntOr(10 + i, -1));
    }
    l.registers_per_thread = Int32(q.IntOr(13, -1));
    l.shared_memory_bytes = -1;
    if (!q.IsNull(14) || !q.IsNull(15)) {
      l.shared_memory_bytes = Int32(q.IntOr(14, 0) + q.IntOr(15, 0));
    }
    l.graph_node_id = q.IntOr(16, kNoValue);
    l.graph_id = q.IntOr(17, kNoValue);
  }
};

StatusOr<std::unique_ptr<GpuTableReader>> OpenKernels(NsysContext& ctx) {
  const std::string_view t = kKernelTable;
  RETURN_IF_ERROR(ctx.RequireColumns(t, {"start", "end", "deviceId", "streamId"}));
  std::string name = ctx.reader.FirstColumn(t, {"demangledName", "shortName", "mangledName"});
  if (name.empty()) {
    return InvalidArgument("{}: table {} has no kernel name column (demangledName or shortName)",
                           ctx.reader.path(), t);
  }
  ASSIGN_OR_RETURN(
      TableRows q,
      ctx.reader.ReadColumns(
          t, {"start", "end", "deviceId", "streamId", "correlationId", "globalPid", name, "gridX",
              "gridY", "gridZ", "blockX", "blockY", "blockZ", "registersPerThread",
              "staticSharedMemory", "dynamicSharedMemory", "graphNodeId", "graphId"}));
  return std::unique_ptr<GpuTableReader>(std::make_unique<KernelReader>(std::move(q)));
}

// "Memcpy HtoD (Pageable -> Device)" is formatted once per combination and process.
StringId CopyName(NsysProcess& p, CopyDirection d, MemoryKind src, MemoryKind dst,
                  std::unordered_map<uint32_t, StringId>& cache) {
  uint32_t key = static_cast<uint32_t>(p.key & 0xffff) << 16 | static_cast<uint32_t>(d) << 8 |
                 static_cast<uint32_t>(src) << 4 | static_cast<uint32_t>(dst);
  auto [it, inserted] = cache.try_emplace(key);
  if (inserted) it->second = p.trace.strings.Intern(MemcpyDisplayName(d, src, dst));
  return it->second;
}

class MemcpyReader : public GpuTableReader {
 public:
  explicit MemcpyReader(TableRows rows) : GpuTableReader(std::move(rows), GpuOpKind::kMemcpy) {}

 protected:
  void ReadOwnColumns(NsysContext& ctx, NsysProcess& p, const TableRows& q,
                      GpuOpTable::Row& row) override {
    row.bytes = q.Int(6);
    row.copy_direction = ctx.enums.Direction(q.IntOr(7, 0));
    row.src_kind = q.IsNull(8) ? MemoryKind::kUnknown : ctx.enums.Memory(q.Int(8));
    row.dst_kind = q.IsNull(9) ? MemoryKind::kUnknown : ctx.enums.Memory(q.Int(9));
    row.name = CopyName(p, row.copy_direction, row.src_kind, row.dst_kind, names_);
  }

 private:
  std::unordered_map<uint32_t, StringId> names_;
};

StatusOr<std::unique_ptr<GpuTableReader>> OpenMemcpys(NsysContext& ctx) {
  const std::string_view t = kMemcpyTable;
  if (!ctx.reader.HasTable(t)) return std::unique_ptr<GpuTableReader>();
  RETURN_IF_ERROR(ctx.RequireColumns(t, {"start", "end", "deviceId", "streamId", "bytes"}));
  ASSIGN_OR_RETURN(TableRows q, ctx.reader.ReadColumns(
                                    t, {"start", "end", "deviceId", "streamId", "correlationId",
                                        "globalPid", "bytes", "copyKind", "srcKind", "dstKind"}));
  return std::unique_ptr<GpuTableReader>(std::make_unique<MemcpyReader>(std::move(q)));
}

class MemsetReader : public GpuTableReader {
 public:
  explicit MemsetReader(TableRows rows) : GpuTableReader(std::move(rows), GpuOpKind::kMemset) {}

 protected:
  void ReadOwnColumns(NsysContext& ctx, NsysProcess& p, const TableRows& q,
                      GpuOpTable::Row& row) override {
    row.bytes = q.Int(6);
    // Kineto's name for every memset is "Memset (Device)"; keep the memory kind in it.
    MemoryKind kind = q.IsNull(7) ? MemoryKind::kDevice : ctx.enums.Memory(q.Int(7));
    row.dst_kind = kind;
    row.name = p.trace.strings.Intern(kind == MemoryKind::kDevice    ? "Memset (Device)"
                                      : kind == MemoryKind::kManaged ? "Memset (Managed)"
                                      : kind == MemoryKind::kPinned  ? "Memset (Pinned)"
                                                                     : "Memset (Unknown)");
  }
};

StatusOr<std::unique_ptr<GpuTableReader>> OpenMemsets(NsysContext& ctx) {
  const std::string_view t = kMemsetTable;
  if (!ctx.reader.HasTable(t)) return std::unique_ptr<GpuTableReader>();
  RETURN_IF_ERROR(ctx.RequireColumns(t, {"start", "end", "deviceId", "streamId", "bytes"}));
  ASSIGN_OR_RETURN(TableRows q,
                   ctx.reader.ReadColumns(t, {"start", "end", "deviceId", "streamId",
                                              "correlationId", "globalPid", "bytes", "memKind"}));
  return std::unique_ptr<GpuTableReader>(std::make_unique<MemsetReader>(std::move(q)));
}

// Kernels, copies and memsets, merged by (start, end); ties keep this table order.
Status ReadGpuOps(NsysContext& ctx) {
  std::vector<std::unique_ptr<GpuTableReader>> live;
  for (auto open : {OpenKernels, OpenMemcpys, OpenMemsets}) {
    ASSIGN_OR_RETURN(std::unique_ptr<GpuTableReader> reader, open(ctx));
    if (reader == nullptr) continue;
    if (reader->Next()) {
      live.push_back(std::move(reader));
    } else {
      RETURN_IF_ERROR(reader->status());
    }
  }
  while (!live.empty()) {
    size_t first = 0;
    for (size_t i = 1; i < live.size(); ++i) {
      if (live[i]->key() < live[first]->key()) first = i;
    }
    live[first]->Append(ctx);
    if (!live[first]->Next()) {
      RETURN_IF_ERROR(live[first]->status());
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(first));
    }
  }
  return Status::Ok();
}

Status ReadSyncs(NsysContext& ctx) {
  const std::string_view t = kSyncTable;
  if (!ctx.reader.HasTable(t)) return Status::Ok();
  RETURN_IF_ERROR(ctx.RequireColumns(t, {"start", "end", "deviceId", "streamId"}));
  ASSIGN_OR_RETURN(TableRows q,
                   ctx.reader.ReadColumns(t, {"start", "end", "deviceId", "streamId",
                                              "correlationId", "globalPid", "syncType"}));
  std::array<StringId, 5> names{};
  NsysProcess* named_for = nullptr;
  while (q.Step()) {
    NsysProcess& p = ctx.Process(q.IntOr(5, 0));
    GpuSyncTable::Row row;
    row.start = q.Int(0);
    row.end = q.Int(1);
    if (!CheckTimes(p, row.start, row.end)) continue;
    row.device = Int32(q.Int(2));
    row.stream = q.Int(3);
    row.correlation = q.IntOr(4, kNoValue);
    int64_t type = q.IntOr(6, 0);
    if (named_for != &p) {
      names.fill(StringId());
      named_for = &p;
    }
    size_t slot = type >= 1 && type <= 4 ? static_cast<size_t>(type) : 0;
    if (!names[slot].valid()) names[slot] = p.trace.strings.Intern(NsysSyncName(type));
    row.name = names[slot];
    p.trace.gpu_syncs.rows.push_back(row);
  }
  return q.status();
}

}  // namespace

Status ReadGpuTables(NsysContext& ctx) {
  RETURN_IF_ERROR(ReadGpuOps(ctx));
  return ReadSyncs(ctx);
}

}  // namespace gpuwhy
