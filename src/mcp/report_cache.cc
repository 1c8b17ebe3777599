#include "mcp/report_cache.h"

#include <sys/stat.h>

#include <fmt/format.h>

namespace gpuwhy::mcp {

std::string InputsSignature(const std::vector<std::string>& paths) {
  std::string signature;
  for (const std::string& path : paths) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      signature += fmt::format("{}\n-\n", path);
      continue;
    }
    signature += fmt::format("{}\n{} {}.{}\n", path, static_cast<long long>(st.st_size),
                             static_cast<long long>(st.st_mtim.tv_sec),
                             static_cast<long long>(st.st_mtim.tv_nsec));
  }
  return signature;
}

std::shared_ptr<const CachedReport> ReportCache::Find(ReportKind kind,
                                                      const std::vector<std::string>& paths) {
  const std::string signature = InputsSignature(paths);
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    if (it->report->kind == kind && it->signature == signature) return it->report;
  }
  return nullptr;
}

std::shared_ptr<const CachedReport> ReportCache::FindAny(const std::vector<std::string>& paths) {
  const std::string signature = InputsSignature(paths);
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    if (it->signature == signature) return it->report;
  }
  return nullptr;
}

void ReportCache::Put(std::shared_ptr<const CachedReport> report) {
  std::string signature = InputsSignature(report->paths);
  std::erase_if(entries_, [&](const Entry& e) {
    return e.signature == signature && e.report->kind == report->kind;
  });
  entries_.push_back({std::move(signature), std::move(report)});
  while (entries_.size() > capacity_) entries_.pop_front();
}

}  // namespace gpuwhy::mcp
