// How Nsight Systems encodes ids and enums in its SQLite export, in one place.
//
// globalTid / globalPid ("Serialized GlobalId", every schema version we know, 2020.x-2024.x):
//   bits 56..63 hardware id, 48..55 VM id, 24..47 process id, 0..23 thread id.
//   globalPid is the same number with the thread bits zero. Two processes of one report are
//   the same process only when everything above bit 24 matches (hardware and VM included).
// copyKind (CUDA_MEMCPY_KIND / ENUM_CUDA_MEMCPY_OPER): 0 unknown, 1 HtoD, 2 DtoH, 3 HtoA,
//   4 AtoH, 5 AtoA, 6 AtoD, 7 DtoA, 8 DtoD, 9 HtoH, 10 PtoP.
// srcKind/dstKind/memKind (CUDA_MEMOPR_MEMORY_KIND / ENUM_CUDA_MEM_KIND): 0 pageable,
//   1 pinned, 2 device, 3 array, 4 managed, 5 device static, 6 managed static, 7 unknown.
//   (Not CUPTI's own CUpti_ActivityMemoryKind, which starts with 0 = unknown.)
// syncType (CUpti_ActivitySynchronizationType): 1 event sync, 2 stream wait event,
//   3 stream sync, 4 context sync.
// NVTX eventType: 33 category, 34 mark, 39 thread name, 59 push/pop range, 60 start/end
//   range, 75 domain create, 76 domain destroy.
// Newer exports also carry the enums as tables (ENUM_CUDA_MEMCPY_OPER, ENUM_CUDA_MEM_KIND
// with id/name/label); when present, their names override the built-in tables above.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/tables.h"

namespace gpuwhy {

struct NsysGlobalId {
  int64_t hardware = 0;
  int64_t vm = 0;
  int64_t pid = 0;
  int64_t tid = 0;
};

constexpr NsysGlobalId DecodeNsysGlobalId(int64_t global) {
  uint64_t g = static_cast<uint64_t>(global);
  return {static_cast<int64_t>(g >> 56), static_cast<int64_t>((g >> 48) & 0xff),
          static_cast<int64_t>((g >> 24) & 0xffffff), static_cast<int64_t>(g & 0xffffff)};
}

constexpr int64_t EncodeNsysGlobalTid(int64_t hardware, int64_t vm, int64_t pid, int64_t tid) {
  return static_cast<int64_t>(
      (static_cast<uint64_t>(hardware) << 56) | (static_cast<uint64_t>(vm & 0xff) << 48) |
      (static_cast<uint64_t>(pid & 0xffffff) << 24) | static_cast<uint64_t>(tid & 0xffffff));
}

// The process a globalTid or globalPid belongs to: everything above the thread bits.
constexpr int64_t NsysProcessKey(int64_t global) {
  return static_cast<int64_t>(static_cast<uint64_t>(global) >> 24);
}

inline constexpr int kNvtxMark = 34;
inline constexpr int kNvtxPushPopRange = 59;
inline constexpr int kNvtxStartEndRange = 60;
inline constexpr int kNvtxDomainCreate = 75;

// Maps an export's enum values to the model; Load() adopts the export's own enum tables.
class NsysEnums {
 public:
  NsysEnums();
  // |names[i]| is the ENUM_* table's name for value i ("CUDA_MEMCPY_KIND_HTOD", ...).
  void AdoptCopyKindNames(const std::vector<std::pair<int64_t, std::string_view>>& names);
  void AdoptMemoryKindNames(const std::vector<std::pair<int64_t, std::string_view>>& names);

  CopyDirection Direction(int64_t copy_kind) const;
  MemoryKind Memory(int64_t mem_kind) const;

 private:
  std::vector<CopyDirection> directions_;
  std::vector<MemoryKind> memory_;
};

// "Stream Sync", "Event Sync", ... as the Kineto importer names cuda_sync records.
std::string_view NsysSyncName(int64_t sync_type);

// A Kineto-style memcpy name ("Memcpy HtoD (Pageable -> Device)"), so kernel tables and
// reports read the same whichever format the trace came from.
std::string MemcpyDisplayName(CopyDirection direction, MemoryKind src, MemoryKind dst);

}  // namespace gpuwhy
