// Front door of ingest/: expands paths and picks the importer by content, never by name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/trace.h"

namespace gpuwhy {

// Expands files and directories (recursively, trace-like files only) into a sorted list.
StatusOr<std::vector<std::string>> ExpandInputPaths(const std::vector<std::string>& paths);

// Imports one file whatever its format; the rank is taken from the file name
// (rank-3, rank_3, worker3) when the trace itself does not say.
StatusOr<Trace> ImportTraceFile(const std::string& path);

// kDataLoss with a one-line "PATH: byte N: truncated: ..." message when the input was
// only partly readable (a cut file); Ok otherwise. Commands print it, keep the partial
// results, and exit non-zero.
Status PartialInputStatus(const Trace& trace);

// The rank a file name (or, failing that, its folder name) states: rank-3, rank_3, rank3,
// worker3, case-insensitive, at the start of a word. Exposed for tests.
std::optional<int64_t> ParseRankFromFileName(const std::string& path);

}  // namespace gpuwhy
