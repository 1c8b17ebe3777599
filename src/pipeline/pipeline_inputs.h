// The table from input kind to what reads it: every path a command is given is expanded
// (folders into their files, or read whole as a support bundle), classified once by content
// (ingest/input_kind.h) and given a role here; the pipeline then runs the role's importer.
#pragma once

#include <string>
#include <vector>

#include "ingest/input_kind.h"

namespace gpuwhy {

enum class InputRole {
  kTrace,           // Kineto JSON or Nsight Systems SQLite: import, analyze, diagnose
  kRankSummary,     // a --summary file: merged as a rank
  kMetricLog,       // metric series: the signal diagnosis
  kProfileSummary,  // a profiler's summary report (nsys stats, DLProf): its totals' diagnosis
  kNodeLog,         // one node log: read into the platform facts
  kBundle,          // a support-bundle folder: every node log in it (and proc/, sys/ trees)
  kMemorySnapshot,  // _dump_snapshot() pickle or memory_summary() text: the memory diagnosis
  kKernelProfile,   // an Nsight Compute CSV: its kernels joined to the traces' top kernels
  kSkipped,         // not read, with a note (a command that reads node logs only was given a trace)
  kFailed,          // not read: |error| says why, naming what the input is
};

struct PlannedInput {
  std::string path;
  InputClass input;
  InputRole role = InputRole::kFailed;
  std::string error;  // kFailed: "PATH: why"; kSkipped: the note
};

// What a command reads. Traces are read unless |traces| is false (gpuwhy doctor): then every
// folder is a support bundle and a trace is skipped with a note.
struct InputPolicy {
  bool traces = true;
  bool rank_summaries = true;
  bool metric_logs = true;
  bool node_logs = true;
  bool memory_snapshots = true;  // read only where traces are
  bool kernel_profiles = true;   // Nsight Compute exports, read where traces are
};

// The inputs-argument help of a command that reads |policy|: "Files or folders, recognised by
// content: " and every kind the policy gives a role (InputKindHelp), from the same table
// PlanInputs uses, so the help cannot name a kind the command refuses or miss one it reads.
std::string AcceptedInputsHelp(const InputPolicy& policy);

// One entry per file (a folder's trace files in name order, or the folder itself when it is a
// bundle), in input order.
std::vector<PlannedInput> PlanInputs(const std::vector<std::string>& paths,
                                     const InputPolicy& policy);

}  // namespace gpuwhy
