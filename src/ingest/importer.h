// Front door of ingest/: expands paths and picks the importer by content, never by name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "ingest/input_kind.h"
#include "model/trace.h"

namespace gpuwhy {

// Expands files and directories (recursively, trace-like files only) into a sorted list.
StatusOr<std::vector<std::string>> ExpandInputPaths(const std::vector<std::string>& paths);

struct ImportOptions {
  // Nsight Systems SQLite: ECMAScript regex naming the NVTX ranges that are training steps
  // (empty: ProfilerStep#N, then step / train_step / iteration). Kineto ignores it.
  std::string step_range;
};

// Imports one file whatever its format; the rank is taken from the file name
// (rank-3, rank_3, worker3) when the trace itself does not say. A file holding several
// traces (an Nsight Systems export of several processes) is an error here.
StatusOr<Trace> ImportTraceFile(const std::string& path);

// Every trace one file holds: one for Kineto JSON, one per process that ran GPU work for an
// Nsight Systems SQLite export (ordered by rank).
StatusOr<std::vector<Trace>> ImportTraceFiles(const std::string& path,
                                              const ImportOptions& options = {});

// The same for an input already classified (ClassifyInput): Kineto JSON and Nsight Systems
// SQLite are imported; any other kind is refused with NotATrace's message. An exception from
// an importer is this file's failure ("PATH: internal error reading the file: WHAT",
// base/guarded_read.h), never the caller's.
StatusOr<std::vector<Trace>> ImportTraceFiles(const std::string& path, const InputClass& input,
                                              const ImportOptions& options);

// "PATH: byte N: not a trace (expected Kineto JSON)", "PATH: a Python pickle: not a format
// gpuwhy reads", "PATH: a metric log (nvidia-smi dmon): not a trace (gpuwhy analyze reads
// it ...)": the one message for an input that is not a trace, naming what it is instead.
Status NotATrace(const std::string& path, const InputClass& input);

// kDataLoss with one line naming what |problems| lost ("PATH: byte N: input stops after ...
// (truncated; the events before the cut were kept); malformed_event x3, first: byte M: ...")
// when any kind of data-loss or error severity was counted; Ok otherwise. The input is still
// usable: commands keep the partial results, print this as a warning and exit 0, or 2 under
// --strict (README: exit codes).
Status DataLossStatus(const std::string& path, const DataProblems& problems);

// The rank a file name (or, failing that, its folder name) states: rank-3, rank_3, rank3,
// worker3, case-insensitive, at the start of a word. Exposed for tests.
std::optional<int64_t> ParseRankFromFileName(const std::string& path);

}  // namespace gpuwhy
