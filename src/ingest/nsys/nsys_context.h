// Shared state of one Nsight Systems import: the export's string table, one Trace under
// construction per process (keyed by globalPid >> 24), and the enum maps. The table
// readers (nsys_gpu_tables.cc, nsys_host_tables.cc, nsys_extra_tables.cc) append to it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/string_pool.h"
#include "ingest/nsys/nsys_encoding.h"
#include "ingest/nsys/nsys_importer.h"
#include "ingest/nsys/sqlite_reader.h"
#include "model/trace.h"

namespace gpuwhy {

// The table every export with GPU work has (kernels); the importer requires it.
inline constexpr std::string_view kKernelTable = "CUPTI_ACTIVITY_KIND_KERNEL";

// StringIds(id, value), interned once; ids are looked up through a dense vector (a map for
// the few far beyond the rows).
class NsysStrings {
 public:
  Status Load(const SqliteReader& reader);
  // The string of export id |id|, or "" when the id is unknown (counted by the caller).
  bool Has(int64_t id) const { return Id(id).valid(); }
  StringId Id(int64_t id) const {
    if (id >= 0 && static_cast<size_t>(id) < by_id_.size()) return by_id_[static_cast<size_t>(id)];
    if (sparse_by_id_.empty()) return StringId();
    auto it = sparse_by_id_.find(id);
    return it == sparse_by_id_.end() ? StringId() : it->second;
  }
  std::string_view Get(StringId id) const {
    return id.valid() ? pool_.Get(id) : std::string_view();
  }
  // Interns a string the export holds outside StringIds (NVTX text, trimmed API names).
  StringId Add(std::string_view text) { return pool_.Intern(text); }
  size_t size() const { return pool_.size(); }

 private:
  StringPool pool_;
  std::vector<StringId> by_id_;                         // dense ids: at most 2 per row
  std::unordered_map<int64_t, StringId> sparse_by_id_;  // ids past that
};

struct NsysProcess {
  int64_t key = 0;  // globalPid >> 24: hardware, VM and process id
  Trace trace;
  // Export-pool StringId -> this trace's StringId, filled on first use.
  std::vector<StringId> string_map;
  int64_t cached_global_tid = -1;
  ThreadId cached_thread;
};

struct NsysContext {
  explicit NsysContext(SqliteReader r, NsysImportOptions o)
      : reader(std::move(r)), options(std::move(o)) {}

  SqliteReader reader;
  NsysImportOptions options;
  NsysStrings strings;
  NsysEnums enums;
  std::vector<std::unique_ptr<NsysProcess>> processes;
  std::unordered_map<int64_t, size_t> process_index;
  NsysProcess* last_process = nullptr;
  // Rows whose string id is not in StringIds; reported once per import as malformed.
  int64_t unknown_string_ids = 0;
  // Row counts of the GPU and host tables: the first process (usually the only one)
  // reserves its columns once, instead of growing and copying them (page faults and
  // reallocation were half of the import time).
  size_t gpu_rows_hint = 0;
  size_t host_rows_hint = 0;

  // The process of a globalPid or globalTid (rows of one process come in long runs, so
  // the last one is remembered).
  NsysProcess& Process(int64_t global) { return ProcessByKey(NsysProcessKey(global)); }
  NsysProcess& ProcessByKey(int64_t key) {
    if (last_process != nullptr && last_process->key == key) return *last_process;
    auto [it, inserted] = process_index.try_emplace(key, processes.size());
    if (inserted) {
      bool first = processes.empty();
      processes.push_back(std::make_unique<NsysProcess>());
      if (first) {
        processes.back()->trace.gpu_ops.Reserve(gpu_rows_hint);
        processes.back()->trace.cpu_slices.Reserve(host_rows_hint);
      }
      processes.back()->key = key;
      processes.back()->string_map.resize(strings.size());
    }
    last_process = processes[it->second].get();
    return *last_process;
  }

  // The trace's StringId of export string |id| (a StringIds.id).
  StringId Intern(NsysProcess& p, int64_t id) {
    StringId global = strings.Id(id);
    if (!global.valid()) ++unknown_string_ids;
    return Localize(p, global);
  }

  // The trace's StringId of a string of the export pool (invalid: "").
  StringId Localize(NsysProcess& p, StringId global) {
    if (!global.valid()) return p.trace.strings.Intern("");
    if (global.value >= p.string_map.size()) p.string_map.resize(strings.size());
    StringId& local = p.string_map[global.value];
    if (!local.valid()) local = p.trace.strings.Intern(strings.Get(global));
    return local;
  }

  ThreadId Thread(NsysProcess& p, int64_t global_tid) {
    if (p.cached_global_tid == global_tid) return p.cached_thread;
    NsysGlobalId id = DecodeNsysGlobalId(global_tid);
    p.cached_global_tid = global_tid;
    p.cached_thread = p.trace.GetOrCreateThread(id.pid, id.tid);
    return p.cached_thread;
  }

  // A table every export schema we know gives these columns: one line naming the first missing.
  Status RequireColumns(std::string_view table,
                        std::initializer_list<std::string_view> columns) const {
    for (std::string_view column : columns) {
      if (!reader.HasColumn(table, column)) {
        return InvalidArgument("{}: table {} has no column {} (unknown Nsight Systems schema)",
                               reader.path(), table, column);
      }
    }
    return Status::Ok();
  }

  // "col" when |table| has it, else "NULL", for SELECT lists over drifting schemas.
  std::string Column(std::string_view table, std::string_view column) const {
    return reader.HasColumn(table, column) ? std::string(column) : std::string("NULL");
  }
};

// Table readers; each is a no-op when its table is absent.
Status ReadGpuTables(NsysContext& ctx);    // kernels, memcpy, memset, synchronization
Status ReadHostTables(NsysContext& ctx);   // runtime, driver, NVTX, OS runtime
Status ReadExtraTables(NsysContext& ctx);  // memory usage, GPU metrics
Status ReadGpuMetrics(NsysContext& ctx);   // GPU_METRICS, binned (nsys_gpu_metrics.cc)
// Applies the step rule to the NVTX ranges of one process.
Status SelectSteps(NsysContext& ctx, NsysProcess& process);

}  // namespace gpuwhy
