// The reports the session has computed, so that `finding` and `capture` on the paths of an
// earlier `analyze` answer from the same report (the same ids) without reading the inputs
// again. Keyed by what was read and how (the tool, the paths, each path's size and
// modification time: a rewritten trace is read again); a few reports at most.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "pipeline/report_model.h"

namespace gpuwhy::mcp {

enum class ReportKind { kAnalyze, kDoctor };

struct CachedReport {
  ReportKind kind = ReportKind::kAnalyze;
  std::vector<std::string> paths;
  Report report;
  std::string json;  // RenderReportJson of |report|: what `gpuwhy analyze --format json` writes
};

// What identifies the inputs' state: each path with its size and modification time.
std::string InputsSignature(const std::vector<std::string>& paths);

class ReportCache {
 public:
  explicit ReportCache(size_t capacity = 4) : capacity_(capacity) {}

  // The report of |paths| as |kind| read them while they are unchanged, or null.
  std::shared_ptr<const CachedReport> Find(ReportKind kind, const std::vector<std::string>& paths);
  // The most recent report of |paths| of any kind (finding, capture), or null.
  std::shared_ptr<const CachedReport> FindAny(const std::vector<std::string>& paths);
  void Put(std::shared_ptr<const CachedReport> report);

 private:
  struct Entry {
    std::string signature;
    std::shared_ptr<const CachedReport> report;
  };
  size_t capacity_;
  std::deque<Entry> entries_;  // most recent last
};

}  // namespace gpuwhy::mcp
