// What an Nsight Systems export says about itself and its processes: EXPORT_META_DATA,
// TARGET_INFO_* (session start, system, GPUs), PROCESSES, ThreadNames and ranks.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ingest/nsys/nsys_context.h"

namespace gpuwhy {

struct ExportInfo {
  std::map<std::string, std::string> extra;  // product/schema version, host, driver
  std::optional<int64_t> session_start_utc_ns;
  std::map<int64_t, std::string> process_names;                     // by process key
  std::map<std::pair<int64_t, int64_t>, std::string> thread_names;  // (process key, tid)
  std::vector<DeviceTable::Row> devices;                            // names below
  std::map<int32_t, std::string> device_names;
  std::map<int64_t, int64_t> ranks;           // process key -> rank, where the export records one
  std::map<std::string, int64_t> table_rows;  // "nsys/TABLE" -> rows, for `gpuwhy info`
};

StatusOr<ExportInfo> ReadExportInfo(NsysContext& ctx);

// The rank an environment variable states, by precedence: RANK, OMPI_COMM_WORLD_RANK,
// PMI_RANK, SLURM_PROCID, LOCAL_RANK. Lower value = preferred; -1 = not a rank variable.
int RankVariablePrecedence(std::string_view name);

}  // namespace gpuwhy
