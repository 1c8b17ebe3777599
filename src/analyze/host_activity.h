// What the host was doing, row by row: the roles of cpu_slices that the step breakdown and
// the idle-gap attribution share (DataLoader, collectives, blocking syncs, launches) and
// which threads drive the GPU. Computed in one pass over the rows, names classified once.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "model/trace.h"

namespace gpuwhy {

enum HostRole : uint8_t {
  kRoleDataLoader = 1 << 0,        // enumerate(DataLoader)#...__next__, enumerate(DataPipe)#...
  kRolePluginCollective = 1 << 1,  // nccl:* / gloo:* host ops (TensorBoard plugin's set)
  kRoleCollectiveScope = 1 << 2,   // the above plus c10d::* and record_param_comms
  kRoleBlockingSync = 1 << 3,      // synchronize calls, synchronous copies, .item() copies
  kRoleLaunch = 1 << 4,            // runtime/driver call that put GPU work in a queue
  kRoleProfilerStep = 1 << 5,      // ProfilerStep#N
  kRoleItemScope = 1 << 6,         // aten::item / aten::_local_scalar_dense
  kRoleDispatchOp = 1 << 7,        // aten::* op or autograd node: framework dispatch
};

bool IsDataLoaderName(std::string_view name);
bool IsPluginCollectiveName(std::string_view name);
bool IsCollectiveScopeName(std::string_view name);
// Runtime/driver calls that block the host until the GPU (or a copy) is done.
bool IsBlockingSyncCallName(std::string_view name);

struct HostActivity {
  std::vector<uint8_t> roles;               // per cpu_slices row, HostRole bits
  std::vector<uint8_t> under_collective;    // 1 when the row or an ancestor is a collective scope
  ThreadId main_thread;                     // holds ProfilerStep, else issues most launches
  std::vector<ThreadId> launching_threads;  // main thread and every thread that launched, sorted
  int64_t launch_count = 0;
};

HostActivity ClassifyHostActivity(const Trace& trace);

struct AnalysisInput;
// input.host when AnalyzeTrace classified the rows once for every analysis, else the rows
// classified into |scratch|: the step breakdown and the idle gaps both need them.
const HostActivity& SharedHostActivity(const AnalysisInput& input, HostActivity& scratch);

}  // namespace gpuwhy
