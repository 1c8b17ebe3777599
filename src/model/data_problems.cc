#include "model/data_problems.h"

#include <algorithm>

namespace gpuwhy {
namespace {

constexpr DataProblemInfo kInfos[] = {
#define GPUWHY_PROBLEM_INFO(name, id, severity, description) \
  {id, ProblemSeverity::severity, description},
    GPUWHY_DATA_PROBLEMS(GPUWHY_PROBLEM_INFO)
#undef GPUWHY_PROBLEM_INFO
};
static_assert(std::size(kInfos) == kDataProblemCount);

}  // namespace

const DataProblemInfo& GetDataProblemInfo(DataProblem kind) {
  return kInfos[static_cast<size_t>(kind)];
}

std::optional<DataProblem> FindDataProblem(std::string_view id) {
  for (size_t i = 0; i < kDataProblemCount; ++i) {
    if (kInfos[i].id == id) return static_cast<DataProblem>(i);
  }
  return std::nullopt;
}

std::string_view SeverityName(ProblemSeverity severity) {
  switch (severity) {
    case ProblemSeverity::kInfo: return "info";
    case ProblemSeverity::kDataLoss: return "data_loss";
    case ProblemSeverity::kError: return "error";
  }
  return "?";
}

void DataProblems::Add(DataProblem kind, std::string detail, int64_t by) {
  counts_[Index(kind)] += by;
  std::vector<std::string>& details = details_[Index(kind)];
  if (details.size() < kMaxDetails) details.push_back(std::move(detail));
}

std::string_view DataProblems::Detail(DataProblem kind) const {
  const std::vector<std::string>& details = details_[Index(kind)];
  return details.empty() ? std::string_view() : std::string_view(details.front());
}

std::vector<DataProblem> DataProblems::Kinds() const {
  std::vector<DataProblem> out;
  for (size_t i = 0; i < kDataProblemCount; ++i) {
    if (counts_[i] != 0) out.push_back(static_cast<DataProblem>(i));
  }
  return out;
}

bool DataProblems::empty() const { return Kinds().empty(); }

int64_t DataProblems::Total() const {
  int64_t total = 0;
  for (int64_t count : counts_) total += count;
  return total;
}

ProblemSeverity DataProblems::WorstSeverity() const {
  ProblemSeverity worst = ProblemSeverity::kInfo;
  for (DataProblem kind : Kinds()) worst = std::max(worst, GetDataProblemInfo(kind).severity);
  return worst;
}

void DataProblems::MergeFrom(const DataProblems& other) {
  for (size_t i = 0; i < kDataProblemCount; ++i) {
    counts_[i] += other.counts_[i];
    for (const std::string& detail : other.details_[i]) {
      if (details_[i].size() == kMaxDetails) break;
      details_[i].push_back(detail);
    }
  }
}

std::string DataProblems::Describe() const {
  std::string out;
  for (DataProblem kind : Kinds()) {
    if (!out.empty()) out += ", ";
    out += std::string(GetDataProblemInfo(kind).id) + " x" + std::to_string(Get(kind));
    std::string details;
    for (const std::string& detail : Details(kind))
      details += (details.empty() ? "" : "; ") + detail;
    if (!details.empty()) out += " (" + details + ")";
  }
  return out;
}

}  // namespace gpuwhy
