// Reads an Nsight Systems SQLite export (`nsys export --type sqlite report.nsys-rep`) into
// one Trace per profiled process that ran GPU work. Read-only: the file is opened immutable.
// Tables, columns and encodings read: docs/nsys.md.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "model/trace.h"

namespace gpuwhy {

struct NsysImportOptions {
  // ECMAScript regex an NVTX range name must match in full to be a training step. Empty:
  // "ProfilerStep#N" ranges, else ranges named step / train_step / iteration (optionally
  // numbered), else one step spans the capture.
  std::string step_range;
};

// Traces ordered by rank. Fails with kInvalidArgument and a one-line "PATH: why" when the
// file is not an Nsight Systems export, lacks the kernel table, or captured no GPU work
// (the message then says how to capture it).
StatusOr<std::vector<Trace>> ImportNsysSqlite(const std::string& path,
                                              const NsysImportOptions& options = {});

// The command line that records what gpuwhy needs, quoted in error messages.
inline constexpr const char* kNsysProfileHint =
    "nsys profile --trace=cuda,nvtx,osrt --cuda-memory-usage=true -o report python train.py "
    "&& nsys export --type sqlite report.nsys-rep";

}  // namespace gpuwhy
