#include "model/import_stats.h"

namespace gpuwhy {
namespace {

constexpr ImportStatInfo kInfos[] = {
#define GPUWHY_STAT_INFO(name, id, severity, description) {id, StatSeverity::severity, description},
    GPUWHY_IMPORT_STATS(GPUWHY_STAT_INFO)
#undef GPUWHY_STAT_INFO
};
static_assert(std::size(kInfos) == kImportStatCount);

}  // namespace

const ImportStatInfo& GetImportStatInfo(ImportStat stat) {
  return kInfos[static_cast<size_t>(stat)];
}

std::string_view SeverityName(StatSeverity severity) {
  switch (severity) {
    case StatSeverity::kInfo: return "info";
    case StatSeverity::kDataLoss: return "data_loss";
    case StatSeverity::kError: return "error";
  }
  return "?";
}

bool ImportStats::HasErrors() const {
  for (size_t i = 0; i < kImportStatCount; ++i) {
    if (values_[i] != 0 && kInfos[i].severity == StatSeverity::kError) return true;
  }
  return false;
}

void ImportStats::MergeFrom(const ImportStats& other) {
  for (size_t i = 0; i < kImportStatCount; ++i) {
    values_[i] += other.values_[i];
    if (details_[i].empty()) details_[i] = other.details_[i];
  }
}

}  // namespace gpuwhy
