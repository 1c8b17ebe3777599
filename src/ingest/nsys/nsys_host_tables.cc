// CUPTI_ACTIVITY_KIND_{RUNTIME,DRIVER}, NVTX_EVENTS and OSRT_API -> cpu_slices.
#include <cctype>

#include "ingest/nsys/nsys_context.h"

namespace gpuwhy {
namespace {

// nsys names API calls with the version that introduced them: "cudaLaunchKernel_v7000".
// Kineto (and every rule) uses the plain name. Only a 4+ digit tag is dropped, so a real
// symbol suffix such as cuMemcpyDtoH_v2 stays.
std::string_view StripApiVersion(std::string_view name) {
  size_t at = name.rfind("_v");
  if (at == std::string_view::npos) return name;
  std::string_view digits = name.substr(at + 2);
  if (digits.size() < 4) return name;
  for (char c : digits) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return name;
  }
  return name.substr(0, at);
}

// Caches a per-export-string answer in a vector indexed by the export pool id.
template <typename T>
T& Slot(std::vector<T>& cache, StringId global, size_t pool_size) {
  if (global.value >= cache.size()) cache.resize(pool_size + 1);
  return cache[global.value];
}

// OS runtime rows carry correlation ids of their own id space: never join them to GPU work.
enum class Correlation { kKeep, kDrop };

Status ReadApiCalls(NsysContext& ctx, std::string_view t, CpuSliceKind kind, Correlation corr) {
  if (!ctx.reader.HasTable(t)) return Status::Ok();
  RETURN_IF_ERROR(ctx.RequireColumns(t, {"start", "end", "globalTid", "nameId"}));
  // OS runtime rows: the correlation column is read as absent (NULL).
  ASSIGN_OR_RETURN(
      TableRows q,
      ctx.reader.ReadColumns(t, {"start", "end", "globalTid",
                                 corr == Correlation::kKeep ? "correlationId" : "", "nameId"}));
  std::vector<StringId> stripped;  // export StringId -> export id of the plain name
  CpuSliceTable::Row row;
  row.kind = kind;
  while (q.Step()) {
    int64_t global_tid = q.IntOr(2, 0);
    NsysProcess& p = ctx.Process(global_tid);
    row.start = q.Int(0);
    row.end = q.Int(1);
    if (row.end < row.start) {
      p.trace.problems.Increment(DataProblem::kNegativeDuration);
      continue;
    }
    row.thread = ctx.Thread(p, global_tid);
    row.correlation = q.IntOr(3, kNoValue);
    StringId global = ctx.strings.Id(q.Int(4));
    if (!global.valid()) {
      ++ctx.unknown_string_ids;
    } else {
      StringId& plain = Slot(stripped, global, ctx.strings.size());
      if (!plain.valid()) plain = ctx.strings.Add(StripApiVersion(ctx.strings.Get(global)));
      global = plain;
    }
    row.name = ctx.Localize(p, global);
    p.trace.cpu_slices.Append(row);
  }
  return q.status();
}

// An NVTX range's model kind and name. PyTorch's emit_nvtx() names op ranges
// "aten::mm, seq = 12, op_id = 40, sizes = [...]": those are ops (kOp) named like Kineto's
// cpu_op; every other range (record_function, ProfilerStep#N, user ranges) is an annotation.
struct NvtxName {
  StringId name;
  CpuSliceKind kind = CpuSliceKind::kUserAnnotation;
  bool set = false;
};

NvtxName ClassifyNvtx(NsysContext& ctx, StringId global) {
  std::string_view text = ctx.strings.Get(global);
  NvtxName out;
  out.set = true;
  out.name = global;
  if (text.starts_with("aten::") || text.starts_with("autograd::")) {
    out.kind = CpuSliceKind::kOp;
    size_t comma = text.find(", ");
    if (comma != std::string_view::npos) out.name = ctx.strings.Add(text.substr(0, comma));
  }
  return out;
}

Status ReadNvtx(NsysContext& ctx) {
  const std::string_view t = "NVTX_EVENTS";
  if (!ctx.reader.HasTable(t)) return Status::Ok();
  RETURN_IF_ERROR(ctx.RequireColumns(t, {"start", "end", "eventType", "globalTid"}));
  ASSIGN_OR_RETURN(TableRows q, ctx.reader.ReadColumns(t, {"start", "end", "globalTid", "text",
                                                           "textId", "eventType"}));
  std::vector<NvtxName> classified;
  CpuSliceTable::Row row;
  while (q.Step()) {
    int64_t type = q.Int(5);
    if (type != kNvtxPushPopRange && type != kNvtxStartEndRange) continue;  // marks, domains, ...
    int64_t global_tid = q.IntOr(2, 0);
    NsysProcess& p = ctx.Process(global_tid);
    if (q.IsNull(1)) {  // a range still open when the capture ended
      p.trace.problems.Increment(DataProblem::kMissingField);
      continue;
    }
    row.start = q.Int(0);
    row.end = q.Int(1);
    if (row.end < row.start) {
      p.trace.problems.Increment(DataProblem::kNegativeDuration);
      continue;
    }
    row.thread = ctx.Thread(p, global_tid);
    StringId global;
    if (!q.IsNull(3)) {
      global = ctx.strings.Add(q.Text(3));
    } else {
      global = ctx.strings.Id(q.IntOr(4, -1));
      if (!global.valid()) ++ctx.unknown_string_ids;
    }
    NvtxName name;
    if (global.valid()) {
      NvtxName& cached = Slot(classified, global, ctx.strings.size());
      if (!cached.set) cached = ClassifyNvtx(ctx, global);
      name = cached;
    }
    row.kind = name.kind;
    row.name = ctx.Localize(p, name.name);
    p.trace.cpu_slices.Append(row);
  }
  return q.status();
}

}  // namespace

Status ReadHostTables(NsysContext& ctx) {
  RETURN_IF_ERROR(
      ReadApiCalls(ctx, "CUPTI_ACTIVITY_KIND_RUNTIME", CpuSliceKind::kRuntime, Correlation::kKeep));
  RETURN_IF_ERROR(
      ReadApiCalls(ctx, "CUPTI_ACTIVITY_KIND_DRIVER", CpuSliceKind::kDriver, Correlation::kKeep));
  RETURN_IF_ERROR(ReadNvtx(ctx));
  // OS runtime calls (pthread_cond_wait, read, ioctl, ...): host blocking time, kept as
  // kOther so they never count as framework work or stretch the trace span.
  return ReadApiCalls(ctx, "OSRT_API", CpuSliceKind::kOther, Correlation::kDrop);
}

}  // namespace gpuwhy
