#include "ranks/summary_identity.h"

#include <filesystem>

namespace gpuwhy {
namespace {

namespace fs = std::filesystem;

// The folder of |file| as an absolute, normalised path ("" when it cannot be made one).
fs::path FolderOf(const std::string& file) {
  std::error_code ec;
  fs::path absolute = fs::absolute(fs::path(file), ec);
  if (ec) return {};
  return absolute.lexically_normal().parent_path();
}

}  // namespace

bool SummaryDescribesTrace(const RankSummary& summary, const std::string& summary_file,
                           const RankSummary& trace, const std::string& trace_file) {
  if (summary.path.empty()) return false;
  // The summary names its trace as it was given to `analyze --summary` (relative or absolute,
  // from wherever that ran): its file name is what survives a move of the folder.
  if (fs::path(summary.path).filename() != fs::path(trace_file).filename()) return false;
  fs::path folder = FolderOf(summary_file);
  if (folder.empty() || folder != FolderOf(trace_file)) return false;
  if (summary.rank != kNoValue && trace.rank != kNoValue && summary.rank != trace.rank) {
    return false;
  }
  return true;
}

}  // namespace gpuwhy
